/* The configuration search users run before buying time: for a model, a global batch and a
 * platform, every parallelism (TP x PP x virtual stages x CP x EP, DP from the GPU count),
 * micro-batch size and recomputation that Megatron-LM accepts is checked, its memory per stage
 * weighed against the GPU's, and each one that fits predicted (predict.hpp) and ranked by
 * tokens/s. Plain C++; the candidates are predicted on `threads` threads. */
#ifndef SGAI_CORE_TRAINING_SEARCH_HPP
#define SGAI_CORE_TRAINING_SEARCH_HPP

#include "core/training/config.hpp"
#include "core/training/platform_inputs.hpp"
#include "core/training/predict.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::training {

struct SearchOptions {
  uint64_t gpus                     = 0;
  std::vector<uint32_t> tensor      = {1, 2, 4, 8};
  std::vector<uint32_t> micro_batch = {1, 2, 4, 8};
  std::vector<Recompute> recompute  = {Recompute::none, Recompute::selective, Recompute::full};
  uint32_t max_pipeline             = 64;
  /** Virtual stages tried per pipelined candidate: none, and layers per virtual stage of half, a
   *  quarter of a stage's layers, and one layer (NeMo's "set to maximum"), where they divide. */
  bool interleave = true;
  /** Context parallelism 2 to 16 for sequences of 8K or more. */
  bool context     = true;
  unsigned threads = 1;
  /** Memory per GPU kept free (the CUDA context, NCCL's buffers, fragmentation: not modelled, the
   *  user's to say); a candidate fits when its largest stage plus this fits the GPU's memory. */
  double reserve_bytes = 0;
};

/** One candidate: its description and, when it fits, its prediction. */
struct SearchRow {
  TrainingConfig config;
  bool fits            = false;
  bool runs            = true; ///< false: NCCL has no algorithm/protocol for one of its collectives as forced
  uint32_t worst_stage = 0;
  double worst_bytes   = 0; ///< the largest stage's memory per GPU
  double iteration_s = 0, tokens_per_s = 0, tflops_per_gpu = 0, mfu = 0, energy_per_token_j = 0;
  Breakdown breakdown;
};

struct SearchResult {
  /** The candidates that fit and run, fastest first (ties: fewer GPUs per model replica, then the
   *  order tried), then those that do not fit, smallest need first, then those that fit but that
   *  NCCL could not run with the fabric's forced algorithm or protocol (Fabric::algo, proto). */
  std::vector<SearchRow> rows;
  uint64_t tried      = 0; ///< combinations enumerated
  uint64_t invalid    = 0; ///< rejected as Megatron-LM rejects them (a division that does not hold, ...)
  uint64_t fitting    = 0; ///< fit and run
  uint64_t unrunnable = 0; ///< fit, but a collective has no algorithm/protocol as forced
};

/** "TP 8, PP 2 (v 21), CP 1, EP 1, DP 48, micro-batch 1, recompute none". */
std::string describe_parallelism(const TrainingConfig& c);

/** The description's model alone (its parallelism, batch and recomputation set aside): layers,
 *  heads, sequence, experts, precision. InputError on the model's own settings. */
TrainingConfig model_alone(const std::vector<Setting>& base);

/** The search around the settings of a description (its model, batch, precision and overlap
 *  flags are kept; its parallelism, micro-batch and recomputation are what varies). */
SearchResult search_configurations(const std::vector<Setting>& base, const PlatformInputs& in,
                                   const SearchOptions& options);

} // namespace sgai::training

#endif
