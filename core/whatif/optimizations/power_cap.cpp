/* power-cap: the GPUs capped at power-cap.watts (--power-cap), by the GPU P-state model sgai
 * defines once (core/kernels/kernel_model.hpp): the cap allows the compute clock fraction
 * f = capped_clock_fraction(cap, idle, max) unless the catalogue lists a P-state with that cap (its
 * speed f and memory fraction m then); memory bandwidth m = 1 otherwise. Compute-bound kernels take
 * ×1/f, memory-bound kernels, device copies and sets ×1/m; host copies and collectives stay. The
 * energy figures count the cap as the busy power. */
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/optimizations/list.hpp"
#include "generators/platform/catalogue.hpp"

#include <cmath>
#include <stdexcept>

namespace sgai::whatif::optimizations_list {

namespace {

void apply_power_cap(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  const platform::GpuType* gpu = ctx.target ? ctx.target : ctx.gpu;
  if (not gpu)
    not_applicable(g, "power-cap", "the trace's GPU is not in the catalogue (name it with --gpu)");
  double cap = ctx.number("power-cap.watts", ctx.power_cap_w);
  if (not(cap > 0))
    not_applicable(g, "power-cap", "no cap given (--power-cap WATTS)");
  double f = 1, m = 1;
  bool listed = false;
  for (const platform::GpuPState& p : gpu->pstates)
    if (std::fabs(p.max_w - cap) < 1e-9 * cap) {
      f      = p.speed_factor;
      m      = p.memory_factor;
      listed = true;
    }
  if (not listed) {
    try {
      f = kernels::capped_clock_fraction(cap, gpu->idle_w, gpu->max_w);
    } catch (const std::invalid_argument&) {
      not_applicable(g, "power-cap",
                     "a cap of " + std::to_string(cap) + " W is outside (" + std::to_string(gpu->idle_w) + ", " +
                         std::to_string(gpu->max_w) + "] W, the idle and maximum power of " + gpu->name);
    }
  }
  for (uint32_t u : g.select([](const Task& t) { return on_gpu(t.kind) && t.kind != TaskKind::comm; })) {
    const Task& t        = g.tasks[u];
    const std::string& n = g.name_of(u);
    if (t.kind == TaskKind::memcpy && n.find("DtoD") == std::string::npos)
      continue;
    bool memory = t.kind != TaskKind::kernel || kernels::classify_kernel(n, 0, 0, 0, 0) == kernels::KernelBound::memory;
    g.scale(u, 1.0 / (memory ? m : f));
    ++note.tasks_changed;
  }
  g.power.gpu            = gpu->name;
  g.power.idle_w         = gpu->idle_w;
  g.power.busy_w         = cap;
  g.power.clock_fraction = f;
  note.detail            = "f = " + std::to_string(f) + ", m = " + std::to_string(m);
}

} // namespace

Optimization power_cap()
{
  return {"power-cap",
          "GPUs capped at --power-cap W: compute-bound kernels ×1/f, memory-bound ×1/m (the P-state model); "
          "energy at the cap",
          apply_power_cap};
}

} // namespace sgai::whatif::optimizations_list
