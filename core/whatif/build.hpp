/* The dependency graph of a Kineto trace (Daydream §4.2), one rank or several joined at their
 * collectives.
 *
 * Tasks: every CUDA/HIP runtime call on a CPU thread (with Daydream's gap to the next one), every
 * kernel, copy and set on its GPU stream (NCCL/RCCL kernels as communication tasks), and a marker
 * at each ProfilerStep#N's start and end. Dependencies: thread order, launches (correlation ids),
 * blocking calls on the GPU task they waited for, waits between streams, and wake-ups between the
 * CPU threads that launch work (the caller of backward() and the autograd engine). Each edge has a
 * lag: the binding edge of a task (its latest parent) keeps the measured one, so the walk of an
 * untransformed graph reproduces the trace; the others take the trace's typical lag of their kind
 * (capped by the measured slack). */
#ifndef SGAI_CORE_WHATIF_BUILD_HPP
#define SGAI_CORE_WHATIF_BUILD_HPP

#include "core/whatif/graph.hpp"
#include "core/whatif/kineto.hpp"

#include <cstdint>
#include <filesystem>
#include <vector>

namespace sgai::whatif {

struct BuildOptions {
  /** A GPU task that starts this much later than its launch and stream allow waited for another
   *  stream (cudaStreamWaitEvent): the latest task of another stream that ended before it becomes
   *  its parent. */
  int64_t stream_wait_ns = 20'000;
  /** A CPU thread idle this long while another launching thread of its process ran was woken by
   *  that thread. */
  int64_t handoff_ns = 10'000;
  /** A call that is no synchronization but lasts at least this long and returns within this long
   *  after a GPU task ended waited for it (a launch into a full launch queue, cudaFree). */
  int64_t held_call_ns = 50'000;
};

struct BuildReport {
  uint64_t events             = 0;
  uint64_t cpu_tasks          = 0;
  uint64_t gpu_tasks          = 0;
  uint64_t comm_tasks         = 0;
  uint64_t unlaunched         = 0; ///< GPU events without their launch (steps holding them are flagged)
  uint64_t sync_edges         = 0;
  uint64_t stream_edges       = 0;
  uint64_t handoff_edges      = 0;
  uint64_t collectives_joined = 0;
};

/** One rank's graph. InputError naming the file when the trace has no GPU activity. */
Graph build_graph(const KinetoTrace& trace, const BuildOptions& options = {}, BuildReport* report = nullptr);

/** Several ranks of one job, each its own graph, joined at collectives: the n-th collective of a
 *  process group on each rank is one collective, whose transfer takes the shortest of its ranks'
 *  kernels (the others waited) and starts when the last rank arrives. Each rank's time starts at
 *  its first step (ranks' clocks differ). InputError when ranks repeat, are missing, or disagree on
 *  the world size, or collectives do not match. */
Graph build_joined(const std::vector<KinetoTrace>& ranks, const BuildOptions& options = {},
                   BuildReport* report = nullptr);

/** The traces of `path`: the file itself, or every *.json / *.json.gz of a folder. */
std::vector<std::filesystem::path> trace_files(const std::filesystem::path& path);

/** Whether a runtime call blocks the CPU until earlier GPU work ends (synchronizations, copies). */
bool is_blocking_call(const std::string& name);
/** Whether a runtime call launches GPU work (kernel launches, copies, sets). */
bool is_launch_call(const std::string& name);
/** Whether a kernel is a NCCL/RCCL communication kernel. */
bool is_comm_kernel(const std::string& name);

} // namespace sgai::whatif

#endif
