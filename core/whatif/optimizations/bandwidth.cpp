/* bandwidth: Daydream's "2× network bandwidth" (its Figure 2): every communication task's
 * duration ÷ the factor (parameter bandwidth.factor, default 2). In a joined rank set a collective's
 * duration is its transfer; in one rank's trace a NCCL kernel's time also holds its waiting. */
#include "core/whatif/optimizations/list.hpp"

namespace sgai::whatif::optimizations_list {

namespace {

void apply_bandwidth(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  double factor = ctx.number("bandwidth.factor", ctx.bandwidth_factor);
  if (not(factor > 0))
    not_applicable(g, "bandwidth", "the bandwidth factor must be > 0");
  auto comm = g.select([](const Task& t) { return t.kind == TaskKind::comm; });
  if (comm.empty())
    not_applicable(g, "bandwidth", "the trace has no communication task (no NCCL kernel)");
  for (uint32_t u : comm) {
    g.shrink(u, factor);
    ++note.tasks_changed;
  }
}

} // namespace

Optimization bandwidth()
{
  return {"bandwidth", "network bandwidth × bandwidth.factor (default 2): communication tasks ÷ the factor",
          apply_bandwidth};
}

} // namespace sgai::whatif::optimizations_list
