/* Ring algorithms: every transfer goes from a rank to the next one, (r + 1) mod n.
 *   all-reduce: n-1 reduce-scatter steps then n-1 all-gather steps of S/n each;
 *   reduce-scatter: n-1 steps of S/n; all-gather: n-1 steps of S (each rank's contribution);
 *   all-to-all: store and forward, one block of S/n per step, n(n-1)/2 steps (ASTRA-sim's ring);
 *   broadcast, reduce: a chain from (to) the root, S per step. */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

Schedule ring(CollectiveType type, uint32_t n, uint32_t root)
{
  Schedule s;
  const double piece = 1.0 / n;
  auto round         = [&](double fraction, bool reduce) {
    auto& step = new_step(s);
    for (uint32_t r = 0; r < n; r++)
      step.push_back({r, (r + 1) % n, fraction, reduce});
  };
  switch (canonical(type)) {
  case CollectiveType::all_reduce:
    for (uint32_t k = 0; k + 1 < n; k++)
      round(piece, true);
    for (uint32_t k = 0; k + 1 < n; k++)
      round(piece, false);
    break;
  case CollectiveType::reduce_scatter:
    for (uint32_t k = 0; k + 1 < n; k++)
      round(piece, true);
    break;
  case CollectiveType::all_gather:
    for (uint32_t k = 0; k + 1 < n; k++)
      round(1.0, false);
    break;
  case CollectiveType::all_to_all:
    for (uint32_t k = 1; k < n; k++)
      for (uint32_t b = k; b < n; b++)
        round(piece, false);
    break;
  case CollectiveType::broadcast:
    for (uint32_t k = 0; k + 1 < n; k++)
      new_step(s).push_back({(root + k) % n, (root + k + 1) % n, 1.0, false});
    break;
  case CollectiveType::reduce:
    for (uint32_t k = 0; k + 1 < n; k++)
      new_step(s).push_back({(root + k + 1) % n, (root + k + 2) % n, 1.0, true});
    break;
  default:
    unsupported(type, "ring", "all-reduce, reduce-scatter, all-gather, all-to-all, broadcast, reduce");
  }
  return s;
}

Schedule ring_channels(CollectiveType type, uint32_t n, uint32_t channels, uint32_t block, bool lanes)
{
  if (channels <= 1 || block <= 1 || n % block != 0 || n == block)
    return ring(type, n, 0); // one node, or no node structure: the rotated rings are one cycle
  auto t = canonical(type);
  if (t != CollectiveType::all_reduce && t != CollectiveType::reduce_scatter && t != CollectiveType::all_gather)
    return ring(type, n, 0);
  // ring c visits every node's ranks from the c-th (mod block): its hop between nodes leaves from
  // rank c-1 of a node and enters rank c of the next one
  std::vector<std::vector<uint32_t>> next(channels, std::vector<uint32_t>(n));
  for (uint32_t c = 0; c < channels; c++) {
    std::vector<uint32_t> order;
    for (uint32_t node = 0; node < n / block; node++)
      for (uint32_t i = 0; i < block; i++)
        order.push_back(node * block + (c + i) % block);
    for (uint32_t k = 0; k < n; k++)
      next[c][order[k]] = order[(k + 1) % n];
  }
  Schedule s;
  if (lanes)
    s.lanes = static_cast<uint16_t>(channels);
  const double share = lanes ? 1.0 : 1.0 / channels;
  auto round         = [&](double fraction, bool reduce) {
    auto& step = new_step(s);
    for (uint32_t c = 0; c < channels; c++)
      for (uint32_t r = 0; r < n; r++)
        step.push_back(
                    {r, next[c][r], fraction * share, reduce, lanes ? static_cast<uint16_t>(c) : Transfer::kEveryLane});
  };
  const uint32_t steps = n - 1;
  if (t != CollectiveType::all_gather)
    for (uint32_t k = 0; k < steps; k++)
      round(1.0 / n, true);
  if (t == CollectiveType::all_reduce)
    for (uint32_t k = 0; k < steps; k++)
      round(1.0 / n, false);
  if (t == CollectiveType::all_gather)
    for (uint32_t k = 0; k < steps; k++)
      round(1.0, false);
  return s;
}

} // namespace sgai::collectives::algorithms
