/* Expansion of a platform description into hosts, links and the resource hierarchy, with the
 * P-state speeds and wattages derived from the processor and GPU figures. */
#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/platform/platform.hpp"

#include <algorithm>
#include <map>
#include <unordered_set>

namespace sgai::platform {

namespace {

constexpr size_t kMaxFullMeshNodes = 256;
constexpr uint64_t kMaxHosts       = 10'000'000; // beyond, use a coarser granularity
constexpr uint64_t kMaxCores       = 4'000'000'000;

/** a x b, saturating at UINT64_MAX / 2 so that products of user counts cannot wrap. */
uint64_t mul_sat(uint64_t a, uint64_t b)
{
  constexpr uint64_t cap = UINT64_MAX / 2;
  return (a != 0 && b > cap / a) ? cap : a * b;
}

class Resolver {
public:
  explicit Resolver(const PlatformSpec& spec)
      : spec_(spec)
  {
  }

  Platform run()
  {
    p_.name            = spec_.name;
    p_.source_file     = spec_.source_file;
    p_.granularity     = spec_.granularity;
    p_.job_limits_json = spec_.job_limits_json;
    // The initial P-state comes first: SimGrid 3.32's host_energy plugin ignores a P-state set
    // before the simulation starts, so P-state 0 must be the state hosts start in.
    for (const auto& s : spec_.energy.cpu_pstates)
      if (s.name == spec_.energy.initial_pstate)
        pstates_.push_back(s);
    for (const auto& s : spec_.energy.cpu_pstates)
      if (s.name != spec_.energy.initial_pstate)
        pstates_.push_back(s);
    for (const auto& s : pstates_)
      p_.cpu_pstate_names.push_back(s.name);
    claim(p_.name, Origin{spec_.source_file, ""});
    check_size();
    for (size_t c = 0; c < spec_.clusters.size(); c++)
      add_cluster(static_cast<uint32_t>(c));
    size_t dragonflies = 0;
    for (const auto& c : spec_.clusters)
      if (c.topology.kind == TopologyKind::dragonfly && ++dragonflies > 1)
        throw InputError(c.topology.origin.file, "at " + c.topology.origin.pointer,
                         "a platform holds at most one dragonfly cluster (SimGrid 3.32 gives the links of every "
                         "dragonfly zone the same names)");
    if (spec_.clusters.size() > 1)
      p_.switch_link = add_link(p_.name + "-switch", spec_.global_link->bandwidth_Bps, 0, Sharing::fatpipe,
                                std::nullopt, std::nullopt, spec_.global_link->origin);
    return std::move(p_);
  }

private:
  const PlatformSpec& spec_;
  Platform p_;
  std::vector<CpuPState> pstates_; ///< emitted order: the initial state first
  std::unordered_set<std::string> names_;
  std::map<std::string, uint32_t> class_index_;
  bool zone_all_ = false;

  /** Refuses, before expanding anything, platforms too large to hold in memory. */
  void check_size() const
  {
    uint64_t hosts = 0, cores = 0;
    for (const auto& c : spec_.clusters)
      for (const auto& g : c.nodes) {
        const NodeType& nt  = spec_.catalogue.nodes.at(g.type);
        uint64_t node_cores = 0;
        for (const auto& tc : nt.processors)
          node_cores += mul_sat(static_cast<uint64_t>(tc.count),
                                static_cast<uint64_t>(spec_.catalogue.processors.at(tc.type).cores));
        hosts += mul_sat(static_cast<uint64_t>(g.count), hosts_per_node(nt));
        cores += mul_sat(static_cast<uint64_t>(g.count), node_cores);
        if (hosts > kMaxHosts || cores > kMaxCores)
          throw InputError(g.origin.file, "at " + g.origin.pointer + "/number",
                           "the platform grows beyond " + std::to_string(kMaxHosts) + " SimGrid hosts or " +
                               std::to_string(kMaxCores) + " cores at this node group (" + std::to_string(g.count) +
                               " nodes of type " + quote(g.type) +
                               "): use granularity 'node' or 'processor' for machines this large");
      }
  }

  uint64_t hosts_per_node(const NodeType& nt) const
  {
    uint64_t cpu = 0;
    for (const auto& tc : nt.processors) {
      const ProcessorType& pt = spec_.catalogue.processors.at(tc.type);
      cpu += spec_.granularity == Granularity::core
                 ? mul_sat(static_cast<uint64_t>(tc.count), static_cast<uint64_t>(pt.cores))
                 : static_cast<uint64_t>(tc.count);
    }
    if (spec_.granularity == Granularity::node && not nt.processors.empty())
      cpu = 1;
    uint64_t gpus = 0;
    for (const auto& tc : nt.gpus)
      gpus += static_cast<uint64_t>(tc.count);
    return cpu + gpus;
  }

  /** Host, router, zone and link names share one namespace and must be unique. */
  void claim(const std::string& name, const Origin& origin)
  {
    if (not names_.insert(name).second)
      throw InputError(origin.file, origin.pointer.empty() ? "" : "at " + origin.pointer,
                       "duplicate id: the generated name " + quote(name) +
                           " is already used (cluster ids and the platform name must keep generated names unique)");
  }

  int32_t add_link(const std::string& name, double bw, double lat, Sharing sharing, std::optional<double> idle_w,
                   std::optional<double> busy_w, const Origin& origin)
  {
    claim(name, origin);
    p_.links.push_back(LinkDesc{name, bw, lat, sharing, idle_w, busy_w});
    return static_cast<int32_t>(p_.links.size() - 1);
  }
  int32_t add_link(const std::string& name, const LinkSpec& l, Sharing sharing)
  {
    return add_link(name, l.bandwidth_Bps, l.latency_s, sharing, l.idle_w, l.busy_w, l.origin);
  }

  uint32_t cpu_class(const std::string& key, int cores, double flops_per_core, double full_power_w)
  {
    auto it = class_index_.find(key);
    if (it != class_index_.end())
      return it->second;
    HostClass hc;
    hc.cores          = cores;
    hc.initial_pstate = 0;
    hc.off_w          = spec_.energy.off_fraction * full_power_w;
    for (const auto& s : pstates_) {
      PStateDesc d;
      d.speed_flops = s.speed * flops_per_core;
      d.idle_w      = s.idle * full_power_w;
      d.all_cores_w = s.busy * full_power_w;
      // SimGrid draws epsilon + load x (all - epsilon) at load > 0, load being the fraction of busy
      // cores. With epsilon = idle, k busy cores of n draw idle + k/n (all - idle): each busy core
      // its busy share and each idle core its idle share, HDeepRM's per-core accounting.
      d.epsilon_w = d.idle_w;
      hc.pstates.push_back(d);
    }
    p_.host_classes.push_back(std::move(hc));
    return class_index_[key] = static_cast<uint32_t>(p_.host_classes.size() - 1);
  }

  uint32_t gpu_class(const GpuType& g)
  {
    std::string key = "gpu:" + g.name;
    auto it         = class_index_.find(key);
    if (it != class_index_.end())
      return it->second;
    HostClass hc;
    hc.cores                      = 1;
    hc.initial_pstate             = 0;
    double peak                   = g.peak_flops.at(g.default_precision);
    std::vector<GpuPState> states = g.pstates;
    if (states.empty())
      states.push_back(GpuPState{1.0, g.max_w});
    for (const auto& s : states)
      hc.pstates.push_back(PStateDesc{s.speed_factor * peak, g.idle_w, g.idle_w, s.max_w});
    hc.off_w = spec_.energy.off_fraction * g.max_w;
    hc.properties.emplace_back("sgai_gpu_type", g.name);
    hc.properties.emplace_back("sgai_gpu_precision", g.default_precision);
    for (const auto& [prec, flops] : g.peak_flops)
      hc.properties.emplace_back("sgai_peak_flops_" + prec, format_number(flops));
    hc.properties.emplace_back("sgai_memory_bytes", format_number(g.memory_bytes));
    hc.properties.emplace_back("sgai_memory_bandwidth_Bps", format_number(g.mem_bw_Bps));
    // the memory-bandwidth fraction of each P-state, when one is not 1 (plugins/gpu/gpu.hpp)
    if (std::any_of(states.begin(), states.end(), [](const GpuPState& s) { return s.memory_factor != 1; })) {
      std::string speeds;
      for (const auto& s : states)
        speeds += (speeds.empty() ? "" : ",") + format_number(s.memory_factor);
      hc.properties.emplace_back("sgai_pstate_memory_speeds", speeds);
    }
    p_.host_classes.push_back(std::move(hc));
    return class_index_[key] = static_cast<uint32_t>(p_.host_classes.size() - 1);
  }

  uint32_t add_host(const std::string& name, uint32_t cls, HostKind kind, uint32_t node, const Origin& origin)
  {
    claim(name, origin);
    p_.hosts.push_back(HostDesc{name, cls, kind, node});
    return static_cast<uint32_t>(p_.hosts.size() - 1);
  }

  void add_cluster(uint32_t ci)
  {
    const ClusterSpec& cs = spec_.clusters[ci];
    ClusterDesc cd;
    cd.id         = cs.id;
    cd.topology   = cs.topology;
    cd.first_node = static_cast<uint32_t>(p_.nodes.size());
    cd.router     = cs.id + "-gw";
    claim(cd.id, cs.origin);
    claim(cd.router, cs.origin);
    claim(cd.id + "-gwzone", cs.origin); // the gateway zone of flat clusters of node zones

    uint64_t count = 0;
    for (const auto& g : cs.nodes)
      count += static_cast<uint64_t>(g.count);
    check_topology(cs, count);

    // Flat clusters keep CPU nodes flat (HDeepRM: a node's hosts share its NIC) unless GPU nodes need
    // zones; a full mesh joins zones or hosts, not both; other topologies zone multi-host nodes only.
    zone_all_ = false;
    for (const auto& g : cs.nodes) {
      const NodeType& nt = spec_.catalogue.nodes.at(g.type);
      if (cs.topology.kind == TopologyKind::flat && not nt.gpus.empty() && hosts_per_node(nt) > 1)
        zone_all_ = true;
      if (cs.topology.kind == TopologyKind::full && hosts_per_node(nt) > 1)
        zone_all_ = true;
    }

    uint32_t k = 0;
    for (const auto& g : cs.nodes)
      for (int64_t i = 0; i < g.count; i++)
        add_node(ci, cs, g, k++);
    cd.node_count = k;

    if (cs.topology.kind == TopologyKind::full) {
      cd.pair_links.assign(static_cast<size_t>(k) * k, kNone);
      for (uint32_t a = 0; a < k; a++)
        for (uint32_t b = a + 1; b < k; b++)
          cd.pair_links[static_cast<size_t>(a) * k + b] = add_link(
              cs.id + "-n" + std::to_string(a) + "-n" + std::to_string(b), cs.topology.link, cs.topology.sharing);
    }
    if (spec_.clusters.size() > 1)
      cd.global_link = add_link(cs.id + "-global", *spec_.global_link, Sharing::splitduplex);
    if (cs.topology.kind == TopologyKind::clos)
      add_clos_fabric(cs, cd);
    p_.clusters.push_back(std::move(cd));
  }

  /** A clos's NIC positions among the leaves and its switch levels' links (an XGFT above the leaves). */
  void add_clos_fabric(const ClusterSpec& cs, ClusterDesc& cd)
  {
    const Topology& t = cs.topology;
    auto fail         = [&](const std::string& what, const std::string& msg) {
      throw InputError(t.origin.file, "at " + t.origin.pointer + what, msg);
    };
    const uint32_t m1    = t.levels[0].down;
    cd.leaf_ports        = m1;
    uint64_t nics        = 0;
    const uint32_t rails = p_.nodes[cd.first_node].nic_count;
    for (uint32_t n = 0; n < cd.node_count; n++) {
      const NodeDesc& nd = p_.nodes[cd.first_node + n];
      if (t.rails && nd.nic_count != rails)
        fail("/kind", "a rail-optimized clos needs as many NICs on every node (one per rail): " + nd.name + " has " +
                          std::to_string(nd.nic_count) + ", " + p_.nodes[cd.first_node].name + " " +
                          std::to_string(rails));
      for (uint32_t r = 0; r < nd.nic_count; r++) {
        NicDesc& nic = p_.nics[nd.first_nic + r];
        nic.position = t.rails ? ((static_cast<uint64_t>(n / m1) * rails + r) * m1 + n % m1) : nics;
        nics++;
      }
    }
    cd.leaves       = t.rails ? (cd.node_count + m1 - 1) / m1 * rails : (nics + m1 - 1) / m1;
    uint64_t groups = cd.leaves, width = 1, below = cd.leaves; // level i - 1: groups x width elements
    std::string joined = std::to_string(m1);
    uint64_t ports     = m1;
    for (size_t i = 1; i < t.levels.size(); i++) {
      const FatTreeLevel& l = t.levels[i];
      ClosLevel cl;
      cl.down        = l.down;
      cl.up          = l.up;
      cl.links       = l.links;
      cl.below       = below;
      cl.width_below = width;
      groups         = (groups + l.down - 1) / l.down;
      width          = mul_sat(width, l.up);
      cl.switches    = mul_sat(groups, width);
      uint64_t count = mul_sat(mul_sat(below, l.up), l.links);
      if (count > kMaxHosts)
        fail("/levels/" + std::to_string(i), "level " + std::to_string(i + 1) + " would have " + std::to_string(count) +
                                                 " links: at most " + std::to_string(kMaxHosts));
      for (uint64_t x = 0; x < below; x++)
        for (uint32_t k = 0; k < l.up; k++)
          for (uint32_t q = 0; q < l.links; q++) {
            int32_t li = add_link(cs.id + "-L" + std::to_string(i + 1) + "-" + std::to_string(x) + "-up" +
                                      std::to_string(k) + (l.links > 1 ? "-" + std::to_string(q) : std::string()),
                                  l.link, t.sharing);
            if (cl.first_link == kNone)
              cl.first_link = li;
          }
      below = cl.switches;
      joined += " x " + std::to_string(l.down);
      ports = mul_sat(ports, l.down);
      cd.clos.push_back(cl);
    }
    if (groups > 1)
      fail("/levels", "the clos's levels join " + joined + " = " + std::to_string(ports) +
                          " NIC ports under one top switch, but the cluster has " + std::to_string(nics) + " NICs on " +
                          std::to_string(cd.leaves) + " leaves: add a level or make 'down' larger");
  }

  void check_topology(const ClusterSpec& cs, uint64_t nodes)
  {
    const Topology& t = cs.topology;
    auto fail         = [&](const std::string& what, const std::string& msg) {
      throw InputError(t.origin.file, "at " + t.origin.pointer + what, msg);
    };
    switch (t.kind) {
    case TopologyKind::flat:
      break;
    case TopologyKind::full:
      if (nodes > kMaxFullMeshNodes)
        fail("", "a full mesh of " + std::to_string(nodes) + " nodes needs " + std::to_string(nodes * (nodes - 1) / 2) +
                     " links: at most " + std::to_string(kMaxFullMeshNodes) +
                     " nodes (use a fat_tree or flat topology)");
      break;
    case TopologyKind::fat_tree: {
      uint64_t leaves = 1;
      std::string expr;
      for (const auto& l : t.levels) {
        leaves = mul_sat(leaves, l.down);
        expr += (expr.empty() ? "" : " x ") + std::to_string(l.down);
      }
      if (leaves != nodes)
        fail("/levels", "the fat tree's levels hold " + expr + " = " + std::to_string(leaves) +
                            " nodes (the product of 'down') but the cluster has " + std::to_string(nodes) + " nodes");
      break;
    }
    case TopologyKind::torus: {
      uint64_t prod = 1;
      std::string expr;
      for (auto d : t.dimensions) {
        prod = mul_sat(prod, d);
        expr += (expr.empty() ? "" : " x ") + std::to_string(d);
      }
      if (prod != nodes)
        fail("/dimensions", "the torus dimensions " + expr + " = " + std::to_string(prod) +
                                " positions but the cluster has " + std::to_string(nodes) + " nodes");
      break;
    }
    case TopologyKind::clos:
      if (spec_.clusters.size() > 1)
        fail("/kind", "a clos cluster is the platform's only cluster (its NICs route in a zone of their own)");
      {
        uint64_t nics = 0;
        for (const auto& g : cs.nodes) {
          const auto& nt = spec_.catalogue.nodes.at(g.type);
          if (not nt.nics)
            throw InputError(g.origin.file, "at " + g.origin.pointer + "/type",
                             "node type " + quote(g.type) +
                                 " names no 'nics': a clos cluster links each NIC of a node to a leaf switch");
          nics = mul_sat(static_cast<uint64_t>(g.count), nt.nics->count) + nics;
        }
        if (nics > kMaxHosts)
          fail("", "the clos would link " + std::to_string(nics) + " NICs: at most " + std::to_string(kMaxHosts));
      }
      break;
    case TopologyKind::dragonfly: {
      const auto& d = t.dragonfly;
      uint64_t prod = mul_sat(mul_sat(d.groups, d.chassis), mul_sat(d.routers, d.nodes_per_router));
      if (prod != nodes)
        fail("", "the dragonfly holds " + std::to_string(d.groups) + " groups x " + std::to_string(d.chassis) +
                     " chassis x " + std::to_string(d.routers) + " routers x " + std::to_string(d.nodes_per_router) +
                     " nodes = " + std::to_string(prod) + " nodes but the cluster has " + std::to_string(nodes) +
                     " nodes");
      break;
    }
    }
    if (t.sharp) {
      // SHARP runs in InfiniBand switches: the nodes' network must be InfiniBand (an ib_verbs
      // transport) wherever NCCL enters it
      std::vector<std::pair<std::string, std::string>> nets; // (network type, where)
      if (t.kind == TopologyKind::clos)
        for (const auto& g : cs.nodes)
          nets.emplace_back(spec_.catalogue.nodes.at(g.type).nics->type, "the NICs of node type " + quote(g.type));
      else if (not t.levels.empty())
        nets.emplace_back(t.levels[0].link.type, "the first level's links");
      for (const auto& [net, where] : nets) {
        auto nw = spec_.catalogue.networks.find(net);
        auto tr = nw == spec_.catalogue.networks.end() ? spec_.catalogue.transports.end()
                                                       : spec_.catalogue.transports.find(nw->second.transport);
        if (tr == spec_.catalogue.transports.end() || tr->second.kind != "ib_verbs")
          fail("/sharp", "SHARP reduces in InfiniBand switches, but " + where + " are " + quote(net) +
                             (tr == spec_.catalogue.transports.end() ? std::string(", which names no transport")
                                                                     : ", over " + quote(tr->second.name)));
      }
    }
  }

  void add_node(uint32_t ci, const ClusterSpec& cs, const NodeGroup& g, uint32_t k)
  {
    const NodeType& nt = spec_.catalogue.nodes.at(g.type);
    p_.catalogue.nodes.emplace(nt.name, nt);
    const auto node_index = static_cast<uint32_t>(p_.nodes.size());
    NodeDesc nd;
    nd.cluster          = ci;
    nd.index_in_cluster = k;
    nd.name             = cs.id + "-n" + std::to_string(k);
    nd.type             = nt.name;
    nd.memory_bytes     = nt.memory_bytes;
    nd.first_processor  = static_cast<uint32_t>(p_.processors.size());
    nd.first_gpu        = static_cast<uint32_t>(p_.gpus.size());
    nd.first_cpu_host   = static_cast<uint32_t>(p_.hosts.size());
    if (not nt.memory_type.empty()) {
      auto m = spec_.catalogue.memories.find(nt.memory_type);
      if (m != spec_.catalogue.memories.end())
        p_.catalogue.memories.emplace(m->first, m->second);
    }

    // Processors and their cores, numbered platform-wide.
    uint64_t first_core = p_.processors.empty() ? 0 : p_.processors.back().first_core + p_.processors.back().cores;
    double node_tdp     = 0;
    int node_cores      = 0;
    double node_mem_bw  = 0;
    std::optional<double> node_speed;
    for (const auto& tc : nt.processors) {
      const ProcessorType& pt = spec_.catalogue.processors.at(tc.type);
      p_.catalogue.processors.emplace(pt.name, pt);
      for (int i = 0; i < tc.count; i++) {
        ProcessorDesc pd;
        pd.node           = node_index;
        pd.index_in_node  = nd.processor_count++;
        pd.type           = pt.name;
        pd.first_core     = first_core;
        pd.cores          = static_cast<uint32_t>(pt.cores);
        pd.flops_per_core = pt.flops_per_core();
        pd.mem_bw_Bps     = pt.mem_bw_Bps;
        pd.tdp_w          = pt.tdp_w;
        pd.host_per_core  = spec_.granularity == Granularity::core;
        first_core += pd.cores;
        node_tdp += pt.tdp_w;
        node_cores += pt.cores;
        node_mem_bw += pt.mem_bw_Bps;
        if (node_speed && *node_speed != pd.flops_per_core && spec_.granularity == Granularity::node)
          throw InputError(g.origin.file, "at " + g.origin.pointer + "/type",
                           "node type " + quote(nt.name) + " mixes processors of different speeds (" +
                               format_number(*node_speed) + " and " + format_number(pd.flops_per_core) +
                               " flop/s per core): one host per node cannot represent it; use granularity "
                               "'processor' or 'core'");
        node_speed        = pd.flops_per_core;
        std::string pname = nd.name + "-p" + std::to_string(pd.index_in_node);
        if (spec_.granularity == Granularity::core) {
          uint32_t cls  = cpu_class("core:" + pt.name, 1, pd.flops_per_core, pt.tdp_w / pt.cores);
          pd.first_host = static_cast<uint32_t>(p_.hosts.size());
          for (int c = 0; c < pt.cores; c++)
            add_host(pname + "-c" + std::to_string(c), cls, HostKind::cpu, node_index, g.origin);
        } else if (spec_.granularity == Granularity::processor) {
          uint32_t cls  = cpu_class("processor:" + pt.name, pt.cores, pd.flops_per_core, pt.tdp_w);
          pd.first_host = add_host(pname, cls, HostKind::cpu, node_index, g.origin);
        }
        p_.processors.push_back(pd);
      }
    }
    if (spec_.granularity == Granularity::node && not nt.processors.empty()) {
      uint32_t cls = cpu_class("node:" + nt.name, node_cores, *node_speed, node_tdp);
      // A node in a zone of its own (GPU nodes, full meshes) gives the zone its name: its CPU host
      // is then NODE-cpu, beside NODE-gpuK (the same name would be claimed twice).
      const Topology& t = cs.topology;
      bool own_zone     = zone_all_ || t.kind == TopologyKind::clos ||
                      (t.kind != TopologyKind::flat && t.kind != TopologyKind::full && hosts_per_node(nt) > 1);
      uint32_t h = add_host(own_zone ? nd.name + "-cpu" : nd.name, cls, HostKind::cpu, node_index, g.origin);
      for (uint32_t i = nd.first_processor; i < p_.processors.size(); i++)
        p_.processors[i].first_host = h;
    }
    nd.cpu_host_count = static_cast<uint32_t>(p_.hosts.size()) - nd.first_cpu_host;

    // GPUs, one host each.
    for (const auto& tc : nt.gpus) {
      const GpuType& gt = spec_.catalogue.gpus.at(tc.type);
      p_.catalogue.gpus.emplace(gt.name, gt);
      uint32_t cls = gpu_class(gt);
      for (int i = 0; i < tc.count; i++) {
        GpuDesc gd;
        gd.node          = node_index;
        gd.index_in_node = nd.gpu_count++;
        gd.type          = gt.name;
        gd.host =
            add_host(nd.name + "-gpu" + std::to_string(gd.index_in_node), cls, HostKind::gpu, node_index, g.origin);
        p_.gpus.push_back(gd);
      }
    }

    const Topology& topo = cs.topology;
    nd.zoned             = zone_all_ || (topo.kind != TopologyKind::flat && topo.kind != TopologyKind::full &&
                             topo.kind != TopologyKind::clos && nd.host_count() > 1);
    if (topo.kind == TopologyKind::flat) {
      nd.nic_link = add_link(nd.name + "-nic", topo.link, topo.sharing);
    }
    if (nd.zoned || topo.kind == TopologyKind::clos)
      add_node_fabric(nd, nt, node_mem_bw, g.origin);
    if (topo.kind == TopologyKind::clos)
      add_nics(nd, node_index, nt, topo.sharing);
    p_.nodes.push_back(std::move(nd));
  }

  /** A clos node's NICs, each with its link to its leaf at the NIC type's figures. */
  void add_nics(NodeDesc& nd, uint32_t node_index, const NodeType& nt, Sharing sharing)
  {
    const NodeType::Nics& n = *nt.nics;
    const NetworkType& type = spec_.catalogue.networks.at(n.type);
    if (not type.latency_s)
      throw InputError(n.origin.file, "at " + n.origin.pointer + "/type",
                       "network type " + quote(n.type) + " gives no latency: a NIC needs one");
    if (nd.gpu_count > 0 && n.near_gpus.size() != n.count)
      throw InputError(n.origin.file, "at " + n.origin.pointer, "the NICs name no GPU they sit next to");
    nd.first_nic = static_cast<uint32_t>(p_.nics.size());
    nd.nic_count = n.count;
    for (uint32_t i = 0; i < n.count; i++) {
      NicDesc nic;
      nic.node          = node_index;
      nic.index_in_node = i;
      nic.near_gpu      = nd.gpu_count > 0 ? n.near_gpus[i] : 0;
      nic.link          = add_link(nd.name + "-nic" + std::to_string(i), type.bandwidth_Bps, *type.latency_s, sharing,
                                   type.idle_w, type.busy_w, n.origin);
      p_.nics.push_back(nic);
    }
  }

  void add_node_fabric(NodeDesc& nd, const NodeType& nt, double node_mem_bw, const Origin& origin)
  {
    nd.router = nd.name + "-router";
    claim(nd.name, origin); // the node zone
    claim(nd.router, origin);
    if (nd.cpu_host_count > 0) {
      double lat = 0;
      auto m     = spec_.catalogue.memories.find(nt.memory_type);
      if (m != spec_.catalogue.memories.end())
        lat = m->second.latency_s;
      nd.membus_link =
          add_link(nd.name + "-membus", node_mem_bw, lat, Sharing::splitduplex, std::nullopt, std::nullopt, origin);
    }
    if (nd.gpu_count == 0)
      return;
    if (nt.host_interconnect.empty())
      throw InputError(nt.origin.file, "at " + nt.origin.pointer,
                       "node type " + quote(nt.name) +
                           " needs a host_interconnect: its GPU sits behind a node router in this cluster");
    const InterconnectType& host_ic = spec_.catalogue.interconnects.at(nt.host_interconnect);
    p_.catalogue.interconnects.emplace(host_ic.name, host_ic);
    const InterconnectType* gpu_ic = nullptr;
    if (not nt.gpu_interconnect.empty()) {
      gpu_ic = &spec_.catalogue.interconnects.at(nt.gpu_interconnect);
      p_.catalogue.interconnects.emplace(gpu_ic->name, *gpu_ic);
    }
    nd.gpu_fabric = gpu_ic ? gpu_ic->kind : InterconnectType::Kind::pcie;
    // GPU links run at the rate payload reaches when the catalogue gives it (NVLink's headers)
    const double gpu_link_Bps = gpu_ic ? gpu_ic->effective_bandwidth_Bps.value_or(gpu_ic->bandwidth_Bps) : 0;
    for (uint32_t i = 0; i < nd.gpu_count; i++) {
      GpuDesc& gd   = p_.gpus[nd.first_gpu + i];
      std::string b = nd.name + "-gpu" + std::to_string(i);
      gd.pcie_link  = add_link(b + "-pcie", host_ic.bandwidth_Bps, host_ic.latency_s, Sharing::splitduplex,
                               host_ic.idle_w, host_ic.busy_w, origin);
      if (gpu_ic && gpu_ic->kind == InterconnectType::Kind::nvswitch)
        gd.switch_link = add_link(b + "-nvlink", gpu_link_Bps, gpu_ic->latency_s, Sharing::splitduplex, gpu_ic->idle_w,
                                  gpu_ic->busy_w, origin);
    }
    if (gpu_ic && gpu_ic->kind == InterconnectType::Kind::nvlink) {
      nd.mesh_links.assign(static_cast<size_t>(nd.gpu_count) * nd.gpu_count, kNone);
      for (uint32_t a = 0; a < nd.gpu_count; a++)
        for (uint32_t b = a + 1; b < nd.gpu_count; b++)
          nd.mesh_links[static_cast<size_t>(a) * nd.gpu_count + b] =
              add_link(nd.name + "-gpu" + std::to_string(a) + "-gpu" + std::to_string(b) + "-nvlink", gpu_link_Bps,
                       gpu_ic->latency_s, Sharing::splitduplex, gpu_ic->idle_w, gpu_ic->busy_w, origin);
    }
  }
};

} // namespace

Platform resolve(const PlatformSpec& spec)
{
  Platform p = Resolver(spec).run();
  // Keep only the network types actually named by links, with their catalogue entries.
  std::map<std::string, NetworkType> used;
  for (const auto& c : spec.clusters) {
    if (not c.topology.link.type.empty())
      used.emplace(c.topology.link.type, spec.catalogue.networks.at(c.topology.link.type));
    for (const auto& l : c.topology.levels)
      if (not l.link.type.empty())
        used.emplace(l.link.type, spec.catalogue.networks.at(l.link.type));
  }
  if (spec.global_link && not spec.global_link->type.empty())
    used.emplace(spec.global_link->type, spec.catalogue.networks.at(spec.global_link->type));
  for (const auto& [name, node] : p.catalogue.nodes)
    if (node.nics && not p.nics.empty())
      used.emplace(node.nics->type, spec.catalogue.networks.at(node.nics->type));
  for (const auto& [name, net] : used)
    if (not net.transport.empty())
      p.catalogue.transports.emplace(net.transport, spec.catalogue.transports.at(net.transport));
  p.catalogue.networks = std::move(used);
  return p;
}

uint64_t Platform::core_count() const
{
  return processors.empty() ? 0 : processors.back().first_core + processors.back().cores;
}

double Platform::total_flops() const
{
  double total = 0;
  for (const auto& h : hosts) {
    const HostClass& c = class_of(h);
    double best        = 0;
    for (const auto& s : c.pstates)
      best = std::max(best, s.speed_flops);
    total += best * c.cores;
  }
  return total;
}

std::pair<double, double> Platform::power_range_w() const
{
  double low  = 0;
  double high = 0;
  for (const auto& h : hosts) {
    const HostClass& c = class_of(h);
    double idle        = c.pstates[static_cast<size_t>(c.initial_pstate)].idle_w;
    double full        = 0;
    for (const auto& s : c.pstates) {
      idle = std::min(idle, s.idle_w);
      full = std::max(full, s.all_cores_w);
    }
    low += idle;
    high += full;
  }
  for (const auto& l : links) {
    if (l.idle_w) {
      double factor = l.sharing == Sharing::splitduplex ? 2.0 : 1.0; // two SimGrid links
      low += factor * *l.idle_w;
      high += factor * *l.busy_w;
    }
  }
  return {low, high};
}

} // namespace sgai::platform
