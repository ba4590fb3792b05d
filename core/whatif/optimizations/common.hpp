/* Internal: what several optimizations share: the all-reduces of a graph, the ring's alpha-beta
 * time (the replay library's formula), layers in execution order, the forward layer a backward
 * layer takes back, typical durations. Built on the primitives only. */
#ifndef SGAI_CORE_WHATIF_OPTIMIZATIONS_COMMON_HPP
#define SGAI_CORE_WHATIF_OPTIMIZATIONS_COMMON_HPP

#include "core/whatif/optimize.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::platform {
struct GpuType;
}

namespace sgai::whatif::optimizations_list {

/** Communication tasks that all-reduce a known number of bytes. */
std::vector<uint32_t> allreduce_tasks(const Graph& g);

/** Nanoseconds of a ring collective ("allreduce", "reduce_scatter", "all_gather") whose whole
 *  buffer is `bytes` (an all-gather's result) over `ranks` at `bandwidth_Bps` per rank with
 *  `latency_s` per step (the replay library's alpha-beta formulas). */
double ring_ns(const char* type, double ranks, double bytes, double bandwidth_Bps, double latency_s);

/** The ranks a collective task runs over: its group size, else the parameter ddp.ranks (8). */
double collective_ranks(const Graph& g, uint32_t task, const WhatIfContext& ctx);

/** A layer's GPU work in one iteration: its GPU tasks (kernels, copies, sets) by start. */
struct LayerRun {
  uint32_t layer = kNone;
  std::vector<uint32_t> gpu;
  int64_t memory_bound_ns      = 0; ///< the part of its kernels classed memory-bound
  int64_t last_memory_bound_ns = 0; ///< its last memory-bound kernel's duration
};
/** The layers of `phase` in (rank, step) that ran GPU work, in the order their first GPU task ran. */
std::vector<LayerRun> layer_runs(const Graph& g, int32_t rank, int32_t step, Phase phase);

/** The (rank, step) pairs that hold tasks of `phase`. */
std::vector<std::pair<int32_t, int32_t>> steps_with(const Graph& g, Phase phase);

/** Backward runs the layers in reverse: forward layer i of `forward` layers is taken back by
 *  backward layer floor((forward - 1 - i) * backward / forward) (the counts differ: operators in
 *  forward, autograd nodes in backward). */
size_t backward_index(size_t i, size_t forward, size_t backward);

/** The median duration of the graph's kernel launches (0 when none). */
int64_t median_launch_ns(const Graph& g);

/** A task's parents and children outside its thread's order, and its thread predecessor among the
 *  parents: what a task replaced by others hands on to them. */
void neighbours(const Graph& g, uint32_t task, std::vector<uint32_t>& parents, std::vector<uint32_t>& children);

/** Peak FLOP/s of a catalogue GPU in `precision`, its FP32 peak when it lists none (0: neither). */
double peak_flops(const platform::GpuType& gpu, const std::string& precision);

/** The runtime call that launched a GPU task (kNone when none). */
uint32_t launcher(const Graph& g, uint32_t gpu_task);

} // namespace sgai::whatif::optimizations_list

#endif
