/* The workload manager: one S4U actor that receives job submissions at their submission times and
 * the completions of the jobs' stages as messages, and at each such instant runs the scheduling
 * step. Jobs run their profile's stages (plugins/batch/profiles: delays, one execution per host,
 * parallel tasks when they communicate); processors' memory-bandwidth interference drives host
 * P-states; energy comes from SimGrid's host_energy plugin, attributed to jobs (energy_ledger);
 * outputs are written by outputs.cpp. No actor per job, no kernel timer. */
#ifndef SGAI_PLUGINS_BATCH_MANAGER_HPP
#define SGAI_PLUGINS_BATCH_MANAGER_HPP

#include "core/scheduling/power.hpp"
#include "core/scheduling/scheduler.hpp"
#include "generators/platform/model.hpp"
#include "generators/workload/workload.hpp"

#include <simgrid/forward.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::batch {

/** Batsim's final states. */
enum class FinalState { pending, running, success, walltime_reached, failed, rejected, killed };
const char* to_string(FinalState s);

struct JobRecord {
  FinalState state = FinalState::pending;
  double start_s   = -1;
  double finish_s  = -1;
  std::vector<uint32_t> cores;
  double energy_j = 0;  ///< its cores' energy while it ran, with shared processor power split
  std::string metadata; ///< set by an external scheduler (Batsim's SET_JOB_METADATA)
};

/** A decision point: the state a decision maker (a learning agent) sees before the scheduling step
 *  at `now`, when jobs were submitted or ended and some wait (every event of an instant makes one
 *  point). Read-only views, valid during the call only. */
struct DecisionPoint {
  double now                              = 0;
  const workload::Workload* workload      = nullptr;
  const scheduling::Resources* resources  = nullptr;
  const scheduling::ClusterState* cluster = nullptr; ///< who holds each core, free memory and bandwidth
  const scheduling::Scheduler* scheduler  = nullptr; ///< the waiting jobs (queue()), the running count
  const std::vector<JobRecord>* jobs      = nullptr; ///< every job's record (start times of those running)
  /** The SimGrid host of each host index of `resources` (speeds, P-states, power). */
  const std::vector<simgrid::s4u::Host*>* hosts = nullptr;
  double flops_in_use                           = 0; ///< speed of the busy cores now (HDeepRM's makespan reward)
  uint32_t done                                 = 0; ///< jobs ended (or rejected)
};
/** The decision: the job and resource policies of this step and the next ones; both empty: keep
 *  them. `start_nothing`: no job starts at this step (HDeepRM's "void" action); once every job has
 *  been submitted, the decision is asked again at the same instant (as HDeepRM does), since no
 *  submission may come to ask it later. */
struct PolicyChoice {
  std::string job_policy;
  std::string resource_policy;
  bool start_nothing = false;
};
using DecisionHook = std::function<PolicyChoice(const DecisionPoint&)>;
/** Called after the scheduling step of a decision point, on the state the decision left (the jobs
 *  it started running, their processors' P-states set). */
using DecidedHook = std::function<void(const DecisionPoint&)>;

struct ManagerConfig {
  scheduling::SchedulerConfig scheduler;
  /** P-states from memory-bandwidth interference (platforms built from JSON with the P-states
   *  named idle, active and membw_limited). */
  bool interference = true;
  /** Use only the first N cores (Batsim's --mmax); 0: all. */
  uint32_t max_resources = 0;
  /** Energy time series: at most one sample per this many simulated seconds; 0: at every event. */
  double energy_period_s = 0;
  /** Also read every host at each sample and record the largest gap (tests; slow). */
  bool check_energy_series = false;
  /** An energy policy (batsched's energy variants: machines switched off and on); none when empty.
   *  Needs EASY backfilling, and hosts with wattage_per_state and sleep_pstates. */
  std::optional<scheduling::PowerOptions> power;
  /** Switches at given times, as a scheduler would request them (tests, scripted studies). */
  struct Switch {
    double t;
    std::string host;
    bool on;
  };
  std::vector<Switch> switches;
  /** The time series written (bits of SeriesBits, history.hpp: machine_states 1, energy 2,
   *  pstate_changes 4, overutilization 8; none by default, as Batsim users ask for them); jobs.csv
   *  and the schedule figures always are. */
  unsigned series = 0;
  /** Where the series are streamed as the run goes (the output folder); empty: kept in memory
   *  until write_outputs. */
  std::filesystem::path series_dir;
  /** Called at every decision point (state in, decision out); none: the policies stay fixed. */
  DecisionHook decide;
  DecidedHook decided;
  /** Jobs also come from other actors while the simulation runs (Batsim's job submitters, or a
   *  program's own actors): WorkloadManager::submit from this many submitters, each ending with
   *  end_submissions. The manager ends once every submitter has ended and every job with it;
   *  until then an empty queue is no reason to stop. 0: the workload given is every job. */
  unsigned submitters = 0;
  /** An external scheduler speaking Batsim's protocol over ZeroMQ at this endpoint (Batsim's
   *  --socket-endpoint: the scheduler binds it, the manager connects) decides instead of the
   *  scheduler: which job runs where and when, rejections, kills, calls. Empty: none. */
  std::string socket_endpoint;
  /** How long a reply may take (the scheduler died or hangs past it: the run ends with an error). */
  double socket_timeout_s = 60;
  /** Forwarded to the external scheduler as SIMULATION_BEGINS' config["sched-config"]. */
  std::string sched_config;
  /** The external scheduler may register jobs and profiles (Batsim's --enable-dynamic-jobs): the
   *  run then ends only after its NOTIFY registration_finished. Needs submitters >= 1 (one of
   *  them is the scheduler's registration). */
  bool dynamic_jobs = false;
  /** Registered jobs are acknowledged with a JOB_SUBMITTED (Batsim's --acknowledge-dynamic-jobs). */
  bool acknowledge_dynamic_jobs = false;
  /** The platform file, for messages about its hosts. */
  std::string platform_file;
  /** Where switches and the energy policy come from, for messages. */
  std::string power_source;
};

/** Builds the resources of a platform expanded from JSON (cores, processors, nodes, hosts). */
scheduling::Resources resources_from_platform(const platform::Platform& p, uint32_t max_cores = 0);
/** Builds resources from the hosts of the loaded Engine (SimGrid XML): each compute host is a
 *  node of one processor with the host's cores; Batsim's master_host and sgai gateways are left out. */
scheduling::Resources resources_from_engine(uint32_t max_cores = 0);

class WorkloadManager {
public:
  /** `platform` may be null (SimGrid XML platform: no interference, no P-state changes). */
  WorkloadManager(const workload::Workload& w, scheduling::Resources resources, const platform::Platform* platform,
                  const ManagerConfig& config);
  ~WorkloadManager();
  WorkloadManager(const WorkloadManager&)            = delete;
  WorkloadManager& operator=(const WorkloadManager&) = delete;

  /** Creates the manager's actor (call after the platform is loaded, before Engine::run). */
  void start();
  /** Why the manager could not finish its workload (empty when it did). */
  const std::string& error() const;
  /** Whether every job ended (and, with submitters, every submitter ended its submissions). */
  bool finished() const;

  /** Submits job `job` of `from` now, from any actor (ManagerConfig::submitters > 0): the manager
   *  queues it at this instant (a submission costs no simulated time), with the current time as
   *  its submission time; its record is the next index of jobs() and workload().jobs (returned),
   *  its workload name `from->name`. `from` is kept until the manager is destroyed (its profiles
   *  run the job). std::invalid_argument when the manager takes no submissions, has finished,
   *  when `job` is out of range or its profile cannot run on the platform (the job is then not
   *  submitted). */
  uint32_t submit(std::shared_ptr<const workload::Workload> from, size_t job);
  /** One submitter has no more jobs to submit (std::invalid_argument: more ends than submitters). */
  void end_submissions();
  /** Stops the manager from another actor, before its actors are killed: cancels the executions
   *  they wait for (SimGrid 3.32 cannot kill an actor waiting on several activities at once) and
   *  makes its actor return should it run (3.32 runs an actor killed before its first step).
   *  sgai's deployment calls it when an actor fails and every actor is killed. */
  void stop();

  /** The jobs as the outputs list them: the workload given, then the jobs submitted. */
  const workload::Workload& workload() const;
  const scheduling::Resources& resources() const;
  const std::vector<JobRecord>& jobs() const;
  /** Energy of hosts while no job used them or their processor. */
  double idle_energy_j() const;
  /** The running total of the hosts' energy (energy.csv) at the end, before the final reading of
   *  every host: equal to energy_j when every power change was seen. */
  double series_energy_j() const;
  /** With ManagerConfig::check_energy_series: the largest gap between energy.csv's running total
   *  and a reading of every host, over all samples. */
  double series_error_j() const;
  /** Writes jobs.csv, schedule.json/.csv and the time series asked for (machine_states.csv,
   *  energy.csv, pstate_changes.csv, overutilization.csv) into `dir` (atomically; the series
   *  were streamed into ManagerConfig::series_dir when given, which must then be `dir`); returns
   *  the files with what they hold. */
  std::vector<std::pair<std::string, std::string>> write_outputs(const std::filesystem::path& dir);

  /** Figures of the schedule (also in schedule.json). */
  std::vector<std::pair<std::string, double>> figures() const;

  /** Whether a workload needs SimGrid's ptask_L07 host model (jobs that communicate). */
  static bool needs_ptask_model(const workload::Workload& w);

private:
  class Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sgai::batch

#endif
