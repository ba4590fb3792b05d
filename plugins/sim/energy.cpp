#include "plugins/sim/energy.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <cmath>
#include <cstring>
#include <limits>

namespace sgai::sim {

namespace {
bool property_is(const simgrid::s4u::Host& host, const char* key, const char* value)
{
  const char* v = host.get_property(key);
  return v != nullptr && std::strcmp(v, value) == 0;
}
} // namespace

bool runs_jobs(const simgrid::s4u::Host& host)
{
  return host.get_name() != "master_host" && not property_is(host, "role", "master") &&
         not property_is(host, "role", "storage") && not property_is(host, "sgai_role", "gateway");
}

bool has_power_model(const simgrid::s4u::Host& host)
{
  return host.get_property("wattage_per_state") != nullptr;
}

std::string EnergyReport::note() const
{
  if (hosts_without_power == 0)
    return "";
  return "no energy figures: " + std::to_string(hosts_without_power) + " host" + (hosts_without_power == 1 ? "" : "s") +
         " that run jobs " + (hosts_without_power == 1 ? "has" : "have") +
         " no wattage_per_state (first: " + first_without_power + ")";
}

std::string EnergyReport::links_note() const
{
  if (links_without_power == 0)
    return "";
  std::string first = " (first: " + first_link_without_power + ")";
  size_t n          = platform_links;
  if (links_without_power == n)
    return "no link energy: " + std::string(n == 1 ? "the platform's link has" : "none of the platform's ") +
           (n == 1 ? "" : std::to_string(n) + " links has") + " wattage_range" + first + ", so links count 0 J";
  return "link energy leaves out " + std::to_string(links_without_power) + " of " + std::to_string(n) +
         " links, which have no wattage_range" + first;
}

std::vector<std::string> EnergyReport::notes() const
{
  std::vector<std::string> out;
  for (std::string n : {note(), links_note()})
    if (not n.empty())
      out.push_back(std::move(n));
  return out;
}

EnergyReport collect_energy(bool with_links)
{
  EnergyReport r;
  const auto* e = simgrid::s4u::Engine::get_instance();
  for (const simgrid::s4u::Host* h : e->get_all_hosts()) {
    // The plugin asserts when asked for a host without wattage_per_state: never ask.
    if (not has_power_model(*h)) {
      r.hosts.push_back({h->get_name(), std::numeric_limits<double>::quiet_NaN()});
      if (runs_jobs(*h) && r.hosts_without_power++ == 0)
        r.first_without_power = h->get_name();
      continue;
    }
    double j = sg_host_get_consumed_energy(h);
    r.hosts.push_back({h->get_name(), j});
    r.hosts_total_j += j;
  }
  if (r.hosts_without_power > 0)
    r.hosts_total_j = std::numeric_limits<double>::quiet_NaN();
  if (with_links)
    for (const simgrid::s4u::Link* l : e->get_all_links()) {
      double j = sg_link_get_consumed_energy(l);
      r.links.push_back({l->get_name(), j});
      r.links_total_j += j;
      if (l->get_name().rfind("__", 0) == 0)
        continue;
      ++r.platform_links;
      if (l->get_property("wattage_range") == nullptr && r.links_without_power++ == 0)
        r.first_link_without_power = l->get_name();
    }
  return r;
}

} // namespace sgai::sim
