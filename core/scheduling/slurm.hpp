/* Slurm's scheduling as sites configure it (`--backfill slurm`, docs/batch.md): the main scheduler
 * (sched/builtin's loop: jobs in priority order, a partition closed at its first job that cannot
 * start), the backfill pass (every bf_interval: each job planned from scratch in priority order on a
 * map of the cores over time, started when it can start now without delaying the jobs planned
 * before it, bounded by bf_max_job_test, bf_window, bf_resolution, bf_max_job_user), and the
 * multifactor priority (age, job size, Fair Tree fair-share with decayed usage, partition, QOS).
 * The Scheduler runs it (scheduler.hpp). Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_SLURM_HPP
#define SGAI_CORE_SCHEDULING_SLURM_HPP

#include "core/scheduling/policies.hpp"
#include "core/scheduling/slurm_conf.hpp"

#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace sgai::scheduling {

/** A job's place in Slurm's model. */
struct SlurmJob {
  uint32_t partition  = 0;
  int64_t association = -1; ///< the user's association (SlurmAssociations::nodes), -1: none (no fair-share)
  uint32_t user       = 0;  ///< index in SlurmSetup::users
  double qos_priority = 0;
};

/** The configuration resolved against the platform's cores and the workload's jobs. */
struct SlurmSetup {
  SlurmConf conf;
  SlurmAssociations associations;
  std::vector<CoreSet> partition_cores;
  std::vector<SlurmJob> jobs; ///< by the workload's job index
  std::vector<std::string> users;
  double max_qos_priority = 0;
  double max_job_factor   = 1;
  /** Users of the workload with no association (fair-share factor 0), for a warning. */
  std::vector<std::string> unassociated;
};

/** A job's who and where, as the workload says it (empty: not given). */
struct SlurmJobKeys {
  std::string id, user, group, partition, qos;
};

/** Resolves the configuration: partitions' hosts among `resources` (by name), each job's partition
 *  (its own, else the default one), association (the user's under the account named by its group,
 *  else under its default account) and QOS ("normal" when not given: priority 0). InputError naming
 *  slurm.conf's line for a host the platform lacks, and the workload (`workload_file`) and job for a
 *  partition or QOS that is not defined. `associations` null: every user under the root with equal
 *  shares. */
std::shared_ptr<const SlurmSetup> make_slurm_setup(const SlurmConf& conf, const SlurmAssociations* associations,
                                                   const Resources& resources, const std::vector<SlurmJobKeys>& jobs,
                                                   const std::string& workload_file);

/** The state Slurm keeps between steps: usage and priorities, when passes are due. */
class SlurmModel {
public:
  SlurmModel(std::shared_ptr<const SlurmSetup> setup, const Resources& resources);

  /** Whether the job can ever run: its partition up, large enough, and its time limit within the
   *  partition's MaxTime (sites enforce it: EnforcePartLimits). */
  bool admits(const QueuedJob& q) const;
  /** The time limit Slurm plans with: the requested time, else the partition's DefaultTime or MaxTime. */
  double time_limit(const QueuedJob& q) const;
  /** A job queued (`queue`: the waiting jobs before it). */
  void submitted(const QueuedJob& q, double now, std::span<const QueuedJob> queue);
  /** A job started (by step, or by an external decision) / ended: its usage, and the cores it holds. */
  void started(uint32_t job, const std::vector<uint32_t>& cores, double now, double limit);
  void ended(uint32_t job, double now, std::span<const QueuedJob> queue);

  /** Takes cores for the job at `queue_index` now (the resource policy, among `allowed`): empty
   *  when it cannot (memory). The caller records the start (started() is called by step). */
  using Take = std::function<std::vector<uint32_t>(size_t queue_index, const CoreSet& allowed)>;
  /** The main scheduler, and the backfill pass when due, at `now`, on the waiting jobs (arrival
   *  order, left unchanged); returns the (queue index, cores) of the jobs started, in start order. */
  std::vector<std::pair<size_t, std::vector<uint32_t>>> step(double now, std::span<const QueuedJob> queue,
                                                             const ClusterState& state, const Take& take);
  /** When the scheduler should look again without an event (infinity: not before one). */
  double next_wake(double now, bool queue_empty) const;

  /** The time limit of a running job (infinity: none, or not running): Slurm ends it then. */
  double limit_of(uint32_t job) const;
  /** Backfill passes run so far. */
  uint64_t passes() const { return passes_; }
  /** The job's priority at its last calculation. */
  double priority(uint32_t job) const;

private:
  struct Impl;
  /** The queue positions a backfill pass tests, in order (bf_max_job_user, bf_max_job_test). */
  std::vector<uint32_t> tested(std::span<const QueuedJob> queue, const std::vector<uint32_t>& order,
                               const std::vector<char>& gone) const;
  void backfill_pass(double now, std::span<const QueuedJob> queue, const ClusterState& state,
                     const std::vector<uint32_t>& order, const std::vector<char>& gone, const Take& take,
                     const std::function<void(uint32_t, std::vector<uint32_t>)>& start);
  std::shared_ptr<const SlurmSetup> setup_;
  std::shared_ptr<Impl> impl_;
  uint64_t passes_ = 0;
};

} // namespace sgai::scheduling

#endif
