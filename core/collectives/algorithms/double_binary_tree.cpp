/* Double binary tree all-reduce (NCCL's): two binary trees each carry half of the buffer, reduced
 * up to the root and broadcast back down. Tree 1 is NCCL's: rank r with lowest set bit b has
 * parent (r xor b) | 2b (r xor b when that is past the end) and children r - b/2 and r + b/2;
 * rank 0 is the root, with the highest power of two below n as its only child. Tree 2 mirrors
 * it (r -> n-1-r), so that each rank is a leaf in one tree. With D the depth of the trees, the
 * reduction takes D steps (nodes of depth D-j send to their parents at step j) and the broadcast
 * D more (nodes of depth j send to their children). */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

namespace {

struct Tree {
  std::vector<int64_t> parent; ///< -1 for the root
  std::vector<uint32_t> depth;
  uint32_t max_depth = 0;
};

Tree nccl_tree(uint32_t n)
{
  Tree t;
  t.parent = nccl_btree_parents(n);
  t.depth.assign(n, 0);
  for (uint32_t r = 0; r < n; r++) {
    uint32_t d = 0;
    for (int64_t p = t.parent[r]; p >= 0; p = t.parent[static_cast<size_t>(p)])
      d++;
    t.depth[r]  = d;
    t.max_depth = std::max(t.max_depth, d);
  }
  return t;
}

} // namespace

std::vector<int64_t> nccl_btree_parents(uint32_t n)
{
  std::vector<int64_t> parent(n, -1);
  for (uint32_t r = 1; r < n; r++) {
    uint32_t b  = r & (~r + 1);
    uint32_t up = (r ^ b) | (b << 1);
    parent[r]   = up >= n ? (r ^ b) : up;
  }
  return parent;
}

Schedule double_binary_tree(CollectiveType type, uint32_t n, uint32_t /*root*/)
{
  if (canonical(type) != CollectiveType::all_reduce)
    unsupported(type, "double binary tree", "all-reduce");
  Tree t      = nccl_tree(n);
  auto mirror = [n](uint32_t r) { return n - 1 - r; };
  Schedule s;
  // reduction: deepest first; tree 2's rank r is tree 1's rank mirror(r)
  for (uint32_t j = 0; j < t.max_depth; j++) {
    auto& step = new_step(s);
    uint32_t d = t.max_depth - j;
    for (uint32_t r = 0; r < n; r++)
      if (t.depth[r] == d) {
        auto p = static_cast<uint32_t>(t.parent[r]);
        step.push_back({r, p, 0.5, true});
        step.push_back({mirror(r), mirror(p), 0.5, true});
      }
  }
  for (uint32_t d = 1; d <= t.max_depth; d++) {
    auto& step = new_step(s);
    for (uint32_t r = 0; r < n; r++)
      if (t.depth[r] == d) {
        auto p = static_cast<uint32_t>(t.parent[r]);
        step.push_back({p, r, 0.5, false});
        step.push_back({mirror(p), mirror(r), 0.5, false});
      }
  }
  return s;
}

} // namespace sgai::collectives::algorithms
