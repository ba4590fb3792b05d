/* Transfers that start together and share links, timed as SimGrid's CM02/LV08 network model times
 * them when nothing else is on those links: each flow pays its latency first (sharing nothing),
 * then the flows in their bandwidth phase share every link by weighted max-min fairness (SimGrid's
 * lmm: a flow's share of a link is its consumption weight over its sharing penalty, links hold
 * their capacity, each flow at most its own bound), and the shares are worked out again whenever a
 * flow enters its bandwidth phase or ends. A link is full when what is left of it is below
 * maxmin/precision of its capacity, as lmm decides. Plain C++ (no SimGrid): the replay's caller
 * gives routes, capacities and penalties (plugins/communicator/network.hpp). */
#ifndef SGAI_PLUGINS_COMMUNICATOR_SHARED_FLOWS_HPP
#define SGAI_PLUGINS_COMMUNICATOR_SHARED_FLOWS_HPP

#include <cstdint>
#include <utility>
#include <vector>

namespace sgai::communicator {

struct SharedFlow {
  double latency = 0; ///< seconds before it shares anything (the route's latency x the latency factor)
  double bytes   = 0;
  double penalty = 1;  ///< SimGrid's sharing penalty (> 0): its share of a link is weight / penalty
  double bound   = -1; ///< its rate's own bound in bytes per second (< 0: none)
  std::vector<std::pair<uint32_t, double>> links; ///< (link, consumption weight > 0), each link once
};

/** The links: capacity[l] is link l's (bytes per second, > 0); fatpipe[l] (when given) says that
 *  link l is a fat pipe, which lmm does not divide by a sum: a flow's level on it is the largest
 *  weight / penalty of its flows (so flows of different penalties still get different shares). */
struct SharedLinks {
  std::vector<double> capacity;
  std::vector<char> fatpipe;
};

/** When each flow of `flows`, all starting at `start`, ends (NaN for all when one would never
 *  end). `precision`: lmm's maxmin/precision (SimGrid's default 1e-5). */
std::vector<double> shared_finish_times(double start, const std::vector<SharedFlow>& flows, const SharedLinks& links,
                                        double precision = 1e-5);

/** The rates of `flows` (every one in its bandwidth phase) by weighted max-min fairness, as above;
 *  infinity for a flow with neither link nor bound, 0 for one left only on full links. */
std::vector<double> max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links,
                                  double precision = 1e-5);

} // namespace sgai::communicator

#endif
