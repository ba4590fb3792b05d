#include "core/collectives/nccl_plan.hpp"

#include "generators/platform/model.hpp"

#include <algorithm>
#include <map>
#include <stdexcept>

namespace sgai::collectives {

std::optional<NcclPlan> plan_nccl(const nccl::System& system, CollectiveType type, uint64_t bytes,
                                  const std::vector<uint32_t>& given_node, std::optional<nccl::Algo> algo,
                                  std::optional<nccl::Proto> proto, ScheduleCache& cache,
                                  const std::function<double(uint32_t, uint32_t)>& latency)
{
  const auto key_type = canonical(type);
  const auto nr       = static_cast<uint32_t>(given_node.size());
  // the members' nodes, numbered in order of appearance
  std::vector<uint32_t> node(nr, 0);
  std::map<uint32_t, uint32_t> ids;
  for (uint32_t i = 0; i < nr; i++)
    node[i] = ids.emplace(given_node[i], static_cast<uint32_t>(ids.size())).first->second;
  const auto nodes = static_cast<uint32_t>(ids.size());
  // ranks filling their nodes in order, as many on each: NCCL's trees across nodes, and rails
  // when a node has several of them
  const uint32_t ppn = nodes > 1 ? nr / nodes : nr;
  bool regular       = nodes > 1 && nr % nodes == 0;
  for (uint32_t i = 0; regular && i < nr; i++)
    regular = node[i] == i / ppn;
  auto m          = nccl::model(system, key_type, nr, nodes);
  m.regular_nodes = regular || nodes <= 1;
  double tuned    = static_cast<double>(bytes) * (key_type == CollectiveType::all_gather ? nr : 1);
  auto c          = nccl::choose(m, tuned, algo, proto);
  if (not c) {
    if (not algo && not proto)
      return std::nullopt; // not a collective NCCL tunes (all-to-all)
    std::string what = std::string(algo ? nccl::to_string(*algo) : "") + (algo && proto ? "/" : "") +
                       (proto ? nccl::to_string(*proto) : "");
    throw std::invalid_argument("NCCL has no " + what + " " + chakra::to_string(type) + " over " + std::to_string(nr) +
                                " ranks on " + std::to_string(nodes) +
                                " node(s) of this platform (NVLS: all-reduce inside one NVSwitch domain of "
                                "more than 4 GPUs, across nodes where the switches reduce (SHARP); tree: "
                                "all-reduce; LL128: NVLink)");
  }
  const bool sharp = c->algo == nccl::Algo::nvls && nodes > 1; // NVLS across nodes: the switches reduce
  if ((c->algo == nccl::Algo::nvls_tree || sharp) && not regular)
    throw std::invalid_argument(std::string(sharp ? "NVLS with SHARP" : "NVLS-tree") +
                                " needs the group's ranks to fill their nodes in order, as many on each (" +
                                std::to_string(nr) + " ranks on " + std::to_string(nodes) + " nodes)");
  // NCCL's channels for this size; rings across nodes: one ring per GPU of a node, entering each node
  // at another GPU (rails), as many as the channels allow
  const uint32_t nc    = nccl::channels(system, c->algo, c->proto, nr, tuned);
  const uint32_t rings = std::min(ppn, nc);
  const bool rails     = c->algo == nccl::Algo::ring && regular && ppn > 1 && rings > 1;
  // NCCL's tree: chains in the nodes under a tree of nodes (chains alone in one node)
  const bool node_trees = (c->algo == nccl::Algo::tree && (regular || nodes <= 1)) ||
                          (c->algo == nccl::Algo::nvls_tree && regular) || sharp;
  NcclPlan plan;
  plan.algorithm  = nccl::to_string(c->algo) + (rails   ? " x" + std::to_string(rings)
                                                : sharp ? std::string(" sharp")
                                                        : std::string());
  std::string key = "nccl/" + std::to_string(static_cast<int>(type)) + "/" + std::to_string(nr) + "/" + plan.algorithm +
                    (node_trees ? "/nodes of " + std::to_string(ppn) : std::string());
  auto& cached = cache[key];
  if (not cached) {
    try {
      if (rails || node_trees) {
        Schedule s  = rails                              ? algorithms::ring_channels(type, nr, rings, ppn, true)
                      : c->algo == nccl::Algo::nvls_tree ? algorithms::nvls_tree(type, nr, ppn)
                      : sharp                            ? algorithms::nvls_sharp(type, nr, ppn)
                                                         : algorithms::nccl_tree(type, nr, ppn);
        s.type      = type;
        s.algorithm = rails                         ? Algorithm::ring
                      : c->algo == nccl::Algo::tree ? Algorithm::double_binary_tree
                                                    : Algorithm::nvls;
        s.ranks     = nr;
        s.index();
        cached = std::make_shared<const Schedule>(std::move(s));
      } else
        cached =
            std::make_shared<const Schedule>(make_schedule(type,
                                                           c->algo == nccl::Algo::ring   ? Algorithm::ring
                                                           : c->algo == nccl::Algo::tree ? Algorithm::double_binary_tree
                                                                                         : Algorithm::nvls,
                                                           nr));
    } catch (const std::invalid_argument&) {
      cached.reset();
      throw;
    }
  }
  plan.schedule = cached;
  plan.lanes    = cached->lanes;
  // the platform's own path latencies, which NCCL's step latencies include
  double intra = 0, inter = 0;
  bool have_intra = false, have_inter = false;
  for (uint32_t i = 1; i < nr && not(have_intra && have_inter); i++) {
    bool same = node[i] == node[0];
    if ((same && have_intra) || (not same && have_inter))
      continue;
    double l                         = latency(0, i);
    (same ? intra : inter)           = l;
    (same ? have_intra : have_inter) = true;
  }
  plan.costs       = std::make_unique<nccl::ProtocolCosts>(nccl::costs(system, m, *c, intra, inter, nc));
  plan.costs->node = std::move(node);
  return plan;
}

/** What NCCL would detect on the platform (core/collectives/nccl.hpp), from its first GPU's node:
 *  none when the GPU type names no architecture. */
std::optional<nccl::System> nccl_system(const platform::Platform& p)
{
  if (p.gpus.empty())
    return std::nullopt;
  const auto& gpu  = p.gpus[0];
  const auto& node = p.nodes[gpu.node];
  auto gt          = p.catalogue.gpus.find(gpu.type);
  auto nt          = p.catalogue.nodes.find(node.type);
  nccl::System s;
  if (gt == p.catalogue.gpus.end() || nt == p.catalogue.nodes.end() ||
      not nccl::arch_from_string(gt->second.architecture, s.arch))
    return std::nullopt;
  const auto ic   = p.catalogue.interconnects.find(nt->second.gpu_interconnect);
  const auto host = p.catalogue.interconnects.find(nt->second.host_interconnect);
  s.nvlink        = node.gpu_fabric != platform::InterconnectType::Kind::pcie && ic != p.catalogue.interconnects.end();
  if (s.nvlink) {
    double rate = ic->second.effective_bandwidth_Bps.value_or(ic->second.bandwidth_Bps);
    if (ic->second.kind == platform::InterconnectType::Kind::nvlink) // a mesh: a link per peer
      rate *= std::max<uint32_t>(1, node.gpu_count - 1);
    s.intra_GBps      = rate / 1e9;
    s.nvls_efficiency = ic->second.nvls_efficiency;
  } else if (host != p.catalogue.interconnects.end())
    s.intra_GBps = host->second.bandwidth_Bps / 1e9;
  if (node.nic_link != platform::kNone) {
    s.inter_GBps     = p.links[static_cast<size_t>(node.nic_link)].bandwidth_Bps / 1e9;
    s.net_latency_us = p.links[static_cast<size_t>(node.nic_link)].latency_s * 1e6;
  } else if (node.nic_count > 0) { // a NIC per GPU (clos): all of the node's, one's latency
    s.inter_GBps = 0;
    for (uint32_t i = 0; i < node.nic_count; i++)
      s.inter_GBps += p.links[static_cast<size_t>(p.nics[node.first_nic + i].link)].bandwidth_Bps / 1e9;
    s.net_latency_us = p.links[static_cast<size_t>(p.nics[node.first_nic].link)].latency_s * 1e6;
  } else
    s.inter_GBps = s.intra_GBps;
  if (node.processor_count > 0)
    s.intel_cpu = p.processors[node.first_processor].type.find("EPYC") == std::string::npos;
  nccl::default_channels(s);
  // the transport of the nodes' network (the catalogue's transport_types)
  const auto& topo = p.clusters[node.cluster].topology;
  std::string net  = topo.kind == platform::TopologyKind::fat_tree && not topo.levels.empty() ? topo.levels[0].link.type
                     : topo.kind == platform::TopologyKind::clos && nt->second.nics           ? nt->second.nics->type
                                                                                              : topo.link.type;
  auto nw          = p.catalogue.networks.find(net);
  if (nw != p.catalogue.networks.end() && not nw->second.transport.empty()) {
    auto tr = p.catalogue.transports.find(nw->second.transport);
    if (tr != p.catalogue.transports.end()) {
      const auto& t         = tr->second;
      s.transport           = t.name;
      s.net_latency_us      = t.latency_s * 1e6; // NCCL's latencyInter: the plugin's latency property
      s.protocols           = {t.ll, t.ll128, t.simple};
      s.nvls_allowed        = t.nvls;
      s.collnet             = topo.sharp && t.kind == "ib_verbs"; // SHARP in the switches (checked on load)
      s.simple_buffer_bytes = t.buffer_bytes;
      s.min_channels        = t.min_channels;
      if (not t.gpu_direct && host != p.catalogue.interconnects.end()) {
        // bounce buffers in host memory: the data gets (and NCCL's model sees) the CPU path's half
        s.staged_GBps = host->second.bandwidth_Bps / 2 / 1e9;
      }
      s.ring_channels = std::max(s.ring_channels, t.min_channels);
    }
  }
  return s;
}

NcclPlan plan_collective(const nccl::System* system, CollectiveType type, uint64_t bytes,
                         const std::vector<uint32_t>& node, std::optional<nccl::Algo> algo,
                         std::optional<nccl::Proto> proto, ScheduleCache& cache,
                         const std::function<double(uint32_t, uint32_t)>& latency,
                         const std::function<std::shared_ptr<const Schedule>(std::string& name)>& fallback)
{
  if (system)
    if (auto plan = plan_nccl(*system, type, bytes, node, algo, proto, cache, latency))
      return std::move(*plan);
  NcclPlan plan;
  plan.schedule = fallback(plan.algorithm);
  return plan;
}

} // namespace sgai::collectives
