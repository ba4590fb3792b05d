/* Job and resource selection policies, greedy scheduling, EASY and conservative backfilling on
 * hand-made platforms and queues (no Engine). */
#include "core/foundation/numbers.hpp"
#include "core/scheduling/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>

#include <limits>
#include <set>

using namespace sgai::scheduling;
using sgai::kInf;

namespace {

/** 2 nodes x 2 processors x 2 cores. Processor p: flops 1+p, power 10-p, bandwidth 10*(p+1). */
Resources small_platform(double node_memory = 8000)
{
  Resources r;
  for (uint32_t n = 0; n < 2; n++) {
    r.nodes.push_back(Node{n * 4, 4, n * 2, 2, node_memory});
    for (uint32_t pp = 0; pp < 2; pp++) {
      uint32_t p = n * 2 + pp;
      r.processors.push_back(Processor{n, p * 2, 2, 1e9 * (1 + p), 10.0 * (p + 1), 10.0 - p});
      for (uint32_t c = 0; c < 2; c++)
        r.cores.push_back(Core{p, n, p * 2 + c});
    }
  }
  return r;
}

QueuedJob job(uint32_t id, uint32_t cores, double req = 10, double submit = 0, double mem = 0, double bw = 0)
{
  QueuedJob q;
  q.job              = id;
  q.submit_s         = submit;
  q.arrival          = id;
  q.requested_time_s = req;
  q.demand           = Demand{cores, mem, bw};
  return q;
}

std::vector<uint32_t> select(const std::string& policy, ClusterState& s, uint32_t id, Demand d, uint64_t seed = 1)
{
  std::mt19937_64 rng(seed);
  return make_resource_policy(policy)->select(s, id, d, rng);
}

} // namespace

TEST(JobPolicies, PickByTheirKeysWithArrivalTieBreak)
{
  std::vector<QueuedJob> q = {job(0, 4, 30, 0, 500, 8), job(1, 1, 10, 1, 900, 4), job(2, 2, 10, 2, 100, 16),
                              job(3, 1, 50, 3, 100, 2)};
  std::mt19937_64 rng(1);
  EXPECT_EQ(make_job_policy("first")->pick(q, rng), 0U);
  EXPECT_EQ(make_job_policy("shortest")->pick(q, rng), 1U); // 10 s, before job 2 (also 10 s)
  EXPECT_EQ(make_job_policy("smallest")->pick(q, rng), 1U); // 1 core, before job 3
  EXPECT_EQ(make_job_policy("low_mem")->pick(q, rng), 2U);  // 100 MB, before job 3
  EXPECT_EQ(make_job_policy("low_mem_bw")->pick(q, rng), 3U);
  std::set<size_t> seen;
  for (int i = 0; i < 200; i++)
    seen.insert(make_job_policy("random")->pick(q, rng));
  EXPECT_EQ(seen.size(), 4U);
  EXPECT_THROW(make_job_policy("longest"), std::invalid_argument);
  try {
    make_job_policy("longest");
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("known: first, random, shortest"), std::string::npos) << e.what();
  }
}

TEST(ResourcePolicies, FirstTakesLowestFreeCores)
{
  Resources r = small_platform();
  ClusterState s(r);
  EXPECT_EQ(select("first", s, 0, {3}), (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(select("first", s, 1, {2}), (std::vector<uint32_t>{3, 4}));
  EXPECT_EQ(s.free_cores(), 3U);
  EXPECT_EQ(s.owner(4), 1U);
}

TEST(ResourcePolicies, HighGflopsAndLowPowerUseProcessorFigures)
{
  Resources r = small_platform();
  ClusterState s(r);
  EXPECT_EQ(select("high_gflops", s, 0, {3}), (std::vector<uint32_t>{6, 7, 4})); // processors 3 then 2
  ClusterState t(r);
  EXPECT_EQ(select("low_power", t, 0, {3}), (std::vector<uint32_t>{6, 7, 4})); // power 10 - p
}

TEST(ResourcePolicies, HighMemBwSpreadsOverProcessors)
{
  Resources r = small_platform();
  ClusterState s(r);
  // bandwidths 10, 20, 30, 40 GB/s; each core asks 15 GB/s: free bandwidth decides every pick
  // (40 -> p3, 30 -> p2, 25 -> p3, then p3 is full and 20 -> p1)
  EXPECT_EQ(select("high_mem_bw", s, 0, {4, 0, 15}), (std::vector<uint32_t>{6, 4, 7, 2}));
  EXPECT_DOUBLE_EQ(s.processor_free_bw_gbps(3), 10);
  EXPECT_EQ(select("high_mem_bw", s, 1, {1, 0, 15}), (std::vector<uint32_t>{5})); // p2: 15 free
  EXPECT_FALSE(s.processor_over_utilized(2));                                     // 30 of 30 GB/s
  EXPECT_EQ(select("high_mem_bw", s, 2, {1, 0, 15}), (std::vector<uint32_t>{0})); // p0: 10 free vs 5
  EXPECT_TRUE(s.processor_over_utilized(0));
}

TEST(ResourcePolicies, HighMemAndHighCoresFollowNodeState)
{
  Resources r = small_platform();
  ClusterState s(r);
  // each core takes 1000 MB: nodes alternate as their free memory changes
  EXPECT_EQ(select("high_mem", s, 0, {3, 1000}), (std::vector<uint32_t>{0, 4, 1}));
  ClusterState t(r);
  EXPECT_EQ(select("high_cores", t, 0, {3}), (std::vector<uint32_t>{0, 4, 1}));
}

TEST(ResourcePolicies, RandomIsSeededAndDistinct)
{
  Resources r = small_platform();
  ClusterState a(r), b(r);
  auto x = select("random", a, 0, {5}, 7);
  auto y = select("random", b, 0, {5}, 7);
  EXPECT_EQ(x, y);
  EXPECT_EQ(std::set<uint32_t>(x.begin(), x.end()).size(), 5U);
}

TEST(ResourcePolicies, MemoryLimitsCoresPerNodeAndFailureRollsBack)
{
  Resources r = small_platform(4000);
  ClusterState s(r);
  EXPECT_EQ(select("first", s, 0, {2, 3000}), (std::vector<uint32_t>{0, 4})); // one core per node
  EXPECT_TRUE(select("first", s, 1, {1, 3000}).empty());
  EXPECT_EQ(s.free_cores(), 6U);
  EXPECT_DOUBLE_EQ(s.node_free_memory_mb(0), 1000);
  EXPECT_EQ(select("first", s, 2, {6, 100}).size(), 6U);
}

TEST(Scheduler, GreedyStopsAtTheFirstJobThatDoesNotFit)
{
  Resources r = small_platform();
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::none, 1});
  ASSERT_TRUE(sched.submit(job(0, 6)));
  ASSERT_TRUE(sched.submit(job(1, 4)));
  ASSERT_TRUE(sched.submit(job(2, 1)));
  auto d = sched.step(0);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].job, 0U);
  EXPECT_EQ(sched.queue_size(), 2U); // job 2 would fit but waits behind job 1
  sched.release(0);
  d = sched.step(5);
  EXPECT_EQ(d.size(), 2U);
}

TEST(Scheduler, PolicyPairsChooseJobAndCores)
{
  Resources r = small_platform();
  ClusterState s(r);
  Scheduler sched(s, {"shortest", "high_gflops", Backfill::none, 1});
  sched.submit(job(0, 2, 100));
  sched.submit(job(1, 2, 5));
  auto d = sched.step(0);
  ASSERT_EQ(d.size(), 2U);
  EXPECT_EQ(d[0].job, 1U);
  EXPECT_EQ(d[0].cores, (std::vector<uint32_t>{6, 7}));
  EXPECT_EQ(d[1].cores, (std::vector<uint32_t>{4, 5}));
}

TEST(Scheduler, RejectsJobsThatCanNeverFit)
{
  Resources r = small_platform(4000);
  ClusterState s(r);
  Scheduler sched(s, {});
  EXPECT_FALSE(sched.submit(job(0, 9)));
  EXPECT_FALSE(sched.submit(job(1, 3, 10, 0, 3000))); // 2 nodes can hold one such core each
  EXPECT_TRUE(sched.submit(job(2, 2, 10, 0, 3000)));
}

TEST(Backfilling, EasyStartsShortJobsAroundTheHeadReservation)
{
  // 8 cores; job 0 holds 6 of them until t=10. Head job 1 wants all 8 (reserved at t=10).
  Resources r = small_platform();
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::easy, 1});
  sched.submit(job(0, 6, 10));
  ASSERT_EQ(sched.step(0).size(), 1U);
  sched.submit(job(1, 8, 10));
  sched.submit(job(2, 2, 20)); // would delay job 1: no
  sched.submit(job(3, 2, 10)); // ends at 10: yes, on cores 6-7
  auto d = sched.step(0);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].job, 3U);
  EXPECT_EQ(d[0].cores, (std::vector<uint32_t>{6, 7}));
}

TEST(Backfilling, EasyProtectsOnlyTheHeadConservativeProtectsAll)
{
  // 8 cores; job 0 holds 6 until t=10. Job 1 (head, 4 cores) is reserved on cores 0-3 at t=10;
  // job 2 (8 cores) waits for t=20. Job 3 (2 cores, 25 s) on cores 6-7 does not hurt job 1 but
  // would delay job 2: EASY starts it, conservative does not.
  for (Backfill b : {Backfill::easy, Backfill::conservative}) {
    Resources r = small_platform();
    ClusterState s(r);
    Scheduler sched(s, {"first", "first", b, 1});
    sched.submit(job(0, 6, 10));
    sched.step(0);
    sched.submit(job(1, 4, 10));
    sched.submit(job(2, 8, 10));
    sched.submit(job(3, 2, 25));
    auto d = sched.step(0);
    if (b == Backfill::easy) {
      ASSERT_EQ(d.size(), 1U);
      EXPECT_EQ(d[0].job, 3U);
    } else {
      EXPECT_TRUE(d.empty());
    }
  }
}

TEST(Backfilling, FollowsTheJobPolicysOrder)
{
  // 8 cores; job 0 holds 6 until t=10. Queue (arrival order): job 1 (8 cores, 50 s), job 2 (4
  // cores, 5 s), job 3 (2 cores, 30 s). first + EASY: job 1 is the head (reserved at t=10); job 3
  // would run past t=10 on cores it needs, so nothing starts. shortest + EASY: job 2 is the head
  // (reserved at t=10 on 4 cores); job 3 fits on the 2 free cores outside that reservation.
  for (const char* policy : {"first", "shortest"}) {
    Resources r = small_platform();
    ClusterState s(r);
    Scheduler sched(s, {policy, "first", Backfill::easy, 1});
    sched.submit(job(0, 6, 10));
    sched.step(0);
    sched.submit(job(1, 8, 50));
    sched.submit(job(2, 4, 5));
    sched.submit(job(3, 2, 30));
    auto d = sched.step(0);
    if (std::string(policy) == "first") {
      EXPECT_TRUE(d.empty());
    } else {
      ASSERT_EQ(d.size(), 1U);
      EXPECT_EQ(d[0].job, 3U);
      EXPECT_EQ(sched.queue_size(), 2U);
    }
  }
}

TEST(JobPolicies, RankIsAPermutationInPickOrder)
{
  std::vector<QueuedJob> q = {job(0, 4, 30), job(1, 1, 10), job(2, 2, 10), job(3, 8, 5)};
  std::mt19937_64 rng(1);
  EXPECT_EQ(make_job_policy("first")->rank(q, rng), (std::vector<size_t>{0, 1, 2, 3}));
  EXPECT_EQ(make_job_policy("shortest")->rank(q, rng), (std::vector<size_t>{3, 1, 2, 0}));
  EXPECT_EQ(make_job_policy("smallest")->rank(q, rng), (std::vector<size_t>{1, 2, 0, 3}));
  auto shuffled = make_job_policy("random")->rank(q, rng);
  std::sort(shuffled.begin(), shuffled.end());
  EXPECT_EQ(shuffled, (std::vector<size_t>{0, 1, 2, 3}));
}

TEST(Backfilling, ReservationsMoveWhenJobsEndEarly)
{
  Resources r = small_platform();
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  sched.submit(job(0, 8, 100));
  sched.step(0);
  sched.submit(job(1, 8, 10));
  EXPECT_TRUE(sched.step(1).empty());
  sched.release(0); // ended at t=5 instead of 100
  auto d = sched.step(5);
  ASSERT_EQ(d.size(), 1U);
  EXPECT_EQ(d[0].job, 1U);
}

TEST(AvailabilityProfile, FirstFitFindsTheEarliestWindow)
{
  AvailabilityProfile p(4, 0);
  p.occupy({0, 1, 2}, 0, 10);
  p.occupy({3}, 5, 15);
  auto f = p.first_fit(2, 5);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->start, 10);
  EXPECT_EQ(f->candidates.lowest(2), (std::vector<uint32_t>{0, 1}));
  auto g = p.first_fit(1, 5);
  EXPECT_DOUBLE_EQ(g->start, 0);
  EXPECT_FALSE(p.first_fit(5, 1));
  p.occupy({0}, 20, kInf);
  EXPECT_DOUBLE_EQ(p.first_fit(4, 1)->start, 15);
  EXPECT_FALSE(p.first_fit(4, 6)); // core 0 is never free again after 20
}

TEST(CoreSet, TheLowestMembersOfAnotherSetAndTheMembersInCommon)
{
  CoreSet from(200);
  for (uint32_t c : {3U, 5U, 64U, 65U, 70U, 130U, 199U})
    from.set(c);
  CoreSet held;
  held.assign_lowest(from, 4);
  EXPECT_EQ(held.size(), 200U);
  EXPECT_EQ(held.lowest(10), (std::vector<uint32_t>{3, 5, 64, 65}));
  held.assign_lowest(from, 2); // storage reused, the previous members gone
  EXPECT_EQ(held.lowest(10), (std::vector<uint32_t>{3, 5}));
  held.assign_lowest(from, 50); // fewer than asked: all of them
  EXPECT_EQ(held.count(), 7U);
  held.assign_lowest(from, 0);
  EXPECT_EQ(held.count(), 0U);
  CoreSet other(200);
  for (uint32_t c : {5U, 65U, 66U, 199U})
    other.set(c);
  EXPECT_EQ(from.count_common(other), 3U);
  EXPECT_EQ(other.count_common(from), 3U);
  EXPECT_EQ(from.count_common(CoreSet(200)), 0U);
}
