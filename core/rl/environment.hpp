/* HDeepRM's learning environment on sgai's workload manager (thesis 3.2.3, 3.2.4; issue 23): at
 * each decision point (a simulated instant where jobs were submitted or ended and some wait) the
 * agent gets an observation of the platform and the queue, chooses an action (a pair of job and
 * resource policies, or void: start nothing now), and is rewarded on the state that action leaves.
 * The simulation runs in a server process (sgai-rl-env, plugins/rl_server/server.hpp) that loads the
 * platform once and forks a child per episode, so a reset costs a small process's fork, the caller
 * never links SimGrid nor meets its one-engine-per-process rule, and several environments live in
 * one process. No torch header here: agents are elsewhere. docs/rl.md. */
#ifndef SGAI_CORE_RL_ENVIRONMENT_HPP
#define SGAI_CORE_RL_ENVIRONMENT_HPP

#include <cstdint>
#include <filesystem>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::rl {

/** What an observation holds (thesis 3.2.3.1): normal, every part; small, without the per-core
 *  part; minimal, the queue's distribution and its size's variation only. */
enum class ObservationKind { normal, small, minimal };
/** The reward (thesis 3.2.4): slowdown, -sum over active jobs of 1 / requested time; completion,
 *  -active jobs; utilization, busy cores; makespan, Gflop/s in use; energy, -watts drawn. */
enum class RewardKind { slowdown, completion, utilization, makespan, energy };

const std::vector<std::string>& observation_names();
const std::vector<std::string>& reward_names();
/** std::invalid_argument listing the known names otherwise. */
ObservationKind observation_from_string(const std::string& name);
RewardKind reward_from_string(const std::string& name);

/** A pair of policies, or void (both empty): start nothing at this decision point. */
struct Action {
  std::string job_policy;
  std::string resource_policy;
  bool is_void() const { return job_policy.empty(); }
  std::string name() const; ///< "shortest/high_mem_bw", "void"
};

/** The thesis' 37: job policies random, first, shortest, smallest, low_mem, low_mem_bw (job-major)
 *  by resource policies random, high_gflops, high_cores, high_mem, high_mem_bw, low_power, then
 *  void (36). */
std::vector<Action> thesis_actions();
/** Pairs as "job:resource" (and "void"); std::invalid_argument naming an unknown policy and listing
 *  the known ones. */
std::vector<Action> actions_from_names(const std::vector<std::string>& names);
/** An action set by name: "thesis" (the 37), "pairs" (the 36 without void), an HDeepRM options
 *  file, or "job:resource,...[,void]". std::invalid_argument or InputError otherwise. */
std::vector<Action> actions_named(const std::string& text);
/** HDeepRM's "actions" object of an options file: {"selection": [{"job": ["resource", ...]}, ...],
 *  "void": bool}, in its order (void last). InputError naming the file and place. */
std::vector<Action> actions_from_hdeeprm(const std::filesystem::path& options_file);

struct EnvironmentOptions {
  std::filesystem::path platform; ///< sgai JSON or SimGrid XML
  std::filesystem::path workload; ///< Batsim JSON (HDeepRM's fields read: req_time, mem, mem_bw)
  std::vector<Action> actions = thesis_actions();
  ObservationKind observation = ObservationKind::normal;
  RewardKind reward           = RewardKind::makespan;
  /** Queue sensitivity (thesis 3.2.3.1): a queue grown by this fraction reads 1, shrunk by it 0. */
  double queue_sensitivity = 0.01;
  /** Voids in a row at one instant before the episode is truncated. */
  uint32_t max_voids = 1000;
  /** Memory-bandwidth interference (P-states), as sgai batch run. */
  bool interference      = true;
  uint32_t max_resources = 0; ///< the first N cores (0: all, or the workload's nb_res)
  std::vector<std::string> simgrid_args;
};

/** What a step says beside the observation; the objective figures are set at the episode's end. */
struct StepInfo {
  double time_s       = 0;
  uint64_t steps      = 0; ///< decisions taken in this episode
  uint32_t jobs_done  = 0;
  uint32_t jobs_total = 0;
  std::vector<std::string> jobs_left; ///< truncated: the jobs not ended
  // at the end (terminated)
  double makespan_s            = 0;
  double mean_bounded_slowdown = 0; ///< run times under 10 s count as 10 s
  double mean_waiting_s        = 0;
  double mean_turnaround_s     = 0;
  double energy_j              = 0;
};

struct StepResult {
  std::vector<double> observation;
  double reward   = 0;
  bool terminated = false; ///< every job ended
  bool truncated  = false; ///< max_voids voids in a row at one instant
  StepInfo info;
};

class Environment {
public:
  /** Starts the simulation server (found beside this program, in ../libexec/sgai, where sgai was
   *  built, or at $SGAI_RL_ENV), which loads the platform and the workload: InputError on bad ones,
   *  RunError when the server cannot start. */
  explicit Environment(EnvironmentOptions options);
  ~Environment();
  Environment(const Environment&)            = delete;
  Environment& operator=(const Environment&) = delete;

  size_t observation_size() const;
  size_t action_count() const;
  const EnvironmentOptions& options() const;

  /** Starts an episode (ending any running one): its policies' random draws come from `seed`
   *  (none: the previous episode's plus one, from 1). Returns the first decision point's
   *  observation; an episode without any (every job rejected) is over at once: `terminated`. */
  StepResult reset(std::optional<uint64_t> seed = std::nullopt);
  /** Applies action `a` and runs to the next decision point or the end. std::out_of_range naming
   *  the index and the count for an action outside the set; std::logic_error when no episode runs. */
  StepResult step(size_t action);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sgai::rl

#endif
