/* The dependency graph on SimGrid (the what-if engine's second way to predict): per rank a CPU
 * host and a GPU host (one core per stream, so kernels of different streams overlap as they do on
 * the GPU; wattage idle / busy from the graph's power figures, busy with any core in use), one actor
 * per execution thread running its tasks in order: it waits for the task's parents (end + lag),
 * runs it (a GPU task as an execution on the GPU host, a CPU task as time on the CPU thread) and
 * then its gap. The GPU energy comes from SimGrid's host energy plugin. Several graphs run side by
 * side in one simulation, each on its own hosts (one Engine per process). */
#ifndef SGAI_PLUGINS_WHATIF_SIM_SIM_RUN_HPP
#define SGAI_PLUGINS_WHATIF_SIM_SIM_RUN_HPP

#include "core/whatif/graph.hpp"
#include "core/whatif/walk.hpp"

#include <filesystem>
#include <string>
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

/** One rank's graph run as `ranks` copies on the GPUs of a platform (an sgai JSON platform, its
 *  GPUs in hierarchy order; each copy's CPU work on the first CPU host of its GPU's node): kernels
 *  are executions on the GPU hosts (the platform's speeds and wattage: SimGrid's energy), and each
 *  communication task of known size is one collective over the copies' GPUs through the network,
 *  as NCCL runs it on that platform (its algorithm, protocol and channels; a ring when the GPUs name
 *  no architecture or `nccl` is false), sharing links with everything else. */
struct PlatformOptions {
  std::filesystem::path platform;
  uint32_t ranks = 1;
  bool nccl      = true;
  std::vector<std::string> simgrid_args; ///< --cfg=... passed through
};

struct PlatformResult {
  std::vector<whatif::WalkResult> ranks; ///< per copy: its tasks' start and end
  double gpu_energy_j  = 0;              ///< the copies' GPU hosts, over the whole run
  uint64_t collectives = 0;              ///< collectives run over the network
};

/** In this process (its one Engine). InputError for a platform without enough GPUs or a graph of
 *  several ranks; RunError when the run deadlocks. */
PlatformResult run_on_platform(const whatif::Graph& graph, const PlatformOptions& options);
/** The same in a forked child. */
PlatformResult run_on_platform_forked(const whatif::Graph& graph, const PlatformOptions& options);

} // namespace sgai::whatif_sim

#endif
