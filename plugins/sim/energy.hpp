/* Energy figures from SimGrid's host_energy and link_energy plugins. */
#ifndef SGAI_PLUGINS_SIM_ENERGY_HPP
#define SGAI_PLUGINS_SIM_ENERGY_HPP

#include <simgrid/forward.h>

#include <cstddef>
#include <string>
#include <vector>

namespace sgai::sim {

struct EnergyRecord {
  std::string name;
  double joules = 0; ///< NaN for a host without wattage_per_state: it has no energy figure
};

struct EnergyReport {
  std::vector<EnergyRecord> hosts;
  std::vector<EnergyRecord> links;
  /** NaN when a host that runs jobs has no power model: the platform has no energy figure. */
  double hosts_total_j = 0;
  double links_total_j = 0;
  /** Hosts that run jobs without wattage_per_state, and the first of them. */
  size_t hosts_without_power = 0;
  std::string first_without_power;
  /** Links without wattage_range (SimGrid's own private links, named "__...", aside), and the first:
   *  the link_energy plugin counts them 0 J. Counted when links are collected. */
  size_t platform_links = 0, links_without_power = 0;
  std::string first_link_without_power;
  /** "" or one line saying why there are no energy figures (how many hosts, the first named). */
  std::string note() const;
  /** "" or one line saying which links count 0 J for want of wattage_range (how many, the first). */
  std::string links_note() const;
  /** note() and links_note(), those not empty. */
  std::vector<std::string> notes() const;
};

/** Whether a host can run jobs: not Batsim's master host (named master_host or with the property
 *  role=master), not a storage host (role=storage), not an sgai gateway (sgai_role=gateway). */
bool runs_jobs(const simgrid::s4u::Host& host);
/** Whether the host_energy plugin can give this host's energy (it has wattage_per_state). */
bool has_power_model(const simgrid::s4u::Host& host);

/** Energy consumed so far by every host (and link, when link_energy is on), in host order. Hosts
 *  without a power model are listed with NaN and left out of the total; the total is NaN when one
 *  of them runs jobs. */
EnergyReport collect_energy(bool with_links);

} // namespace sgai::sim

#endif
