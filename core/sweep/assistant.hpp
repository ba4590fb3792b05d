/* Copper's assistant (../shared/papers/copper.txt §3): the DOE model of parameter-value quality,
 * GRASP sampling from it (Algorithms 1-3), DBSCAN over the good runs, and the SLA-violation
 * forecast with the exploitation-level suggestion. Pure code over a Space; random choices take the
 * caller's std::mt19937_64 so that campaigns repeat with a seed. */
#ifndef SGAI_CORE_SWEEP_ASSISTANT_HPP
#define SGAI_CORE_SWEEP_ASSISTANT_HPP

#include "core/sweep/space.hpp"

#include <cstdint>
#include <limits>
#include <random>
#include <set>
#include <vector>

namespace sgai::sweep {

/** A finished run: its point and its objective's value. */
struct Result {
  Point point;
  double value = 0;
};

/** Full-factorial main effects: for each value of each parameter, the mean objective of the
 *  finished runs holding it minus the grand mean; its quality is that effect, negated when the
 *  objective is minimised (higher quality is better). A value without runs has quality 0 (the
 *  grand mean: neither favoured nor avoided). */
struct DoeModel {
  std::vector<std::vector<double>> quality;
  std::vector<std::vector<uint32_t>> runs;
  double grand_mean = 0;
};
DoeModel main_effects(const Space& space, const std::vector<Result>& results, bool minimise);

/** The restricted candidate list of one parameter: the values whose quality q is at least
 *  q_min + beta (q_max - q_min). beta = 1 keeps only the best, beta = 0 every value. */
std::vector<uint32_t> restricted_candidates(const std::vector<double>& quality, double beta);

/** Algorithm 2: one value per parameter, each drawn from its restricted candidate list. */
Point construction(const DoeModel& model, double beta, std::mt19937_64& rng);

/** Algorithm 3: the n free points (not in `taken`, indices of the space) nearest to `from` by
 *  Euclidean distance on normalised indices; equally near points in random order. */
std::vector<Point> local_search(const Space& space, const Point& from, size_t n, const std::set<uint64_t>& taken,
                                std::mt19937_64& rng);

/** Algorithm 1: the construction's point, when free, and free neighbours of it, n points in all. */
std::vector<Point> grasp_sample(const Space& space, const DoeModel& model, double beta, size_t n,
                                const std::set<uint64_t>& taken, std::mt19937_64& rng);

/** DBSCAN on normalised indices: a point with at least min_points points (itself included) within
 *  eps is a core point; clusters are core points joined by eps-reachability with the points they
 *  reach; the rest is noise (-1). Labels follow the input order of first core points. */
struct Clusters {
  std::vector<int> label;
  int count = 0;
};
Clusters dbscan(const Space& space, const std::vector<Point>& points, double eps, size_t min_points);

/** DBSCAN's defaults in sgai: eps 0.25 (a quarter of each parameter's range), min_points
 *  the number of parameters + 1 (the usual rule of dimensions + 1). */
constexpr double kDefaultEps = 0.25;
size_t default_min_points(const Space& space);

/** What the SLA still allows. */
struct SlaState {
  uint64_t max_runs = 0;                                       ///< 0: no limit
  double deadline_s = std::numeric_limits<double>::infinity(); ///< seconds from the campaign's start
  double now_s      = 0;
  uint32_t parallel = 1; ///< runs at a time
  double mean_run_s = 0; ///< measured; 0: unknown (the deadline then limits nothing)
  uint64_t finished = 0, running = 0;
};
/** Runs that can still start: the budget left, and what the time left allows at the measured
 *  rate (parallel x time left / mean run time, less the running ones). */
uint64_t runs_still_possible(const SlaState& sla);

/** The clusters of interest (DBSCAN over the finished runs at least as good as their median) and
 *  the free points around them (within eps of a member): the runs the current strategy still
 *  wants. A violation is forecast when they outnumber the runs still possible. */
struct Forecast {
  Clusters clusters;
  std::vector<Point> members;              ///< the good runs clustered (clusters.label by index)
  std::vector<std::vector<Point>> pending; ///< per cluster, its free points
  std::vector<double> cluster_quality;     ///< per cluster, the mean objective of its members
  uint64_t pending_total = 0;
  uint64_t possible      = 0;
  bool violation         = false;
};
Forecast forecast(const Space& space, const std::vector<Result>& results, const std::set<uint64_t>& taken,
                  bool minimise, const SlaState& sla, double eps, size_t min_points);

/** The new strategy Copper suggests at an exploitation level e in [0, 1] for `runs` runs:
 *  round(e x runs) free points inside the clusters of interest, shared among them by their mean
 *  quality (the best cluster first, each cluster's points nearest its best run first), and the rest
 *  by GRASP outside the clusters. */
std::vector<Point> suggest(const Space& space, const Forecast& f, const std::vector<Result>& results, bool minimise,
                           double exploitation, uint64_t runs, const DoeModel& model, double beta,
                           const std::set<uint64_t>& taken, std::mt19937_64& rng);

} // namespace sgai::sweep

#endif
