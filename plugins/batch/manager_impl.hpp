/* The workload manager's state and steps (private to plugins/batch): manager.cpp holds its
 * construction, its actor's loop and step, the launching of jobs' stages, submissions and the
 * run's samples; the executor pool (executors.hpp), machine power switching (machine_power.hpp)
 * and the hosts' P-states (interference.hpp) each own their part. */
#ifndef SGAI_PLUGINS_BATCH_MANAGER_IMPL_HPP
#define SGAI_PLUGINS_BATCH_MANAGER_IMPL_HPP

#include "plugins/batch/manager.hpp"

#include "plugins/batch/energy_ledger.hpp"
#include "plugins/batch/executors.hpp"
#include "plugins/batch/external.hpp"
#include "plugins/batch/history.hpp"
#include "plugins/batch/hosts.hpp"
#include "plugins/batch/interference.hpp"
#include "plugins/batch/machine_power.hpp"
#include "plugins/batch/profiles/profile_run.hpp"

#include <simgrid/forward.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <queue>
#include <string>
#include <unistd.h>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

/* The manager is one S4U actor. Its event loop sleeps on a semaphore until the next dated event
 * (a submission, the end of a delay stage, a walltime) or until the end of a stage's executions
 * posts a message (O(1): the execution is looked up in a hash map and its stage counted down).
 * Executions are started and waited for by a pool of executor actors (executors.hpp); machines
 * are switched off and on by machine_power.hpp, hosts' P-states follow interference.hpp. Jobs run
 * as few executions as their profile allows (one per host, with a thread per core, or one
 * parallel task). */
class WorkloadManager::Impl : public ExecutorPool::Client {
public:
  Impl(const workload::Workload& w, scheduling::Resources resources, const platform::Platform* platform,
       const ManagerConfig& config);

  workload::Workload own_;       ///< with submitters: the given workload, then the jobs submitted
  const workload::Workload& w_;  ///< every job (own_ with submitters, else the workload given)
  const size_t n_given_;         ///< the jobs of the workload given (submitted at their dates)
  unsigned open_submitters_ = 0; ///< submitters that have not ended their submissions
  /** A job submitted by another actor: its workload (which runs its profile) and index there. */
  struct Submitted {
    const workload::Workload* from;
    size_t job;
  };
  std::vector<Submitted> submitted_;                               ///< job n_given_ + k: submitted_[k]
  std::vector<std::shared_ptr<const workload::Workload>> sources_; ///< the workloads submitted from
  std::vector<uint32_t> source_offset_;                            ///< their profiles' first index in own_
  std::vector<uint32_t> arrived_;                                  ///< jobs submitted, not queued yet
  scheduling::Resources r_;
  const platform::Platform* platform_;
  ManagerConfig cfg_;
  scheduling::ClusterState state_;
  scheduling::Scheduler sched_;
  History hist_;
  std::vector<double> job_energy_;
  std::unique_ptr<EnergyLedger> ledger_;
  std::shared_ptr<bool> host_state_changed_ = std::make_shared<bool>(false); ///< by SimGrid, not us
  std::shared_ptr<Impl*> alive_ = std::make_shared<Impl*>(this); ///< null once destroyed (for SimGrid's callbacks)
  ~Impl() override { *alive_ = nullptr; }
  bool ledger_always_read_ = false;

  HostMap hosts_;
  ExecutorPool pool_;
  Interference pstates_;
  MachinePower power_;

  // ------------------------------------------------------------------ running jobs and their stages
  struct Run {
    std::unique_ptr<ProfileRun> profile;
    uint32_t stage = 0;                          ///< stages started so far (the current one's number)
    size_t pending = 0;                          ///< executions of the stage still running
    bool ok        = true;                       ///< no execution of the stage failed
    std::vector<sg4::ExecPtr> execs;             ///< the stage's executions (kept until the stage ends)
    std::vector<std::vector<uint32_t>> on_hosts; ///< their hosts
  };
  std::unordered_map<uint32_t, Run> running_;
  struct Owner {
    uint32_t job;
    uint32_t index; ///< in Run::execs
  };
  std::unordered_map<const sg4::Activity*, Owner> owner_; ///< executions running now
  struct StageEnd {
    uint32_t job;
    uint32_t stage;
    bool ok;
  };
  std::vector<StageEnd> ended_; ///< stages whose executions all ended, not handled yet
  struct ExecDone {
    Owner owner;
    bool ok;
  };
  std::vector<ExecDone> execs_done_; ///< executions that ended, reported by the executors

  struct Timed {
    double t;
    uint64_t seq;
    uint32_t job;   ///< (a scripted switch: the host)
    uint32_t stage; ///< a delay stage's number, or walltime
    bool walltime;
    int8_t script = 0; ///< a scripted switch: 1 on, -1 off; kCallTimer: an external scheduler's call
    bool operator>(const Timed& o) const { return t > o.t || (t == o.t && seq > o.seq); }
  };
  static constexpr int8_t kCallTimer = 2;
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> timed_;
  uint64_t seq_ = 0;

  // the actor
  sg4::SemaphorePtr wake_;
  std::vector<uint32_t> manager_host_; ///< the host of the manager's actor (one host index)
  bool waiting_       = false;         ///< the actor sleeps on wake_
  bool wake_posted_   = false;
  bool finished_      = false;
  bool stopped_       = false; ///< by stop()
  size_t next_submit_ = 0;
  uint64_t arrivals_  = 0;
  size_t done_        = 0;
  std::string error_;

  bool progress_                                       = ::isatty(STDERR_FILENO) != 0;
  bool progress_shown_                                 = false;
  std::chrono::steady_clock::time_point next_progress_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  double next_energy_sample_                           = 0;
  double series_estimate_                              = 0; ///< the running total at the end, before the final reading
  double series_error_ = 0;     ///< largest gap between the running total and a full reading
  bool redecide_       = false; ///< a decision started nothing and no submission will come: decide again

  void bind_hosts();

  /** What the energy policy sees of the machines: their states, and when their jobs end. */
  std::vector<scheduling::MachineView> machines() const;

  // ------------------------------------------------------------------------------ energy sharing

  /** Who shares a host's energy: the jobs on its cores, else the jobs on its processors' other cores. */
  void recompute_context(uint32_t h);
  std::vector<std::pair<uint32_t, double>> weights_; ///< recompute_context's (kept: no allocation per call)

  /** Hosts whose sharing changes when these cores change hands. */
  std::vector<uint32_t> affected_hosts(const std::vector<uint32_t>& cores) const;
  mutable std::vector<char> host_mark_;

  // ------------------------------------------------------------------------------ job life cycle

  scheduling::Demand demand_of(uint32_t job) const;

  void launch(const scheduling::Decision& d, double now);

  /** Starts the job's next stage; false when it has none left (the job is done). */
  bool next_stage(uint32_t job, Run& run, double now);

  /** A chunk's executions start unless its job's stage was ended meanwhile (a switch's always do). */
  bool wanted(const ExecutorPool::Chunk& c) override;

  /** An execution made for a chunk is known by its job (a switch's: by its host). */
  void made(const ExecutorPool::Chunk& c, uint32_t index, const sg4::ExecPtr& e) override;

  /** An execution ended (an executor saw it): a message to the manager, O(1). Executions of a
   *  job that was ended meanwhile (killed) are no longer known: nothing to say. An execution that is
   *  not the last of its stage changes nothing the scheduler sees (Batsim's job is one activity):
   *  its stage counts down here and the manager is not woken; its hosts, idle now while the job
   *  holds them, reach the energy ledger at the manager's next step (quiet_). (Only the manager's
   *  actor touches the ledger: its readings are simcalls, where other actors may run.) */
  void ended(const sg4::Activity& a, bool ok) override;
  struct QuietChange {
    uint32_t host;
    double t;
  };
  std::vector<QuietChange> quiet_; ///< hosts whose execution ended without waking the manager

  /** The ledger hears of the hosts that changed without waking the manager (before any reading). */
  void hear_quiet_changes();

  /** The manager hears of an ended execution: its hosts idle, its stage counts down. */
  void exec_done(const Owner& o, bool ok);

  /** Cancels every execution the executors wait for; the manager's actor returns when it runs. */
  void stop();

  void wake();

  /** Ends a job (finished, killed or failed): cancels what still runs, frees its cores. */
  void end_job(uint32_t job, FinalState final_state, double now);

  // ------------------------------------------------------------------------------ the event loop

  /** The actor's body. */
  void run_actor();

  /** Whether an actor other than this one and daemons is alive (it may still submit). */
  static bool others_alive();

  /** Sleeps until `t` (kInf: for ever), or until an execution, a switch or a submission wakes it. */
  void wait_until(double t);

  /** Everything else due at this instant (executors reporting, other timers) is heard before the
   *  step: an execution of no work ends only at SimGrid's next solve, after every actor woken at
   *  this instant has run. (A zero sleep returns at once; a zero timeout is never solved in 3.32.) */
  void settle_instant();

  /** Timers left by jobs that ended before them (a walltime not reached, a delay stage of a job
   *  killed) are dropped rather than woken for: they are no event (Batsim tells the scheduler
   *  nothing then), and an instant costs SimGrid a solve or two. */
  void drop_stale_timers();

  double next_date() const;

  /** What one step gathers as it goes. */
  struct Instant {
    double now;
    size_t n;                             ///< the jobs known when the step began
    std::vector<uint32_t> ending;         ///< jobs that end at this instant
    std::vector<FinalState> ending_state; ///< how each ends
    /** What the scheduler hears of this instant, as Batsim tells it: whether something happened (a
     *  stale walltime timer is not an event: the energy policy decides only when something happened). */
    bool happened = false;
    bool ends(uint32_t job) const { return std::find(ending.begin(), ending.end(), job) != ending.end(); }
  };

  /** Everything due now: ended stages and jobs, submissions, then the scheduling decision. */
  void step();

  /** A stage over: the job goes on with its next stage, or ends. */
  void stage_over(Instant& in, uint32_t job, uint32_t stage, bool ok);

  /** The timers due now: scripted switches, ends of delay stages, walltimes reached. False when a
   *  scripted switch cannot be made (error_ says why). */
  bool fire_timers(Instant& in);

  /** Ends the jobs ending at this instant, their energy up to now settled first; returns the hosts
   *  they leave (sorted), adds their processors to `touched_procs`. */
  std::vector<uint32_t> end_jobs(const Instant& in, std::vector<uint32_t>& touched_procs);

  /** A job as the scheduler's queue holds it (its arrival counted). */
  scheduling::QueuedJob queued(uint32_t job);

  /** The jobs submitted by now go to the scheduler's queue (or are rejected). */
  void queue_arrivals(Instant& in);

  /** The decision hook (when `deciding`) may change the policies or start nothing; then the
   *  scheduler's step: the jobs that start now. */
  std::vector<scheduling::Decision> decide(double now, bool deciding);

  /** The cores the decisions take: the hosts they touch beyond `hosts_before` are settled and
   *  added to it, their processors to `touched_procs`. */
  void take_cores(const std::vector<scheduling::Decision>& decisions, std::vector<uint32_t>& hosts_before,
                  std::vector<uint32_t>& touched_procs);

  /** No job is left to come: the given ones all submitted, every submitter ended. */
  bool no_more_submissions() const { return next_submit_ == n_given_ && open_submitters_ == 0; }

  /** The workload whose profiles run `job` (the given one, or the one it was submitted from). */
  const workload::Workload& source_of(uint32_t job) const;
  const workload::Profile& profile_to_run(uint32_t job) const;

  uint32_t submit(std::shared_ptr<const workload::Workload> from, size_t job);

  void end_submissions();

  DecisionPoint decision_point(double now) const;

  /** Why the run cannot go on: the waiting jobs (the first three), what each asks and what the
   *  platform has free, naming the workload file. */
  std::string stuck_message(double now) const;

  /** On a terminal, one line of progress at most twice a second (nothing when not a terminal). */
  void progress(double now, bool last);

  void sample(double now);

  void finish();

  // ------------------------------------------------- an external scheduler (manager_external.cpp)

  std::unique_ptr<External> ext_; ///< null: the scheduler decides

  /** SIMULATION_BEGINS, and the decisions of its reply. */
  void external_begin();
  /** JOB_SUBMITTED for a job queued now. */
  void external_submitted(uint32_t job, double now);
  /** JOB_COMPLETED (or JOB_KILLED) for the jobs that ended at this instant. */
  void external_ended(const Instant& in);
  /** RESOURCE_STATE_CHANGED for the SET_RESOURCE_STATE requests whose machines all switched. */
  void external_switched(double now);
  /** SET_RESOURCE_STATE: machines switched off, on, or to another computing P-state. */
  bool external_set_state(const scheduling::BatsimDecision& d, double now);
  /** REGISTER_PROFILE, REGISTER_JOB (queued at once), CHANGE_JOB_STATE. */
  bool external_register_profile(const scheduling::BatsimDecision& d);
  bool external_register_job(const scheduling::BatsimDecision& d, double now);
  bool external_change_state(const scheduling::BatsimDecision& d, double now);
  /** The jobs a KILL_JOB named end at this instant. */
  void take_kills(Instant& in);
  /** Sends what happened (when the scheduler is ready) and applies its decisions: the jobs that
   *  start now. A decision that cannot be applied sets error_. */
  std::vector<scheduling::Decision> external_decide(Instant& in);
  /** Applies one decision dated now; false (error_ set) when it cannot be. */
  bool external_apply(const scheduling::BatsimDecision& d, double now, std::vector<scheduling::Decision>& out);
  /** SIMULATION_ENDS and its reply; false (error_ set) when the reply is wrong. */
  bool external_end(double now);
  /** The job an id names, or none (error_ set, naming the event). */
  std::optional<uint32_t> external_job(const scheduling::BatsimDecision& d, const std::string& id);
  /** Sends the pending events dated `now` and reads the reply (error_ set when it is malformed). */
  std::optional<scheduling::BatsimReply> external_exchange(double now);
};

} // namespace sgai::batch

#endif
