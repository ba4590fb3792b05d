/* ASTRA-sim's doubleBinaryTree: whatever the collective, an all-reduce of the whole chunk over ONE
 * binary tree, the chunks alternating between two trees (even chunks on the first, odd on the
 * second), as its DoubleBinaryTreeTopology hands them out. For n = 2^k ranks, a tree is a root with
 * a single child, the root of a complete binary tree of k levels (n-1 ranks), ranks numbered in
 * order (left subtree, node, right subtree): in the first tree the subtree holds 0..n-2 and the
 * root is n-1; in the second the root is 0 and the subtree holds 1..n-1. The whole chunk goes up
 * (each parent reduces what its children send) and back down; a rank that has children also
 * reduces what comes down from its parent (ASTRA-sim marks that piece as processed), a leaf does
 * not. A rank's part is over once it has sent its last pieces: it does not wait for them to arrive
 * (ASTRA-sim's stream exits on sending). NCCL's double binary tree, which splits the buffer
 * between two trees at once, is double_binary_tree.cpp. */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

namespace {

struct InOrderTree {
  std::vector<int64_t> parent;
  std::vector<uint32_t> depth;
};

/** A complete subtree of `levels` levels numbered in order from `next`; returns its root. */
uint32_t build(InOrderTree& t, uint32_t levels, uint32_t& next, uint32_t depth)
{
  if (levels == 1) {
    uint32_t id = next++;
    t.depth[id] = depth;
    return id;
  }
  uint32_t left   = build(t, levels - 1, next, depth + 1);
  uint32_t id     = next++;
  uint32_t right  = build(t, levels - 1, next, depth + 1);
  t.parent[left]  = id;
  t.parent[right] = id;
  t.depth[id]     = depth;
  return id;
}

InOrderTree astra_tree(uint32_t n, uint32_t k, bool root_max)
{
  InOrderTree t;
  t.parent.assign(n, -1);
  t.depth.assign(n, 0);
  uint32_t root   = root_max ? n - 1 : 0;
  uint32_t next   = root_max ? 0 : 1;
  uint32_t child  = build(t, k, next, 1);
  t.parent[child] = root;
  return t;
}

} // namespace

Schedule astra_double_binary_tree(CollectiveType /*type*/, uint32_t n, uint32_t /*root*/)
{
  if ((n & (n - 1)) != 0)
    throw std::invalid_argument("ASTRA-sim's doubleBinaryTree covers a power-of-two rank count, not " +
                                std::to_string(n));
  uint32_t k = 0;
  while ((1U << k) < n)
    k++;
  Schedule s;
  s.steps.resize(2 * k);
  s.wait_final_sends = false;
  s.lanes            = 2;
  for (uint16_t parity = 0; parity < 2; parity++) {
    InOrderTree t = astra_tree(n, k, parity == 0);
    std::vector<bool> has_children(n, false);
    for (uint32_t r = 0; r < n; r++)
      if (t.parent[r] >= 0)
        has_children[static_cast<size_t>(t.parent[r])] = true;
    for (uint32_t r = 0; r < n; r++) {
      if (t.parent[r] < 0)
        continue;
      auto p = static_cast<uint32_t>(t.parent[r]);
      // up: the deepest ranks first (depth k at step 0 ... depth 1 at step k-1); down: the
      // root's child receives at step k, the leaves at step 2k-1
      s.steps[k - t.depth[r]].push_back({r, p, 1.0, true, parity});
      s.steps[k - 1 + t.depth[r]].push_back({p, r, 1.0, has_children[r], parity});
    }
  }
  return s;
}

} // namespace sgai::collectives::algorithms
