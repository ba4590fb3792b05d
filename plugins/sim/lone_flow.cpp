#include "plugins/sim/lone_flow.hpp"

#include <simgrid/config.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

namespace sgai::sim {

namespace {

double factor_of(const std::vector<std::pair<double, double>>& f, double bytes)
{
  double v = f.front().second;
  for (const auto& [size, factor] : f)
    if (bytes >= size)
      v = factor;
  return v;
}

} // namespace

double NetworkFactors::latency_factor(double bytes) const
{
  return factor_of(latency, bytes);
}

double NetworkFactors::bandwidth_factor(double bytes) const
{
  return factor_of(bandwidth, bytes);
}

NetworkFactors NetworkFactors::current()
{
  NetworkFactors f;
  // (doubles in SimGrid 3.32; reading them as another type is undefined)
  f.latency      = {{0.0, simgrid::config::get_value<double>("network/latency-factor")}};
  f.bandwidth    = {{0.0, simgrid::config::get_value<double>("network/bandwidth-factor")}};
  f.tcp_gamma    = simgrid::config::get_value<double>("network/TCP-gamma");
  f.crosstraffic = simgrid::config::get_value<bool>("network/crosstraffic");
  return f;
}

bool NetworkFactors::model_is_exact()
{
  const auto network = simgrid::config::get_value<std::string>("network/model");
  const auto host    = simgrid::config::get_value<std::string>("host/model");
  return (network == "CM02" || network == "LV08") && (host == "default" || host == "compound");
}

RouteCost route_cost(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, const NetworkFactors& f)
{
  std::vector<simgrid::s4u::Link*> forward, back;
  RouteCost c;
  src->route_to(dst, forward, &c.latency);
  double back_latency = 0;
  if (f.crosstraffic)
    dst->route_to(src, back, &back_latency);
  std::map<const simgrid::s4u::Link*, double> load;
  for (const auto* l : forward)
    load[l] += 1;
  for (const auto* l : back)
    load[l] += 0.05;
  c.link_rate = std::numeric_limits<double>::infinity();
  for (const auto* l : forward) {
    auto policy = l->get_sharing_policy();
    if (policy == simgrid::s4u::Link::SharingPolicy::WIFI)
      continue;
    double w    = policy == simgrid::s4u::Link::SharingPolicy::FATPIPE ? 1.0 : load[l];
    c.link_rate = std::min(c.link_rate, l->get_bandwidth() / w);
  }
  return c;
}

double isolated_transfer_time(const RouteCost& route, double bytes, const NetworkFactors& f)
{
  if (bytes <= 0)
    return 0;
  // the flow's share of its links, bounded by TCP-gamma's window, and the bandwidth factor on the
  // whole (SimGrid scales the flow's rate, not the links' capacity)
  double rate = route.link_rate;
  if (f.tcp_gamma > 0 && route.latency > 0)
    rate = std::min(rate, f.tcp_gamma / (2 * route.latency));
  rate *= f.bandwidth_factor(bytes);
  double lat = route.latency * f.latency_factor(bytes);
  return std::isfinite(rate) ? lat + bytes / rate : lat;
}

double isolated_transfer_time(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, double bytes)
{
  NetworkFactors f = NetworkFactors::current();
  return isolated_transfer_time(route_cost(src, dst, f), bytes, f);
}

} // namespace sgai::sim
