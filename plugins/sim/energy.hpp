/* Energy figures from SimGrid's host_energy and link_energy plugins. */
#ifndef SGAI_SIM_ENERGY_HPP
#define SGAI_SIM_ENERGY_HPP

#include <string>
#include <vector>

namespace sgai::sim {

struct EnergyRecord {
  std::string name;
  double joules = 0;
};

struct EnergyReport {
  std::vector<EnergyRecord> hosts;
  std::vector<EnergyRecord> links;
  double hosts_total_j = 0;
  double links_total_j = 0;
};

/** Energy consumed so far by every host (and link, when link_energy is on), in host order. */
EnergyReport collect_energy(bool with_links);

} // namespace sgai::sim

#endif
