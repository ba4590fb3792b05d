/* amp-daydream: Daydream's Algorithm 2 as printed. Every GPU task: ÷3 when its name holds "sgemm"
 * or "scudnn" (FP32 GEMMs and cuDNN convolutions onto tensor cores), ÷2 otherwise (half the bytes). */
#include "core/whatif/optimizations/list.hpp"

namespace sgai::whatif::optimizations_list {

namespace {

void apply_amp_daydream(Graph& g, const WhatIfContext&, OptimizationNote& note)
{
  for (uint32_t u : g.select([](const Task& t) { return on_gpu(t.kind); })) {
    const std::string& n = g.name_of(u);
    if (n.find("sgemm") != std::string::npos || n.find("scudnn") != std::string::npos)
      g.shrink(u, 3);
    else
      g.shrink(u, 2);
    ++note.tasks_changed;
  }
}

} // namespace

Optimization amp_daydream()
{
  return {"amp-daydream", "Daydream's Algorithm 2: GPU tasks named sgemm/scudnn ÷3, every other GPU task ÷2",
          apply_amp_daydream};
}

} // namespace sgai::whatif::optimizations_list
