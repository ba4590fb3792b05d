/* PipeSim's synthesizer (§V-A): what one pipeline execution draws from a model file. Data assets
 * from the mixture on log rows, columns and bytes (out-of-bound draws rejected, as PipeSim does),
 * a framework by its share and a training time from its mixture, preprocessing time from the data
 * size, the other kinds' times from their mixtures, the trained model's size and metric. Pure code:
 * every draw takes the caller's std::mt19937_64. */
#ifndef SGAI_CORE_AIOPS_SYNTH_HPP
#define SGAI_CORE_AIOPS_SYNTH_HPP

#include "core/aiops/model.hpp"

#include <random>
#include <string>
#include <vector>

namespace sgai::aiops {

struct Asset {
  double rows = 0, columns = 0, bytes = 0;
};

class Synthesizer {
public:
  /** std::invalid_argument naming the first section a run needs that `m` lacks (arrivals, assets,
   *  training, preprocess, models). */
  explicit Synthesizer(Model m);

  const Model& model() const { return model_; }

  /** A data asset; draws under the minimum rows or columns, or beyond 1e15 bytes, are drawn again. */
  Asset asset(std::mt19937_64& rng) const;
  /** A framework index (frameworks() order) by share. */
  size_t framework(std::mt19937_64& rng) const;
  const std::vector<std::string>& frameworks() const { return names_; }
  double train_seconds(size_t framework, std::mt19937_64& rng) const;
  double preprocess_seconds(double bytes, std::mt19937_64& rng) const;
  double compress_seconds(double train_seconds, std::mt19937_64& rng) const;
  /** Whether the model gives times for this kind (preprocess, train, compress, or a "tasks" entry). */
  bool knows(const std::string& kind) const;
  /** A time for a kind of the "tasks" section. */
  double kind_seconds(const std::string& kind, std::mt19937_64& rng) const;
  double model_bytes(std::mt19937_64& rng) const;
  /** A trained model's metric, N(mean, sd) clipped to [0, 1]. */
  double metric(std::mt19937_64& rng) const;

private:
  Model model_;
  std::vector<std::string> names_;
  std::vector<double> cumulative_; ///< framework shares, summed
};

} // namespace sgai::aiops

#endif
