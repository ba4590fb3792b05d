/* NCCL's trees across nodes, all-reduce, for ranks that fill nodes of `ppn` GPUs in order (rank =
 * node x ppn + local). NCCL pipelines them in small chunks, so in steady state every edge of every
 * tree carries data at once: sgai runs each as one step of concurrent transfers, whose bytes per
 * link are the pipeline's, and charges the pipeline's latency (NCCL's model) once at the start
 * (nccl::costs). The two trees of NCCL's double binary tree are its binary tree over the nodes
 * (ncclGetBtree, nccl_btree_parents) and its mirror, so that a node inner in one is a leaf in the
 * other; NCCL's channels alternate between them, and a node's channels use its NICs in turn, so
 * the channels of local rank k use rank k's path to the network (its rail).
 *
 * tree: for each local rank k and each of the two trees, a channel carrying S / (2 ppn): in every
 * node a chain from local rank k (the head, on the tree of nodes) through k+1, ..., k-1; up the
 * chains and the tree of heads, each receiver reducing, then down again. In one node it is the
 * chains alone (NCCL's tree inside a node).
 * nvls_tree: inside each node the NVLS all-reduce's traffic (algorithms/nvls.cpp: (ppn + 1) /
 * (ppn (ppn - 1)) of S to each other GPU of the node, reduced by the switch), and for each local
 * rank k its shard, S / ppn, all-reduced between the nodes' ranks k over the two trees (S / (2 ppn)
 * each, up reduced, then down).
 * nvls_sharp: the same NVLS traffic in each node, and each local rank k's shard S / ppn once to the
 * switches and back reduced (SHARP), run as a shift of the shard to rank k of the next node. */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

namespace {

void check(CollectiveType type, uint32_t ranks, uint32_t ppn, const char* name, uint32_t min_nodes)
{
  if (canonical(type) != CollectiveType::all_reduce)
    unsupported(type, name, "all-reduce");
  if (ppn == 0 || ranks % ppn != 0 || ranks / ppn < min_nodes)
    throw std::invalid_argument(std::string(name) + " needs " + (min_nodes > 1 ? "at least two nodes" : "nodes") +
                                " of the same number of GPUs (" + std::to_string(ranks) + " ranks, " +
                                std::to_string(ppn) + " per node)");
}

/** Up (reduced) and down transfers of `fraction` between the ranks `local` of every node, over
 *  tree t of the double binary tree of nodes. */
void tree_of_nodes(std::vector<collectives::Transfer>& step, uint32_t nodes, uint32_t ppn, uint32_t local, int t,
                   const std::vector<int64_t>& parents, double fraction)
{
  auto node_of = [&](uint32_t i) { return t == 0 ? i : nodes - 1 - i; };
  for (uint32_t i = 1; i < nodes; i++) {
    uint32_t child  = node_of(i) * ppn + local;
    uint32_t parent = node_of(static_cast<uint32_t>(parents[i])) * ppn + local;
    step.push_back({child, parent, fraction, true});
    step.push_back({parent, child, fraction, false});
  }
}

} // namespace

Schedule nccl_tree(CollectiveType type, uint32_t ranks, uint32_t ppn)
{
  check(type, ranks, ppn, "NCCL's tree", 1);
  const uint32_t nodes = ranks / ppn;
  const auto parents   = nccl_btree_parents(nodes);
  const double f       = 1.0 / (2.0 * ppn);
  Schedule s;
  auto& step = new_step(s);
  for (uint32_t k = 0; k < ppn; k++)
    for (int t = 0; t < 2; t++) {
      for (uint32_t node = 0; node < nodes; node++)
        for (uint32_t j = 0; j + 1 < ppn; j++) { // chain k, k+1, ...: up towards the head, then down
          uint32_t near = node * ppn + (k + j) % ppn, far = node * ppn + (k + j + 1) % ppn;
          step.push_back({far, near, f, true});
          step.push_back({near, far, f, false});
        }
      tree_of_nodes(step, nodes, ppn, k, t, parents, f);
    }
  return s;
}

namespace {

/** One step holding each node's NVLS all-reduce traffic (`name`: the algorithm, for errors). */
Schedule nvls_in_nodes(CollectiveType type, uint32_t ranks, uint32_t ppn, const char* name)
{
  check(type, ranks, ppn, name, 2);
  if (ppn < 2)
    throw std::invalid_argument(std::string(name) + " needs NVLS inside nodes of at least two GPUs");
  const double in_node = (ppn + 1.0) / (static_cast<double>(ppn) * (ppn - 1));
  Schedule s;
  auto& step = new_step(s);
  for (uint32_t node = 0; node < ranks / ppn; node++)
    for (uint32_t a = 0; a < ppn; a++)
      for (uint32_t b = 1; b < ppn; b++)
        step.push_back({node * ppn + a, node * ppn + (a + b) % ppn, in_node, false});
  return s;
}

} // namespace

Schedule nvls_tree(CollectiveType type, uint32_t ranks, uint32_t ppn)
{
  Schedule s           = nvls_in_nodes(type, ranks, ppn, "NVLS-tree");
  const uint32_t nodes = ranks / ppn;
  const auto parents   = nccl_btree_parents(nodes);
  auto& step           = s.steps.front();
  for (uint32_t k = 0; k < ppn; k++)
    for (int t = 0; t < 2; t++)
      tree_of_nodes(step, nodes, ppn, k, t, parents, 1.0 / (2.0 * ppn));
  return s;
}

Schedule nvls_sharp(CollectiveType type, uint32_t ranks, uint32_t ppn)
{
  Schedule s           = nvls_in_nodes(type, ranks, ppn, "NVLS with SHARP");
  const uint32_t nodes = ranks / ppn;
  auto& step           = s.steps.front();
  for (uint32_t node = 0; node < nodes; node++)
    for (uint32_t k = 0; k < ppn; k++)
      step.push_back({node * ppn + k, ((node + 1) % nodes) * ppn + k, 1.0 / ppn, false});
  return s;
}

} // namespace sgai::collectives::algorithms
