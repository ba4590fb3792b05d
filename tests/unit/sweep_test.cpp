/* Copper's assistant (sweep/): hand-computed DOE main effects, restricted candidate lists, local
 * search, DBSCAN clusters and noise on a small grid, the SLA forecast and the suggestion. */
#include "plugins/sweep/assistant.hpp"
#include "plugins/sweep/space.hpp"
#include "plugins/sweep/strategy.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>

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
  EXPECT_THROW(landscape("sphere"), std::invalid_argument);
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
