/* Synthetic communication traces fitted to real ones (the generative approach of the Chakra
 * paper): from a set of ETs, the composition and order of collective types (a first-order Markov
 * chain), the number of collectives per rank, per-type message sizes (Gaussian mixtures over
 * log2 bytes, components chosen by BIC) and the compute between collectives; then traces of any
 * rank count sampled from that model, every member of a group issuing the same collectives in the
 * same order. */
#ifndef SGAI_CHAKRA_SYNTH_HPP
#define SGAI_CHAKRA_SYNTH_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sgai::chakra {

/** A one-dimensional Gaussian mixture. */
struct Mixture {
  struct Component {
    double weight = 1;
    double mean   = 0;
    double stddev = 0; ///< below kPointMass: the component is one value (sampled exactly)
  };
  std::vector<Component> components;
  double lo = 0, hi = 0; ///< smallest and largest value fitted; draws stay within [lo - 1, hi + 1]
  static constexpr double kPointMass = 1e-3;

  /** EM fit with 1 to `max_components` components, the count chosen by the Bayesian information
   *  criterion; deterministic (quantile initialization). Empty data gives an empty mixture. */
  static Mixture fit(std::vector<double> data, uint32_t max_components);
  double log_likelihood(const std::vector<double>& data) const;
  /** A draw; `u1`, `u2`, `u3` uniform in [0, 1). */
  double sample(double u1, double u2, double u3) const;
};

struct SynthModel {
  uint32_t input_ranks = 0;
  std::vector<std::string> inputs;
  /** Typed collectives per input rank. */
  double length_mean = 0, length_stddev = 0;
  uint64_t length_min = 0, length_max = 0;
  /** Fraction of each collective type among the input's collectives. */
  std::map<CollectiveType, double> composition;
  /** First type of a rank's sequence, and the type following each type (counts). */
  std::map<CollectiveType, uint64_t> first;
  std::map<CollectiveType, std::map<CollectiveType, uint64_t>> transitions;
  /** Message sizes per type: mixture over log2(bytes), and the observed sizes (for reports). */
  std::map<CollectiveType, Mixture> sizes;
  std::map<CollectiveType, std::vector<uint64_t>> observed_sizes;
  /** Compute before each collective: mixture over log2(1 + microseconds); empty when the input
   *  records no durations. `ops_per_micro` converts a duration into num_ops. */
  Mixture compute_gap;
  double ops_per_micro = 0;
  /** Collective nodes left out of the fit: no known comm_type, or no comm_size. */
  uint64_t skipped_collectives = 0;
};

struct SynthFitOptions {
  uint32_t max_components = 4;
};

/** Fits the model to ET files (each file one rank). InputError when they hold no typed collective. */
SynthModel fit_synth_model(const std::vector<std::filesystem::path>& files, const SynthFitOptions& options = {});

struct SynthSampleOptions {
  uint32_t ranks      = 8;
  uint32_t group_size = 0; ///< 0: one group of every rank; otherwise must divide `ranks`
  uint64_t seed       = 1;
  /** Order 1 follows the fitted transitions; 0 draws each type from the composition. */
  uint32_t markov_order = 1;
};

struct SynthOutput {
  std::vector<Trace> ranks;
  /** Group id -> member ranks (ASTRA-sim's communicator-group JSON); collectives carry pg_name = id. */
  std::map<std::string, std::vector<uint32_t>> groups;
  /** The collectives drawn, once per group (for reports). */
  std::map<CollectiveType, std::vector<uint64_t>> sampled_sizes;
  uint64_t sampled_collectives = 0;
};

/** std::invalid_argument on bad options (0 ranks, a group size that does not divide them). */
SynthOutput sample_synth(const SynthModel& model, const SynthSampleOptions& options);

/** Two-sample Kolmogorov-Smirnov statistic: sup |F_a - F_b|; 0 when either is empty. */
double ks_statistic(std::vector<uint64_t> a, std::vector<uint64_t> b);

/** The model as JSON (sgai_synth_model 1), and back; reading is strict (InputError names the
 *  file and the JSON pointer). */
std::string synth_model_json(const SynthModel& model);
SynthModel read_synth_model(const std::filesystem::path& file);

/** ASTRA-sim's communicator-group JSON: {"<id>": [ranks...], ...}. */
std::string comm_groups_json(const std::map<std::string, std::vector<uint32_t>>& groups);

} // namespace sgai::chakra

#endif
