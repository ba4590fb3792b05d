/* Copper's simulated analysts (../shared/papers/copper.txt §4.1.2-4.3; docs/sweep.md): software
 * agents that sweep a Landscape with a belief about where the optimum lies (insight), take a share
 * of their runs from Copper's GRASP + DOE suggestions (confidence), and may learn from the results
 * (learning). Two experiments over them: the runs to reach an optimal point (the paper's Figure 6),
 * and the best quality within a maximum of runs with and without Copper's SLA suggestion
 * (Figures 7-9). Pure code; every random choice comes from a seed. */
#ifndef SGAI_CORE_SWEEP_ANALYST_HPP
#define SGAI_CORE_SWEEP_ANALYST_HPP

#include "core/sweep/strategy.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <exception>
#include <functional>
#include <mutex>
#include <random>
#include <set>
#include <string>
#include <thread>
#include <vector>

namespace sgai::sweep {

/** The paper's three insight levels. */
enum class Insight { bad, good, none };
bool insight_from_string(const std::string& s, Insight& out);
std::string to_string(Insight i);

/** A belief region: a box of the grid, value indices low[d] .. high[d] (inclusive) per parameter. */
struct Box {
  std::vector<uint32_t> low, high;

  bool contains(const Point& p) const;
  uint64_t count() const;
};

/** The belief regions an analyst can hold on a landscape. Each box spans w_d = max(1,
 *  round(fraction x values)) consecutive values of parameter d (a third of each range by default).
 *  - good: the boxes holding the landscape's recorded optimum, placed uniformly among them;
 *  - bad: among the boxes holding no optimal point, those whose mean objective is worse than the
 *    median box's mean (a belief "among poor values"), one drawn uniformly;
 *  - none: the whole space.
 *  The bad boxes are found once here (every placement scanned), not per repetition; draw throws
 *  std::invalid_argument for a bad insight when every box holds an optimum. */
class Beliefs {
public:
  Beliefs(const Landscape& l, double fraction = 1.0 / 3.0);
  Box draw(Insight insight, std::mt19937_64& rng) const;
  const std::vector<uint32_t>& width() const { return width_; }
  size_t bad_boxes() const { return bad_.size(); }

private:
  const Landscape* landscape_;
  std::vector<uint32_t> width_;
  std::vector<Point> bad_; ///< the low corners of the bad boxes
};

struct AnalystConfig {
  Insight insight         = Insight::none;
  uint32_t confidence_pct = 50; ///< 0-100: the share of runs taken from Copper's suggestions
  bool learning           = false;
  double beta             = 0.5; ///< GRASP's greediness, for the suggestions
};

/** One simulated analyst sweeping a landscape, one run at a time.
 *
 * Run k (from 1) is Copper's suggestion (next_point with GRASP over the DOE model of every result so
 * far) when floor(k c) > floor((k - 1) c) for the confidence c: exactly round-down(k c) of the first
 * k runs are suggestions, and c = 100% takes every run from them. The other runs are the analyst's
 * own: each parameter's value drawn from the analyst's weights, a free point with probability
 * proportional to the product of its values' weights.
 *
 * Weights: the prior is 1 for a value inside the belief box, 0 outside. Without learning the weights
 * stay the prior. With learning every finished run (the analyst's and Copper's) is good when better
 * than the median of the results so far (itself included), bad when worse, neither when equal; a
 * value's weight is (prior + good runs holding it) / (1 + bad runs holding it). Values of good runs
 * gain probability, values of bad runs lose it without reaching 0, and a value outside the belief
 * enters it once a good run (one of Copper's) holds it. When no free point has a positive weight
 * (the belief used up), the analyst picks a free point uniformly: the paper does not say what its
 * agents do then, and without it a bad analyst at 0%  * confidence would never finish. */
class Analyst {
public:
  Analyst(const Landscape& l, Box belief, const AnalystConfig& c, uint64_t seed);

  /** One run of the analyst's choice: false when no point is free. */
  bool step(uint64_t& point);
  /** A run chosen for the analyst (an accepted SLA suggestion): false when it was run already. */
  bool run(uint64_t point);

  const std::vector<Result>& results() const { return results_; }
  const std::set<uint64_t>& taken() const { return taken_; }
  uint64_t suggested() const { return suggested_; } ///< runs that came from Copper's suggestions
  double best() const { return best_; }             ///< the best objective so far (+inf before a run)
  double weight(size_t d, uint32_t v) const;
  std::mt19937_64& rng() { return rng_; }
  const Box& belief() const { return belief_; }

private:
  bool own_pick(uint64_t& point);
  void record(uint64_t point, bool suggestion);

  const Landscape* l_;
  Box belief_;
  AnalystConfig c_;
  std::mt19937_64 rng_;
  std::vector<Result> results_;
  std::set<uint64_t> taken_;
  std::vector<char> used_;                        ///< taken_ as a flag per point
  std::vector<double> sorted_values_;             ///< the results' values, sorted (for the median)
  std::vector<std::vector<uint32_t>> good_, bad_; ///< per parameter value, the good and bad runs holding it
  uint64_t suggested_ = 0;
  double best_;
};

/** Runs until the analyst runs an optimal point: how many runs. The belief box is drawn from
 *  `seed` alone (not from the confidence or learning), so settings compare on the same boxes. */
uint64_t analyst_runs_to_optimum(const Landscape& l, const Beliefs& b, const AnalystConfig& c, uint64_t seed);

/** The SLA experiment (paper §4.3) for one analyst and one maximum of runs B: the analyst runs
 *  alone until ceil(0.7 B) runs; then Copper's forecast is made (clusters of good runs, the SLA's
 *  max_runs B, DBSCAN's defaults) and the analyst accepts its suggestion for the remaining runs at
 *  each exploitation level (the paper's agents accept it in every experiment; with no cluster the
 *  suggestion is GRASP alone, whatever the level). Qualities (Landscape::quality of the best run
 *  within B): `without` the analyst alone for all B runs, `with[k]` accepting the suggestion at
 *  exploitation[k]; they share their first 70%. `clusters` and `violation`: whether the forecast
 *  found a cluster of interest, and foresaw a violation. */
struct SlaOutcome {
  double without = 0;
  std::vector<double> with;
  bool clusters  = false;
  bool violation = false;
};
SlaOutcome sla_experiment(const Landscape& l, const Beliefs& b, const AnalystConfig& c, uint64_t max_runs,
                          const std::vector<double>& exploitation, uint64_t seed);

/** f(0) .. f(n - 1) on `threads` threads (0: the core count), in order: deterministic when f is. */
template <class T>
std::vector<T> repeat(size_t n, unsigned threads, const std::function<T(size_t)>& f)
{
  std::vector<T> out(n);
  if (threads == 0)
    threads = std::max(1u, std::thread::hardware_concurrency());
  std::atomic<size_t> next{0};
  std::mutex failed_mutex;
  std::exception_ptr failed;
  auto work = [&]() {
    try {
      for (size_t i = next++; i < n; i = next++)
        out[i] = f(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(failed_mutex);
      if (not failed)
        failed = std::current_exception();
      next = n; // the others stop too
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads && t < n; ++t)
    pool.emplace_back(work);
  work();
  for (auto& t : pool)
    t.join();
  if (failed)
    std::rethrow_exception(failed);
  return out;
}

} // namespace sgai::sweep

#endif
