/* Copper's assistant (sweep/): hand-computed DOE main effects, restricted candidate lists, local
 * search, DBSCAN clusters and noise on a small grid, the SLA forecast and the suggestion; the
 * evaluation's landscapes (the batch one read from a campaign's runs) and simulated analysts. */
#include "core/foundation/error.hpp"
#include "core/sweep/analyst.hpp"
#include "core/sweep/assistant.hpp"
#include "core/sweep/space.hpp"
#include "core/sweep/strategy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>

#include <unistd.h>

using namespace sgai::sweep;

TEST(SweepSpace, PointsAreNumberedRowMajor)
{
  Space s{{3, 4, 2}};
  EXPECT_EQ(s.count(), 24u);
  EXPECT_EQ(s.point(0), (Point{0, 0, 0}));
  EXPECT_EQ(s.point(1), (Point{0, 0, 1}));
  EXPECT_EQ(s.point(23), (Point{2, 3, 1}));
  for (uint64_t i = 0; i < s.count(); ++i)
    EXPECT_EQ(s.index(s.point(i)), i);
  EXPECT_EQ(s.normalised({2, 1, 0}), (std::vector<double>{1, 1.0 / 3, 0}));
  EXPECT_DOUBLE_EQ(s.distance({0, 0, 0}, {2, 3, 1}), std::sqrt(3.0));
  EXPECT_THROW(s.index({3, 0, 0}), std::invalid_argument);
}

TEST(SweepDoe, MainEffectsByHand)
{
  // two parameters of two values; responses 1, 3, 5, 7: grand mean 4; parameter 0's values
  // average 2 and 6 (effects -2, +2), parameter 1's 3 and 5 (-1, +1)
  Space s{{2, 2}};
  std::vector<Result> r{{{0, 0}, 1}, {{0, 1}, 3}, {{1, 0}, 5}, {{1, 1}, 7}};
  DoeModel m = main_effects(s, r, true); // minimised: lower responses are better
  EXPECT_DOUBLE_EQ(m.grand_mean, 4);
  EXPECT_DOUBLE_EQ(m.quality[0][0], 2);
  EXPECT_DOUBLE_EQ(m.quality[0][1], -2);
  EXPECT_DOUBLE_EQ(m.quality[1][0], 1);
  EXPECT_DOUBLE_EQ(m.quality[1][1], -1);
  EXPECT_EQ(m.runs[0][1], 2u);
  DoeModel up = main_effects(s, r, false);
  EXPECT_DOUBLE_EQ(up.quality[0][1], 2);
  // a value without runs is neutral
  DoeModel part = main_effects(Space{{3, 2}}, r, true);
  EXPECT_EQ(part.runs[0][2], 0u);
  EXPECT_DOUBLE_EQ(part.quality[0][2], 0);
  // beta = 1 builds the best point
  std::mt19937_64 rng(1);
  for (int i = 0; i < 20; ++i)
    EXPECT_EQ(construction(m, 1.0, rng), (Point{0, 0}));
}

TEST(SweepGrasp, TheRestrictedCandidateListFollowsBeta)
{
  std::vector<double> q{0, 5, 10, 2.5};
  EXPECT_EQ(restricted_candidates(q, 1.0), (std::vector<uint32_t>{2}));
  EXPECT_EQ(restricted_candidates(q, 0.0), (std::vector<uint32_t>{0, 1, 2, 3}));
  EXPECT_EQ(restricted_candidates(q, 0.5), (std::vector<uint32_t>{1, 2}));
  EXPECT_EQ(restricted_candidates(q, 0.2), (std::vector<uint32_t>{1, 2, 3}));
  EXPECT_EQ(restricted_candidates({3, 3}, 1.0), (std::vector<uint32_t>{0, 1})); // all equal: all best
}

TEST(SweepGrasp, LocalSearchTakesTheNearestFreePoints)
{
  Space s{{5, 5}};
  std::mt19937_64 rng(2);
  auto near = local_search(s, {2, 2}, 4, {}, rng);
  ASSERT_EQ(near.size(), 4u);
  for (const Point& p : near)
    EXPECT_DOUBLE_EQ(s.distance(p, {2, 2}), 0.25) << p[0] << "," << p[1];
  // taken points are passed over: the next ring (diagonals) comes in
  std::set<uint64_t> taken{s.index({1, 2}), s.index({3, 2}), s.index({2, 1})};
  auto next = local_search(s, {2, 2}, 3, taken, rng);
  ASSERT_EQ(next.size(), 3u);
  EXPECT_EQ(next[0], (Point{2, 3}));
  EXPECT_NEAR(s.distance(next[1], {2, 2}), 0.25 * std::sqrt(2.0), 1e-12);
  // a sample is its constructed point (free) and neighbours, all distinct and free
  DoeModel m  = main_effects(s, {}, true);
  auto sample = grasp_sample(s, m, 0.0, 6, taken, rng);
  ASSERT_EQ(sample.size(), 6u);
  std::set<uint64_t> seen;
  for (const Point& p : sample) {
    EXPECT_FALSE(taken.count(s.index(p)));
    EXPECT_TRUE(seen.insert(s.index(p)).second);
  }
}

TEST(SweepDbscan, ClustersAndNoiseOnASmallGrid)
{
  // a 10 x 10 grid: one step is 1/9 (0.111), a diagonal step 0.157; eps 0.12, three points
  Space s{{10, 10}};
  std::vector<Point> pts{{0, 0}, {0, 1}, {1, 0}, {1, 1}, {8, 8}, {8, 9}, {9, 9}, {5, 0}};
  Clusters c = dbscan(s, pts, 0.12, 3);
  EXPECT_EQ(c.count, 2);
  // the square: every point has itself and two neighbours, all core
  for (size_t i = 0; i < 4; ++i)
    EXPECT_EQ(c.label[i], 0);
  // the corner: (8, 9) is core, (8, 8) and (9, 9) border points it reaches
  EXPECT_EQ(c.label[4], 1);
  EXPECT_EQ(c.label[5], 1);
  EXPECT_EQ(c.label[6], 1);
  EXPECT_EQ(c.label[7], -1); // alone
  // with four points needed, only the square is a cluster
  Clusters strict = dbscan(s, pts, 0.12, 4);
  EXPECT_EQ(strict.count, 0); // (each square point has 3 within 0.12; the diagonal is 0.157)
  Clusters wide = dbscan(s, pts, 0.16, 4);
  EXPECT_EQ(wide.count, 1);
  EXPECT_EQ(wide.label[7], -1);
  EXPECT_EQ(wide.label[4], -1);
  EXPECT_EQ(default_min_points(s), 3u);
}

TEST(SweepSla, RunsStillPossibleAndTheForecast)
{
  SlaState sla;
  sla.max_runs = 50;
  sla.finished = 30;
  sla.running  = 4;
  EXPECT_EQ(runs_still_possible(sla), 16u);
  // 600 s left, 2 at a time, 100 s a run: 12 more starts, 4 of them taken by the running runs
  sla.deadline_s = 1000;
  sla.now_s      = 400;
  sla.parallel   = 2;
  sla.mean_run_s = 100;
  EXPECT_EQ(runs_still_possible(sla), 8u);
  sla.now_s = 1200;
  EXPECT_EQ(runs_still_possible(sla), 0u);

  // a 5 x 5 grid (step 0.25), minimised: three good runs in a corner, three bad in the other
  Space s{{5, 5}};
  std::vector<Result> r{{{0, 0}, 1}, {{0, 1}, 1}, {{1, 0}, 1}, {{4, 4}, 10}, {{4, 3}, 9}, {{3, 4}, 9}};
  std::set<uint64_t> taken;
  for (const Result& x : r)
    taken.insert(s.index(x.point));
  SlaState two;
  two.max_runs = 8; // 6 finished: 2 more
  two.finished = 6;
  Forecast f   = forecast(s, r, taken, true, two, 0.25, 3);
  ASSERT_EQ(f.clusters.count, 1);
  EXPECT_EQ(f.members.size(), 3u); // the runs at or below the median (1)
  // free points within one step of the cluster: (0, 2), (1, 1), (2, 0)
  EXPECT_EQ(f.pending_total, 3u);
  EXPECT_EQ(f.pending[0], (std::vector<Point>{{0, 2}, {1, 1}, {2, 0}}));
  EXPECT_EQ(f.possible, 2u);
  EXPECT_TRUE(f.violation);
  SlaState three = two;
  three.max_runs = 9;
  EXPECT_FALSE(forecast(s, r, taken, true, three, 0.25, 3).violation);

  // full exploitation: the cluster's free points nearest its best run; none: GRASP outside it
  DoeModel m = main_effects(s, r, true);
  std::mt19937_64 rng(3);
  auto in = suggest(s, f, r, true, 1.0, 2, m, 0.5, taken, rng);
  EXPECT_EQ(in, (std::vector<Point>{{1, 1}, {0, 2}}));
  auto out = suggest(s, f, r, true, 0.0, 4, m, 0.5, taken, rng);
  ASSERT_EQ(out.size(), 4u);
  for (const Point& p : out) {
    EXPECT_FALSE(taken.count(s.index(p)));
    for (const Point& q : f.pending[0])
      EXPECT_NE(p, q);
  }
  auto half = suggest(s, f, r, true, 0.5, 4, m, 0.5, taken, rng);
  ASSERT_EQ(half.size(), 4u);
  EXPECT_EQ(half[0], (Point{1, 1}));
  EXPECT_EQ(half[1], (Point{0, 2}));
  EXPECT_THROW(suggest(s, f, r, true, 1.5, 4, m, 0.5, taken, rng), std::invalid_argument);
}

TEST(SweepStrategy, CoppersSpacesAndTheRunsToTheirOptimum)
{
  Landscape b = landscape("branin");
  EXPECT_EQ(b.space.count(), 900u);
  EXPECT_EQ(landscape("rosenbrock").space.count(), 1296u);
  EXPECT_EQ(landscape("rastrigin").space.count(), 8800u);
  EXPECT_EQ(*std::min_element(b.value.begin(), b.value.end()), b.value[b.optimum]);
  EXPECT_EQ(*std::max_element(b.value.begin(), b.value.end()), b.value[b.worst]);
  EXPECT_THROW(landscape("sphere"), std::invalid_argument);
  // Rastrigin's grid is symmetric about the origin, which it misses (22 and 20 values): 8 equal
  // optima, at +-1.22 on each axis (the cosines' wells nearest the origin fall between points)
  Landscape ras = landscape("rastrigin");
  std::vector<uint64_t> optima;
  for (uint64_t i = 0; i < ras.value.size(); ++i)
    if (ras.optimal(i))
      optima.push_back(i);
  ASSERT_EQ(optima.size(), 8u);
  for (uint64_t i : optima) {
    Point p = ras.space.point(i);
    EXPECT_TRUE((p[0] == 8 || p[0] == 13) && (p[1] == 6 || p[1] == 13) && (p[2] == 6 || p[2] == 13));
  }
  // a full sweep reaches the optimum after the points before it
  EXPECT_EQ(runs_to_optimum(b, Strategy::full, 0.5, 1), b.optimum + 1);
  // a random order puts the optimum at (N + 1) / 2 on average
  std::vector<double> random;
  for (uint64_t s = 0; s < 300; ++s)
    random.push_back(double(runs_to_optimum(b, Strategy::random, 0.5, s)));
  Interval r = bootstrap_mean(random, 7);
  EXPECT_NEAR(r.mean, 450.5, 60);
  EXPECT_LT(r.low, r.mean);
  EXPECT_GT(r.high, r.mean);
  // GRASP over the DOE model needs fewer runs than random on Rosenbrock, the intervals apart
  Landscape ros = landscape("rosenbrock");
  std::vector<double> g, u;
  for (uint64_t s = 0; s < 100; ++s) {
    g.push_back(double(runs_to_optimum(ros, Strategy::grasp, 0.5, s)));
    u.push_back(double(runs_to_optimum(ros, Strategy::random, 0.5, s)));
  }
  Interval gi = bootstrap_mean(g, 1), ui = bootstrap_mean(u, 1);
  EXPECT_LT(gi.high, ui.low) << gi.mean << " vs " << ui.mean;
}

TEST(SweepStrategy, QualityIsTheShareOfTheRangeFromTheWorst)
{
  Landscape l;
  l.space   = Space{{4}};
  l.value   = {10, 2, 6, 4};
  l.optimum = 1;
  l.worst   = 0;
  EXPECT_DOUBLE_EQ(l.quality(2), 1);
  EXPECT_DOUBLE_EQ(l.quality(10), 0);
  EXPECT_DOUBLE_EQ(l.quality(6), 0.5);  // (10 - 6) / (10 - 2)
  EXPECT_DOUBLE_EQ(l.quality(4), 0.75); // (10 - 4) / (10 - 2)
  l.value = {3, 3, 3, 3};               // flat: every value is optimal
  EXPECT_DOUBLE_EQ(l.quality(3), 1);
}

namespace {

std::filesystem::path scratch()
{
  return std::filesystem::temp_directory_path() / ("sgai-sweep-test-" + std::to_string(::getpid()));
}

std::filesystem::path written(const std::string& name, const std::string& text)
{
  auto dir = scratch();
  std::filesystem::create_directories(dir);
  std::ofstream(dir / name) << text;
  return dir / name;
}

std::string error_of(const std::filesystem::path& csv)
{
  try {
    landscape_from_runs("deploy/campaigns/hdeeprm-kth.json", csv);
  } catch (const sgai::InputError& e) {
    return e.what();
  }
  return "";
}

} // namespace

TEST(SweepStrategy, TheBatchLandscapeComesFromItsCampaignsRuns)
{
  Landscape l = landscape("batch");
  EXPECT_EQ(l.space.count(), 108u);
  EXPECT_EQ(l.space.sizes, (std::vector<uint32_t>{6, 6, 3}));
  // the best: jobs shortest (2), resources random (0), backfill easy (1)
  EXPECT_EQ(l.space.point(l.optimum), (Point{2, 0, 1}));
  EXPECT_NEAR(l.value[l.optimum], 72.677110, 1e-9);
  EXPECT_EQ(l.space.point(l.worst)[2], 0u); // no backfilling
  size_t optimal = 0;
  for (uint64_t i = 0; i < l.value.size(); ++i)
    optimal += l.optimal(i) ? 1 : 0;
  EXPECT_EQ(optimal, 1u);
  EXPECT_EQ(runs_to_optimum(l, Strategy::full, 0.5, 1), 38u);

  // the errors name the file and the line
  std::string header = "run,status,origin,attempts,jobs,resources,backfill,objective,wall_s\n";
  auto bad           = written("bad.csv", header + "1,done,full,1,first,random,none,3028.5,0.2\n"
                                                             "2,done,full,1,first,fastest,easy,194.3,0.2\n");
  std::string e      = error_of(bad);
  EXPECT_NE(e.find("bad.csv: line 3:"), std::string::npos) << e;
  EXPECT_NE(e.find("'fastest'"), std::string::npos) << e;
  EXPECT_NE(e.find("high_gflops"), std::string::npos) << e; // the valid values
  e = error_of(written("nan.csv", header + "1,done,full,1,first,random,none,,0.2\n"));
  EXPECT_NE(e.find("nan.csv: line 2:"), std::string::npos) << e;
  e = error_of(written("twice.csv", header + "1,done,full,1,first,random,none,1,0.2\n"
                                             "2,done,full,1,first,random,none,2,0.2\n"));
  EXPECT_NE(e.find("twice.csv: line 3: this point was run already, line 2"), std::string::npos) << e;
  // a failed run does not count: the point is missing
  e = error_of(written("missing.csv", header + "1,failed,full,1,first,random,none,,0.2\n"));
  EXPECT_NE(e.find("missing.csv: point 0: no done run of jobs=first, resources=random, backfill=none"),
            std::string::npos)
      << e;
  e = error_of(written("columns.csv", "run,status,jobs,objective\n"));
  EXPECT_NE(e.find("columns.csv: line 1: no column 'resources'"), std::string::npos) << e;
  std::filesystem::remove_all(scratch());
}

TEST(SweepAnalyst, BeliefRegionsByInsight)
{
  for (const char* name : {"rosenbrock", "rastrigin", "branin", "batch"}) {
    Landscape l = landscape(name);
    Beliefs b(l);
    for (size_t d = 0; d < l.space.dimensions(); ++d)
      EXPECT_EQ(b.width()[d], std::max(1u, uint32_t(std::lround(l.space.sizes[d] / 3.0))));
    // the means of the boxes without an optimum, every placement
    Space inner{b.width()}, corners;
    for (size_t d = 0; d < l.space.dimensions(); ++d)
      corners.sizes.push_back(l.space.sizes[d] - b.width()[d] + 1);
    std::vector<double> means;
    for (uint64_t k = 0; k < corners.count(); ++k) {
      double sum   = 0;
      bool optimum = false;
      for (uint64_t j = 0; j < inner.count(); ++j) {
        Point p = corners.point(k), q = inner.point(j);
        for (size_t d = 0; d < p.size(); ++d)
          p[d] += q[d];
        sum += l.value[l.space.index(p)];
        optimum = optimum || l.optimal(l.space.index(p));
      }
      if (not optimum)
        means.push_back(sum / double(inner.count()));
    }
    std::sort(means.begin(), means.end());
    double median = means[(means.size() - 1) / 2];
    std::mt19937_64 rng(3);
    for (int k = 0; k < 50; ++k) {
      Box good = b.draw(Insight::good, rng), bad = b.draw(Insight::bad, rng), none = b.draw(Insight::none, rng);
      EXPECT_TRUE(good.contains(l.space.point(l.optimum))) << name;
      EXPECT_EQ(none.count(), l.space.count());
      double sum = 0;
      for (uint64_t i = 0; i < l.space.count(); ++i)
        if (bad.contains(l.space.point(i))) {
          EXPECT_FALSE(l.optimal(i)) << name;
          sum += l.value[i];
        }
      EXPECT_EQ(good.count(), bad.count());
      // among poor values: the bad box's mean is worse than the median box's
      EXPECT_GT(sum / double(bad.count()), median) << name;
    }
  }
}

TEST(SweepAnalyst, AFlatLandscapeHasNoBadInsight)
{
  Landscape flat;
  flat.name  = "flat";
  flat.space = Space{{3, 3}};
  flat.value.assign(9, 1.0);
  Beliefs b(flat);
  std::mt19937_64 rng(1);
  EXPECT_EQ(b.draw(Insight::good, rng).count(), 1u); // (a third of 3 values: 1 per parameter)
  EXPECT_THROW(b.draw(Insight::bad, rng), std::invalid_argument);
}

TEST(SweepAnalyst, ConfidenceIsTheShareOfRunsFromSuggestions)
{
  Landscape l = landscape("rosenbrock");
  Beliefs b(l);
  std::mt19937_64 rng(5);
  Box bad        = b.draw(Insight::bad, rng);
  uint64_t point = 0;
  for (uint32_t confidence : {0u, 30u, 100u}) {
    AnalystConfig c;
    c.insight        = Insight::bad;
    c.confidence_pct = confidence;
    Analyst a(l, bad, c, 11);
    for (int k = 0; k < 100; ++k) {
      ASSERT_TRUE(a.step(point));
      // without learning, the analyst's own runs stay in its belief while it has free points (16)
      if (confidence == 0 && k < 16) {
        EXPECT_TRUE(bad.contains(a.results().back().point));
      }
    }
    EXPECT_EQ(a.suggested(), confidence) << confidence; // of 100 runs
  }
  // 100%: Copper's GRASP alone, draw for draw
  AnalystConfig all;
  all.confidence_pct = 100;
  for (uint64_t seed = 1; seed <= 5; ++seed)
    EXPECT_EQ(analyst_runs_to_optimum(l, b, all, seed), runs_to_optimum(l, Strategy::grasp, 0.5, seed));
  // a good analyst alone finds the optimum within its box of 2^4 points
  AnalystConfig good;
  good.insight        = Insight::good;
  good.confidence_pct = 0;
  for (uint64_t seed = 1; seed <= 20; ++seed)
    EXPECT_LE(analyst_runs_to_optimum(l, b, good, seed), 16u);
}

TEST(SweepAnalyst, LearningWeightsFollowTheResults)
{
  // one parameter of 4 values, the box {0, 1}; values 3 < 1 < 2 < 0 (minimised)
  Landscape l;
  l.space   = Space{{4}};
  l.value   = {9, 3, 5, 1};
  l.optimum = 3;
  l.worst   = 0;
  AnalystConfig c;
  c.learning       = true;
  c.confidence_pct = 0;
  Analyst a(l, Box{{0}, {1}}, c, 1);
  EXPECT_EQ(a.weight(0, 0), 1);
  EXPECT_EQ(a.weight(0, 3), 0);
  ASSERT_TRUE(a.run(2));                 // 5: alone, the median: neither good nor bad
  ASSERT_TRUE(a.run(0));                 // 9: worse than the median (5): bad
  EXPECT_DOUBLE_EQ(a.weight(0, 0), 0.5); // (1 + 0) / (1 + 1)
  ASSERT_TRUE(a.run(3));                 // 1: better than the median (5): good
  EXPECT_DOUBLE_EQ(a.weight(0, 3), 1);   // (0 + 1) / (1 + 0): outside the box, now believed
  EXPECT_DOUBLE_EQ(a.weight(0, 2), 0);
  EXPECT_FALSE(a.run(3));
  AnalystConfig off = c;
  off.learning      = false;
  Analyst b(l, Box{{0}, {1}}, off, 1);
  ASSERT_TRUE(b.run(3));
  EXPECT_EQ(b.weight(0, 3), 0);
}

TEST(SweepAnalyst, LearningHelpsAnAnalystWithoutInsight)
{
  // Rosenbrock, no insight, 0% confidence: without learning a uniform random sweep (about 650
  // runs); with learning the values of good runs are drawn more often
  Landscape l = landscape("rosenbrock");
  Beliefs b(l);
  AnalystConfig c;
  c.confidence_pct = 0;
  std::vector<double> on, off;
  for (uint64_t seed = 0; seed < 60; ++seed) {
    c.learning = true;
    on.push_back(double(analyst_runs_to_optimum(l, b, c, seed)));
    c.learning = false;
    off.push_back(double(analyst_runs_to_optimum(l, b, c, seed)));
  }
  Interval i_on = bootstrap_mean(on, 1), i_off = bootstrap_mean(off, 1);
  EXPECT_LT(i_on.high, i_off.low) << i_on.mean << " vs " << i_off.mean;
  EXPECT_NEAR(i_off.mean, 648.5, 80); // (1,296 + 1) / 2
}

TEST(SweepAnalyst, TheSlaExperimentRunsItsBudget)
{
  Landscape l = landscape("batch");
  Beliefs b(l);
  AnalystConfig c;
  c.insight = Insight::bad;
  // a budget of the whole space runs every point: the optimum is found with or without Copper
  SlaOutcome all = sla_experiment(l, b, c, 108, {0, 0.5, 1}, 3);
  EXPECT_DOUBLE_EQ(all.without, 1);
  ASSERT_EQ(all.with.size(), 3u);
  for (double q : all.with)
    EXPECT_DOUBLE_EQ(q, 1);
  // qualities lie in [0, 1]; the same seed gives the same outcome
  Landscape ras = landscape("rastrigin");
  Beliefs rb(ras);
  SlaOutcome x = sla_experiment(ras, rb, c, 30, {0, 0.33, 0.66, 1}, 7),
             y = sla_experiment(ras, rb, c, 30, {0, 0.33, 0.66, 1}, 7);
  EXPECT_EQ(x.with, y.with);
  EXPECT_EQ(x.without, y.without);
  for (double q : x.with) {
    EXPECT_GE(q, 0);
    EXPECT_LE(q, 1);
  }
}

TEST(SweepAnalyst, RepetitionsDoNotDependOnThreads)
{
  Landscape l = landscape("branin");
  Beliefs b(l);
  AnalystConfig c;
  c.learning                      = true;
  std::function<double(size_t)> f = [&](size_t r) { return double(analyst_runs_to_optimum(l, b, c, r)); };
  EXPECT_EQ(repeat<double>(24, 1, f), repeat<double>(24, 4, f));
}
