/* Collective schedules (pure): every algorithm moves information where its collective needs it,
 * sends the bytes its formula counts, and rejects what it does not implement. */
#include "core/collectives/schedule.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <set>

using namespace sgai::collectives;
using sgai::chakra::CollectiveType;

namespace {

/** Which ranks' data each rank holds at the end: a transfer at step k carries what its sender
 *  held when step k began. */
std::vector<std::set<uint32_t>> knowledge(const Schedule& s)
{
  std::vector<std::set<uint32_t>> k(s.ranks);
  for (uint32_t r = 0; r < s.ranks; r++)
    k[r].insert(r);
  for (const auto& step : s.steps) {
    auto before = k;
    for (const auto& t : step)
      k[t.dst].insert(before[t.src].begin(), before[t.src].end());
  }
  return k;
}

struct Case {
  CollectiveType type;
  Algorithm algorithm;
};

const std::vector<Case> kCases = {
    {CollectiveType::all_reduce, Algorithm::ring},
    {CollectiveType::all_gather, Algorithm::ring},
    {CollectiveType::reduce_scatter, Algorithm::ring},
    {CollectiveType::all_to_all, Algorithm::ring},
    {CollectiveType::broadcast, Algorithm::ring},
    {CollectiveType::reduce, Algorithm::ring},
    {CollectiveType::all_reduce, Algorithm::direct},
    {CollectiveType::all_gather, Algorithm::direct},
    {CollectiveType::reduce_scatter, Algorithm::direct},
    {CollectiveType::all_to_all, Algorithm::direct},
    {CollectiveType::broadcast, Algorithm::direct},
    {CollectiveType::reduce, Algorithm::direct},
    {CollectiveType::all_reduce, Algorithm::halving_doubling},
    {CollectiveType::all_gather, Algorithm::halving_doubling},
    {CollectiveType::reduce_scatter, Algorithm::halving_doubling},
    {CollectiveType::broadcast, Algorithm::halving_doubling},
    {CollectiveType::reduce, Algorithm::halving_doubling},
    {CollectiveType::all_reduce, Algorithm::double_binary_tree},
};

} // namespace

TEST(Collectives, InformationReachesEveryRankThatNeedsIt)
{
  for (const auto& c : kCases)
    for (uint32_t n : {2U, 4U, 8U, 16U, 6U}) {
      if (n == 6 && c.algorithm == Algorithm::halving_doubling)
        continue;
      for (uint32_t root : {0U, n - 1}) {
        Schedule s       = make_schedule(c.type, c.algorithm, n, root);
        auto k           = knowledge(s);
        std::string what = std::string(to_string(c.algorithm)) + " " + sgai::chakra::to_string(c.type) +
                           " n=" + std::to_string(n) + " root=" + std::to_string(root);
        for (uint32_t r = 0; r < n; r++) {
          if (c.type == CollectiveType::broadcast)
            EXPECT_TRUE(k[r].count(root)) << what << " rank " << r;
          else if (c.type == CollectiveType::reduce) {
            if (r == root) {
              EXPECT_EQ(k[r].size(), n) << what;
            }
          } else
            EXPECT_EQ(k[r].size(), n) << what << " rank " << r;
        }
        for (const auto& step : s.steps)
          for (const auto& t : step) {
            EXPECT_NE(t.src, t.dst) << what;
            EXPECT_GT(t.fraction, 0) << what;
          }
      }
    }
}

TEST(Collectives, BytesSentAreTheAlgorithmsOwn)
{
  const double S = 1 << 20;
  for (uint32_t n : {4U, 8U, 16U}) {
    double N = n;
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_reduce, Algorithm::ring, n).bytes_sent(1, S),
                     2 * (N - 1) / N * S);
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_reduce, Algorithm::halving_doubling, n).bytes_sent(1, S),
                     2 * (N - 1) / N * S);
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_to_all, Algorithm::direct, n).bytes_sent(2, S), (N - 1) / N * S);
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_to_all, Algorithm::ring, n).bytes_sent(2, S), (N - 1) / 2 * S);
    EXPECT_EQ(make_schedule(CollectiveType::all_to_all, Algorithm::ring, n).steps.size(), n * (n - 1) / 2);
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_gather, Algorithm::ring, n).bytes_sent(0, S), (N - 1) * S);
    EXPECT_DOUBLE_EQ(make_schedule(CollectiveType::all_gather, Algorithm::halving_doubling, n).bytes_sent(0, S),
                     (N - 1) * S);
    // double binary tree: each rank sends half the buffer up and down in each tree it is inner in
    auto dbt     = make_schedule(CollectiveType::all_reduce, Algorithm::double_binary_tree, n);
    double total = 0;
    for (uint32_t r = 0; r < n; r++)
      total += dbt.bytes_sent(r, S);
    EXPECT_DOUBLE_EQ(total, 2 * 2 * (N - 1) * S / 2); // 2 trees x (n-1 edges up + n-1 down) x S/2
    EXPECT_EQ(dbt.steps.size(), 2 * static_cast<size_t>(std::log2(N)));
  }
  EXPECT_EQ(make_schedule(CollectiveType::all_reduce, Algorithm::ring, 8).steps.size(), 14U);
  EXPECT_EQ(make_schedule(CollectiveType::all_reduce, Algorithm::ring, 1).steps.size(), 0U);
}

TEST(Collectives, FormulasInClosedForm)
{
  const double S = 1 << 20, a = 500e-9, b = 50e9;
  EXPECT_NEAR(alpha_beta_time(CollectiveType::all_reduce, Algorithm::ring, 8, S, a, b), 14 * (a + S / 8 / b), 1e-15);
  EXPECT_NEAR(alpha_beta_time(CollectiveType::all_reduce, Algorithm::ring, 8, S, a, b, 4), 4 * 14 * (a + S / 32 / b),
              1e-15);
  EXPECT_NEAR(alpha_beta_time(CollectiveType::all_reduce, Algorithm::halving_doubling, 16, S, a, b),
              8 * a + 2 * 15.0 / 16 * S / b, 1e-15);
  EXPECT_NEAR(alpha_beta_time(CollectiveType::all_reduce, Algorithm::double_binary_tree, 8, S, a, b), 6 * a + 5 * S / b,
              1e-15);
  EXPECT_THROW(alpha_beta_time(CollectiveType::all_reduce, Algorithm::double_binary_tree, 6, S, a, b),
               std::invalid_argument);
}

TEST(Collectives, WhatAnAlgorithmLacksIsAnError)
{
  auto message = [](CollectiveType t, Algorithm a, uint32_t n) {
    try {
      make_schedule(t, a, n);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(message(CollectiveType::all_reduce, Algorithm::halving_doubling, 6),
            "halving-doubling needs a power-of-two rank count, not 6");
  EXPECT_EQ(message(CollectiveType::all_gather, Algorithm::double_binary_tree, 8),
            "double binary tree has no ALL_GATHER (it implements all-reduce)");
  EXPECT_NE(message(CollectiveType::gather, Algorithm::ring, 8).find("ring has no GATHER"), std::string::npos);
  EXPECT_EQ(message(CollectiveType::broadcast, Algorithm::ring, 0), "a collective needs at least one rank");
  Algorithm a;
  EXPECT_TRUE(algorithm_from_string("halvingDoubling", a));
  EXPECT_EQ(a, Algorithm::halving_doubling);
  EXPECT_FALSE(algorithm_from_string("butterfly", a));
}

TEST(Collectives, MultiDimensionalSchedulesReachEveryRank)
{
  for (auto type : {CollectiveType::all_reduce, CollectiveType::all_gather, CollectiveType::reduce_scatter,
                    CollectiveType::all_to_all}) {
    Schedule s = make_multidim_schedule(type, {4, 2, 3}, {Algorithm::ring, Algorithm::direct, Algorithm::ring});
    ASSERT_EQ(s.ranks, 24U);
    auto k = knowledge(s);
    for (uint32_t r = 0; r < 24; r++)
      EXPECT_EQ(k[r].size(), 24U) << sgai::chakra::to_string(type) << " rank " << r;
  }
  // all-reduce on 4 x 2: ring reduce-scatter on 4 (3 steps of S/4), then the 2-rank all-reduce of
  // S/4 (1 + 1 steps of S/8), then the ring all-gather on 4 (3 steps of S/4)
  Schedule s = make_multidim_schedule(CollectiveType::all_reduce, {4, 2}, {Algorithm::ring, Algorithm::ring});
  ASSERT_EQ(s.steps.size(), 8U);
  EXPECT_DOUBLE_EQ(s.steps[3][0].fraction, 1.0 / 8);
  EXPECT_EQ(s.steps[3][0].dst, s.steps[3][0].src ^ 4U);
  EXPECT_DOUBLE_EQ(s.bytes_sent(0, 1.0), 3.0 / 4 + 2.0 / 8 + 3.0 / 4);
  EXPECT_THROW(make_multidim_schedule(CollectiveType::all_reduce, {4, 2}, {Algorithm::ring}), std::invalid_argument);
}

TEST(Collectives, MultiDimensionalOrdersAreAstraSims)
{
  // all-gather: the last dimension first, on one contribution (S), then dimension 0 on 2 S
  Schedule ag = make_multidim_schedule(CollectiveType::all_gather, {4, 2}, {Algorithm::ring, Algorithm::ring});
  ASSERT_EQ(ag.steps.size(), 1U + 3U);
  EXPECT_EQ(ag.step_dim, (std::vector<uint32_t>{1, 0, 0, 0}));
  EXPECT_EQ(ag.steps[0][0].dst, ag.steps[0][0].src ^ 4U);
  EXPECT_DOUBLE_EQ(ag.steps[0][0].fraction, 1.0);
  EXPECT_DOUBLE_EQ(ag.steps[1][0].fraction, 2.0);
  // baseline all-reduce: an all-reduce along each dimension on the whole buffer
  Schedule base = make_multidim_schedule(CollectiveType::all_reduce, {4, 2}, {Algorithm::ring, Algorithm::ring}, 0,
                                         AllReduceComposition::baseline);
  EXPECT_EQ(base.step_dim, (std::vector<uint32_t>{0, 0, 0, 0, 0, 0, 1, 1}));
  EXPECT_DOUBLE_EQ(base.bytes_sent(0, 1.0), 6.0 / 4 + 2.0 / 2);
  // local-bandwidth-aware: a double binary tree on the last dimension runs as an all-reduce there
  Schedule tree =
      make_multidim_schedule(CollectiveType::all_reduce, {2, 4}, {Algorithm::ring, Algorithm::double_binary_tree});
  EXPECT_EQ(tree.step_dim.front(), 0U);
  EXPECT_EQ(tree.step_dim.back(), 0U);
  EXPECT_DOUBLE_EQ(tree.steps[1][0].fraction, 0.5 / 2); // half the buffer, on each of the two trees
}

TEST(Collectives, DirectSendsToEveryPeerAtOnceAndHalvingDoublingStartsWithNeighbours)
{
  Schedule d = make_schedule(CollectiveType::all_gather, Algorithm::direct, 8);
  ASSERT_EQ(d.steps.size(), 1U);
  EXPECT_EQ(d.steps[0].size(), 8U * 7U);
  EXPECT_EQ(make_schedule(CollectiveType::all_reduce, Algorithm::direct, 8).steps.size(), 2U);
  // reduce-scatter: S/2 to the next rank, S/4 two ranks away, S/8 four away
  Schedule rs = make_schedule(CollectiveType::reduce_scatter, Algorithm::halving_doubling, 8);
  ASSERT_EQ(rs.steps.size(), 3U);
  for (uint32_t j = 0; j < 3; j++) {
    EXPECT_EQ(rs.steps[j][0].dst, 1U << j);
    EXPECT_DOUBLE_EQ(rs.steps[j][0].fraction, 1.0 / (2U << j));
  }
  // all-gather: S four ranks away first, 4 S to the next rank last
  Schedule ag = make_schedule(CollectiveType::all_gather, Algorithm::halving_doubling, 8);
  EXPECT_EQ(ag.steps[0][0].dst, 4U);
  EXPECT_EQ(ag.steps[2][0].dst, 1U);
  EXPECT_DOUBLE_EQ(ag.steps[2][0].fraction, 4.0);
}

TEST(Collectives, AstraSimsTreeAlternatesTwoInOrderTrees)
{
  // 4 ranks: the first tree is 0 <- 1 -> 2 under the root 3, the second 1 <- 2 -> 3 under the root 0
  Schedule s = make_schedule(CollectiveType::all_gather, Algorithm::astra_tree, 4); // an all-reduce anyway
  ASSERT_EQ(s.steps.size(), 4U);
  EXPECT_FALSE(s.wait_final_sends);
  auto has = [&](size_t step, uint32_t src, uint32_t dst, bool reduce, uint16_t lane) {
    for (const auto& t : s.steps[step])
      if (t.src == src && t.dst == dst && t.reduce == reduce && t.lane == lane && t.fraction == 1.0)
        return true;
    return false;
  };
  EXPECT_TRUE(has(0, 0, 1, true, 0));
  EXPECT_TRUE(has(0, 2, 1, true, 0));
  EXPECT_TRUE(has(1, 1, 3, true, 0));
  EXPECT_TRUE(has(2, 3, 1, true, 0)); // a rank with children reduces what comes down (ASTRA-sim's)
  EXPECT_TRUE(has(3, 1, 0, false, 0));
  EXPECT_TRUE(has(1, 2, 0, true, 1));
  EXPECT_TRUE(has(3, 2, 3, false, 1));
  EXPECT_EQ(s.transfer_count(), 2U * 2U * 3U);
  Algorithm a;
  ASSERT_TRUE(algorithm_from_string("doubleBinaryTree", a));
  EXPECT_EQ(a, Algorithm::astra_tree);
  EXPECT_THROW(make_schedule(CollectiveType::all_reduce, Algorithm::astra_tree, 6), std::invalid_argument);
}

TEST(Collectives, ChannelsOverRailsEnterEachNodeAtAnotherRank)
{
  // 2 nodes of 4 ranks, 4 channels: ring c leaves node 0 from its rank c-1 (mod 4) to rank c of node 1
  Schedule s = algorithms::ring_channels(CollectiveType::all_reduce, 8, 4, 4);
  ASSERT_EQ(s.steps.size(), 14U);
  std::set<std::pair<uint32_t, uint32_t>> between;
  for (const auto& t : s.steps[0]) {
    EXPECT_DOUBLE_EQ(t.fraction, 1.0 / 8 / 4);
    if ((t.src < 4) != (t.dst < 4))
      between.insert({t.src, t.dst});
  }
  // each channel crosses twice (node 0 -> 1 and back), at a different rank each time
  EXPECT_EQ(between,
            (std::set<std::pair<uint32_t, uint32_t>>{{3, 4}, {7, 0}, {0, 5}, {4, 1}, {1, 6}, {5, 2}, {2, 7}, {6, 3}}));
  s.type  = CollectiveType::all_reduce;
  s.ranks = 8;
  s.index();
  auto k = knowledge(s);
  for (uint32_t r = 0; r < 8; r++)
    EXPECT_EQ(k[r].size(), 8U) << r;
  // one node: the plain ring
  EXPECT_EQ(algorithms::ring_channels(CollectiveType::all_reduce, 4, 4, 4).transfer_count(),
            make_schedule(CollectiveType::all_reduce, Algorithm::ring, 4).transfer_count());
}
