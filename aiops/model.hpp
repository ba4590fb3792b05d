/* The AI-ops model file (JSON, "sgai_aiops_model": 1): what `sgai aiops fit` writes and
 * `sgai aiops run` reads. For now the arrival profile; every distribution is a family and its
 * parameters, every section says where its numbers come from ("provenance"). Read strictly: unknown
 * keys, negative or non-finite parameters and a profile without 168 hours are errors naming the
 * file and the JSON pointer. */
#ifndef SGAI_AIOPS_MODEL_HPP
#define SGAI_AIOPS_MODEL_HPP

#include "aiops/arrivals.hpp"

#include <filesystem>
#include <optional>
#include <ostream>
#include <string>

namespace sgai::aiops {

struct Model {
  std::optional<ArrivalProfile> arrivals;
  std::string arrivals_provenance;
};

void write_model(std::ostream& out, const Model& m);
Model read_model(const std::filesystem::path& file);
Model parse_model(const std::string& text, const std::string& file);

} // namespace sgai::aiops

#endif
