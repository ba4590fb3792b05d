#include "core/whatif/optimizations/common.hpp"

#include "core/collectives/schedule.hpp"
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/build.hpp"
#include "generators/platform/catalogue.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace sgai::whatif::optimizations_list {

std::vector<uint32_t> allreduce_tasks(const Graph& g)
{
  return g.select([&g](const Task& t) {
    return t.kind == TaskKind::comm && t.collective >= 0 && g.collectives[size_t(t.collective)].type == "allreduce" &&
           t.bytes > 0;
  });
}

double ring_ns(const char* type, double ranks, double bytes, double bandwidth_Bps, double latency_s)
{
  std::string t(type);
  auto c = t == "reduce_scatter" ? chakra::CollectiveType::reduce_scatter
           : t == "all_gather"   ? chakra::CollectiveType::all_gather
                                 : chakra::CollectiveType::all_reduce;
  if (ranks < 2)
    return 0;
  // the library takes an all-gather's size per rank (Chakra's comm_size), the others' whole buffer
  double size = c == chakra::CollectiveType::all_gather ? bytes / ranks : bytes;
  return collectives::alpha_beta_time(c, collectives::Algorithm::ring, uint32_t(ranks), size, latency_s,
                                      bandwidth_Bps) *
         1e9;
}

double collective_ranks(const Graph& g, uint32_t task, const WhatIfContext& ctx)
{
  const Task& t = g.tasks[task];
  if (t.collective >= 0 && g.collectives[size_t(t.collective)].group_size > 1)
    return double(g.collectives[size_t(t.collective)].group_size);
  return ctx.number("ddp.ranks", 8);
}

std::vector<LayerRun> layer_runs(const Graph& g, int32_t rank, int32_t step, Phase phase)
{
  std::map<uint32_t, LayerRun> by_layer;
  for (uint32_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    if (t.removed || t.rank != rank || t.step != step || t.phase != phase || t.layer == kNone || not on_gpu(t.kind) ||
        t.kind == TaskKind::comm)
      continue;
    LayerRun& r = by_layer[t.layer];
    r.layer     = t.layer;
    r.gpu.push_back(i);
    if (t.kind == TaskKind::kernel &&
        kernels::classify_kernel(g.name_of(i), 0, 0, 0, 0) == kernels::KernelBound::memory)
      r.memory_bound_ns += t.dur_ns;
  }
  std::vector<LayerRun> out;
  for (auto& [l, r] : by_layer) {
    std::sort(r.gpu.begin(), r.gpu.end(),
              [&g](uint32_t a, uint32_t b) { return g.tasks[a].start_ns < g.tasks[b].start_ns; });
    for (uint32_t u : r.gpu)
      if (g.tasks[u].kind == TaskKind::kernel &&
          kernels::classify_kernel(g.name_of(u), 0, 0, 0, 0) == kernels::KernelBound::memory)
        r.last_memory_bound_ns = g.tasks[u].dur_ns;
    out.push_back(std::move(r));
  }
  std::sort(out.begin(), out.end(), [&g](const LayerRun& a, const LayerRun& b) {
    return g.tasks[a.gpu.front()].start_ns < g.tasks[b.gpu.front()].start_ns;
  });
  return out;
}

std::vector<std::pair<int32_t, int32_t>> steps_with(const Graph& g, Phase phase)
{
  std::set<std::pair<int32_t, int32_t>> s;
  for (const Task& t : g.tasks)
    if (not t.removed && t.phase == phase && t.step >= 0)
      s.insert({t.rank, t.step});
  return {s.begin(), s.end()};
}

size_t backward_index(size_t i, size_t forward, size_t backward)
{
  if (forward == 0 || backward == 0)
    return 0;
  return std::min(backward - 1, (forward - 1 - std::min(i, forward - 1)) * backward / forward);
}

int64_t median_launch_ns(const Graph& g)
{
  std::vector<int64_t> d;
  for (uint32_t i = 0; i < g.tasks.size(); ++i)
    if (not g.tasks[i].removed && g.tasks[i].kind == TaskKind::runtime &&
        g.name_of(i).find("LaunchKernel") != std::string::npos)
      d.push_back(g.tasks[i].dur_ns);
  if (d.empty())
    return 0;
  std::nth_element(d.begin(), d.begin() + std::ptrdiff_t(d.size() / 2), d.end());
  return d[d.size() / 2];
}

void neighbours(const Graph& g, uint32_t task, std::vector<uint32_t>& parents, std::vector<uint32_t>& children)
{
  parents.clear();
  children.clear();
  for (uint32_t e : g.in[task])
    if (not g.edges[e].removed && g.edges[e].kind != EdgeKind::thread)
      parents.push_back(g.edges[e].from);
  for (uint32_t e : g.out[task])
    if (not g.edges[e].removed && g.edges[e].kind != EdgeKind::thread)
      children.push_back(g.edges[e].to);
  if (uint32_t prev = g.thread_prev(task); prev != kNone)
    parents.push_back(prev);
}

double peak_flops(const platform::GpuType& gpu, const std::string& precision)
{
  auto it = gpu.peak_flops.find(precision);
  if (it != gpu.peak_flops.end())
    return it->second;
  it = gpu.peak_flops.find("fp32");
  return it != gpu.peak_flops.end() ? it->second : 0;
}

uint32_t launcher(const Graph& g, uint32_t gpu_task)
{
  for (uint32_t e : g.in[gpu_task])
    if (not g.edges[e].removed && g.edges[e].kind == EdgeKind::launch)
      return g.edges[e].from;
  return kNone;
}

} // namespace sgai::whatif::optimizations_list
