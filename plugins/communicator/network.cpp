#include "plugins/communicator/network.hpp"

#include "core/foundation/numbers.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sgai::communicator {

namespace s4u = simgrid::s4u;

const char* to_string(Dimension::Kind k)
{
  switch (k) {
  case Dimension::Kind::ring:
    return "Ring";
  case Dimension::Kind::switch_:
    return "Switch";
  case Dimension::Kind::fully_connected:
    return "FullyConnected";
  }
  return "?";
}

uint32_t npu_count(const std::vector<Dimension>& dims)
{
  uint64_t n = 1;
  for (const auto& d : dims)
    n *= d.npus;
  if (n > UINT32_MAX)
    throw std::invalid_argument("too many NPUs");
  return static_cast<uint32_t>(n);
}

namespace {

std::string number(double v)
{
  return sgai::format_number(v);
}

} // namespace

NpuNetwork build_npu_network(const std::string& prefix, const std::vector<Dimension>& dims, const NpuOptions& o)
{
  if (dims.empty())
    throw std::invalid_argument("a network needs at least one dimension");
  for (const auto& d : dims)
    if (d.npus == 0 || not(d.bandwidth_Bps > 0) || d.latency_s < 0)
      throw std::invalid_argument("a dimension needs at least one NPU, a positive bandwidth and a latency >= 0");
  auto* engine       = s4u::Engine::get_instance();
  s4u::NetZone* root = engine->get_netzone_root();
  if (root == nullptr) {
    root = s4u::create_full_zone("world");
  }
  auto* zone = s4u::create_dijkstra_zone(prefix.empty() ? "npus" : prefix, true);
  zone->set_parent(root);

  const uint32_t n = npu_count(dims);
  NpuNetwork net;
  std::vector<s4u::Host*>& hosts = net.npus;
  hosts.resize(n);
  for (uint32_t i = 0; i < n; i++) {
    std::vector<double> speeds = {o.speed_flops};
    std::string watts          = number(o.idle_w) + ":" + number(o.idle_w) + ":" + number(o.busy_w);
    for (const auto& [fraction, busy] : o.lower_pstates) {
      speeds.push_back(o.speed_flops * fraction);
      watts += "," + number(o.idle_w) + ":" + number(o.idle_w) + ":" + number(busy);
    }
    auto* h = zone->create_host(prefix + "npu" + std::to_string(i), speeds);
    if (o.busy_w > 0) {
      h->set_property("wattage_per_state", watts);
      h->set_property("wattage_off", "0");
    }
    hosts[i]  = h;
    auto* cpu = zone->create_host(prefix + "npu" + std::to_string(i) + "_cpu", o.cpu_speed_flops);
    cpu->set_property("wattage_per_state",
                      number(o.cpu_idle_w) + ":" + number(o.cpu_idle_w) + ":" + number(o.cpu_busy_w));
    cpu->set_property("wattage_off", "0");
    net.cpus.push_back(cpu);
  }
  auto make_link = [&](const std::string& name, const Dimension& d) {
    auto* l = zone->create_split_duplex_link(name, d.bandwidth_Bps);
    l->set_latency(d.latency_s);
    if (o.link_busy_w > 0) // on both directions: they are the links SimGrid accounts
      for (s4u::Link* half : {l->get_link_up(), l->get_link_down()})
        half->set_property("wattage_range", number(o.link_idle_w) + ":" + number(o.link_busy_w));
    return l;
  };
  auto connect = [&](simgrid::kernel::routing::NetPoint* a, simgrid::kernel::routing::NetPoint* b, s4u::Link* l) {
    zone->add_route(a, b, nullptr, nullptr, {s4u::LinkInRoute(l, s4u::LinkInRoute::Direction::UP)}, false);
    zone->add_route(b, a, nullptr, nullptr, {s4u::LinkInRoute(l, s4u::LinkInRoute::Direction::DOWN)}, false);
  };

  uint32_t stride = 1;
  for (size_t di = 0; di < dims.size(); di++) {
    const auto& d = dims[di];
    // groups: NPUs sharing every coordinate but this one
    for (uint32_t base = 0; base < n; base++) {
      if ((base / stride) % d.npus != 0)
        continue;
      auto member     = [&](uint32_t k) { return hosts[base + k * stride]->get_netpoint(); };
      std::string tag = prefix + "d" + std::to_string(di) + "_g" + std::to_string(base);
      switch (d.kind) {
      case Dimension::Kind::ring:
        if (d.npus == 2)
          connect(member(0), member(1), make_link(tag + "_l0", d));
        else if (d.npus > 2)
          for (uint32_t k = 0; k < d.npus; k++)
            connect(member(k), member((k + 1) % d.npus), make_link(tag + "_l" + std::to_string(k), d));
        break;
      case Dimension::Kind::switch_: {
        if (d.npus < 2)
          break;
        auto* sw = zone->create_router(tag + "_switch");
        for (uint32_t k = 0; k < d.npus; k++)
          connect(member(k), sw, make_link(tag + "_l" + std::to_string(k), d));
        break;
      }
      case Dimension::Kind::fully_connected:
        for (uint32_t a = 0; a < d.npus; a++)
          for (uint32_t b = a + 1; b < d.npus; b++)
            connect(member(a), member(b), make_link(tag + "_l" + std::to_string(a) + "_" + std::to_string(b), d));
        break;
      }
    }
    stride *= d.npus;
  }
  zone->seal();
  return net;
}

void UnsharedPaths::first_differing_dimension(const std::vector<s4u::Host*>& npus, std::vector<uint32_t> dims)
{
  uint64_t n = 1;
  for (uint32_t d : dims)
    n *= d;
  if (dims.empty() || n != npus.size())
    throw std::invalid_argument("first_differing_dimension: " + std::to_string(npus.size()) +
                                " NPUs for dimensions of " + std::to_string(n));
  npus_ = npus;
  dims_ = std::move(dims);
  npu_id_.clear();
  for (uint32_t i = 0; i < npus_.size(); i++)
    npu_id_.emplace(npus_[i], i);
  paths_.clear();
}

const UnsharedPaths::Path& UnsharedPaths::path(const s4u::Host* src, const s4u::Host* dst) const
{
  auto key = std::make_pair(src, dst);
  auto it  = paths_.find(key);
  if (it == paths_.end()) {
    const s4u::Host* to = dst;
    auto a              = npu_id_.find(src);
    auto b              = npu_id_.find(dst);
    if (a != npu_id_.end() && b != npu_id_.end()) {
      uint64_t stride = 1;
      for (uint32_t d : dims_) {
        uint64_t ca = (a->second / stride) % d;
        uint64_t cb = (b->second / stride) % d;
        if (ca != cb) { // the first dimension where they differ: the sender's NPU with this coordinate
          to = npus_[a->second - ca * stride + cb * stride];
          break;
        }
        stride *= d;
      }
    }
    std::vector<s4u::Link*> links;
    double latency = 0;
    src->route_to(to, links, &latency);
    double bandwidth = 0;
    for (const s4u::Link* l : links)
      if (bandwidth == 0 || l->get_bandwidth() < bandwidth)
        bandwidth = l->get_bandwidth();
    it = paths_.emplace(key, Path{latency, bandwidth}).first;
  }
  return it->second;
}

double UnsharedPaths::latency(const s4u::Host* src, const s4u::Host* dst) const
{
  return path(src, dst).latency_s;
}

double UnsharedPaths::seconds(const s4u::Host* src, const s4u::Host* dst, double bytes) const
{
  const Path& p = path(src, dst);
  return seconds(p.latency_s, p.bandwidth_Bps, bytes);
}

std::pair<double, double> UnsharedPaths::latency_and_bandwidth(const s4u::Host* src, const s4u::Host* dst) const
{
  const Path& p = path(src, dst);
  return {p.latency_s, p.bandwidth_Bps};
}

LoneFlows::LoneFlows()
    : factors_(sim::NetworkFactors::current())
    , model_exact_(sim::NetworkFactors::model_is_exact())
    , link_energy_(sg_link_energy_is_inited() != 0)
    , weight_s_(simgrid::config::get_value<double>("network/weight-S"))
    , precision_(simgrid::config::get_value<double>("maxmin/precision"))
{
}

const LoneFlows::Path& LoneFlows::path(const s4u::Host* src, const s4u::Host* dst) const
{
  auto key = std::make_pair(src, dst);
  auto it  = paths_.find(key);
  if (it != paths_.end())
    return it->second;
  Path p;
  p.cost  = sim::route_cost(src, dst, factors_);
  p.exact = model_exact_;
  std::vector<s4u::Link*> forward, back;
  double latency = 0, back_latency = 0;
  src->route_to(dst, forward, &latency);
  if (factors_.crosstraffic)
    dst->route_to(src, back, &back_latency);
  p.penalty       = latency > 0 ? latency : 1.0;
  p.min_bandwidth = std::numeric_limits<double>::infinity();
  for (const auto* route : {&forward, &back})
    for (const s4u::Link* l : *route) {
      auto policy = l->get_sharing_policy();
      if (policy == s4u::Link::SharingPolicy::WIFI)
        p.exact = false;
      if (link_energy_ && l->get_property("wattage_range") != nullptr)
        p.exact = false;
      if (route == &forward && policy != s4u::Link::SharingPolicy::WIFI) {
        p.min_bandwidth = std::min(p.min_bandwidth, l->get_bandwidth());
        if (weight_s_ > 0 && latency > 0)
          p.penalty += weight_s_ / l->get_bandwidth();
      }
      if (policy == s4u::Link::SharingPolicy::WIFI)
        continue;
      auto [at, added] = link_ids_.emplace(l, static_cast<uint32_t>(link_ids_.size()));
      if (added) {
        bandwidths_.push_back(l->get_bandwidth());
        capacities_.fatpipe.push_back(policy == s4u::Link::SharingPolicy::FATPIPE ? 1 : 0);
      }
      const double weight = route == &forward ? 1.0 : 0.05;
      const uint32_t id   = at->second;
      auto w = std::find_if(p.weights.begin(), p.weights.end(), [id](const auto& e) { return e.first == id; });
      if (w == p.weights.end()) {
        p.links.push_back(id);
        p.weights.emplace_back(id, weight);
      } else if (policy == s4u::Link::SharingPolicy::FATPIPE)
        w->second = std::max(w->second, weight); // (lmm keeps the larger on a fat pipe, the sum elsewhere)
      else
        w->second += weight;
    }
  return paths_.emplace(key, std::move(p)).first->second;
}

double LoneFlows::seconds(const Path& p, double bytes) const
{
  if (bytes > 0)
    return sim::isolated_transfer_time(p.cost, bytes, factors_);
  return p.cost.latency * factors_.latency_factor(0);
}

SharedFlow LoneFlows::shared_flow(const Path& p, double bytes) const
{
  SharedFlow f;
  f.latency    = p.cost.latency * factors_.latency_factor(bytes);
  f.bytes      = bytes;
  f.penalty    = p.penalty;
  double bound = p.min_bandwidth;
  if (factors_.tcp_gamma > 0 && p.cost.latency > 0)
    bound = std::min(bound, factors_.tcp_gamma / (2 * p.cost.latency));
  f.bound = std::isfinite(bound) ? bound * factors_.bandwidth_factor(bytes) : -1;
  f.links = p.weights;
  return f;
}

const SharedLinks& LoneFlows::capacities(double bytes) const
{
  const double factor = factors_.bandwidth_factor(bytes);
  if (factor != capacities_factor_ || capacities_.capacity.size() != bandwidths_.size()) {
    capacities_.capacity.resize(bandwidths_.size());
    for (size_t i = 0; i < bandwidths_.size(); i++)
      capacities_.capacity[i] = bandwidths_[i] * factor;
    capacities_factor_ = factor;
  }
  return capacities_;
}

void LinkTraffic::add(const s4u::Host* src, const s4u::Host* dst, double bytes)
{
  auto key = std::make_pair(src, dst);
  auto it  = routes_.find(key);
  if (it == routes_.end()) {
    std::vector<s4u::Link*> links;
    double latency = 0;
    src->route_to(dst, links, &latency);
    std::vector<size_t> ids;
    for (const s4u::Link* l : links) {
      auto [at, added] = index_.emplace(l, bytes_.size());
      if (added)
        bytes_.push_back(0);
      ids.push_back(at->second);
    }
    it = routes_.emplace(key, std::move(ids)).first;
  }
  for (size_t i : it->second)
    bytes_[i] += bytes;
  total_ += bytes;
}

std::vector<std::pair<const s4u::Link*, double>> LinkTraffic::links() const
{
  std::vector<std::pair<const s4u::Link*, double>> out;
  for (const auto& [link, i] : index_)
    if (bytes_[i] > 0)
      out.emplace_back(link, bytes_[i]);
  return out;
}

double LinkTraffic::bytes(const s4u::Link* link) const
{
  auto it = index_.find(link);
  return it == index_.end() ? 0 : bytes_[it->second];
}

} // namespace sgai::communicator
