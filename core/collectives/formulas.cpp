/* Alpha-beta times of the schedules in algorithms/, in closed form (docs/replay.md lists them).
 * A step where a rank sends or receives b bytes in total costs alpha + b / bandwidth; steps follow
 * each other; chunks run one after the other. */
#include "core/collectives/algorithms/common.hpp"

#include <cmath>

namespace sgai::collectives {

namespace {

double one_chunk(CollectiveType type, Algorithm algorithm, uint32_t n, double s, double a, double b)
{
  const double N = n;
  if (n <= 1)
    return 0;
  type = canonical(type);
  switch (algorithm) {
  case Algorithm::ring:
    switch (type) {
    case CollectiveType::all_reduce:
      return 2 * (N - 1) * (a + s / (N * b));
    case CollectiveType::reduce_scatter:
      return (N - 1) * (a + s / (N * b));
    case CollectiveType::all_gather:
      return (N - 1) * (a + s / b);
    case CollectiveType::all_to_all:
      return N * (N - 1) / 2 * (a + s / (N * b));
    case CollectiveType::broadcast:
    case CollectiveType::reduce:
      return (N - 1) * (a + s / b);
    default:
      break;
    }
    break;
  case Algorithm::direct: // one step: a rank's n-1 pieces share its bandwidth
    switch (type) {
    case CollectiveType::all_to_all:
    case CollectiveType::reduce_scatter:
      return a + (N - 1) * s / (N * b);
    case CollectiveType::all_gather:
      return a + (N - 1) * s / b;
    case CollectiveType::all_reduce:
      return 2 * (a + (N - 1) * s / (N * b));
    case CollectiveType::broadcast:
    case CollectiveType::reduce:
      return a + (N - 1) * s / b;
    default:
      break;
    }
    break;
  case Algorithm::halving_doubling: {
    double k = std::log2(N);
    switch (type) {
    case CollectiveType::all_reduce:
      return 2 * k * a + 2 * (N - 1) / N * s / b;
    case CollectiveType::reduce_scatter:
      return k * a + (N - 1) / N * s / b;
    case CollectiveType::all_gather:
      return k * a + (N - 1) * s / b;
    case CollectiveType::broadcast:
    case CollectiveType::reduce:
      return k * (a + s / b);
    default:
      break;
    }
    break;
  }
  case Algorithm::double_binary_tree:
    if (type == CollectiveType::all_reduce) {
      if ((n & (n - 1)) != 0)
        throw std::invalid_argument("the double binary tree's closed form holds for power-of-two rank counts");
      // D = log2 n levels up and down; a parent receives two halves (S) at every level but the
      // root's, and sends two halves at every level of the broadcast but the root's.
      double d = std::log2(N);
      return 2 * d * a + (2 * d - 1) * s / b;
    }
    break;
  case Algorithm::astra_tree:
    throw std::invalid_argument("ASTRA-sim's tree has no closed form here (its chunks overlap between ranks)");
  case Algorithm::nvls:
    if (type == CollectiveType::all_reduce) // one step: S (1 + 1/n) in and out of every rank
      return a + (N + 1) / N * s / b;
    break;
  }
  // same message as make_schedule's
  make_schedule(type, algorithm, n);
  return 0;
}

} // namespace

double alpha_beta_time(CollectiveType type, Algorithm algorithm, uint32_t ranks, double bytes, double alpha_s,
                       double bandwidth_Bps, uint32_t chunks)
{
  if (chunks == 0)
    throw std::invalid_argument("a collective is cut in at least one chunk");
  return chunks * one_chunk(type, algorithm, ranks, bytes / chunks, alpha_s, bandwidth_Bps);
}

} // namespace sgai::collectives
