/* The AI-ops model file (JSON, "sgai_aiops_model": 1): what `sgai aiops fit` writes and
 * `sgai aiops run` reads. For now the arrival profile; every distribution is a family and its
 * parameters, every section says where its numbers come from ("provenance"). Read strictly: unknown
 * keys, negative or non-finite parameters and a profile without 168 hours are errors naming the
 * file and the JSON pointer. */
#ifndef SGAI_CORE_AIOPS_MODEL_HPP
#define SGAI_CORE_AIOPS_MODEL_HPP

#include "core/aiops/arrivals.hpp"
#include "core/aiops/mixture.hpp"

#include <map>

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

namespace sgai::aiops {

/** Assets (PipeSim §V-A1): a mixture on log rows, log columns and log bytes; assets with fewer rows
 *  or columns than the minimums are left out of the fit (PipeSim: 50 rows, 2 columns). */
struct AssetModel {
  Mixture mixture; ///< 3 dimensions: ln rows, ln columns, ln bytes
  double min_rows    = 50;
  double min_columns = 2;
  std::string provenance;
};

/** Training time per framework: its share of the pipelines and a mixture on ln seconds. */
struct TrainingModel {
  struct Framework {
    double share = 1;
    Mixture log_seconds; ///< 1 dimension
  };
  std::map<std::string, Framework> frameworks;
  std::string provenance;
};

/** Preprocessing time against data size: seconds = a exp(b size) x LogNormal(0, sigma). */
struct PreprocessModel {
  double a = 1, b = 0, sigma = 0;
  std::string provenance;
};

/** The other task kinds (PipeSim §V-A2): a mixture on ln seconds per kind (evaluate, validate,
 *  deploy, the user's kinds); compression takes the pipeline's training time with Gaussian noise
 *  (seconds = train x max(0.1, 1 + N(0, compress_noise))). */
struct TaskModel {
  std::map<std::string, Mixture> log_seconds; ///< 1 dimension each
  double compress_noise = 0.1;
  std::string provenance;
};

/** Trained-model assets: their size, their quality metric when trained, what compression does to
 *  both, what starting from a parent model saves, and the share of the data a test reads. */
struct ModelAssetModel {
  Mixture log_bytes; ///< 1 dimension: ln bytes of a trained model
  double metric_mean     = 0.85;
  double metric_sd       = 0.05; ///< the metric is N(mean, sd) clipped to [0, 1]
  double compress_size   = 1;    ///< size after compression / before
  double compress_metric = 1;    ///< metric after compression / before
  double transfer        = 1;    ///< training time from a parent's model / from scratch
  double test_fraction   = 0.2;  ///< of the data set, read by evaluate and validate tasks
  std::string provenance;
};

struct Model {
  std::optional<ArrivalProfile> arrivals;
  std::string arrivals_provenance;
  std::optional<AssetModel> assets;
  std::optional<TrainingModel> training;
  std::optional<PreprocessModel> preprocess;
  std::optional<TaskModel> tasks;
  std::optional<ModelAssetModel> models;
};

/** The sections `from` has replace those of `into` (an experiment names several model files: a
 *  default, then fits of its own). */
void merge(Model& into, const Model& from);

void write_model(std::ostream& out, const Model& m);
Model read_model(const std::filesystem::path& file);
Model parse_model(const std::string& text, const std::string& file);

} // namespace sgai::aiops

#endif
