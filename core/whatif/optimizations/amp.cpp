/* amp: automatic mixed precision (autocast) from the GPU's figures. A compute-bound kernel moves
 * to the half-precision tensor peak: ÷ min(tensor FP16 peak / the peak of the precision it ran in,
 * the tensor cap, Daydream's 3× by default); a memory-bound kernel moves half the bytes: ÷2.
 * Kernels already in half precision, copies, sets, collectives and the weight-update phase stay
 * (autocast keeps inputs, master weights, gradients and the optimizer in FP32). Without catalogue
 * figures for the GPU, compute-bound kernels take the cap. */
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"
#include "generators/platform/catalogue.hpp"

#include <algorithm>

namespace sgai::whatif::optimizations_list {

namespace {

void apply_amp(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  const double cap = ctx.number("amp.cap", ctx.tensor_cap);
  if (not(cap >= 1))
    not_applicable(g, "amp", "the tensor cap must be >= 1");
  for (uint32_t u : g.select([](const Task& t) { return t.kind == TaskKind::kernel && t.phase != Phase::optimizer; })) {
    const std::string& n  = g.name_of(u);
    std::string precision = kernel_precision(n, ctx.precision);
    if (precision == "fp16" || precision == "bf16")
      continue;
    if (kernels::classify_kernel(n, 0, 0, 0, 0) == kernels::KernelBound::memory) {
      g.shrink(u, 2);
    } else {
      double gain = cap;
      if (ctx.gpu) {
        double from = peak_flops(*ctx.gpu, precision);
        double to   = std::max(peak_flops(*ctx.gpu, "fp16"), peak_flops(*ctx.gpu, "bf16"));
        if (from > 0 && to > 0)
          gain = std::min(to / from, cap);
      }
      if (gain > 1)
        g.shrink(u, gain);
    }
    ++note.tasks_changed;
  }
}

} // namespace

Optimization amp()
{
  return {"amp",
          "mixed precision: compute-bound kernels ÷ min(tensor FP16 peak / their precision's peak, 3), "
          "memory-bound ÷2; copies, collectives and the optimizer unchanged",
          apply_amp};
}

} // namespace sgai::whatif::optimizations_list
