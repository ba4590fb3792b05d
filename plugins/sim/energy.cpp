#include "plugins/sim/energy.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

namespace sgai::sim {

EnergyReport collect_energy(bool with_links)
{
  EnergyReport r;
  const auto* e = simgrid::s4u::Engine::get_instance();
  for (const simgrid::s4u::Host* h : e->get_all_hosts()) {
    double j = sg_host_get_consumed_energy(h);
    r.hosts.push_back({h->get_name(), j});
    r.hosts_total_j += j;
  }
  if (with_links)
    for (const simgrid::s4u::Link* l : e->get_all_links()) {
      double j = sg_link_get_consumed_energy(l);
      r.links.push_back({l->get_name(), j});
      r.links_total_j += j;
    }
  return r;
}

} // namespace sgai::sim
