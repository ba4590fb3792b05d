/* Training jobs on a shared GPU cluster: one S4U actor schedules a workload of training profiles
 * (GpuScheduler: order, placement, 2D-LAS preemption at iteration boundaries) on an sgai
 * platform's GPUs; each running job is one actor per GPU, iterating a compute kernel on its GPU
 * (GpuModel's P-state model) and a ring all-reduce of its gradients (CollectiveRun: SimGrid
 * communications, so jobs share links as SimGrid's network model says). Long jobs simulate k
 * iterations after each change among the jobs sharing links with them, then advance at the
 * measured iteration time until the next change (exact: every iteration). docs/gpu-cluster.md. */
#ifndef SGAI_PLUGINS_GPU_CLUSTER_GPU_MANAGER_HPP
#define SGAI_PLUGINS_GPU_CLUSTER_GPU_MANAGER_HPP

#include "core/scheduling/gpu_scheduler.hpp"
#include "generators/platform/model.hpp"
#include "generators/workload/workload.hpp"

#include <filesystem>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::gpu_cluster {

struct GpuManagerConfig {
  scheduling::GpuSchedulerConfig scheduler;
  /** Simulate every iteration (no advancing at a measured iteration time). */
  bool exact = false;
  /** Iterations simulated after each change before advancing (at least 1)... */
  uint32_t simulated_iterations = 3;
  /** ... and more, up to 64 times as many, until the standard error of their mean is within this
   *  fraction of it (under contention, iterations vary with the jobs' relative phases). */
  double measure_error = 0.01;
  /** All-reduces as NCCL runs them on the platform (its tuning model's algorithm and protocol) when
   *  the GPUs name their architecture; false, or no architecture: sgai's ring. */
  bool nccl = true;
  /** Seconds a preempted job takes to start again (checkpoint restore), before its first iteration. */
  double restart_s = 0;
  /** The P-state (power cap) of the GPUs: of every GPU (`pstate`), of a node's (by node name),
   *  of a job's while it runs (its profile's `pstate`, first), none: as the platform leaves them. */
  std::optional<uint32_t> pstate;
  std::map<std::string, uint32_t> node_pstates;
  /** Jobs that run on given GPUs (job id -> GPU indexes in the platform's hierarchy order): they
   *  start when those are free, whatever the placement policy. */
  std::map<std::string, std::vector<uint32_t>> pinned;
  std::string options_source; ///< where the options were read (an experiment file), for messages
  /** Where the workload came from, for messages. */
  std::string workload_file;
};

struct GpuJobRecord {
  bool done      = false;
  double start_s = -1; ///< first start
  double end_s   = -1;
  std::vector<uint32_t> gpus;   ///< GPU indexes of its last placement
  uint64_t iterations      = 0; ///< completed
  uint64_t simulated       = 0; ///< of which simulated one by one (the others advanced)
  uint32_t preemptions     = 0;
  double compute_s         = 0; ///< compute per iteration at P-state 0
  double alone_iteration_s = 0; ///< alone, on a packed placement: compute plus the all-reduce alone
  double run_s             = 0; ///< time holding GPUs (restarts included)
  double bytes_moved       = 0; ///< bytes its GPUs sent, in all
  std::string algorithm;        ///< how its all-reduce ran (NCCL's algorithm/protocol, or ring)
  /** Its all-reduces' share of the links' energy: the link_energy plugin's power above idle for the
   *  bytes its iterations (advanced ones included) put on each link. */
  double link_energy_j = 0;
  double gpu_energy_j  = 0; ///< its GPUs' energy while it held them (host_energy plugin)
  /** Each time it held GPUs: from, to, which, and whether it was preempted at the end. */
  struct Tenure {
    double start_s = 0, end_s = 0;
    std::vector<uint32_t> gpus;
    bool preempted = false;
  };
  std::vector<Tenure> tenures;
};

class GpuManager {
public:
  /** Checks the workload against the platform (training profiles only, GPU counts and types the
   *  platform has): InputError naming the job otherwise. */
  GpuManager(const workload::Workload& w, const platform::Platform& p, GpuManagerConfig config);
  ~GpuManager();
  GpuManager(const GpuManager&)            = delete;
  GpuManager& operator=(const GpuManager&) = delete;

  /** Before start(), with no actor in the Engine yet: the all-reduce alone of every (GPU count,
   *  gradient) a job with a measured iteration time has, simulated in a forked child on the
   *  placement `pack` gives on the empty cluster; each such job computes for its iteration time
   *  minus that. RunError when the child fails. */
  void calibrate();
  /** Creates the manager's actor (the platform is loaded). */
  void start();
  /** After the run: why the workload could not finish (empty when it did). */
  const std::string& error() const;

  const std::vector<GpuJobRecord>& jobs() const;
  /** jobs.csv (Batsim's columns and the GPU ones), gpu_allocations.csv (each time a job held GPUs)
   *  and links.csv (the bytes the jobs' all-reduces put on each link); returns the files with what
   *  they hold. */
  std::vector<std::pair<std::string, std::string>> write_outputs(const std::filesystem::path& dir) const;
  std::vector<std::pair<std::string, double>> figures() const;

private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sgai::gpu_cluster

#endif
