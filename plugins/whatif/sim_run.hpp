/* The dependency graph on SimGrid (the what-if engine's second way to predict): per rank a CPU
 * host and a GPU host (one core per stream, so kernels of different streams overlap as they do on
 * the GPU; wattage idle / busy from the graph's power figures, busy with any core in use), one actor
 * per execution thread running its tasks in order: it waits for the task's parents (end + lag),
 * runs it (a GPU task as an execution on the GPU host, a CPU task as time on the CPU thread) and
 * then its gap. The GPU energy comes from SimGrid's host energy plugin. Several graphs run side by
 * side in one simulation, each on its own hosts (one Engine per process). */
#ifndef SGAI_WHATIF_SIM_RUN_HPP
#define SGAI_WHATIF_SIM_RUN_HPP

#include "whatif/graph.hpp"
#include "whatif/walk.hpp"

#include <vector>

namespace sgai::whatif_sim {

struct SimResult {
  whatif::WalkResult walk; ///< start and end of each task as SimGrid ran them (binding: none)
  double gpu_energy_j = 0; ///< the GPU hosts' energy over [first start, last end]
};

/** Runs `graphs` in one simulation (call once per process). RunError when a graph deadlocks. */
std::vector<SimResult> run_on_simgrid(const std::vector<const whatif::Graph*>& graphs);

/** One graph, in a forked child (so that a process may call it again); RunError on failure. */
SimResult run_on_simgrid_forked(const whatif::Graph& graph);

} // namespace sgai::whatif_sim

#endif
