/* ddp: data-parallel training over ddp.ranks GPUs predicted from one GPU's trace (Daydream §5.1,
 * "Distributed Training"). The gradient buckets come from the trace: DDP's record_param_comms
 * ranges (collective, size), which PyTorch records even in a one-GPU run. For each all-reduce
 * bucket a communication task is inserted on a NCCL channel of its rank:
 *   - it starts when the CPU thread issued it and the GPU work launched before that ended (the
 *     bucket's gradients are ready: wait-free backpropagation);
 *   - it takes a ring all-reduce's alpha-beta time over the ranks (2(n-1) steps of
 *     ddp.latency_us + bytes / n / bandwidth, ddp.bandwidth in GB/s per GPU; the replay library's
 *     formula);
 *   - the channel runs one at a time, in the order they become ready (the walk's schedule);
 *   - the iteration's first GPU task after backward (its weight-update phase, else the first GPU
 *     task launched after the last bucket) waits for every bucket of the iteration, as DDP's final
 *     callback makes the compute stream wait for NCCL's.
 * A trace that already holds NCCL all-reduce kernels with sizes (a rank of a data-parallel run)
 * has them re-timed the same way for ddp.ranks (their measured time includes waiting for the other
 * ranks). Without either, it is refused. */
#include "core/whatif/build.hpp"
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <algorithm>
#include <map>

namespace sgai::whatif::optimizations_list {

namespace {

double ring_all_reduce_ns(uint64_t bytes, double ranks, double bandwidth_Bps, double latency_s)
{
  return ring_ns("allreduce", ranks, double(bytes), bandwidth_Bps, latency_s);
}

void apply_ddp(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  const double ranks = ctx.number("ddp.ranks", 8);
  const double bw    = ctx.number("ddp.bandwidth", 12.5) * 1e9;
  const double lat   = ctx.number("ddp.latency_us", 5) * 1e-6;
  if (not(ranks >= 2 && ranks <= 1e6 && ranks == double(int64_t(ranks))))
    not_applicable(g, "ddp", "ddp.ranks must be a whole number from 2");
  if (not(bw > 0) || not(lat >= 0))
    not_applicable(g, "ddp", "ddp.bandwidth must be > 0 and ddp.latency_us >= 0");

  // a rank of a data-parallel run: its all-reduce kernels re-timed
  auto comm = g.select([&g](const Task& t) {
    return t.kind == TaskKind::comm && t.collective >= 0 && g.collectives[size_t(t.collective)].type == "allreduce" &&
           t.bytes > 0;
  });
  if (not comm.empty()) {
    for (uint32_t u : comm) {
      g.tasks[u].dur_ns = int64_t(ring_all_reduce_ns(g.tasks[u].bytes, ranks, bw, lat) + 0.5);
      ++note.tasks_changed;
    }
    note.detail = "the trace's all-reduce kernels re-timed for " + std::to_string(int64_t(ranks)) + " ranks";
    return;
  }

  std::vector<Bucket> buckets;
  for (const Bucket& b : g.buckets)
    if (b.type == "allreduce" && b.bytes > 0)
      buckets.push_back(b);
  if (buckets.empty())
    not_applicable(g, "ddp",
                   "the trace shows no gradient bucket (neither NCCL all-reduce kernels with sizes nor DDP's "
                   "record_param_comms ranges)");
  std::sort(buckets.begin(), buckets.end(), [](const Bucket& a, const Bucket& b) { return a.time_ns < b.time_ns; });

  // per rank: the launches in time order, to find the GPU work issued before a point
  std::map<int32_t, std::vector<std::pair<int64_t, uint32_t>>> launched; // rank -> (launch start, GPU task)
  for (uint32_t i = 0; i < g.tasks.size(); ++i) {
    if (g.tasks[i].removed || g.tasks[i].kind != TaskKind::runtime)
      continue;
    for (uint32_t e : g.out[i])
      if (not g.edges[e].removed && g.edges[e].kind == EdgeKind::launch)
        launched[g.tasks[i].rank].push_back({g.tasks[i].start_ns, g.edges[e].to});
  }
  for (auto& [r, list] : launched)
    std::sort(list.begin(), list.end());
  std::map<int32_t, uint32_t> channel;
  // per (rank, step): the inserted tasks and the last bucket's time
  std::map<std::pair<int32_t, int32_t>, std::pair<std::vector<uint32_t>, int64_t>> per_step;
  for (const Bucket& b : buckets) {
    // the CPU task that issued it: the last one of its thread starting at or before it
    uint32_t issuer = kNone;
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const Task& t = g.tasks[i];
      if (not t.removed && t.thread == b.thread && t.start_ns <= b.time_ns &&
          (issuer == kNone || t.start_ns > g.tasks[issuer].start_ns))
        issuer = i;
    }
    if (issuer == kNone)
      continue;
    const auto& list = launched[b.rank];
    auto it          = std::upper_bound(list.begin(), list.end(), std::make_pair(b.time_ns, kNone));
    std::vector<uint32_t> deps{issuer};
    if (it != list.begin())
      deps.push_back(std::prev(it)->second);
    if (not channel.count(b.rank))
      channel[b.rank] = g.add_thread(ExecThread{
          ThreadKind::channel, "rank " + std::to_string(g.trace_rank(b.rank)) + " ddp channel", b.rank, -1, 0});
    Task t;
    t.kind       = TaskKind::comm;
    t.thread     = channel[b.rank];
    t.rank       = b.rank;
    t.name       = g.intern("all-reduce bucket (ddp)");
    t.bytes      = b.bytes;
    t.step       = g.tasks[issuer].step;
    t.phase      = Phase::backward;
    t.layer      = g.tasks[issuer].layer;
    t.start_ns   = b.time_ns;
    t.dur_ns     = int64_t(ring_all_reduce_ns(b.bytes, ranks, bw, lat) + 0.5);
    t.collective = int32_t(g.collectives.size());
    g.collectives.push_back(CollectiveInfo{"allreduce", b.bytes, int64_t(ranks), "ddp"});
    uint32_t id = g.insert(t, deps);
    auto& slot  = per_step[{b.rank, t.step}];
    slot.first.push_back(id);
    slot.second = std::max(slot.second, b.time_ns);
    ++note.tasks_inserted;
  }
  // the compute stream waits for the iteration's buckets before the weight update
  for (auto& [key, slot] : per_step) {
    auto [rank, step] = key;
    uint32_t first    = kNone;
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const Task& t = g.tasks[i];
      if (t.removed || t.rank != rank || t.step != step || not on_gpu(t.kind) || t.kind == TaskKind::comm)
        continue;
      if (t.phase == Phase::optimizer && (first == kNone || t.start_ns < g.tasks[first].start_ns))
        first = i;
    }
    if (first == kNone) {
      const auto& list = launched[rank];
      auto it          = std::upper_bound(list.begin(), list.end(), std::make_pair(slot.second, kNone));
      for (; it != list.end(); ++it)
        if (g.tasks[it->second].phase != Phase::backward) {
          first = it->second;
          break;
        }
    }
    if (first == kNone)
      continue;
    for (uint32_t c : slot.first)
      g.add_edge(c, first, 0, EdgeKind::inserted);
  }
  note.detail = std::to_string(note.tasks_inserted) + " bucket all-reduces over " + std::to_string(int64_t(ranks)) +
                " ranks at " + std::to_string(bw * 1e-9) + " GB/s";
}

} // namespace

Optimization ddp()
{
  return {"ddp",
          "data parallel over ddp.ranks GPUs (8): the trace's gradient buckets as ring all-reduces "
          "(ddp.bandwidth GB/s, ddp.latency_us) overlapping backward; the weight update waits for them",
          apply_ddp};
}

} // namespace sgai::whatif::optimizations_list
