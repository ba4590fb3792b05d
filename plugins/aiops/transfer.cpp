#include "plugins/aiops/transfer.hpp"

#include <simgrid/config.h>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <sstream>

namespace sgai::aiops_sim {

namespace {

/** "13.01" or "0:1.2;65536:1.5": the factor of the largest size threshold at most `bytes`. */
std::vector<std::pair<double, double>> parse_factors(const std::string& text)
{
  std::vector<std::pair<double, double>> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ';')) {
    if (item.empty())
      continue;
    auto colon = item.find(':');
    if (colon == std::string::npos)
      out.emplace_back(0.0, std::stod(item));
    else
      out.emplace_back(std::stod(item.substr(0, colon)), std::stod(item.substr(colon + 1)));
  }
  std::sort(out.begin(), out.end());
  if (out.empty())
    out.emplace_back(0.0, 1.0);
  return out;
}

double factor_of(const std::vector<std::pair<double, double>>& f, double bytes)
{
  double v = f.front().second;
  for (const auto& [size, factor] : f)
    if (bytes >= size)
      v = factor;
  return v;
}

std::string config_text(const char* key)
{
  try {
    return simgrid::config::get_value<std::string>(key);
  } catch (const std::exception&) {
    std::ostringstream o;
    o.precision(17);
    o << simgrid::config::get_value<double>(key);
    return o.str();
  }
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
  f.latency      = parse_factors(config_text("network/latency-factor"));
  f.bandwidth    = parse_factors(config_text("network/bandwidth-factor"));
  f.tcp_gamma    = simgrid::config::get_value<double>("network/TCP-gamma");
  f.crosstraffic = simgrid::config::get_value<bool>("network/crosstraffic");
  return f;
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

} // namespace sgai::aiops_sim
