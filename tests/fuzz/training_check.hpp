/* What the training-description fuzz target checks for one input, shared with the corpus replay
 * test: a Megatron-style description (JSON or YAML, sniffed by its first character) on 48 GPUs is
 * accepted with a consistent parallelism and finite, positive FLOPs and memory, or rejected with an
 * InputError. */
#ifndef SGAI_TESTS_FUZZ_TRAINING_CHECK_HPP
#define SGAI_TESTS_FUZZ_TRAINING_CHECK_HPP

#include "core/foundation/error.hpp"
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "fuzz_input.hpp"

#include <cmath>
#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_training_bytes(const std::string& bytes)
{
  training::TrainingConfig c;
  try {
    c = training::make_config(training::read_settings(write_input("fuzz.description", bytes)), 48);
  } catch (const InputError&) {
    return false;
  }
  if (c.gpus() != 48)
    throw FuzzBug("accepted a parallelism of " + std::to_string(c.gpus()) + " GPUs, not 48");
  if (uint64_t(c.microbatches()) * c.micro_batch_size * c.data_parallel_size != c.global_batch_size)
    throw FuzzBug("accepted a global batch that is not whole micro-batches per replica");
  // (uneven stages are Megatron's too: first/last stage sizes, the embedding or loss counted, a
  // layout; every layer is then on exactly one stage)
  uint64_t placed = 0;
  for (uint32_t r = 0; r < c.pipeline_model_parallel_size; r++)
    placed += c.stage_layers(r);
  if (c.num_attention_heads % c.tensor_model_parallel_size != 0 || placed != c.num_layers)
    throw FuzzBug("accepted a tensor or pipeline split that does not divide the model");
  double flops = training::megatron_flops(c);
  if (not std::isfinite(flops) || flops <= 0)
    throw FuzzBug("accepted a description whose FLOP count is not finite and positive");
  for (const auto& st : training::memory_per_stage(c))
    if (not std::isfinite(st.total_bytes) || st.total_bytes <= 0 || st.layers == 0)
      throw FuzzBug("stage " + std::to_string(st.stage) + " has no layers or no finite memory");
  return true;
}

} // namespace sgai::test

#endif
