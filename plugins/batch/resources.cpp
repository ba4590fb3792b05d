/* The workload manager's resources (manager.hpp): cores, processors, nodes and hosts, from a
 * platform expanded from JSON or from the hosts of the loaded Engine. */
#include "plugins/batch/manager.hpp"

#include "core/foundation/numbers.hpp"
#include "plugins/platform_sim/inspect.hpp"
#include "plugins/sim/energy.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <limits>
#include <string>

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

namespace {
} // namespace

scheduling::Resources resources_from_platform(const platform::Platform& p, uint32_t max_cores)
{
  scheduling::Resources r;
  for (const auto& h : p.hosts)
    r.host_names.push_back(h.name);
  for (uint32_t ni = 0; ni < p.nodes.size(); ni++) {
    const auto& nd = p.nodes[ni];
    if (nd.processor_count == 0)
      continue;
    scheduling::Node node;
    node.first_core      = r.core_count();
    node.first_processor = static_cast<uint32_t>(r.processors.size());
    node.memory_mb       = nd.memory_bytes > 0 ? nd.memory_bytes / 1e6 : kInf;
    for (uint32_t k = 0; k < nd.processor_count; k++) {
      const auto& pd = p.processors[nd.first_processor + k];
      scheduling::Processor pr;
      pr.node             = static_cast<uint32_t>(r.nodes.size());
      pr.first_core       = r.core_count();
      pr.flops_per_core   = pd.flops_per_core;
      pr.mem_bw_gbps      = pd.mem_bw_Bps / 1e9;
      pr.power_per_core_w = pd.tdp_w / pd.cores;
      for (uint32_t c = 0; c < pd.cores; c++) {
        if (max_cores && r.core_count() >= max_cores)
          break;
        r.cores.push_back(scheduling::Core{static_cast<uint32_t>(r.processors.size()),
                                           static_cast<uint32_t>(r.nodes.size()), pd.host_of_core(c)});
        pr.cores++;
      }
      if (pr.cores == 0)
        break;
      r.processors.push_back(pr);
      node.processors++;
    }
    node.cores = r.core_count() - node.first_core;
    if (node.cores == 0)
      break;
    r.nodes.push_back(node);
  }
  return r;
}

scheduling::Resources resources_from_engine(uint32_t max_cores)
{
  scheduling::Resources r;
  for (sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts()) {
    if (not sim::runs_jobs(*h)) // Batsim's master and storage hosts, sgai's gateways
      continue;
    if (max_cores && r.core_count() >= max_cores)
      break;
    auto host = static_cast<uint32_t>(r.host_names.size());
    r.host_names.push_back(h->get_name());
    scheduling::Node node;
    node.first_core      = r.core_count();
    node.first_processor = static_cast<uint32_t>(r.processors.size());
    node.processors      = 1;
    scheduling::Processor pr;
    pr.node           = static_cast<uint32_t>(r.nodes.size());
    pr.first_core     = r.core_count();
    pr.flops_per_core = h->get_speed();
    double idle = 0, full = 0;
    const char* w = h->get_property("wattage_per_state");
    if (w && platform_sim::wattage_bounds(w, idle, full))
      pr.power_per_core_w = full / h->get_core_count();
    for (int c = 0; c < h->get_core_count(); c++) {
      if (max_cores && r.core_count() >= max_cores)
        break;
      r.cores.push_back(
          scheduling::Core{static_cast<uint32_t>(r.processors.size()), static_cast<uint32_t>(r.nodes.size()), host});
      pr.cores++;
    }
    node.cores = pr.cores;
    r.processors.push_back(pr);
    r.nodes.push_back(node);
  }
  // storage hosts (Batsim's role=storage) after the compute hosts: storage profiles use them
  for (sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts())
    if (h->get_property("role") && std::string(h->get_property("role")) == "storage") {
      r.storage_hosts.push_back(static_cast<uint32_t>(r.host_names.size()));
      r.host_names.push_back(h->get_name());
    }
  return r;
}

} // namespace sgai::batch
