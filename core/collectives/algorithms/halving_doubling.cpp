/* Halving-doubling (Rabenseifner) over a power-of-two rank count, k = log2 n steps per phase, the
 * largest messages between the nearest ranks (ASTRA-sim's order: on a ring they cross the fewest
 * links):
 *   reduce-scatter by recursive halving: step j exchanges S/2^(j+1) with r xor 2^j (neighbours
 *   first, the partner twice as far at each step);
 *   all-gather by recursive doubling: step j exchanges 2^j contributions with r xor n/2^(j+1)
 *   (the farthest first, with the smallest message);
 *   all-reduce: the first, then the second on the S/n pieces;
 *   broadcast (reduce): a binomial tree, k steps of S. */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

Schedule halving_doubling(CollectiveType type, uint32_t n, uint32_t root)
{
  if ((n & (n - 1)) != 0)
    throw std::invalid_argument("halving-doubling needs a power-of-two rank count, not " + std::to_string(n));
  uint32_t k = 0;
  while ((1U << k) < n)
    k++;
  Schedule s;
  auto halving = [&]() {
    for (uint32_t j = 0; j < k; j++) {
      auto& step = new_step(s);
      for (uint32_t r = 0; r < n; r++)
        step.push_back({r, r ^ (1U << j), 1.0 / (2U << j), true});
    }
  };
  auto doubling = [&](double contribution) {
    for (uint32_t j = 0; j < k; j++) {
      auto& step = new_step(s);
      for (uint32_t r = 0; r < n; r++)
        step.push_back({r, r ^ (n >> (j + 1)), contribution * (1U << j), false});
    }
  };
  switch (canonical(type)) {
  case CollectiveType::all_reduce:
    halving();
    doubling(1.0 / n);
    break;
  case CollectiveType::reduce_scatter:
    halving();
    break;
  case CollectiveType::all_gather:
    doubling(1.0);
    break;
  case CollectiveType::broadcast:
    // binomial tree on ranks relative to the root: at step j, ranks below 2^j send to r + 2^j
    for (uint32_t j = 0; j < k; j++) {
      auto& step = new_step(s);
      for (uint32_t v = 0; v < (1U << j); v++)
        step.push_back({(v + root) % n, (v + (1U << j) + root) % n, 1.0, false});
    }
    break;
  case CollectiveType::reduce:
    for (uint32_t j = k; j-- > 0;) {
      auto& step = new_step(s);
      for (uint32_t v = 0; v < (1U << j); v++)
        step.push_back({(v + (1U << j) + root) % n, (v + root) % n, 1.0, true});
    }
    break;
  default:
    unsupported(type, "halving-doubling", "all-reduce, reduce-scatter, all-gather, broadcast, reduce");
  }
  return s;
}

} // namespace sgai::collectives::algorithms
