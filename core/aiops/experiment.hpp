/* An AI-ops experiment file ("sgai_aiops_experiment": 1), the input of the coming `sgai aiops run`:
 * the platform and its data-store host, the model file, the simulated duration, the transfer mode,
 * the pools (capacity-limited executors of task kinds), the pipelines (task graphs with optional
 * steps and quality gates, parents for transfer learning) and the retraining triggers. Read
 * strictly; every check names the file and the JSON pointer: a pipeline whose tasks form a cycle,
 * a task kind that no pool executes, a probability or gate outside [0, 1], duplicate names. */
#ifndef SGAI_CORE_AIOPS_EXPERIMENT_HPP
#define SGAI_CORE_AIOPS_EXPERIMENT_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sgai::json {
class Object;
}

namespace sgai::aiops {

struct TaskSpec {
  std::string name;
  /** preprocess, train, evaluate, compress, validate, deploy, or a kind of the user's. */
  std::string kind;
  std::vector<std::string> after; ///< tasks of the pipeline that must end first
  /** An optional step runs with this probability once its parents ran (PipeSim's conditional
   *  steps); 1: always. */
  double probability = 1;
  /** A quality gate: the pipeline stops here unless the model's metric reaches it. */
  std::optional<double> gate;
};

struct PipelineSpec {
  std::string name;
  double share = 1;   ///< of the arrivals
  std::string parent; ///< a pipeline whose model this one starts from (transfer learning); empty: none
  std::vector<TaskSpec> tasks;
  /** The tasks in an order where each comes after those it waits for (checked acyclic). */
  std::vector<size_t> order;
};

struct PoolSpec {
  std::string name;
  /** Host names, or cluster ids of a JSON platform (each node's CPU hosts, or its GPUs when it has
   *  some). */
  std::vector<std::string> hosts;
  uint32_t slots_per_host = 1;
  std::vector<std::string> kinds; ///< the task kinds it executes
};

/** Retraining triggers of the deployed models: threshold (staleness reaches value, in (0, 1]),
 *  schedule (value seconds after each deployment), new_data (labelled data arrives for a model at
 *  exponential intervals of mean value seconds, and each arrival retrains it). */
struct TriggerSpec {
  std::string kind;
  double value = 0;
};

/** How deployed models drift (drift.hpp): each deployed version draws its pattern by share. */
struct DriftSpec {
  double gradual = 1, sudden = 0, recurring = 0; ///< shares
  double gradual_per_day     = 0.01;             ///< staleness lost per day (gradual)
  double sudden_mean_onset   = 14 * 86400.0;     ///< exponential wait before a sudden drift
  double sudden_magnitude    = 0.3;
  double recurring_period    = 7 * 86400.0;
  double recurring_amplitude = 0.2;
};

/** The models in production that the run-time view watches: `models` of them, each retrained by
 *  the triggers through `pipeline`; at t = 0 each was deployed an age ago drawn uniformly from
 *  [0, initial_age]. */
struct DeployedSpec {
  uint32_t models = 0;
  std::string pipeline;
  double initial_age = 28 * 86400.0;
  DriftSpec drift;
};

enum class TransferMode { analytic, contended };

struct ExperimentSpec {
  std::filesystem::path file;
  std::filesystem::path platform;
  std::string store; ///< the data-store host
  /** A disk on the store (bytes per second; 0: none): every read and write goes through it. */
  double store_disk_read = 0, store_disk_write = 0;
  /** Model files, merged in order (later sections replace earlier ones). */
  std::vector<std::filesystem::path> models;
  double duration_s      = 0;
  TransferMode transfers = TransferMode::analytic;
  /** The pools' queue order: fifo, or shortest (the task with the least compute time first). */
  std::string strategy = "fifo";
  /** Multiplies the arrival profile's interarrival gaps (PipeSim's interarrival factor). */
  double interarrival_factor = 1;
  std::vector<PoolSpec> pools;
  std::vector<PipelineSpec> pipelines;
  DeployedSpec deployed;
  std::vector<TriggerSpec> triggers;
  uint64_t seed = 1;
};

/** Reads an experiment file; relative paths are taken from the file's folder. */
ExperimentSpec read_experiment(const std::filesystem::path& file);
ExperimentSpec parse_experiment(const std::string& text, const std::filesystem::path& file);
/** The keys of an experiment but its version and platform, from an object (the "aiops" component of
 *  an sgai experiment); relative paths resolve against `base`, `file` names it in messages. Every key
 *  is read (finish()ed). */
ExperimentSpec parse_experiment_object(json::Object& root, const std::filesystem::path& file,
                                       const std::filesystem::path& base);

} // namespace sgai::aiops

#endif
