/* How a campaign picks its next run (docs/sweep.md): Copper's GRASP over the DOE model, a uniformly
 * random free point, or the free points in order; and Copper's evaluation spaces (Rosenbrock,
 * Rastrigin, Branin on grids as the issue sizes them) with the runs a strategy needs to reach a
 * space's optimum. Pure code. */
#ifndef SGAI_PLUGINS_SWEEP_STRATEGY_HPP
#define SGAI_PLUGINS_SWEEP_STRATEGY_HPP

#include "plugins/sweep/assistant.hpp"

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
  uint64_t optimum = 0;      ///< the best grid point
};
/** Copper's spaces at the sizes: "rosenbrock" (4-D on [-2, 2], 6 values per axis: 1,296
 *  points), "rastrigin" (3-D on [-5.12, 5.12], 22 x 20 x 20: 8,800), "branin" ([-5, 10] x [0, 15],
 *  30 x 30). std::invalid_argument for another name. */
Landscape landscape(const std::string& name);

/** Runs a strategy on a landscape, one run at a time, until it runs the optimum: how many runs. */
uint64_t runs_to_optimum(const Landscape& l, Strategy s, double beta, uint64_t seed);

/** The mean of `x` and a bootstrap 95% interval of it (2,000 resamples, seeded). */
struct Interval {
  double mean = 0, low = 0, high = 0;
};
Interval bootstrap_mean(const std::vector<double>& x, uint64_t seed);

} // namespace sgai::sweep

#endif
