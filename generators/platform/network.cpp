#include "generators/platform/network.hpp"

#include <algorithm>

namespace sgai::platform {

namespace {

std::vector<Hop> reversed(const std::vector<Hop>& hops)
{
  std::vector<Hop> out;
  for (auto it = hops.rbegin(); it != hops.rend(); ++it)
    out.push_back({it->link, not it->up});
  return out;
}

void append(std::vector<Hop>& to, const std::vector<Hop>& more)
{
  to.insert(to.end(), more.begin(), more.end());
}

} // namespace

std::vector<int32_t> node_links(const Platform& p, const NodeDesc& nd)
{
  std::vector<int32_t> out;
  if (nd.membus_link != kNone)
    out.push_back(nd.membus_link);
  for (uint32_t g = 0; g < nd.gpu_count; g++) {
    const GpuDesc& gd = p.gpus[nd.first_gpu + g];
    out.push_back(gd.pcie_link);
    if (gd.switch_link != kNone)
      out.push_back(gd.switch_link);
  }
  for (int32_t l : nd.mesh_links)
    if (l != kNone)
      out.push_back(l);
  return out;
}

std::vector<Hop> hops_to_router(const Platform& p, const NodeDesc& nd, uint32_t host_in_node)
{
  if (host_in_node < nd.cpu_host_count)
    return {{nd.membus_link, true}};
  return {{p.gpus[nd.first_gpu + host_in_node - nd.cpu_host_count].pcie_link, true}};
}

std::vector<Hop> node_pair_hops(const Platform& p, const NodeDesc& nd, uint32_t a, uint32_t b)
{
  if (b < a)
    return reversed(node_pair_hops(p, nd, b, a));
  auto gpu   = [&](uint32_t i) -> const GpuDesc& { return p.gpus[nd.first_gpu + i - nd.cpu_host_count]; };
  bool a_cpu = a < nd.cpu_host_count;
  bool b_cpu = b < nd.cpu_host_count;
  if (a_cpu && b_cpu)
    return {{nd.membus_link, true}, {nd.membus_link, false}};
  if (a_cpu)
    return {{nd.membus_link, true}, {gpu(b).pcie_link, false}};
  const GpuDesc& ga = gpu(a);
  const GpuDesc& gb = gpu(b);
  switch (nd.gpu_fabric) {
  case InterconnectType::Kind::nvswitch:
    return {{ga.switch_link, true}, {gb.switch_link, false}};
  case InterconnectType::Kind::nvlink:
    return {{nd.mesh_links[static_cast<size_t>(ga.index_in_node) * nd.gpu_count + gb.index_in_node], true}};
  case InterconnectType::Kind::pcie:
    break;
  }
  return {{ga.pcie_link, true}, {gb.pcie_link, false}};
}

std::vector<LocalRoute> node_routes(const Platform& p, const NodeDesc& nd)
{
  std::vector<LocalRoute> out;
  const uint32_t n = nd.host_count();
  auto name        = [&](uint32_t i) { return p.hosts[nd.first_cpu_host + i].name; };
  for (uint32_t a = 0; a < n; a++) {
    for (uint32_t b = a + 1; b < n; b++) {
      auto hops = node_pair_hops(p, nd, a, b);
      out.push_back({name(a), name(b), std::move(hops)});
    }
    out.push_back({name(a), nd.router, hops_to_router(p, nd, a)});
  }
  return out;
}

std::string cluster_gateway(const Platform& p, uint32_t cluster)
{
  const ClusterDesc& c = p.clusters[cluster];
  if (c.topology.kind == TopologyKind::flat)
    return c.router;
  const NodeDesc& n0 = p.nodes[c.first_node];
  return n0.zoned ? n0.router : p.hosts[n0.first_cpu_host].name;
}

bool global_link_inside_cluster(const Platform& p, uint32_t cluster)
{
  const ClusterDesc& c = p.clusters[cluster];
  return c.topology.kind == TopologyKind::flat && not p.nodes[c.first_node].zoned;
}

std::vector<Hop> inter_cluster_hops(const Platform& p, uint32_t from, uint32_t to)
{
  std::vector<Hop> out;
  if (not global_link_inside_cluster(p, from))
    out.push_back({p.clusters[from].global_link, true});
  out.push_back({p.switch_link, true});
  if (not global_link_inside_cluster(p, to))
    out.push_back({p.clusters[to].global_link, false});
  return out;
}

FatTreeColumns fat_tree_columns(const Topology& t)
{
  FatTreeColumns f;
  for (const auto& l : t.levels) {
    f.down.push_back(l.down);
    f.up.push_back(l.up);
    f.links.push_back(l.links);
  }
  return f;
}

const char* simgrid_topology_name(TopologyKind k)
{
  switch (k) {
  case TopologyKind::fat_tree:
    return "FAT_TREE";
  case TopologyKind::torus:
    return "TORUS";
  case TopologyKind::dragonfly:
    return "DRAGONFLY";
  default:
    return "FLAT";
  }
}

std::string simgrid_topology_parameters(const Topology& t)
{
  auto join = [](const std::vector<unsigned>& v) {
    std::string s;
    for (size_t i = 0; i < v.size(); i++)
      s += (i ? "," : "") + std::to_string(v[i]);
    return s;
  };
  switch (t.kind) {
  case TopologyKind::fat_tree: {
    auto f = fat_tree_columns(t);
    return std::to_string(t.levels.size()) + ";" + join(f.down) + ";" + join(f.up) + ";" + join(f.links);
  }
  case TopologyKind::torus:
    return join(t.dimensions);
  case TopologyKind::dragonfly: {
    const auto& d = t.dragonfly;
    return std::to_string(d.groups) + "," + std::to_string(d.group_links) + ";" + std::to_string(d.chassis) + "," +
           std::to_string(d.chassis_links) + ";" + std::to_string(d.routers) + "," + std::to_string(d.router_links) +
           ";" + std::to_string(d.nodes_per_router);
  }
  default:
    return "";
  }
}

} // namespace sgai::platform

namespace sgai::platform {

namespace {

/** Hops from a host to its node's port (the node router, or nothing for hosts without a node zone). */
std::vector<Hop> to_port(const Platform& p, uint32_t host)
{
  const NodeDesc& nd = p.nodes[p.hosts[host].node];
  if (not nd.zoned)
    return {};
  return hops_to_router(p, nd, host - nd.first_cpu_host);
}

/** Hops between the ports of two nodes of the same cluster; nothing for SimGrid's topologies. */
std::optional<std::vector<Hop>> between_nodes(const Platform& p, uint32_t node_a, uint32_t node_b)
{
  const NodeDesc& na   = p.nodes[node_a];
  const NodeDesc& nb   = p.nodes[node_b];
  const ClusterDesc& c = p.clusters[na.cluster];
  if (c.topology.kind == TopologyKind::flat)
    return std::vector<Hop>{{na.nic_link, true}, {nb.nic_link, false}};
  if (c.topology.kind == TopologyKind::full) {
    uint32_t a = na.index_in_cluster, b = nb.index_in_cluster;
    if (a < b)
      return std::vector<Hop>{{c.pair_links[static_cast<size_t>(a) * c.node_count + b], true}};
    return std::vector<Hop>{{c.pair_links[static_cast<size_t>(b) * c.node_count + a], false}};
  }
  return std::nullopt;
}

/** Hops from a host to its cluster's gateway. */
std::optional<std::vector<Hop>> to_gateway(const Platform& p, uint32_t host)
{
  const NodeDesc& nd   = p.nodes[p.hosts[host].node];
  const ClusterDesc& c = p.clusters[nd.cluster];
  std::vector<Hop> out = to_port(p, host);
  if (c.topology.kind == TopologyKind::flat) {
    out.push_back({nd.nic_link, true});
    if (global_link_inside_cluster(p, nd.cluster))
      out.push_back({c.global_link, true});
    return out;
  }
  if (nd.index_in_cluster == 0) {
    if (not nd.zoned)
      return std::nullopt; // the gateway is this very host
    return out;
  }
  auto between = between_nodes(p, p.hosts[host].node, c.first_node);
  if (not between)
    return std::nullopt;
  append(out, *between);
  return out;
}

} // namespace

std::string simgrid_link_name(const Platform& p, const Hop& hop)
{
  const LinkDesc& l = p.links[static_cast<size_t>(hop.link)];
  if (l.sharing != Sharing::splitduplex)
    return l.name;
  return l.name + (hop.up ? "_UP" : "_DOWN");
}

uint32_t nic_of(const Platform& p, uint32_t host, uint32_t towards)
{
  const HostDesc& h  = p.hosts[host];
  const NodeDesc& nd = p.nodes[h.node];
  if (h.kind != HostKind::gpu)
    return nd.first_nic;
  const uint32_t g = host - nd.first_cpu_host - nd.cpu_host_count;
  uint32_t near = 0, first = 0;
  for (uint32_t i = 0; i < nd.nic_count; i++)
    if (p.nics[nd.first_nic + i].near_gpu == g && near++ == 0)
      first = i;
  if (near == 0) // no NIC of its own: the one of the GPU's share of them
    return nd.first_nic + static_cast<uint32_t>(static_cast<uint64_t>(g) * nd.nic_count / std::max(1u, nd.gpu_count));
  // several: spread by destination
  uint32_t pick = towards % near;
  for (uint32_t i = first; i < nd.nic_count; i++)
    if (p.nics[nd.first_nic + i].near_gpu == g && pick-- == 0)
      return nd.first_nic + i;
  return nd.first_nic + first;
}

std::vector<Hop> clos_fabric_hops(const ClusterDesc& c, uint64_t from_position, uint64_t to_position)
{
  std::vector<Hop> up, down;
  const uint64_t la = from_position / c.leaf_ports, lb = to_position / c.leaf_ports;
  uint64_t ga = la, gb = lb; // groups of level i - 1 (leaves: each its own)
  uint64_t sub = 0;          // the path's choice of parents so far (the sub-index in a group)
  for (const ClosLevel& l : c.clos) {
    if (ga == gb)
      break;
    // destination-mod-k (Zahavi's D-mod-k on an XGFT): the parent and parallel link by the
    // destination NIC, so that the NICs of one leaf reach those of another over all its uplinks
    const uint64_t k  = (to_position / l.width_below) % l.up;
    const uint64_t q  = (to_position / (l.width_below * l.up)) % l.links;
    const uint64_t xa = ga * l.width_below + sub, xb = gb * l.width_below + sub;
    up.push_back({static_cast<int32_t>(l.first_link + static_cast<int64_t>((xa * l.up + k) * l.links + q)), true});
    down.push_back({static_cast<int32_t>(l.first_link + static_cast<int64_t>((xb * l.up + k) * l.links + q)), false});
    sub = sub * l.up + k;
    ga /= l.down;
    gb /= l.down;
  }
  up.insert(up.end(), down.rbegin(), down.rend());
  return up;
}

std::vector<Hop> clos_hops(const Platform& p, uint32_t from, uint32_t to)
{
  const HostDesc& a  = p.hosts[from];
  const HostDesc& b  = p.hosts[to];
  const NodeDesc& na = p.nodes[a.node];
  const NodeDesc& nb = p.nodes[b.node];
  if (a.node == b.node)
    return node_pair_hops(p, na, from - na.first_cpu_host, to - na.first_cpu_host);
  const NicDesc* x     = &p.nics[nic_of(p, from, to - nb.first_cpu_host)];
  const NicDesc& y     = p.nics[nic_of(p, to, from - na.first_cpu_host)];
  std::vector<Hop> out = hops_to_router(p, na, from - na.first_cpu_host);
  const ClusterDesc& c = p.clusters[na.cluster];
  if (c.topology.pxn && c.topology.rails && a.kind == HostKind::gpu && b.kind == HostKind::gpu &&
      na.gpu_fabric != InterconnectType::Kind::pcie && x->index_in_node != y.index_in_node &&
      y.index_in_node < na.nic_count) {
    // PXN: over NVLink to the GPU beside this node's NIC on the receiver's rail, out by that NIC
    const NicDesc& rail         = p.nics[na.first_nic + y.index_in_node];
    const uint32_t from_in_node = from - na.first_cpu_host, proxy = na.cpu_host_count + rail.near_gpu;
    if (proxy != from_in_node) {
      out = node_pair_hops(p, na, from_in_node, proxy);
      append(out, hops_to_router(p, na, proxy));
    }
    x = &rail;
  }
  out.push_back({x->link, true});
  append(out, clos_fabric_hops(c, x->position, y.position));
  out.push_back({y.link, false});
  append(out, reversed(hops_to_router(p, nb, to - nb.first_cpu_host)));
  return out;
}

std::optional<std::vector<std::string>> expected_route(const Platform& p, uint32_t from, uint32_t to)
{
  if (from == to)
    return std::nullopt;
  if (p.clusters[p.nodes[p.hosts[from].node].cluster].topology.kind == TopologyKind::clos) {
    std::vector<std::string> names;
    for (const auto& h : clos_hops(p, from, to))
      names.push_back(simgrid_link_name(p, h));
    return names;
  }
  const HostDesc& a  = p.hosts[from];
  const HostDesc& b  = p.hosts[to];
  const NodeDesc& na = p.nodes[a.node];
  const NodeDesc& nb = p.nodes[b.node];
  std::vector<Hop> hops;
  if (a.node == b.node) {
    if (na.zoned) {
      for (const auto& r : node_routes(p, na)) {
        if (r.src == a.name && r.dst == b.name)
          hops = r.hops;
        else if (r.src == b.name && r.dst == a.name)
          hops = reversed(r.hops);
      }
    } else {
      hops = {{na.nic_link, true}, {na.nic_link, false}};
    }
  } else if (na.cluster == nb.cluster) {
    auto between = between_nodes(p, a.node, b.node);
    if (not between)
      return std::nullopt;
    hops = to_port(p, from);
    append(hops, *between);
    append(hops, reversed(to_port(p, to)));
  } else {
    auto up   = to_gateway(p, from);
    auto down = to_gateway(p, to);
    if (not up || not down)
      return std::nullopt;
    hops = *up;
    append(hops, inter_cluster_hops(p, na.cluster, nb.cluster));
    append(hops, reversed(*down));
  }
  std::vector<std::string> names;
  for (const auto& h : hops)
    names.push_back(simgrid_link_name(p, h));
  return names;
}

} // namespace sgai::platform
