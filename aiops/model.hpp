/* The AI-ops model file (JSON, "sgai_aiops_model": 1): what `sgai aiops fit` writes and
 * `sgai aiops run` reads. For now the arrival profile; every distribution is a family and its
 * parameters, every section says where its numbers come from ("provenance"). Read strictly: unknown
 * keys, negative or non-finite parameters and a profile without 168 hours are errors naming the
 * file and the JSON pointer. */
#ifndef SGAI_AIOPS_MODEL_HPP
#define SGAI_AIOPS_MODEL_HPP

#include "aiops/arrivals.hpp"
#include "aiops/mixture.hpp"

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

struct Model {
  std::optional<ArrivalProfile> arrivals;
  std::string arrivals_provenance;
  std::optional<AssetModel> assets;
  std::optional<TrainingModel> training;
  std::optional<PreprocessModel> preprocess;
};

void write_model(std::ostream& out, const Model& m);
Model read_model(const std::filesystem::path& file);
Model parse_model(const std::string& text, const std::string& file);

} // namespace sgai::aiops

#endif
