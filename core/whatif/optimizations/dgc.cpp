/* dgc: Deep Gradient Compression (Lin et al., ICLR'18) as Daydream models it (§5.2): the
 * communication is scaled and compression and decompression GPU tasks are inserted. Each gradient
 * all-reduce of S bytes becomes an all-gather of every rank's compressed gradient: dgc.density of
 * the values (default 0.001, DGC's 99.9% sparsity) with as many 4-byte indices, a ring all-gather's
 * alpha-beta time over the ranks (ddp.bandwidth GB/s, ddp.latency_us), or the measured kernel scaled
 * by the same ratio for a NCCL kernel of the trace. Compression (top-k selection: dgc.passes
 * passes over the gradient, default 2) runs on the stream that produced the gradient before the
 * transfer; decompression (one pass adding every rank's sparse values) before whoever waited for
 * the all-reduce; both at the GPU's memory bandwidth (the catalogue), as element-wise kernels. */
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"
#include "generators/platform/catalogue.hpp"

namespace sgai::whatif::optimizations_list {

namespace {

void apply_dgc(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  auto comm = allreduce_tasks(g);
  if (comm.empty())
    not_applicable(g, "dgc", "no all-reduce of known size (apply ddp first, or give a data-parallel trace)");
  const platform::GpuType* gpu = ctx.target ? ctx.target : ctx.gpu;
  if (not gpu || not(gpu->mem_bw_Bps > 0))
    not_applicable(g, "dgc", "the GPU's memory bandwidth is unknown (name the GPU with --gpu)");
  const double density = ctx.number("dgc.density", 0.001);
  const double passes  = ctx.number("dgc.passes", 2);
  const double bw      = ctx.number("ddp.bandwidth", 12.5) * 1e9;
  const double lat     = ctx.number("ddp.latency_us", 5) * 1e-6;
  if (not(density > 0 && density <= 1 && passes >= 0))
    not_applicable(g, "dgc", "dgc.density must lie in (0, 1] and dgc.passes be >= 0");
  for (uint32_t c : comm) {
    const Task t     = g.tasks[c];
    double p         = collective_ranks(g, c, ctx);
    double s         = double(t.bytes);
    double sent      = 2 * density * s; // values and 4-byte indices (FP32 gradients)
    double allgather = ring_ns("all_gather", p, p * sent, bw, lat);
    double allreduce = ring_ns("allreduce", p, s, bw, lat);
    bool inserted    = g.threads[t.thread].kind == ThreadKind::channel;
    if (inserted || allreduce <= 0)
      g.tasks[c].dur_ns = int64_t(allgather + 0.5);
    else
      g.scale(c, allgather / allreduce);
    ++note.tasks_changed;
    // the gradient's producer on a stream, and who waits for the result
    uint32_t producer = kNone;
    for (uint32_t e : g.in[c]) {
      const Edge& x = g.edges[e];
      if (not x.removed && x.kind != EdgeKind::launch && x.kind != EdgeKind::thread && on_gpu(g.tasks[x.from].kind) &&
          g.threads[g.tasks[x.from].thread].kind == ThreadKind::stream)
        producer = x.from;
    }
    std::vector<uint32_t> waiters;
    for (uint32_t e : g.out[c]) {
      const Edge& x = g.edges[e];
      if (not x.removed && x.kind != EdgeKind::thread && on_gpu(g.tasks[x.to].kind) &&
          g.threads[g.tasks[x.to].thread].kind == ThreadKind::stream)
        waiters.push_back(x.to);
    }
    Task k       = g.tasks[c];
    k.kind       = TaskKind::kernel;
    k.event      = kNone;
    k.gap_ns     = 0;
    k.bytes      = 0;
    k.collective = -1;
    if (producer != kNone) {
      k.thread    = g.tasks[producer].thread;
      k.name      = g.intern("top-k compression (dgc)");
      k.dur_ns    = int64_t(passes * s / gpu->mem_bw_Bps * 1e9 + 0.5);
      uint32_t id = g.insert_after(producer, k);
      g.add_edge(id, c, 0, EdgeKind::inserted);
      ++note.tasks_inserted;
    }
    for (uint32_t w : waiters) {
      k.thread        = g.tasks[w].thread;
      k.name          = g.intern("decompression (dgc)");
      k.dur_ns        = int64_t(p * sent / gpu->mem_bw_Bps * 1e9 + 0.5);
      uint32_t before = g.thread_prev(w);
      uint32_t id     = before == kNone ? g.insert(k, {c}) : g.insert_after(before, k, {c});
      g.add_edge(id, w, 0, EdgeKind::inserted);
      ++note.tasks_inserted;
    }
  }
  note.detail = "density " + std::to_string(density);
}

} // namespace

Optimization dgc()
{
  return {"dgc",
          "Deep Gradient Compression: all-reduces become all-gathers of dgc.density of the gradient (values + "
          "indices), with compression and decompression kernels at memory bandwidth",
          apply_dgc};
}

} // namespace sgai::whatif::optimizations_list
