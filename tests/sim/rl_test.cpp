/* HDeepRM's learning environment on the workload manager: the thesis' 5.4 scenario's rewards for
 * each action, the observation's layout, void and truncation, bad actions, two environments side
 * by side, the same episode for the same seed and actions. */
#include "core/foundation/error.hpp"
#include "core/rl/environment.hpp"
#include "sim_helpers.hpp"

#include <gtest/gtest.h>

#include <random>

using namespace sgai;

namespace {

const char* kLearningWorkload = "../shared/data/platforms/hdeeprm/workload_examples/learning.json";
const char* kLearningOptions  = "../shared/data/platforms/hdeeprm/thesis_experiments/learning/options.json";

rl::EnvironmentOptions thesis_5_4()
{
  rl::EnvironmentOptions o;
  o.platform          = "platforms/learning.json";
  o.workload          = kLearningWorkload;
  o.actions           = rl::actions_from_hdeeprm(kLearningOptions);
  o.observation       = rl::ObservationKind::minimal;
  o.queue_sensitivity = 0.05;
  o.reward            = rl::RewardKind::makespan;
  return o;
}

} // namespace

TEST(RlEnvironment, TheThesisScenarioRewardsEachAction)
{
  SGAI_REQUIRE_SHARED_DATA();
  // 5.4: one step per episode; the makespan reward is the Gflop/s in use after the decision: both
  // jobs on the fast processor 6.6 (their 48 GB/s slow its cores to 75%), on the slow one 6, spread 8.4
  rl::Environment env(thesis_5_4());
  ASSERT_EQ(env.action_count(), 5U);
  EXPECT_EQ(env.options().actions[0].name(), "shortest/high_gflops");
  EXPECT_EQ(env.options().actions[4].name(), "first/high_mem_bw");
  EXPECT_EQ(env.observation_size(), 21U);
  const double expected[5] = {6.6, 8.4, 6.0, 6.6, 8.4};
  for (int round = 0; round < 3; round++)
    for (size_t a = 0; a < 5; a++) {
      auto first = env.reset(round * 5 + a);
      ASSERT_FALSE(first.terminated);
      EXPECT_EQ(first.info.time_s, 0);
      // two identical jobs waiting, each at the workload's largest request; the queue went from 0 to 2
      EXPECT_EQ(first.observation, std::vector<double>(21, 1.0));
      auto r = env.step(a);
      EXPECT_TRUE(r.terminated) << "action " << a;
      EXPECT_FALSE(r.truncated);
      EXPECT_NEAR(r.reward, expected[a], 1e-9) << env.options().actions[a].name();
      EXPECT_EQ(r.info.jobs_done, 2U);
      EXPECT_EQ(r.info.steps, 1U);
      EXPECT_NEAR(r.info.makespan_s, expected[a] == 8.4 ? 5.25 : expected[a] == 6.6 ? 21 / 3.3 : 7.0, 1e-9);
    }
}

TEST(RlEnvironment, VoidStartsNothingAndIsAskedAgainUntilTruncated)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto o      = thesis_5_4();
  o.actions   = rl::actions_from_names({"shortest:high_mem_bw", "void"});
  o.max_voids = 3;
  rl::Environment env(o);
  auto r = env.reset(1);
  // every job is in: after a void the agent is asked again at the same instant, nothing running
  for (int i = 0; i < 3; i++) {
    r = env.step(1);
    ASSERT_FALSE(r.terminated);
    ASSERT_FALSE(r.truncated);
    EXPECT_EQ(r.info.time_s, 0);
    EXPECT_EQ(r.reward, 0);               // no flop/s in use
    EXPECT_EQ(r.observation.back(), 0.5); // the queue did not change
  }
  r = env.step(0);
  EXPECT_TRUE(r.terminated);
  EXPECT_NEAR(r.reward, 8.4, 1e-9);
  EXPECT_EQ(r.info.steps, 4U);
  // a fourth void in a row truncates the episode, naming the jobs left
  env.reset(1);
  for (int i = 0; i < 3; i++)
    ASSERT_FALSE(env.step(1).truncated);
  r = env.step(1);
  EXPECT_TRUE(r.truncated);
  EXPECT_FALSE(r.terminated);
  EXPECT_EQ(r.info.jobs_left, (std::vector<std::string>{"0", "1"}));
  EXPECT_THROW(env.step(0), std::logic_error); // over: reset first
}

TEST(RlEnvironment, TheNormalObservationShowsNodesProcessorsAndCores)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto o        = thesis_5_4();
  o.observation = rl::ObservationKind::normal;
  o.actions     = rl::actions_from_names({"shortest:high_gflops", "shortest:high_mem_bw", "void"});
  rl::Environment env(o);
  // one node, two processors, four cores, 21 for the queue
  ASSERT_EQ(env.observation_size(), 1U + 2 + 3 * 4 + 21);
  auto r = env.reset(3);
  std::vector<double> start(env.observation_size(), 0.0);
  start[0] = start[1] = start[2] = 1.0; // all memory and bandwidth free, no core busy
  std::fill(start.end() - 21, start.end(), 1.0);
  EXPECT_EQ(r.observation, start);
  r = env.step(2); // void: asked again, the same state
  EXPECT_EQ(std::vector<double>(r.observation.begin(), r.observation.end() - 1),
            std::vector<double>(start.begin(), start.end() - 1));
  EXPECT_EQ(r.observation.back(), 0.5);
  auto e = env.step(0);
  ASSERT_TRUE(e.terminated);
  // the normal observation at a decision point sees running jobs: a third job would; here the
  // episode ends, and the final observation is the last decision's
  EXPECT_EQ(e.observation, r.observation);
  EXPECT_NEAR(e.reward, 6.6, 1e-9);
}

TEST(RlEnvironment, BadActionsAreRefusedAndEnvironmentsLiveSideBySide)
{
  SGAI_REQUIRE_SHARED_DATA();
  rl::Environment env(thesis_5_4());
  env.reset(1);
  try {
    env.step(5);
    FAIL() << "no error";
  } catch (const std::out_of_range& e) {
    EXPECT_STREQ(e.what(), "action 5 is not one of the 5 actions (0 to 4)");
  }
  // a second environment in the same process: its own server, episodes interleaved with the first's
  rl::Environment second(thesis_5_4());
  second.reset(2);
  env.reset(2);
  EXPECT_NEAR(second.step(1).reward, 8.4, 1e-9);
  EXPECT_NEAR(env.step(0).reward, 6.6, 1e-9);
  // a bad platform comes back from the server as the input error it is
  auto bad     = thesis_5_4();
  bad.platform = "tests/fixtures/platforms/no-such-platform.json";
  try {
    rl::Environment third(bad);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_EQ(e.file(), "tests/fixtures/platforms/no-such-platform.json");
  }
  try {
    rl::actions_from_names({"shortest:fastest"});
    FAIL() << "no error";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("unknown resource selection policy 'fastest' (known: "), std::string::npos);
  }
  EXPECT_THROW(rl::reward_from_string("speed"), std::invalid_argument);
  EXPECT_EQ(rl::thesis_actions().size(), 37U);
  EXPECT_EQ(rl::thesis_actions()[0].name(), "random/random");
  EXPECT_EQ(rl::thesis_actions()[7].name(), "first/high_gflops");
  EXPECT_TRUE(rl::thesis_actions()[36].is_void());
}

TEST(RlEnvironment, TheSameSeedAndActionsGiveTheSameEpisode)
{
  // KTH-SP2's first 500 jobs on gaia's first 100 cores, the 37 actions drawn by a seeded generator:
  // two episodes with the same seed and draws are identical, step by step
  rl::EnvironmentOptions o;
  o.platform    = "platforms/gaia.json";
  o.workload    = "workloads/kth-sp2-first500.json";
  o.observation = rl::ObservationKind::small;
  o.reward      = rl::RewardKind::slowdown;
  rl::Environment env(o);
  std::vector<double> trace[2];
  double end[2] = {0, 0};
  for (int e = 0; e < 2; e++) {
    std::mt19937_64 draw(11);
    auto r = env.reset(42);
    while (not r.terminated && not r.truncated) {
      r = env.step(draw() % 36); // no void: every step starts what fits
      trace[e].push_back(r.reward);
      trace[e].insert(trace[e].end(), r.observation.begin(), r.observation.end());
      for (double x : r.observation)
        ASSERT_TRUE(x >= 0 && x <= 1) << x;
    }
    ASSERT_TRUE(r.terminated);
    EXPECT_EQ(r.info.jobs_done, 500U);
    EXPECT_GT(r.info.steps, 100U);
    EXPECT_GE(r.info.mean_bounded_slowdown, 1);
    end[e] = r.info.makespan_s;
  }
  EXPECT_EQ(trace[0], trace[1]);
  EXPECT_EQ(end[0], end[1]);
}
