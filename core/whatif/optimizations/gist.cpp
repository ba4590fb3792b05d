/* gist: Gist (Jain et al., ISCA'18) as Daydream models it (§5.2): encoding and decoding GPU kernels,
 * with their launches on the CPU, are inserted. In each iteration each forward layer that ran
 * element-wise (memory-bound) kernels stores its output encoded: an encoding kernel after the
 * layer's last kernel, launched right after the launch of that kernel; the backward layer that takes
 * it back (common.hpp's mapping) first decodes it: a decoding kernel before its first kernel,
 * launched before that kernel's launch. Both take the duration of the layer's element-wise kernels
 * (their median: "estimated using existing element-wise kernels"), their launches the trace's
 * median launch. */
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <algorithm>
#include <cstddef>

namespace sgai::whatif::optimizations_list {

namespace {

int64_t median_memory_kernel(const Graph& g, const LayerRun& r)
{
  std::vector<int64_t> d;
  for (uint32_t u : r.gpu)
    if (g.tasks[u].kind == TaskKind::kernel &&
        kernels::classify_kernel(g.name_of(u), 0, 0, 0, 0) == kernels::KernelBound::memory)
      d.push_back(g.tasks[u].dur_ns);
  if (d.empty())
    return 0;
  std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
  return d[d.size() / 2];
}

/** A kernel and its launch: the launch right after `launch_after` on its CPU thread (or first), the
 *  kernel after `kernel_after` on its stream. */
uint32_t add_kernel(Graph& g, Task like, const std::string& name, int64_t dur, int64_t launch_ns, uint32_t launch_after,
                    uint32_t kernel_after)
{
  Task l          = g.tasks[launch_after];
  l.kind          = TaskKind::runtime;
  l.name          = g.intern("cudaLaunchKernel (gist)");
  l.dur_ns        = launch_ns;
  l.gap_ns        = 0;
  l.event         = kNone;
  uint32_t launch = g.insert_after(launch_after, l);
  Task k          = like;
  k.kind          = TaskKind::kernel;
  k.name          = g.intern(name);
  k.dur_ns        = dur;
  k.gap_ns        = 0;
  k.event         = kNone;
  k.bytes         = 0;
  return g.insert_after(kernel_after, k, {launch});
}

void apply_gist(Graph& g, const WhatIfContext&, OptimizationNote& note)
{
  const int64_t launch_ns = median_launch_ns(g);
  for (auto [rank, step] : steps_with(g, Phase::forward)) {
    auto forward  = layer_runs(g, rank, step, Phase::forward);
    auto backward = layer_runs(g, rank, step, Phase::backward);
    if (forward.empty() || backward.empty())
      continue;
    for (size_t i = 0; i < forward.size(); ++i) {
      int64_t dur = median_memory_kernel(g, forward[i]);
      if (dur <= 0)
        continue;
      uint32_t last        = forward[i].gpu.back();
      uint32_t l           = launcher(g, last);
      const LayerRun& back = backward[backward_index(i, forward.size(), backward.size())];
      uint32_t first       = back.gpu.front();
      uint32_t bl          = launcher(g, first);
      if (l == kNone || bl == kNone || g.thread_prev(bl) == kNone || g.thread_prev(first) == kNone)
        continue;
      add_kernel(g, g.tasks[last], "encode (gist)", dur, launch_ns, l, last);
      add_kernel(g, g.tasks[first], "decode (gist)", dur, launch_ns, g.thread_prev(bl), g.thread_prev(first));
      note.tasks_inserted += 4;
    }
  }
  if (note.tasks_inserted == 0)
    not_applicable(g, "gist", "no forward layer with element-wise kernels and a backward layer to take it back");
  note.detail = "encoding after forward layers, decoding before backward ones";
}

} // namespace

Optimization gist()
{
  return {"gist",
          "Gist: encoding kernels after forward layers and decoding kernels before their backward layers, with "
          "their launches (durations of the layer's element-wise kernels)",
          apply_gist};
}

} // namespace sgai::whatif::optimizations_list
