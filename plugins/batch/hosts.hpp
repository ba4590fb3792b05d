/* The workload manager's hosts (private to plugins/batch): SimGrid's host of each host index of the
 * resources, and the cores and processors each holds. The manager fills it; its executor pool,
 * machine power switching and interference P-states read it. */
#ifndef SGAI_PLUGINS_BATCH_HOSTS_HPP
#define SGAI_PLUGINS_BATCH_HOSTS_HPP

#include <simgrid/forward.h>

#include <cstdint>
#include <vector>

namespace sgai::batch {

struct HostMap {
  /** By host index: the SimGrid host (set when the manager starts; null: a host it does not use). */
  std::vector<simgrid::s4u::Host*> sg;
  std::vector<std::vector<uint32_t>> cores;        ///< each host's cores
  std::vector<std::vector<uint32_t>> processors;   ///< each host's processors
  std::vector<std::vector<uint32_t>> of_processor; ///< each processor's hosts
  std::vector<uint32_t> used;                      ///< the hosts with cores (they run jobs), in order
};

} // namespace sgai::batch

#endif
