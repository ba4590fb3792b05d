/* p3: Priority-based Parameter Propagation (Jayarajan et al., SysML'19) as Daydream models it
 * (§5.1), on a parameter server: each gradient bucket leaves in slices of p3.slice bytes (default
 * 200,000: 50,000 FP32 parameters, P3's slice), each pushed to the server and pulled back updated,
 * each transfer ddp.latency_us + slice / ddp.bandwidth (GB/s) on the worker's link, pushes and
 * pulls on two channels (full duplex; a sharded server, one per machine as in P3's KVStore, is
 * assumed never to be the bottleneck). The channels' schedule is overridden by priorities: a bucket
 * issued later in backward (closer to the input, needed first by the next forward) goes first.
 * Whoever waited for the bucket's all-reduce waits for its pulls. In PyTorch's data-parallel step
 * the weight update waits for every bucket, so what the priorities buy here is the overlap of
 * slicing with backward; the per-layer gating of the next forward in MXNet, where P3 gains most, is
 * not in a PyTorch trace. */
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <algorithm>
#include <cmath>
#include <map>

namespace sgai::whatif::optimizations_list {

namespace {

void apply_p3(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  auto comm = allreduce_tasks(g);
  if (comm.empty())
    not_applicable(g, "p3", "no all-reduce of known size (apply ddp first, or give a data-parallel trace)");
  const double slice = ctx.number("p3.slice", 200'000);
  const double bw    = ctx.number("ddp.bandwidth", 12.5) * 1e9;
  const double lat   = ctx.number("ddp.latency_us", 5) * 1e-6;
  if (not(slice >= 1 && bw > 0 && lat >= 0))
    not_applicable(g, "p3", "p3.slice must be at least one byte, ddp.bandwidth > 0 and ddp.latency_us >= 0");
  // the order each bucket was issued in, per (rank, step)
  std::sort(comm.begin(), comm.end(),
            [&g](uint32_t a, uint32_t b) { return g.tasks[a].start_ns < g.tasks[b].start_ns; });
  std::map<std::pair<int32_t, int32_t>, int32_t> issued;
  std::map<int32_t, std::pair<uint32_t, uint32_t>> channels; // rank -> (push, pull)
  for (uint32_t c : comm) {
    const Task t  = g.tasks[c];
    int32_t order = issued[{t.rank, t.step}]++;
    if (not channels.count(t.rank)) {
      std::string r    = "rank " + std::to_string(g.trace_rank(t.rank));
      channels[t.rank] = {g.add_thread(ExecThread{ThreadKind::channel, r + " p3 push", t.rank, -1, 0}),
                          g.add_thread(ExecThread{ThreadKind::channel, r + " p3 pull", t.rank, -1, 1})};
    }
    std::vector<uint32_t> parents, children;
    neighbours(g, c, parents, children);
    auto pieces = uint64_t(std::ceil(double(t.bytes) / slice));
    for (uint64_t k = 0; k < pieces; ++k) {
      uint64_t bytes = std::min<uint64_t>(uint64_t(slice), t.bytes - k * uint64_t(slice));
      Task s         = t;
      s.thread       = channels[t.rank].first;
      s.name         = g.intern("push slice (p3)");
      s.bytes        = bytes;
      s.event        = kNone;
      s.gap_ns       = 0;
      s.priority     = -order;
      s.dur_ns       = int64_t((lat + double(bytes) / bw) * 1e9 + 0.5);
      uint32_t push  = g.insert(s, parents);
      s.thread       = channels[t.rank].second;
      s.name         = g.intern("pull slice (p3)");
      uint32_t pull  = g.insert(s, {push});
      for (uint32_t ch : children)
        g.add_edge(pull, ch, 0, EdgeKind::inserted);
      note.tasks_inserted += 2;
    }
    g.remove(c);
    ++note.tasks_removed;
  }
  note.detail =
      "slices of " + std::to_string(int64_t(slice)) + " bytes pushed and pulled, the later-issued bucket first";
}

} // namespace

Optimization p3()
{
  return {"p3",
          "P3: all-reduces cut in p3.slice-byte slices, the bucket closest to the input first (a priority schedule)",
          apply_p3};
}

} // namespace sgai::whatif::optimizations_list
