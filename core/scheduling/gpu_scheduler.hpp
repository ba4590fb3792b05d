/* Scheduling training jobs on a GPU cluster (no SimGrid): which waiting jobs start, on which GPUs,
 * and which running ones are preempted (at their next iteration boundary). Orders: strict FIFO
 * (YARN-CS; first-fit with backfilling), oracle SJF, smallest first, Tiresias' discretized 2D-LAS;
 * placements: first free, pack, spread, topology-aware. The SimGrid side (gpu_manager) runs the
 * decisions. docs/gpu-cluster.md describes each rule. */
#ifndef SGAI_CORE_SCHEDULING_GPU_SCHEDULER_HPP
#define SGAI_CORE_SCHEDULING_GPU_SCHEDULER_HPP

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::platform {
struct Platform;
}

namespace sgai::scheduling {

/** The GPUs of a cluster: each one's node, each node's leaf (the switch above it: a fat tree's first
 *  level, else its cluster). GPUs are numbered in the platform's hierarchy order. */
struct GpuTopology {
  std::vector<uint32_t> node_of;      ///< per GPU
  std::vector<uint32_t> leaf_of_node; ///< per node
  std::vector<uint32_t> gpus_of_node; ///< per node: how many GPUs it has
  std::vector<uint32_t> type_of;      ///< per GPU: its index in types
  std::vector<std::string> types;     ///< the GPU types (catalogue names)
  uint32_t gpu_count() const { return static_cast<uint32_t>(node_of.size()); }

  /** From an expanded platform: its GPUs in order (std::invalid_argument when it has none). */
  static GpuTopology of(const platform::Platform& p);
  /** `nodes` nodes of `per_node` GPUs, `nodes_per_leaf` nodes under each leaf (tests). */
  static GpuTopology uniform(uint32_t nodes, uint32_t per_node, uint32_t nodes_per_leaf);
};

enum class GpuOrder { fifo, sjf, smallest, las };
enum class GpuPlacement { first, pack, spread, topology };
const char* to_string(GpuOrder o);
const char* to_string(GpuPlacement p);
bool order_from_string(std::string_view s, GpuOrder& out);
bool placement_from_string(std::string_view s, GpuPlacement& out);
/** The names, for messages: "fifo, sjf, smallest, las" and "first, pack, spread, topology". */
const std::vector<std::string>& order_names();
const std::vector<std::string>& placement_names();

struct GpuSchedulerConfig {
  GpuOrder order         = GpuOrder::fifo;
  GpuPlacement placement = GpuPlacement::pack;
  /** fifo: a job that does not fit lets the ones after it start (first fit); false: it blocks them
   *  (strict FIFO, YARN-CS). sjf and smallest are always first fit, las always preemptive. */
  bool backfill = false;
  /** 2D-LAS: a job leaves the first queue once it has this many GPU-seconds of service (Tiresias'
   *  simulator/jobs.py: 3,250). */
  double las_threshold_gpu_s = 3250;
};

class GpuScheduler {
public:
  GpuScheduler(GpuTopology topology, GpuSchedulerConfig config);

  /** A job arrives: `gpus` wanted (at most the cluster's; the caller checks), `alone_s` its
   *  duration alone (SJF's oracle), `type` the GPU type it must run on (an index in the topology's
   *  types; -1: any). Jobs are known by the caller's index. */
  void submit(uint32_t job, uint32_t gpus, double now, double alone_s, int32_t type = -1);
  /** The job runs on these GPUs (a placement fixed by the user): it starts when they are all free. */
  void pin(uint32_t job, std::vector<uint32_t> gpus);
  /** The job ended: its GPUs are free. */
  void finished(uint32_t job);
  /** The job stopped at an iteration boundary after a preemption: its GPUs are free and it waits
   *  again, keeping its service. */
  void stopped(uint32_t job);
  /** Service a running job received: GPU-seconds, updated by the caller before step(). A job
   *  crossing the 2D-LAS threshold enters the second queue, behind the jobs there (now). */
  void set_attained(uint32_t job, double gpu_s, double now);

  struct Start {
    uint32_t job;
    std::vector<uint32_t> gpus; ///< GPU indexes, in ring order (by node, then GPU)
  };
  struct Decision {
    std::vector<Start> starts;
    std::vector<uint32_t> preempt; ///< running jobs to stop at their next iteration boundary
  };
  /** The scheduling step at `now`: starts on free GPUs, and (2D-LAS) preemptions. A job being
   *  stopped keeps its GPUs until stopped(); the jobs chosen in its place start once they are free. */
  Decision step(double now);

  /** When the next running job crosses the 2D-LAS threshold, given each job's attained service
   *  now and its GPUs (infinity when none will, or another order). */
  double next_demotion(double now) const;

  const GpuTopology& topology() const { return topo_; }
  uint32_t free_gpus() const { return free_count_; }
  bool running(uint32_t job) const;
  size_t waiting() const { return waiting_.size(); }
  /** 2D-LAS queue of a job (0 or 1). */
  uint32_t queue_of(uint32_t job) const;
  /** Where the placement policy would put `gpus` GPUs on the free ones now (empty: not enough). */
  std::vector<uint32_t> place(uint32_t gpus, int32_t type = -1) const;
  /** The same on the GPUs `owner` leaves free (-1). */
  std::vector<uint32_t> place_on(const std::vector<int64_t>& owner, uint32_t gpus, int32_t type = -1) const;

private:
  struct JobState {
    uint32_t gpus   = 0;
    int32_t type    = -1;
    double submit   = 0;
    double alone_s  = 0;
    double attained = 0;
    uint32_t queue  = 0;
    double entered  = 0; ///< when it entered its queue (2D-LAS order)
    uint64_t seq    = 0; ///< tie-break in its queue: order of entry
    bool running = false, stopping = false, known = false;
    std::vector<uint32_t> held;
  };
  JobState& job(uint32_t j);
  const JobState* find(uint32_t j) const;
  void take(uint32_t j, const std::vector<uint32_t>& gpus);
  void release(uint32_t j);

  GpuTopology topo_;
  GpuSchedulerConfig config_;
  std::vector<JobState> jobs_;
  std::vector<uint32_t> waiting_; ///< in arrival order
  std::map<uint32_t, std::vector<uint32_t>> pinned_;
  std::vector<uint32_t> running_; ///< in start order
  std::vector<int64_t> owner_;    ///< per GPU: the job holding it, -1 when free
  std::vector<uint32_t> free_on_node_;
  uint32_t free_count_ = 0;
  uint64_t next_seq_   = 0;
};

} // namespace sgai::scheduling

#endif
