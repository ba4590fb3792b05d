/* What-if optimizations (Daydream §5): each a graph transformation written with the primitives
 * of graph.hpp only, one file each under whatif/optimizations/, registered by name. They compose
 * in the order given. */
#ifndef SGAI_CORE_WHATIF_OPTIMIZE_HPP
#define SGAI_CORE_WHATIF_OPTIMIZE_HPP

#include "core/whatif/graph.hpp"

#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::platform {
struct GpuType;
}

namespace sgai::whatif {

/** What the optimizations know of the machine and of the user's parameters. */
struct WhatIfContext {
  const platform::GpuType* gpu    = nullptr; ///< the GPU the trace ran on (catalogue), when known
  const platform::GpuType* target = nullptr; ///< `gpu`: the GPU to predict for
  /** The precision the trace's kernels ran in unless their names say otherwise ("fp32"). */
  std::string precision = "fp32";
  /** amp: the largest speed-up tensor cores give a compute-bound kernel (Daydream's 3×). */
  double tensor_cap = 3.0;
  /** power-cap: watts (0: none). */
  double power_cap_w = 0;
  /** network: bandwidth multiplier (2: Daydream's "2× network bandwidth"). */
  double bandwidth_factor = 2.0;
  /** Free parameters of the form name=value given on the command line ("ddp.ranks=8"). */
  std::map<std::string, std::string> params;
  /** A parameter as a number, `fallback` when absent; InputError when not a number. */
  double number(const std::string& key, double fallback) const;
};

/** What applying one optimization changed, for the report. */
struct OptimizationNote {
  std::string name;
  uint64_t tasks_changed  = 0;
  uint64_t tasks_removed  = 0;
  uint64_t tasks_inserted = 0;
  std::string detail;
};

struct Optimization {
  std::string name;
  std::string summary;
  /** Transforms the graph. InputError (file = the trace, place = the optimization's name) when the
   *  trace cannot take it. */
  void (*apply)(Graph& g, const WhatIfContext& ctx, OptimizationNote& note) = nullptr;
};

/** Every registered optimization, in name order. */
const std::vector<Optimization>& optimizations();
const Optimization* find_optimization(std::string_view name);

/** Applies `names` in order; InputError for an unknown name (listing the known ones). */
std::vector<OptimizationNote> apply_optimizations(Graph& g, const std::vector<std::string>& names,
                                                  const WhatIfContext& ctx);

/** The precision a kernel ran in, from its name ("tf32", "fp16", "bf16"), else `fallback`. */
std::string kernel_precision(const std::string& name, const std::string& fallback);

/** Throws the InputError of an optimization the trace cannot take. */
[[noreturn]] void not_applicable(const Graph& g, const std::string& optimization, const std::string& why);

} // namespace sgai::whatif

#endif
