/* blueconnect: BlueConnect (Cho et al., SysML'19) as Daydream models it (§5.2): each all-reduce
 * becomes a reduce-scatter and an all-gather on two channels of their own, so the all-gather of
 * one bucket runs beside the reduce-scatter of the next. Over p = p1 x p2 ranks
 * (blueconnect.gpus_per_node p1, default 8) the reduce-scatter is one within the node over p1
 * (blueconnect.intra GB/s, default 150: NVLink) then one across nodes over p2 of 1/p1 of the
 * buffer (ddp.bandwidth GB/s, default 12.5), the all-gather the same in reverse; each stage a
 * ring's alpha-beta time (Thakur et al.'s formulas, the replay library's), ddp.latency_us per step.
 * Whoever waited for the all-reduce waits for the all-gather. */
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <map>

namespace sgai::whatif::optimizations_list {

namespace {

void apply_blueconnect(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  auto comm = allreduce_tasks(g);
  if (comm.empty())
    not_applicable(g, "blueconnect", "no all-reduce of known size (apply ddp first, or give a data-parallel trace)");
  const double p1    = ctx.number("blueconnect.gpus_per_node", 8);
  const double intra = ctx.number("blueconnect.intra", 150) * 1e9;
  const double inter = ctx.number("ddp.bandwidth", 12.5) * 1e9;
  const double lat   = ctx.number("ddp.latency_us", 5) * 1e-6;
  if (not(p1 >= 1 && intra > 0 && inter > 0 && lat >= 0))
    not_applicable(g, "blueconnect", "blueconnect.gpus_per_node must be >= 1 and the bandwidths > 0");
  std::map<int32_t, std::pair<uint32_t, uint32_t>> channels; // rank -> (reduce-scatter, all-gather)
  for (uint32_t c : comm) {
    const Task t = g.tasks[c];
    double p     = collective_ranks(g, c, ctx);
    double local = std::min(p1, p);
    double nodes = p / local;
    double s     = double(t.bytes);
    double rs =
        ring_ns("reduce_scatter", local, s, intra, lat) + ring_ns("reduce_scatter", nodes, s / local, inter, lat);
    double ag = ring_ns("all_gather", nodes, s / local, inter, lat) + ring_ns("all_gather", local, s, intra, lat);
    if (not channels.count(t.rank)) {
      std::string r    = "rank " + std::to_string(g.trace_rank(t.rank));
      channels[t.rank] = {g.add_thread(ExecThread{ThreadKind::channel, r + " reduce-scatter", t.rank, -1, 0}),
                          g.add_thread(ExecThread{ThreadKind::channel, r + " all-gather", t.rank, -1, 1})};
    }
    std::vector<uint32_t> parents, children;
    neighbours(g, c, parents, children);
    Task a     = t;
    a.thread   = channels[t.rank].first;
    a.name     = g.intern("reduce-scatter (blueconnect)");
    a.dur_ns   = int64_t(rs + 0.5);
    a.gap_ns   = 0;
    a.event    = kNone;
    uint32_t x = g.insert(a, parents);
    Task b     = a;
    b.thread   = channels[t.rank].second;
    b.name     = g.intern("all-gather (blueconnect)");
    b.dur_ns   = int64_t(ag + 0.5);
    uint32_t y = g.insert(b, {x});
    for (uint32_t ch : children)
      g.add_edge(y, ch, 0, EdgeKind::inserted);
    g.remove(c);
    ++note.tasks_removed;
    note.tasks_inserted += 2;
  }
  note.detail =
      "all-reduces as reduce-scatter + all-gather on two channels, " + std::to_string(int64_t(p1)) + " GPUs per node";
}

} // namespace

Optimization blueconnect()
{
  return {"blueconnect",
          "BlueConnect: each all-reduce as a hierarchical reduce-scatter and all-gather on two parallel channels "
          "(blueconnect.gpus_per_node, blueconnect.intra GB/s, ddp.bandwidth GB/s)",
          apply_blueconnect};
}

} // namespace sgai::whatif::optimizations_list
