/* A training iteration predicted on a platform as `sgai train predict` and the experiment component
 * "training" report it: the memory of the largest stage checked against the GPU, the prediction, its
 * energy, and the JSON document both write. */
#ifndef SGAI_CORE_TRAINING_REPORT_HPP
#define SGAI_CORE_TRAINING_REPORT_HPP

#include "core/training/config.hpp"
#include "core/training/memory.hpp"
#include "core/training/platform_inputs.hpp"
#include "core/training/predict.hpp"

#include <string>
#include <vector>

namespace sgai::training {

/** The stage needing the most memory per GPU among `stages`; RunError naming it, its bytes (parameters,
 *  gradients and optimizer state; activations) and the GPU's capacity when it does not fit. */
const StageMemory& check_memory(const std::vector<StageMemory>& stages, double capacity_bytes,
                                const std::string& gpu_name);

struct Report {
  Prediction prediction;
  Energy energy;
  StageMemory largest;             ///< the stage needing the most memory per GPU
  std::vector<StageMemory> stages; ///< every pipeline stage's, first stage first
};

/** The memory check, then the iteration and its energy on the platform's inputs. */
Report report(const TrainingConfig& c, const PlatformInputs& in, bool spans = false);

/** The report as a JSON document (`sgai_training_prediction` 1): what `train predict --json` and the
 *  experiment component "training" write. */
std::string report_json(const TrainingConfig& c, const Report& r, const PlatformInputs& in);

} // namespace sgai::training

#endif
