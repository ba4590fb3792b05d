#include "plugins/platform_sim/inspect.hpp"

#include "core/foundation/error.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <algorithm>
#include <charconv>
#include <limits>
#include <sstream>

namespace sgai::platform_sim {

namespace sg4 = simgrid::s4u;

namespace {

size_t count_zones(const sg4::NetZone* z)
{
  if (z == nullptr) // an XML platform without any zone: SimGrid has no root zone
    return 0;
  size_t n = 1;
  for (const sg4::NetZone* child : z->get_children())
    n += count_zones(child);
  return n;
}

bool parse_double(std::string_view s, double& out)
{
  while (not s.empty() && s.front() == ' ')
    s.remove_prefix(1);
  while (not s.empty() && s.back() == ' ')
    s.remove_suffix(1);
  auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && end == s.data() + s.size();
}

} // namespace

bool wattage_bounds(const std::string& text, double& idle_w, double& max_w)
{
  idle_w = std::numeric_limits<double>::infinity();
  max_w  = 0;
  std::stringstream groups(text);
  std::string group;
  bool any = false;
  while (std::getline(groups, group, ',')) {
    std::vector<double> values;
    std::stringstream parts(group);
    std::string part;
    while (std::getline(parts, part, ':')) {
      double v = 0;
      if (not parse_double(part, v))
        return false;
      values.push_back(v);
    }
    if (values.size() < 2 || values.size() > 3)
      return false;
    idle_w = std::min(idle_w, values.front());
    max_w  = std::max(max_w, values.back());
    any    = true;
  }
  if (not any)
    idle_w = 0;
  return any;
}

EngineSummary summarize_engine()
{
  const sg4::Engine* e = sg4::Engine::get_instance();
  EngineSummary s;
  s.zones = count_zones(e->get_netzone_root());
  s.links = e->get_link_count();
  for (const sg4::Host* h : e->get_all_hosts()) {
    s.hosts++;
    const char* role = h->get_property("sgai_role");
    if (role && std::string(role) == "gateway") {
      s.gateway_hosts++;
      continue;
    }
    double fastest = 0;
    for (unsigned long i = 0; i < h->get_pstate_count(); i++)
      fastest = std::max(fastest, h->get_pstate_speed(i));
    s.cores += static_cast<size_t>(h->get_core_count());
    s.peak_flops += fastest * h->get_core_count();
    const char* w = h->get_property("wattage_per_state");
    double idle = 0, full = 0;
    if (w && wattage_bounds(w, idle, full)) {
      s.idle_w += idle;
      s.max_w += full;
    } else {
      s.hosts_without_wattage++;
    }
  }
  return s;
}

RouteSummary route_between(const std::string& src, const std::string& dst)
{
  const sg4::Host* a = sg4::Host::by_name_or_null(src);
  const sg4::Host* b = sg4::Host::by_name_or_null(dst);
  for (const auto& [name, h] : {std::pair<const std::string&, const sg4::Host*>{src, a}, {dst, b}})
    if (h == nullptr) {
      std::vector<std::string> some;
      for (const sg4::Host* x : sg4::Engine::get_instance()->get_all_hosts()) {
        if (some.size() >= 5)
          break;
        some.push_back(x->get_name());
      }
      std::string hint;
      for (const auto& n : some)
        hint += (hint.empty() ? "" : ", ") + quote(n);
      throw InputError("--route", "", "unknown host " + quote(name) + " (hosts include: " + hint + ", ...)");
    }
  std::vector<sg4::Link*> links;
  double lat = 0;
  a->route_to(b, links, &lat);
  RouteSummary r;
  r.latency_s      = lat;
  r.bottleneck_Bps = std::numeric_limits<double>::infinity();
  for (const sg4::Link* l : links) {
    r.hops.push_back({l->get_name(), l->get_bandwidth(), l->get_latency()});
    r.bottleneck_Bps = std::min(r.bottleneck_Bps, l->get_bandwidth());
  }
  if (links.empty())
    r.bottleneck_Bps = 0;
  return r;
}

} // namespace sgai::platform_sim
