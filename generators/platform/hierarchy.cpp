/* The resource hierarchy JSON: what actors need to reason about a platform (clusters, nodes,
 * processors with their core ranges, GPUs) and the SimGrid host behind each resource. */
#include "generators/platform/platform.hpp"

#include <nlohmann/json.hpp>

#include <ostream>

namespace sgai::platform {

namespace {

using nlohmann::ordered_json;

ordered_json range(uint64_t first, uint64_t count)
{
  return ordered_json::array({first, count});
}

ordered_json catalogue_json(const Catalogue& c)
{
  ordered_json out;
  ordered_json procs = ordered_json::object();
  for (const auto& [name, p] : c.processors)
    procs[name] = {{"id", p.id},
                   {"uarch", p.uarch},
                   {"cores", p.cores},
                   {"clock_hz", p.clock_hz},
                   {"flops_per_cycle", p.flops_per_cycle},
                   {"flops_per_core", p.flops_per_core()},
                   {"mem_bw_Bps", p.mem_bw_Bps},
                   {"llc_bytes", p.llc_bytes},
                   {"tdp_w", p.tdp_w}};
  out["processor_types"] = procs;
  ordered_json gpus      = ordered_json::object();
  for (const auto& [name, g] : c.gpus) {
    ordered_json peaks = ordered_json::object();
    for (const auto& [prec, f] : g.peak_flops)
      peaks[prec] = f;
    ordered_json states = ordered_json::array();
    for (const auto& s : g.pstates)
      states.push_back({{"speed", s.speed_factor}, {"max_w", s.max_w}});
    gpus[name] = {{"id", g.id},
                  {"peak_flops", peaks},
                  {"default_precision", g.default_precision},
                  {"memory_bytes", g.memory_bytes},
                  {"mem_bw_Bps", g.mem_bw_Bps},
                  {"idle_w", g.idle_w},
                  {"max_w", g.max_w},
                  {"pstates", states}};
  }
  out["gpu_types"]   = gpus;
  ordered_json nodes = ordered_json::object();
  for (const auto& [name, n] : c.nodes)
    nodes[name] = {{"id", n.id}, {"memory_type", n.memory_type}, {"memory_bytes", n.memory_bytes}};
  out["node_types"] = nodes;
  ordered_json mems = ordered_json::object();
  for (const auto& [name, m] : c.memories)
    mems[name] = {{"latency_s", m.latency_s}};
  out["memory_types"] = mems;
  ordered_json nets   = ordered_json::object();
  for (const auto& [name, n] : c.networks)
    nets[name] = {{"bandwidth_Bps", n.bandwidth_Bps}};
  out["network_types"] = nets;
  return out;
}

} // namespace

void write_hierarchy_json(const Platform& p, std::ostream& out)
{
  ordered_json j;
  j["sgai_hierarchy"] = 1;
  j["platform"]       = p.name;
  j["source"]         = p.source_file;
  j["granularity"]    = to_string(p.granularity);
  j["cpu_pstates"]    = p.cpu_pstate_names;
  auto [idle, full]   = p.power_range_w();
  j["totals"]         = {{"clusters", p.clusters.size()},
                         {"nodes", p.nodes.size()},
                         {"processors", p.processors.size()},
                         {"cores", p.core_count()},
                         {"gpus", p.gpus.size()},
                         {"hosts", p.hosts.size()},
                         {"links", p.links.size()},
                         {"flops", p.total_flops()},
                         {"power_idle_w", idle},
                         {"power_max_w", full}};
  j["job_limits"]     = p.job_limits_json.empty() ? ordered_json() : ordered_json::parse(p.job_limits_json);
  j["types"]          = catalogue_json(p.catalogue);

  ordered_json clusters = ordered_json::array();
  for (const auto& c : p.clusters) {
    ordered_json cj = {{"id", c.id},
                       {"topology", to_string(c.topology.kind)},
                       {"router", c.router},
                       {"nodes", range(c.first_node, c.node_count)}};
    if (c.global_link != kNone)
      cj["global_link"] = p.links[static_cast<size_t>(c.global_link)].name;
    clusters.push_back(cj);
  }
  j["clusters"] = clusters;

  ordered_json nodes = ordered_json::array();
  for (const auto& n : p.nodes) {
    ordered_json nj = {{"name", n.name},
                       {"cluster", n.cluster},
                       {"type", n.type},
                       {"memory_bytes", n.memory_bytes},
                       {"processors", range(n.first_processor, n.processor_count)},
                       {"gpus", range(n.first_gpu, n.gpu_count)},
                       {"cpu_hosts", range(n.first_cpu_host, n.cpu_host_count)}};
    if (n.nic_link != kNone)
      nj["nic"] = p.links[static_cast<size_t>(n.nic_link)].name;
    if (n.zoned)
      nj["router"] = n.router;
    nodes.push_back(nj);
  }
  j["nodes"] = nodes;

  ordered_json procs = ordered_json::array();
  for (const auto& pr : p.processors)
    procs.push_back({{"node", pr.node},
                     {"type", pr.type},
                     {"cores", range(pr.first_core, pr.cores)},
                     {"hosts", range(pr.first_host, pr.host_per_core ? pr.cores : 1)},
                     {"flops_per_core", pr.flops_per_core},
                     {"mem_bw_Bps", pr.mem_bw_Bps},
                     {"tdp_w", pr.tdp_w}});
  j["processors"] = procs;

  ordered_json gpus = ordered_json::array();
  for (const auto& g : p.gpus)
    gpus.push_back({{"node", g.node}, {"type", g.type}, {"host", g.host}});
  j["gpus"] = gpus;

  ordered_json hosts = ordered_json::array();
  for (const auto& h : p.hosts)
    hosts.push_back(h.name);
  j["hosts"] = hosts;

  out << j.dump(1) << "\n";
}

} // namespace sgai::platform
