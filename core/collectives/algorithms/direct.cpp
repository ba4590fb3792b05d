/* Direct algorithms: every rank sends to every other one at once (ASTRA-sim's `direct`, whose
 * window is all n-1 peers by default): one step where rank r sends to r+1, ..., r+n-1 (mod n),
 * so its n-1 pieces share its links and each one takes the path to its peer.
 *   all-to-all, reduce-scatter: S/n to each peer; all-gather: S to each peer;
 *   all-reduce: direct reduce-scatter, then (once every piece is reduced) direct all-gather;
 *   broadcast (reduce): the root sends S to (receives S from) every rank at once. */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

Schedule direct(CollectiveType type, uint32_t n, uint32_t root)
{
  Schedule s;
  const double piece = 1.0 / n;
  auto rounds        = [&](double fraction, bool reduce) {
    auto& step = new_step(s);
    for (uint32_t r = 0; r < n; r++)
      for (uint32_t k = 1; k < n; k++)
        step.push_back({r, (r + k) % n, fraction, reduce});
  };
  switch (canonical(type)) {
  case CollectiveType::all_to_all:
    rounds(piece, false);
    break;
  case CollectiveType::all_gather:
    rounds(1.0, false);
    break;
  case CollectiveType::reduce_scatter:
    rounds(piece, true);
    break;
  case CollectiveType::all_reduce:
    rounds(piece, true);
    rounds(piece, false);
    break;
  case CollectiveType::broadcast: {
    auto& step = new_step(s);
    for (uint32_t r = 0; r < n; r++)
      if (r != root)
        step.push_back({root, r, 1.0, false});
    break;
  }
  case CollectiveType::reduce: {
    auto& step = new_step(s);
    for (uint32_t r = 0; r < n; r++)
      if (r != root)
        step.push_back({r, root, 1.0, true});
    break;
  }
  default:
    unsupported(type, "direct", "all-to-all, all-gather, reduce-scatter, all-reduce, broadcast, reduce");
  }
  return s;
}

} // namespace sgai::collectives::algorithms
