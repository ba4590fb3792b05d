/* Figures about the platform loaded in the running Engine (from XML or built from JSON). */
#ifndef SGAI_PLUGINS_PLATFORM_SIM_INSPECT_HPP
#define SGAI_PLUGINS_PLATFORM_SIM_INSPECT_HPP

#include <cstddef>
#include <string>
#include <vector>

namespace sgai::platform_sim {

struct EngineSummary {
  size_t zones                 = 0;
  size_t hosts                 = 0;
  size_t gateway_hosts         = 0; ///< XML gateways (property sgai_role=gateway), not compute resources
  size_t links                 = 0;
  size_t cores                 = 0;
  double peak_flops            = 0; ///< sum over compute hosts of cores x fastest P-state speed
  double idle_w                = 0; ///< sum of the lowest idle wattage of each host
  double max_w                 = 0; ///< sum of the highest all-cores wattage of each host
  size_t hosts_without_wattage = 0;
};

EngineSummary summarize_engine();

struct RouteHop {
  std::string link;
  double bandwidth_Bps = 0;
  double latency_s     = 0;
};

struct RouteSummary {
  std::vector<RouteHop> hops;
  double latency_s      = 0;
  double bottleneck_Bps = 0;
};

/** The route between two named hosts; InputError naming the unknown host otherwise. */
RouteSummary route_between(const std::string& src, const std::string& dst);

/** Parses SimGrid's wattage_per_state ("idle:one:all, ..." or "idle:all, ...") into
 *  (lowest idle, highest all-cores) watts; false when malformed. */
bool wattage_bounds(const std::string& text, double& idle_w, double& max_w);

} // namespace sgai::platform_sim

#endif
