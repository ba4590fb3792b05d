/* fused-optimizer: Daydream's FusedAdam model (§5.1). In each iteration the weight-update phase's
 * CPU and GPU tasks are removed and replaced by one launch (the median duration of the removed
 * launches) and one kernel whose duration is the sum of the removed kernels' (the same arithmetic
 * and bytes in one kernel: what fusing saves is the per-kernel CPU launch work, the Python loop
 * between launches and the GPU's idle gaps). Tasks that waited for the phase's GPU work wait for the
 * fused kernel. Refused when the trace has no weight-update phase or already runs a fused optimizer
 * (multi_tensor_apply / fused Adam kernels). */
#include "core/foundation/error.hpp"
#include "core/whatif/build.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace sgai::whatif::optimizations_list {

namespace {

bool fused_kernel(const std::string& n)
{
  return n.find("multi_tensor_apply") != std::string::npos || n.find("fused_adam") != std::string::npos ||
         n.find("FusedAdam") != std::string::npos || n.find("fused_sgd") != std::string::npos ||
         n.find("_fused_") != std::string::npos;
}

void apply_fused_optimizer(Graph& g, const WhatIfContext&, OptimizationNote& note)
{
  auto phase = g.select([](const Task& t) { return t.phase == Phase::optimizer && t.kind != TaskKind::marker; });
  if (phase.empty())
    not_applicable(g, "fused-optimizer", "the trace has no weight-update phase (no Optimizer.step range)");
  uint64_t fused = 0;
  std::string example;
  for (uint32_t u : phase)
    if (on_gpu(g.tasks[u].kind) && fused_kernel(g.name_of(u))) {
      ++fused;
      if (example.empty())
        example = g.name_of(u).substr(0, 80);
    }
  if (fused > 0)
    not_applicable(g, "fused-optimizer",
                   "the trace already runs a fused optimizer (" + std::to_string(fused) + " fused kernels, such as " +
                       quote(example) + ")");

  std::map<std::pair<int32_t, int32_t>, std::vector<uint32_t>> by_step; // (rank, step) -> tasks
  for (uint32_t u : phase)
    by_step[{g.tasks[u].rank, g.tasks[u].step}].push_back(u);
  for (auto& [key, tasks] : by_step) {
    std::vector<uint32_t> cpu, gpu;
    for (uint32_t u : tasks)
      (on_gpu(g.tasks[u].kind) ? gpu : cpu).push_back(u);
    auto by_start = [&g](uint32_t a, uint32_t b) { return g.tasks[a].start_ns < g.tasks[b].start_ns; };
    std::sort(cpu.begin(), cpu.end(), by_start);
    std::sort(gpu.begin(), gpu.end(), by_start);
    std::vector<uint32_t> kernels;
    for (uint32_t u : gpu)
      if (g.tasks[u].kind == TaskKind::kernel)
        kernels.push_back(u);
    if (cpu.empty() || kernels.empty())
      continue; // nothing to fuse in this iteration
    std::set<uint32_t> gone(tasks.begin(), tasks.end());
    // the neighbours the fused tasks take the place of
    uint32_t cpu_before = g.thread_prev(cpu.front());
    while (cpu_before != kNone && gone.count(cpu_before))
      cpu_before = g.thread_prev(cpu_before);
    uint32_t gpu_before = g.thread_prev(kernels.front());
    while (gpu_before != kNone && gone.count(gpu_before))
      gpu_before = g.thread_prev(gpu_before);
    // who waited for the phase's GPU work (synchronizations, other streams)
    std::set<uint32_t> waiters;
    for (uint32_t u : gpu)
      for (uint32_t e : g.out[u]) {
        const Edge& x = g.edges[e];
        if (not x.removed && x.kind != EdgeKind::thread && x.kind != EdgeKind::launch && not gone.count(x.to))
          waiters.insert(x.to);
      }
    int64_t kernel_ns = 0;
    for (uint32_t u : kernels)
      kernel_ns += g.tasks[u].dur_ns;
    std::vector<int64_t> launches;
    for (uint32_t u : cpu)
      if (is_launch_call(g.name_of(u)))
        launches.push_back(g.tasks[u].dur_ns);
    std::sort(launches.begin(), launches.end());
    int64_t launch_ns = launches.empty() ? 0 : launches[launches.size() / 2];

    Task launch = g.tasks[cpu.front()];
    Task kernel = g.tasks[kernels.front()];
    for (uint32_t u : tasks)
      g.remove(u);
    note.tasks_removed += tasks.size();

    launch.kind    = TaskKind::runtime;
    launch.name    = g.intern("cudaLaunchKernel (fused optimizer)");
    launch.dur_ns  = launch_ns;
    launch.gap_ns  = 0;
    launch.event   = kNone;
    launch.removed = false;
    uint32_t l     = g.insert_after(cpu_before, launch);
    kernel.kind    = TaskKind::kernel;
    kernel.name    = g.intern("fused optimizer kernel");
    kernel.dur_ns  = kernel_ns;
    kernel.gap_ns  = 0;
    kernel.event   = kNone;
    kernel.removed = false;
    uint32_t k     = g.insert_after(gpu_before, kernel, {l});
    for (uint32_t w : waiters)
      g.add_edge(k, w, 0, EdgeKind::inserted);
    note.tasks_inserted += 2;
  }
  note.detail = "the weight-update phase of each iteration became one launch and one kernel";
}

} // namespace

Optimization fused_optimizer()
{
  return {"fused-optimizer",
          "Daydream's FusedAdam: each iteration's weight-update tasks become one launch and one kernel "
          "(the sum of the removed kernels)",
          apply_fused_optimizer};
}

} // namespace sgai::whatif::optimizations_list
