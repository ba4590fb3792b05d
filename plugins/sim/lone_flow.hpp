/* The isolated-transfer time of a route under the platform's SimGrid network model: what a single
 * Comm::sendto between two hosts takes when nothing else shares its links. The AI-ops "analytic"
 * transfer mode (PipeSim's granularity) charges this; the "contended" mode runs the communication.
 * The replay works out a collective that has the network to itself with it (plugins/replay/
 * communicator.hpp). Needs a loaded platform; reads the model's factors from SimGrid's
 * configuration. */
#ifndef SGAI_PLUGINS_SIM_LONE_FLOW_HPP
#define SGAI_PLUGINS_SIM_LONE_FLOW_HPP

#include <simgrid/forward.h>

#include <string>
#include <utility>
#include <vector>

namespace sgai::sim {

/** SimGrid's network-model settings that shape a lone flow. */
struct NetworkFactors {
  /** (minimum size, factor) pairs, by increasing size: network/latency-factor and
   *  network/bandwidth-factor (one number each in SimGrid 3.32: a single pair from size 0). */
  std::vector<std::pair<double, double>> latency, bandwidth;
  double tcp_gamma  = 0;     ///< network/TCP-gamma: a flow's rate is at most gamma / (2 x route latency)
  bool crosstraffic = false; ///< network/crosstraffic: acknowledgements load the reverse route at 5%
  double latency_factor(double bytes) const;
  double bandwidth_factor(double bytes) const;
  /** From the running Engine's configuration. */
  static NetworkFactors current();
  /** Whether the running Engine's models time a lone flow as isolated_transfer_time() says: the
   *  CM02 or LV08 network model (SMPI's piecewise factors, IB's penalties, ns-3 and the parallel
   *  tasks of host/model:ptask_L07 time it otherwise). */
  static bool model_is_exact();
};

/** What a route contributes to a lone flow: the sum of its latencies, and the rate its links allow
 *  (each link's bandwidth over its load from this one flow: 1, plus 0.05 where the reverse route
 *  crosses the same shared link with cross traffic on; fat pipes are never shared). */
struct RouteCost {
  double latency   = 0;
  double link_rate = 0; ///< the least bandwidth / load of its links (bytes per second; infinity without links)
};
RouteCost route_cost(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, const NetworkFactors& f);

/** Seconds a lone transfer of `bytes` takes over a route: latency x latency factor + bytes / rate,
 *  the rate being the bandwidth factor x the lesser of the links' rate (route_cost) and TCP-gamma's
 *  window bound, gamma / (2 x latency). */
double isolated_transfer_time(const RouteCost& route, double bytes, const NetworkFactors& f);
/** The same from the hosts, reading the factors from the running Engine. */
double isolated_transfer_time(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, double bytes);

} // namespace sgai::sim

#endif
