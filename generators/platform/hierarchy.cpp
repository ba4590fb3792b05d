/* The resource hierarchy JSON: what actors need to reason about a platform (clusters, nodes,
 * processors with their core ranges, GPUs) and the SimGrid host behind each resource. Written
 * as a stream (one record per line) so that million-core platforms stay cheap. */
#include "core/foundation/json_writer.hpp"
#include "generators/platform/platform.hpp"

#include <ostream>

namespace sgai::platform {

namespace {

void range(json::Writer& w, std::string_view key, uint64_t first, uint64_t count)
{
  w.key(key).begin_array(true).value(first).value(count).end_array();
}

void write_types(json::Writer& w, const Catalogue& c)
{
  w.key("types").begin_object();
  w.key("processor_types").begin_object();
  for (const auto& [name, p] : c.processors)
    w.key(name)
        .begin_object(true)
        .field("id", p.id)
        .field("uarch", p.uarch)
        .field("cores", p.cores)
        .field("clock_hz", p.clock_hz)
        .field("flops_per_cycle", p.flops_per_cycle)
        .field("flops_per_core", p.flops_per_core())
        .field("mem_bw_Bps", p.mem_bw_Bps)
        .field("llc_bytes", p.llc_bytes)
        .field("tdp_w", p.tdp_w)
        .end_object();
  w.end_object();
  w.key("gpu_types").begin_object();
  for (const auto& [name, g] : c.gpus) {
    w.key(name).begin_object(true).field("id", g.id).key("peak_flops").begin_object();
    for (const auto& [prec, f] : g.peak_flops)
      w.field(prec, f);
    w.end_object()
        .field("default_precision", g.default_precision)
        .field("memory_bytes", g.memory_bytes)
        .field("mem_bw_Bps", g.mem_bw_Bps)
        .field("idle_w", g.idle_w)
        .field("max_w", g.max_w)
        .key("pstates")
        .begin_array();
    for (const auto& s : g.pstates) {
      w.begin_object().field("speed", s.speed_factor).field("max_w", s.max_w);
      if (s.memory_factor != 1)
        w.field("memory_speed", s.memory_factor);
      w.end_object();
    }
    w.end_array().end_object();
  }
  w.end_object();
  w.key("node_types").begin_object();
  for (const auto& [name, n] : c.nodes)
    w.key(name)
        .begin_object(true)
        .field("id", n.id)
        .field("memory_type", n.memory_type)
        .field("memory_bytes", n.memory_bytes)
        .end_object();
  w.end_object();
  w.key("memory_types").begin_object();
  for (const auto& [name, m] : c.memories)
    w.key(name).begin_object(true).field("latency_s", m.latency_s).end_object();
  w.end_object();
  w.key("network_types").begin_object();
  for (const auto& [name, n] : c.networks)
    w.key(name).begin_object(true).field("bandwidth_Bps", n.bandwidth_Bps).end_object();
  w.end_object();
  w.end_object();
}

} // namespace

void write_hierarchy_json(const Platform& p, std::ostream& out)
{
  json::Writer w(out);
  w.begin_object();
  w.field("sgai_hierarchy", 1).field("platform", p.name).field("source", p.source_file);
  w.field("granularity", to_string(p.granularity));
  w.key("cpu_pstates").begin_array(true);
  for (const auto& n : p.cpu_pstate_names)
    w.value(n);
  w.end_array();
  auto [idle, full] = p.power_range_w();
  w.key("totals")
      .begin_object(true)
      .field("clusters", static_cast<uint64_t>(p.clusters.size()))
      .field("nodes", static_cast<uint64_t>(p.nodes.size()))
      .field("processors", static_cast<uint64_t>(p.processors.size()))
      .field("cores", p.core_count())
      .field("gpus", static_cast<uint64_t>(p.gpus.size()))
      .field("hosts", static_cast<uint64_t>(p.hosts.size()))
      .field("links", static_cast<uint64_t>(p.links.size()))
      .field("flops", p.total_flops())
      .field("power_idle_w", idle)
      .field("power_max_w", full)
      .end_object();
  w.key("job_limits");
  if (p.job_limits_json.empty())
    w.null();
  else
    w.raw(p.job_limits_json);
  write_types(w, p.catalogue);

  w.key("clusters").begin_array();
  for (const auto& c : p.clusters) {
    w.begin_object(true).field("id", c.id).field("topology", to_string(c.topology.kind)).field("router", c.router);
    range(w, "nodes", c.first_node, c.node_count);
    if (c.global_link != kNone)
      w.field("global_link", p.links[static_cast<size_t>(c.global_link)].name);
    w.end_object();
  }
  w.end_array();

  w.key("nodes").begin_array();
  for (const auto& n : p.nodes) {
    w.begin_object(true)
        .field("name", n.name)
        .field("cluster", n.cluster)
        .field("type", n.type)
        .field("memory_bytes", n.memory_bytes);
    range(w, "processors", n.first_processor, n.processor_count);
    range(w, "gpus", n.first_gpu, n.gpu_count);
    range(w, "cpu_hosts", n.first_cpu_host, n.cpu_host_count);
    if (n.nic_link != kNone)
      w.field("nic", p.links[static_cast<size_t>(n.nic_link)].name);
    if (n.nic_count > 0) {
      w.key("nics").begin_array();
      for (uint32_t i = 0; i < n.nic_count; i++) {
        const NicDesc& nic = p.nics[n.first_nic + i];
        w.begin_object(true)
            .field("link", p.links[static_cast<size_t>(nic.link)].name)
            .field("near_gpu", nic.near_gpu)
            .field("leaf", nic.position / p.clusters[n.cluster].leaf_ports)
            .end_object();
      }
      w.end_array();
    }
    if (n.zoned)
      w.field("router", n.router);
    w.end_object();
  }
  w.end_array();

  w.key("processors").begin_array();
  for (const auto& pr : p.processors) {
    w.begin_object(true).field("node", pr.node).field("type", pr.type);
    range(w, "cores", pr.first_core, pr.cores);
    range(w, "hosts", pr.first_host, pr.host_per_core ? pr.cores : 1);
    w.field("flops_per_core", pr.flops_per_core)
        .field("mem_bw_Bps", pr.mem_bw_Bps)
        .field("tdp_w", pr.tdp_w)
        .end_object();
  }
  w.end_array();

  w.key("gpus").begin_array();
  for (const auto& g : p.gpus)
    w.begin_object(true).field("node", g.node).field("type", g.type).field("host", g.host).end_object();
  w.end_array();

  w.key("hosts").begin_array();
  for (const auto& h : p.hosts)
    w.value(h.name);
  w.end_array();
  w.end_object();
}

} // namespace sgai::platform
