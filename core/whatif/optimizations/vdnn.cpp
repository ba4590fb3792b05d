/* vdnn: virtualized DNN (Rhu et al., MICRO'16) as Daydream models it (§5.2): memory copies are
 * inserted and the schedule follows vDNN's prefetching. In each iteration, on a copy stream of its
 * own (vdnn.policy: all, vDNN_all, the default; conv, vDNN_conv: only the inputs of convolutions):
 *   - after forward layer i's last GPU task its output is offloaded to the host (device to host);
 *     forward layer i + 2 starts after that copy ends (vDNN frees layer i's buffer, synchronizing,
 *     before the layer after next);
 *   - its backward layer (backward visits the layers in reverse; common.hpp's mapping) waits for
 *     the copy back (host to device), which is issued when the backward layer before it starts
 *     (vDNN prefetches one layer ahead).
 * A layer's output is estimated from its last memory-bound kernel (the one that writes it: a ReLU,
 * a batch norm): its time at the GPU's memory bandwidth (the catalogue) moves the output twice (read
 * and write), so half of that; a layer without one is not offloaded; vdnn.bytes sets the bytes per
 * layer instead. Copies run at vdnn.pcie GB/s (default 12: PCIe 3.0 x16 as measured). */
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"
#include "generators/platform/catalogue.hpp"

#include <map>

namespace sgai::whatif::optimizations_list {

namespace {

void apply_vdnn(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  const double pcie            = ctx.number("vdnn.pcie", 12) * 1e9;
  const double fixed           = ctx.number("vdnn.bytes", 0);
  const platform::GpuType* gpu = ctx.target ? ctx.target : ctx.gpu;
  if (fixed <= 0 && (not gpu || not(gpu->mem_bw_Bps > 0)))
    not_applicable(g, "vdnn", "the GPU's memory bandwidth is unknown: name the GPU (--gpu) or set vdnn.bytes");
  if (not(pcie > 0))
    not_applicable(g, "vdnn", "vdnn.pcie must be > 0");
  auto policy          = ctx.params.find("vdnn.policy");
  const bool conv_only = policy != ctx.params.end() && policy->second == "conv";
  if (policy != ctx.params.end() && policy->second != "conv" && policy->second != "all")
    not_applicable(g, "vdnn", "vdnn.policy is 'all' (every layer's output, vDNN_all) or 'conv' (vDNN_conv)");
  auto steps = steps_with(g, Phase::forward);
  std::map<int32_t, uint32_t> stream;
  for (auto [rank, step] : steps) {
    auto forward  = layer_runs(g, rank, step, Phase::forward);
    auto backward = layer_runs(g, rank, step, Phase::backward);
    if (forward.empty() || backward.empty())
      continue;
    if (not stream.count(rank))
      stream[rank] =
          g.add_thread(ExecThread{ThreadKind::stream, "rank " + std::to_string(g.trace_rank(rank)) + " vdnn copies",
                                  rank, g.threads[g.tasks[forward.front().gpu.front()].thread].device, -1});
    uint32_t copies = stream[rank];
    uint32_t last   = kNone; // the copy stream's last task
    std::vector<uint32_t> offload(forward.size(), kNone);
    std::vector<double> bytes(forward.size(), 0);
    for (size_t i = 0; i < forward.size(); ++i) {
      if (conv_only &&
          (i + 1 >= forward.size() || g.layers[forward[i + 1].layer].name.find("conv") == std::string::npos))
        continue; // vDNN_conv: only the inputs of convolutions
      bytes[i] = fixed > 0 ? fixed : double(forward[i].last_memory_bound_ns) * 1e-9 * gpu->mem_bw_Bps / 2;
      if (bytes[i] <= 0)
        continue;
      Task c     = g.tasks[forward[i].gpu.back()];
      c.kind     = TaskKind::memcpy;
      c.thread   = copies;
      c.name     = g.intern("Memcpy DtoH offload (vdnn)");
      c.bytes    = uint64_t(bytes[i]);
      c.dur_ns   = int64_t(bytes[i] / pcie * 1e9 + 0.5);
      c.event    = kNone;
      c.gap_ns   = 0;
      c.start_ns = g.tasks[forward[i].gpu.back()].start_ns + g.tasks[forward[i].gpu.back()].dur_ns;
      offload[i] =
          last == kNone ? g.insert(c, {forward[i].gpu.back()}) : g.insert_after(last, c, {forward[i].gpu.back()});
      last = offload[i];
      ++note.tasks_inserted;
      if (i + 2 < forward.size())
        g.add_edge(offload[i], forward[i + 2].gpu.front(), 0, EdgeKind::inserted);
    }
    // prefetches in backward order: the one of the layer taken back by backward layer j is issued when
    // backward layer j - 1 starts
    std::vector<std::pair<size_t, size_t>> order; // (backward layer, forward layer)
    for (size_t i = 0; i < forward.size(); ++i)
      if (offload[i] != kNone)
        order.push_back({backward_index(i, forward.size(), backward.size()), i});
    std::sort(order.begin(), order.end());
    for (auto [j, i] : order) {
      Task c = g.tasks[offload[i]];
      c.name = g.intern("Memcpy HtoD prefetch (vdnn)");
      std::vector<uint32_t> deps{offload[i]};
      if (j > 0)
        deps.push_back(backward[j - 1].gpu.front());
      c.start_ns  = g.tasks[backward[j].gpu.front()].start_ns;
      uint32_t id = g.insert_after(last, c, deps);
      last        = id;
      g.add_edge(id, backward[j].gpu.front(), 0, EdgeKind::inserted);
      ++note.tasks_inserted;
    }
  }
  if (note.tasks_inserted == 0)
    not_applicable(g, "vdnn", "no forward and backward layers with GPU work (no operator ranges in the trace)");
  note.detail = "activations offloaded and prefetched at " + std::to_string(pcie * 1e-9) + " GB/s";
}

} // namespace

Optimization vdnn()
{
  return {"vdnn", "vDNN: each forward layer's output offloaded to the host and prefetched one layer ahead in backward",
          apply_vdnn};
}

} // namespace sgai::whatif::optimizations_list
