/* Direct algorithms: every rank exchanges with every other one, in n-1 rounds where round k sends
 * from r to (r + k) mod n, so at most n flows are in flight and each rank sends and receives one
 * piece per round (a non-blocking switch carries a round at full bandwidth).
 *   all-to-all, reduce-scatter: n-1 rounds of S/n; all-gather: n-1 rounds of S;
 *   all-reduce: direct reduce-scatter, then direct all-gather;
 *   broadcast (reduce): the root sends S to (receives S from) every rank at once. */
#include "plugins/replay/algorithms/common.hpp"

namespace sgai::replay::algorithms {

Schedule direct(CollectiveType type, uint32_t n, uint32_t root)
{
  Schedule s;
  const double piece = 1.0 / n;
  auto rounds        = [&](double fraction, bool reduce) {
    for (uint32_t k = 1; k < n; k++) {
      auto& step = new_step(s);
      for (uint32_t r = 0; r < n; r++)
        step.push_back({r, (r + k) % n, fraction, reduce});
    }
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

} // namespace sgai::replay::algorithms
