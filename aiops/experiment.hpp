/* An AI-ops experiment file ("sgai_aiops_experiment": 1), the input of the coming `sgai aiops run`:
 * the platform and its data-store host, the model file, the simulated duration, the transfer mode,
 * the pools (capacity-limited executors of task kinds), the pipelines (task graphs with optional
 * steps and quality gates, parents for transfer learning) and the retraining triggers. Read
 * strictly; every check names the file and the JSON pointer: a pipeline whose tasks form a cycle,
 * a task kind that no pool executes, a probability or gate outside [0, 1], duplicate names. */
#ifndef SGAI_AIOPS_EXPERIMENT_HPP
#define SGAI_AIOPS_EXPERIMENT_HPP

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

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
  std::vector<std::string> hosts;
  uint32_t slots_per_host = 1;
  std::vector<std::string> kinds; ///< the task kinds it executes
};

struct TriggerSpec {
  std::string kind; ///< threshold (staleness above value), schedule (every value seconds), new_data
  double value = 0;
};

enum class TransferMode { analytic, contended };

struct ExperimentSpec {
  std::filesystem::path file;
  std::filesystem::path platform;
  std::string store; ///< the data-store host
  std::filesystem::path model;
  double duration_s      = 0;
  TransferMode transfers = TransferMode::analytic;
  std::vector<PoolSpec> pools;
  std::vector<PipelineSpec> pipelines;
  std::vector<TriggerSpec> triggers;
  uint64_t seed = 1;
};

/** Reads an experiment file; relative paths are taken from the file's folder. */
ExperimentSpec read_experiment(const std::filesystem::path& file);
ExperimentSpec parse_experiment(const std::string& text, const std::filesystem::path& file);

} // namespace sgai::aiops

#endif
