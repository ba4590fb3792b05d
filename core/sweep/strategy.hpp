/* How a campaign picks its next run (docs/sweep.md): Copper's GRASP over the DOE model, a uniformly
 * random free point, or the free points in order; and Copper's evaluation spaces (Rosenbrock,
 * Rastrigin, Branin on grids as the issue sizes them) with the runs a strategy needs to reach a
 * space's optimum. Pure code. */
#ifndef SGAI_CORE_SWEEP_STRATEGY_HPP
#define SGAI_CORE_SWEEP_STRATEGY_HPP

#include "core/sweep/assistant.hpp"

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <functional>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace sgai::sweep {

enum class Strategy { grasp, random, full };
bool strategy_from_string(const std::string& s, Strategy& out);

/** The next point to run: `full` the first free point; `random` one drawn uniformly; `grasp`
 *  Copper's Algorithm 1 for one sample (uniform until the DOE model has parameters + 1 results).
 *  False when no point is free. */
bool next_point(Strategy strategy, const Space& space, const std::vector<Result>& results,
                const std::set<uint64_t>& taken, bool minimise, double beta, std::mt19937_64& rng, uint64_t& out);

/** A space evaluated in full once: its objective at every point (minimised). */
struct Landscape {
  std::string name;
  Space space;
  std::vector<double> value; ///< by point index
  uint64_t optimum = 0;      ///< the best grid point (the first in point order when several tie)
  uint64_t worst   = 0;      ///< the worst grid point

  /** Whether point i is optimal: its value equals the optimum's (within 1e-9, relative). Several
   *  points can be: Rastrigin's 22 x 20 x 20 grid has 8, symmetric about the origin. */
  bool optimal(uint64_t i) const
  {
    double best = value[optimum];
    return value[i] <= best + 1e-9 * std::max(1.0, std::fabs(best));
  }
  /** The quality of an objective value f: (f_worst - f) / (f_worst - f_opt), 1 at the optimum and
   *  0 at the worst point (1 for every value of a flat landscape). */
  double quality(double f) const
  {
    double range = value[worst] - value[optimum];
    return range > 0 ? (value[worst] - f) / range : 1.0;
  }
};
/** Copper's spaces at the sizes: "rosenbrock" (4-D on [-2, 2], 6 values per axis: 1,296
 *  points), "rastrigin" (3-D on [-5.12, 5.12], 22 x 20 x 20: 8,800), "branin" ([-5, 10] x [0, 15],
 *  30 x 30), and "batch": sgai's batch manager's 108 configurations, read with landscape_from_runs
 *  from deploy/campaigns/hdeeprm-kth.json and deploy/campaigns/landscapes/hdeeprm-kth.csv (paths
 *  relative to the working directory: the repository's root). std::invalid_argument for another
 *  name. */
Landscape landscape(const std::string& name);

/** A space evaluated in full by a campaign: the campaign file and its runs as `sgai sweep export`
 *  writes them (a header naming the campaign's parameters and `objective`; the values as
 *  shown_value prints them). Rows whose status is not `done` are skipped; a maximised objective is
 *  negated (landscapes minimise). InputError naming the CSV file and line for a value the
 *  parameter does not have, a missing or non-numeric objective of a done run, a point run twice,
 *  a missing column; and naming the file for a point with no done run. */
Landscape landscape_from_runs(const std::filesystem::path& campaign, const std::filesystem::path& runs_csv,
                              const std::string& name = "");

/** Runs a strategy on a landscape, one run at a time, until it runs an optimal point: how many
 *  runs. */
uint64_t runs_to_optimum(const Landscape& l, Strategy s, double beta, uint64_t seed);

/** The mean of `x` and a bootstrap 95% interval of it (2,000 resamples, seeded). */
struct Interval {
  double mean = 0, low = 0, high = 0;
};
Interval bootstrap_mean(const std::vector<double>& x, uint64_t seed);

} // namespace sgai::sweep

#endif
