/* Figures of a walked graph: per iteration its time, Daydream's breakdown (Figure 6: CPU-only,
 * GPU-only, overlapped), GPU busy and kernel time, GPU energy; per thread and per layer the busy
 * time; the critical path mapped back to the trace's events (for HTA's overlay). */
#ifndef SGAI_CORE_WHATIF_ANALYSIS_HPP
#define SGAI_CORE_WHATIF_ANALYSIS_HPP

#include "core/whatif/graph.hpp"
#include "core/whatif/walk.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::whatif {

struct StepFigures {
  std::string name;
  int32_t rank     = 0; ///< the rank the trace gives itself (Graph::trace_rank)
  int64_t begin_ns = 0; ///< the iteration's window in the walk
  int64_t end_ns   = 0;
  int64_t time_ns  = 0; ///< end - begin
  /** Daydream's breakdown: CPU-only = the window less the time any GPU task runs; GPU-only = the
   *  time the CPU waits in a blocking call while the GPU runs; overlapped = the rest. */
  int64_t cpu_only_ns   = 0;
  int64_t gpu_only_ns   = 0;
  int64_t overlapped_ns = 0;
  int64_t gpu_busy_ns   = 0; ///< the union of the rank's GPU tasks in the window
  int64_t kernel_ns     = 0; ///< the sum of its compute kernels (no collectives, copies or sets)
  int64_t comm_ns       = 0; ///< the sum of its communication tasks
  int64_t cpu_task_ns   = 0; ///< the sum of its CPU tasks' durations
  double gpu_energy_j   = 0; ///< busy × busy power + idle × idle power (0 without power figures)
  uint64_t unlaunched   = 0; ///< GPU tasks without launch: the iteration is no baseline
};

/** Per step of `g` (in order), from the walk. */
std::vector<StepFigures> step_figures(const Graph& g, const WalkResult& w);

struct ThreadFigures {
  std::string name;
  ThreadKind kind = ThreadKind::cpu;
  uint64_t tasks  = 0;
  int64_t busy_ns = 0; ///< the sum of its tasks' durations
};
std::vector<ThreadFigures> thread_figures(const Graph& g);

struct LayerFigures {
  std::string name;
  Phase phase    = Phase::none;
  int64_t cpu_ns = 0;
  int64_t gpu_ns = 0;
  uint64_t tasks = 0;
};
std::vector<LayerFigures> layer_figures(const Graph& g);

/** The trace events on a critical path: its tasks' events, and the CPU operators and annotations
 *  whose span meets the path's CPU time (its CPU tasks, and the gaps between consecutive path tasks
 *  of one CPU thread). Events of zero duration carry no time and are left out (as HTA does). Event
 *  indices of the rank's trace, sorted. */
std::vector<uint32_t> critical_events(const Graph& g, const WalkResult& w, const std::vector<uint32_t>& path);

/** Length of the union of [begin, end) intervals (sorted or not). */
int64_t union_length(std::vector<std::pair<int64_t, int64_t>> intervals);

} // namespace sgai::whatif

#endif
