#include "generators/platform/network.hpp"

namespace sgai::platform {

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

std::vector<LocalRoute> node_routes(const Platform& p, const NodeDesc& nd)
{
  std::vector<LocalRoute> out;
  const uint32_t n = nd.host_count();
  auto name        = [&](uint32_t i) { return p.hosts[nd.first_cpu_host + i].name; };
  auto gpu         = [&](uint32_t i) -> const GpuDesc& { return p.gpus[nd.first_gpu + i - nd.cpu_host_count]; };
  for (uint32_t a = 0; a < n; a++) {
    bool a_cpu = a < nd.cpu_host_count;
    for (uint32_t b = a + 1; b < n; b++) {
      bool b_cpu = b < nd.cpu_host_count;
      std::vector<Hop> hops;
      if (a_cpu && b_cpu) {
        hops = {{nd.membus_link, true}, {nd.membus_link, false}};
      } else if (a_cpu) {
        hops = {{nd.membus_link, true}, {gpu(b).pcie_link, false}};
      } else {
        const GpuDesc& ga = gpu(a);
        const GpuDesc& gb = gpu(b);
        switch (nd.gpu_fabric) {
        case InterconnectType::Kind::nvswitch:
          hops = {{ga.switch_link, true}, {gb.switch_link, false}};
          break;
        case InterconnectType::Kind::nvlink:
          hops = {{nd.mesh_links[static_cast<size_t>(ga.index_in_node) * nd.gpu_count + gb.index_in_node], true}};
          break;
        case InterconnectType::Kind::pcie:
          hops = {{ga.pcie_link, true}, {gb.pcie_link, false}};
          break;
        }
      }
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
    std::vector<unsigned> down, up, links;
    for (const auto& l : t.levels) {
      down.push_back(l.down);
      up.push_back(l.up);
      links.push_back(l.links);
    }
    return std::to_string(t.levels.size()) + ";" + join(down) + ";" + join(up) + ";" + join(links);
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
