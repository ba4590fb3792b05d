/* A campaign file ("sgai_campaign": 1, docs/sweep.md): a base sgai experiment, the parameters (JSON
 * pointers into it, each with values or a range), the objective (a JSON pointer into a run's
 * summary.json, minimised or maximised) and the SLA (a deadline and/or a maximum of runs). Read
 * strictly; the pointers are checked against the base experiment. Each point of the space becomes a
 * derived experiment: the base with the point's values put in. */
#ifndef SGAI_CORE_SWEEP_CAMPAIGN_HPP
#define SGAI_CORE_SWEEP_CAMPAIGN_HPP

#include "core/sweep/space.hpp"

#include <cstdint>
#include <filesystem>
#include <limits>
#include <string>
#include <vector>

namespace sgai::sweep {

struct Parameter {
  std::string name;
  std::string pointer;             ///< into the base experiment (RFC 6901)
  std::vector<std::string> values; ///< each a JSON value, as compact text
  /** Linked pointers ("with"): set together with the parameter, the k-th value with values[k]
   *  (say a workload and the core count of its machine). */
  std::vector<std::pair<std::string, std::vector<std::string>>> with;
};

struct Campaign {
  std::filesystem::path file;
  std::string name;
  std::filesystem::path experiment; ///< the base experiment
  std::string experiment_text;      ///< its content when read
  std::vector<Parameter> parameters;
  std::string objective; ///< JSON pointer into summary.json
  bool minimise     = true;
  uint64_t max_runs = 0;                                       ///< 0: no limit
  double deadline_s = std::numeric_limits<double>::infinity(); ///< seconds after the campaign starts
  uint64_t seed     = 1;
  double beta       = 0.5; ///< GRASP's greediness
  double eps        = 0;   ///< DBSCAN's eps (0: the default)
  size_t min_points = 0;   ///< DBSCAN's minimum points (0: the default)

  Space space() const;
};

/** Reads and checks a campaign file: InputError naming the file and the JSON pointer for a
 *  parameter pointer missing from the base experiment, an empty value list, a bad range, duplicate
 *  names, a non-positive deadline, unknown keys. */
Campaign read_campaign(const std::filesystem::path& file);
Campaign parse_campaign(const std::string& text, const std::filesystem::path& file);

/** The base experiment with the values of point `p` put at their pointers (compact JSON). */
std::string derived_experiment(const Campaign& c, const Point& p);

/** A value for people: a JSON string's text without its quotes, anything else as it is. */
std::string shown_value(const std::string& json_text);

/** The number at `pointer` in a summary.json text; nullopt-like NaN when it is missing or not a
 *  number. */
double figure_of(const std::string& summary_json, const std::string& pointer);

} // namespace sgai::sweep

#endif
