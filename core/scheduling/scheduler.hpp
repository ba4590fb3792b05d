/* The scheduling step of the workload manager: which queued jobs start now, on which cores.
 * Without backfilling it is HDeepRM's greedy loop (pick a job by the job policy, give it cores by
 * the resource policy, stop at the first job that does not fit). EASY backfilling works on the
 * queue in the job policy's order against the cores' availability over time (running jobs hold
 * their cores until their requested time ends): what an AvailabilityProfile rebuilt at each step
 * would say, computed from the free cores and, only when the first job must wait, the running
 * jobs' ends (see backfill_step). Conservative
 * backfilling keeps its reservations between steps, as batsched does (conservative.hpp). Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_SCHEDULER_HPP
#define SGAI_CORE_SCHEDULING_SCHEDULER_HPP

#include "core/scheduling/conservative.hpp"
#include "core/scheduling/policies.hpp"
#include "core/scheduling/slurm.hpp"

#include <cmath>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <queue>
#include <random>
#include <set>
#include <span>
#include <string>
#include <utility>
#include <vector>

namespace sgai::scheduling {

enum class Backfill { none, easy, conservative, slurm };
std::optional<Backfill> backfill_from_string(const std::string& s);
const char* to_string(Backfill b);

/** Cores of a platform over time: which are available in each time slice. */
class AvailabilityProfile {
public:
  /** From `now` on, every core available... */
  AvailabilityProfile(uint32_t cores, double now);
  /** From `now` on, the cores of each (end, cores) busy until that end (infinity: unknown), all
   *  others available: built in one sweep over the ends. */
  AvailabilityProfile(uint32_t cores, double now, std::vector<std::pair<double, const std::vector<uint32_t>*>> busy);
  /** ... Marks cores unavailable over [start, end) (end may be infinity). */
  void occupy(const std::vector<uint32_t>& cores, double start, double end);

  struct Fit {
    double start = 0;
    CoreSet candidates; ///< cores available over the whole window
  };
  /** Earliest slice start at which `cores` cores stay available for `duration` (infinity allowed). */
  std::optional<Fit> first_fit(uint32_t cores, double duration) const;
  /** The fit starting now, if there is one (cheaper than first_fit). */
  std::optional<Fit> fit_now(uint32_t cores, double duration) const;
  /** Cores available at the first instant. */
  uint32_t available_now() const { return slices_.front().count; }
  size_t slice_count() const { return slices_.size(); }

private:
  struct Slice {
    double begin;
    double end;
    CoreSet available;
    uint32_t count; ///< available.count()
  };
  std::vector<Slice> slices_;
  size_t split_at(double t); ///< index of the slice beginning at t
  std::optional<Fit> fit_from(size_t i, uint32_t cores, double duration) const;
};

/** The waiting jobs in arrival order, contiguous, with removal from the front in O(1) and of a
 *  few jobs anywhere by moving the shorter side. */
class JobQueue {
public:
  size_t size() const { return buf_.size() - head_; }
  bool empty() const { return size() == 0; }
  QueuedJob& operator[](size_t i) { return buf_[head_ + i]; }
  const QueuedJob& operator[](size_t i) const { return buf_[head_ + i]; }
  std::span<const QueuedJob> view() const { return {buf_.data() + head_, size()}; }
  void push_back(const QueuedJob& q)
  {
    buf_.push_back(q);
    widths_.push_back(q.demand.cores);
  }
  /** Removes the jobs at these positions (increasing), keeping the others' order. */
  void remove(const std::vector<size_t>& sorted);
  /** The jobs' widths (demand.cores) in queue order, packed: backfilling skips the jobs wider than
   *  what is free without touching their records. */
  const uint32_t* widths() const { return widths_.data() + head_; }

private:
  std::vector<QueuedJob> buf_;
  std::vector<uint32_t> widths_; ///< buf_[i].demand.cores
  size_t head_ = 0;              ///< buf_[0, head_) are removed jobs
};

struct Decision {
  uint32_t job = 0;
  std::vector<uint32_t> cores;
};

struct SchedulerConfig {
  SchedulerConfig() = default;
  SchedulerConfig(std::string job, std::string resource, Backfill b, uint64_t s)
      : job_policy(std::move(job))
      , resource_policy(std::move(resource))
      , backfill(b)
      , seed(s)
  {
  }
  std::string job_policy      = "first";
  std::string resource_policy = "first";
  Backfill backfill           = Backfill::none;
  uint64_t seed               = 1;
  /** Backfill::conservative: how its schedule is kept (tests compare the layouts). */
  ScheduleLayout schedule_layout = ScheduleLayout::automatic;
  /** Backfill::slurm: the site's slurm.conf and associations (null: each user under the root), and
   *  what the workload manager resolves from them against its platform and workload. */
  std::shared_ptr<const SlurmConf> slurm_conf;
  std::shared_ptr<const SlurmAssociations> slurm_associations;
  std::shared_ptr<const SlurmSetup> slurm;
};

class Scheduler {
public:
  /** std::invalid_argument for unknown policy names. */
  Scheduler(ClusterState& state, const SchedulerConfig& config);

  /** Queues a job; false (the job is rejected) when it can never fit on the platform: more cores
   *  than there are, or more memory per core than nodes can give to that many cores. Conservative
   *  backfilling also rejects jobs without a (positive, finite) requested time, as batsched does. */
  bool submit(const QueuedJob& job, double now = -1);
  /** Queues a job whatever it asks (an external scheduler decides whether it runs or is rejected). */
  void enqueue(const QueuedJob& job) { queue_.push_back(job); }
  /** Why start_given could not start a job (an external scheduler's decision). */
  struct GivenStart {
    enum class Problem { none, not_waiting, busy, memory } problem = Problem::none;
    uint32_t core                                                  = 0; ///< busy, memory: the first core at fault
    uint32_t owner                                                 = 0; ///< busy: who holds it (a job, or a hold key)
  };
  /** Starts waiting job `job` now on exactly these cores (an external scheduler's allocation),
   *  taking them in the cluster state; the decision goes to `out`. Nothing changes when the job is
   *  not waiting, a core is not free, or a node lacks the memory: the problem is returned. */
  GivenStart start_given(uint32_t job, const std::vector<uint32_t>& cores, double now, std::vector<Decision>& out);
  /** Takes a waiting job out of the queue (rejected); false when it is not waiting. */
  bool remove_waiting(uint32_t job);
  /** Frees the cores of a finished (or killed) job, or of a hold, at `now` (Slurm's usage). */
  void release(uint32_t job, double now = 0);
  /** When the scheduler wants to look again with no event (Slurm's periodic passes, priority
   *  recalculations); infinity: not before an event. */
  double next_wake(double now) const;
  /** Backfill::slurm: its model (priorities, passes), or null. */
  const SlurmModel* slurm() const { return slurm_.get(); }
  /** Takes free cores out of scheduling from `start` until `until` (infinity: until released): a
   *  machine asleep or switching (energy policies). Backfilling sees them busy until then. `key`
   *  is no job's index. EASY backfilling and none only. */
  void hold(uint32_t key, const std::vector<uint32_t>& cores, double start, double until);
  /** Moves the end of a hold. */
  void hold_until(uint32_t key, double until);
  /** Starts what can start now; the cores are taken in the cluster state. */
  std::vector<Decision> step(double now);

  size_t queue_size() const { return queue_.size(); }
  /** The waiting jobs, in arrival order. */
  std::span<const QueuedJob> queue() const { return queue_.view(); }
  size_t running() const { return running_.size(); }
  const std::vector<uint32_t>& cores_of(uint32_t job) const { return running_.at(job).cores; }
  /** Conservative backfilling: the job's reservation (running or waiting), or null. */
  const ReservationSchedule::Reservation* reservation(uint32_t job) const { return schedule_.find(job); }
  /** Waiting jobs that conservative backfilling left in place without searching. */
  uint64_t proven_unchanged() const { return schedule_.proven_unchanged(); }
  /** Changes the policies between steps (a learning agent's action). */
  void set_policies(const std::string& job_policy, const std::string& resource_policy);

private:
  struct Running {
    std::vector<uint32_t> cores;
    Demand demand;
    double start_s;
    double requested_time_s;
  };

  ClusterState& state_;
  Backfill backfill_;
  std::unique_ptr<JobPolicy> job_policy_;
  std::unique_ptr<ResourcePolicy> resource_policy_;
  std::mt19937_64 rng_;
  JobQueue queue_; ///< arrival order
  std::map<uint32_t, Running> running_;
  /** (requested end, job) of the running jobs with a finite requested end, in order: EASY's first
   *  fit walks it from now on instead of sorting the running jobs at each step. */
  std::set<std::pair<double, uint32_t>> requested_ends_;
  void set_running(uint32_t job, Running r);
  void erase_running(std::map<uint32_t, Running>::iterator it);

  bool never_fits(const Demand& d) const;
  void start(size_t queue_index, std::vector<uint32_t> cores, double now, std::vector<Decision>& out);
  std::vector<Decision> greedy_step(double now);
  std::vector<Decision> backfill_step(double now);
  // EASY's scratch space, kept between steps (no allocation per step)
  std::vector<size_t> started_;
  CoreSet bf_avail_, bf_held_, bf_candidates_, bf_then_;

  std::unique_ptr<SlurmModel> slurm_;
  std::vector<Decision> slurm_step(double now);

  // Conservative backfilling: the reservations kept between steps (batsched's make_decisions).
  ReservationSchedule schedule_;
  std::unique_ptr<ResourcePolicy> lowest_; ///< lowest-numbered cores where memory permits
  bool ended_since_step_ = false;          ///< a job ended since the last step
  size_t fresh_          = 0;              ///< jobs at the end of the queue submitted since the last step
  using Dated            = std::pair<double, uint32_t>;
  std::priority_queue<Dated, std::vector<Dated>, std::greater<>> ends_; ///< running jobs' reservation ends
  std::set<Dated> waiting_starts_;                                      ///< waiting jobs' reservation starts

  // In arrival order (batsched's), a step visits only the waiting jobs that may move: those
  // without a reservation, beginning now, or with memory (always searched), and those an opening
  // or a mark of the removals may move (found in by_start_, or pending from an earlier step when
  // the removal came after their visit). The others are what may_move would prove unchanged.
  StartIndex by_start_; ///< waiting jobs' reservations, by arrival
  /** By job (a workload's index): (start, arrival) in by_start_, the start NaN when not there. */
  std::vector<std::pair<double, uint64_t>> indexed_;
  std::vector<uint64_t> arrival_of_; ///< by job: a waiting job's arrival, else kNoArrival
  static constexpr uint64_t kNoArrival = UINT64_MAX;
  std::set<uint64_t> unplaced_, with_memory_, pending_; ///< arrivals
  bool all_unplaced_ = false;                           ///< every waiting job is unplaced too (their reservations went)
  bool is_indexed(uint32_t job) const { return job < indexed_.size() && not std::isnan(indexed_[job].first); }
  uint64_t openings_seen_ = 0;
  std::vector<uint32_t> marked_;
  std::vector<double> regained_;
  size_t moved_       = 0; ///< waiting jobs placed elsewhere than they were (or placed anew)
  double moved_share_ = 0; ///< of the waiting jobs, those the last compressing step moved
  /** The index of the waiting jobs (by_start_, unplaced_, with_memory_, indexed_) is not kept up
   *  (a narrow machine searching every waiting job at each end); rebuild_index() builds it again. */
  bool stale_index_ = false;
  void rebuild_index();
  bool in_arrival_order_ = true;  ///< the queue's arrivals increase (so far: they do)
  bool pending_all_      = false; ///< every waiting job is to be visited at the next step
  /** arrival_step's jobs to visit: arrivals from base_, as bits, and every one from all_from_ on
   *  (an opening that may move many jobs: visiting them all costs less than finding them). */
  std::vector<uint64_t> to_visit_;
  uint64_t base_     = 0;
  uint64_t all_from_ = UINT64_MAX;
  /** The job's reservation (or none) in the index, after a placement; gone when it started. */
  void reindex(const QueuedJob& q, bool started);
  /** What the removals since the last look free may move: the jobs arrived at or after `from`
   *  to visit in this step (when `visit`), the others pending for the next step (`look`: false, only what was looked
   * at). */
  void look_at_freed(uint64_t from, bool visit, bool look = true);
  void arrival_step(double now, std::vector<Decision>& out);
  std::vector<Decision> conservative_step(double now);
  /** Reserves the queued job first-fit; starts it (true) when its reservation begins now. */
  bool place(size_t queue_index, double now, std::vector<Decision>& out);
  /** Takes the fit's cores now if their nodes have the memory, else the lowest-numbered of the
   *  fit's candidates that do; none if they cannot. */
  std::vector<uint32_t> take_lowest(const QueuedJob& q, std::vector<uint32_t> cores);
};

} // namespace sgai::scheduling

#endif
