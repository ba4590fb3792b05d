/* GPU-cluster scheduling without SimGrid: placements, orders, 2D-LAS preemption, pins and types. */
#include "core/scheduling/gpu_scheduler.hpp"
#include "generators/platform/platform.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace sgai::scheduling;

namespace {

GpuScheduler make(GpuOrder o, GpuPlacement p, uint32_t nodes = 4, uint32_t per_node = 4, uint32_t per_leaf = 2,
                  bool backfill = false)
{
  GpuSchedulerConfig c;
  c.order     = o;
  c.placement = p;
  c.backfill  = backfill;
  return GpuScheduler(GpuTopology::uniform(nodes, per_node, per_leaf), c);
}

std::set<uint32_t> nodes_of(const GpuScheduler& s, const std::vector<uint32_t>& gpus)
{
  std::set<uint32_t> n;
  for (uint32_t g : gpus)
    n.insert(s.topology().node_of[g]);
  return n;
}

std::vector<uint32_t> started(const GpuScheduler::Decision& d)
{
  std::vector<uint32_t> j;
  for (const auto& s : d.starts)
    j.push_back(s.job);
  return j;
}

} // namespace

TEST(GpuPlacement, FirstTakesTheLowestFreeGpus)
{
  auto s = make(GpuOrder::fifo, GpuPlacement::first);
  s.submit(0, 3, 0, 1);
  s.submit(1, 3, 0, 1);
  auto d = s.step(0);
  ASSERT_EQ(d.starts.size(), 2U);
  EXPECT_EQ(d.starts[0].gpus, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_EQ(d.starts[1].gpus, (std::vector<uint32_t>{3, 4, 5})); // across nodes 0 and 1
  EXPECT_EQ(s.free_gpus(), 10U);
}

TEST(GpuPlacement, PackUsesTheFewestNodesAndTheFullestThatFits)
{
  auto s = make(GpuOrder::fifo, GpuPlacement::pack);
  s.submit(0, 3, 0, 1); // node 0 (all equal: the lowest)
  s.submit(1, 2, 0, 1); // nodes 1-3 have 4 free, node 0 has 1: node 1
  s.submit(2, 1, 0, 1); // best fit: node 0's last GPU
  s.submit(3, 6, 0, 1); // two nodes: 2 and 3 (4 free each), not three
  auto d = s.step(0);
  ASSERT_EQ(d.starts.size(), 4U);
  EXPECT_EQ(nodes_of(s, d.starts[0].gpus), (std::set<uint32_t>{0}));
  EXPECT_EQ(nodes_of(s, d.starts[1].gpus), (std::set<uint32_t>{1}));
  EXPECT_EQ(d.starts[2].gpus, (std::vector<uint32_t>{3}));
  EXPECT_EQ(nodes_of(s, d.starts[3].gpus), (std::set<uint32_t>{2, 3}));
  EXPECT_EQ(s.free_gpus(), 4U);
}

TEST(GpuPlacement, PackPrefersOneLeafAmongPlacementsOfAsFewNodes)
{
  // leaves {0, 1} and {2, 3}; nodes 1 and 2 are fuller: 6 GPUs take two nodes either way, and
  // pack keeps them under one leaf (2 and 3) rather than the two fullest-free nodes 0 and 3
  auto s = make(GpuOrder::fifo, GpuPlacement::pack);
  s.pin(0, {4, 5}); // node 1: 2 free
  s.pin(1, {8});    // node 2: 3 free
  s.submit(0, 2, 0, 1);
  s.submit(1, 1, 0, 1);
  s.step(0);
  s.submit(2, 7, 0, 1);
  auto d = s.step(0);
  ASSERT_EQ(d.starts.size(), 1U);
  EXPECT_EQ(nodes_of(s, d.starts[0].gpus), (std::set<uint32_t>{2, 3})); // 3 + 4 in leaf 1
}

TEST(GpuPlacement, TopologyKeepsAJobInOneLeafWhenOneCanHoldIt)
{
  // node 0 full, node 1 half taken: leaf 0 has 2 free GPUs, leaf 1 has 8; a 3-GPU job goes to
  // leaf 1, on one node (not node 1's two plus one under the other leaf)
  auto s = make(GpuOrder::fifo, GpuPlacement::topology);
  s.pin(0, {0, 1, 2, 3, 4, 5});
  s.submit(0, 6, 0, 1);
  s.step(0);
  s.submit(1, 3, 0, 1);
  auto d = s.step(0);
  ASSERT_EQ(d.starts.size(), 1U);
  EXPECT_EQ(s.topology().leaf_of_node[*nodes_of(s, d.starts[0].gpus).begin()], 1U);
  EXPECT_EQ(nodes_of(s, d.starts[0].gpus).size(), 1U);
}

TEST(GpuPlacement, SpreadTakesOneGpuPerNodeInTurn)
{
  auto s = make(GpuOrder::fifo, GpuPlacement::spread);
  s.submit(0, 6, 0, 1);
  auto d = s.step(0);
  ASSERT_EQ(d.starts.size(), 1U);
  EXPECT_EQ(nodes_of(s, d.starts[0].gpus), (std::set<uint32_t>{0, 1, 2, 3}));
  // ring order: by node, then GPU
  EXPECT_TRUE(std::is_sorted(d.starts[0].gpus.begin(), d.starts[0].gpus.end()));
}

TEST(GpuOrders, StrictFifoBlocksAndFirstFitDoesNot)
{
  for (bool backfill : {false, true}) {
    auto s = make(GpuOrder::fifo, GpuPlacement::first, 2, 4, 2, backfill);
    s.submit(0, 6, 0, 10);
    s.submit(1, 4, 1, 10); // does not fit beside job 0
    s.submit(2, 2, 2, 10); // fits
    auto d = s.step(0);
    EXPECT_EQ(started(d), backfill ? (std::vector<uint32_t>{0, 2}) : (std::vector<uint32_t>{0})) << backfill;
  }
}

TEST(GpuOrders, SjfAndSmallestRankTheQueue)
{
  auto sjf = make(GpuOrder::sjf, GpuPlacement::first, 1, 4, 1);
  sjf.submit(0, 4, 0, 100); // runs first: the cluster is empty
  sjf.step(0);
  sjf.submit(1, 2, 1, 50);
  sjf.submit(2, 3, 2, 20);
  sjf.submit(3, 1, 3, 30);
  sjf.finished(0);
  EXPECT_EQ(started(sjf.step(5)), (std::vector<uint32_t>{2, 3})); // 20 s, then 30 s; 50 s no longer fits
  auto small = make(GpuOrder::smallest, GpuPlacement::first, 1, 4, 1);
  small.submit(0, 3, 0, 1);
  small.submit(1, 2, 0, 1);
  small.submit(2, 1, 0, 1);
  EXPECT_EQ(started(small.step(0)), (std::vector<uint32_t>{2, 1})); // then 3 does not fit
}

TEST(GpuOrders, TwoDimensionalLasPreemptsJobsPastTheThreshold)
{
  GpuSchedulerConfig c;
  c.order               = GpuOrder::las;
  c.placement           = GpuPlacement::first;
  c.las_threshold_gpu_s = 100;
  GpuScheduler s(GpuTopology::uniform(1, 4, 1), c);
  s.submit(0, 4, 0, 1000);
  EXPECT_EQ(started(s.step(0)), (std::vector<uint32_t>{0}));
  // job 0 crosses 100 GPU-s at 25 s
  EXPECT_DOUBLE_EQ(s.next_demotion(0), 25);
  s.submit(1, 2, 10, 1000);
  s.set_attained(0, 40, 10);
  auto d = s.step(10); // both in the first queue: job 0 entered first and keeps the GPUs
  EXPECT_TRUE(d.starts.empty());
  EXPECT_TRUE(d.preempt.empty());
  s.set_attained(0, 100, 25);
  EXPECT_EQ(s.queue_of(0), 1U);
  d = s.step(25); // job 0 demoted: job 1 goes first, job 0 no longer fits beside it
  EXPECT_EQ(d.preempt, (std::vector<uint32_t>{0}));
  EXPECT_TRUE(d.starts.empty()); // job 1 waits for job 0's GPUs (its iteration boundary)
  s.stopped(0);
  d = s.step(25.5);
  EXPECT_EQ(started(d), (std::vector<uint32_t>{1}));
  EXPECT_TRUE(s.running(1));
  EXPECT_FALSE(s.running(0));
  s.finished(1);
  EXPECT_EQ(started(s.step(30)), (std::vector<uint32_t>{0})); // resumes
}

TEST(GpuTypes, JobsOfATypeRunOnlyOnItsGpus)
{
  GpuTopology t = GpuTopology::uniform(2, 2, 2);
  t.types       = {"A", "B"};
  t.type_of     = {0, 0, 1, 1}; // node 0: A, node 1: B
  GpuSchedulerConfig c;
  c.placement = GpuPlacement::first;
  c.backfill  = true;
  GpuScheduler s(t, c);
  s.submit(0, 2, 0, 1, 1);
  s.submit(1, 1, 0, 1, 1); // no B left
  s.submit(2, 1, 0, 1, -1);
  auto d = s.step(0);
  ASSERT_EQ(started(d), (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(d.starts[0].gpus, (std::vector<uint32_t>{2, 3}));
  EXPECT_EQ(d.starts[1].gpus, (std::vector<uint32_t>{0}));
}

TEST(GpuOrders, NamesRoundTrip)
{
  for (const auto& n : order_names()) {
    GpuOrder o;
    ASSERT_TRUE(order_from_string(n, o));
    EXPECT_EQ(n, to_string(o));
  }
  for (const auto& n : placement_names()) {
    GpuPlacement p;
    ASSERT_TRUE(placement_from_string(n, p));
    EXPECT_EQ(n, to_string(p));
  }
  GpuOrder o;
  EXPECT_FALSE(order_from_string("lifo", o));
}

TEST(GpuOrders, LasPreemptsOnlyForJobsThatCanTakeTheGpus)
{
  // GPUs 0-3 of type A, 4-7 of type B. X (B) runs and ranks first; W (B) waits, ranked next, but
  // its GPUs are X's; R (A) runs, ranked last: it keeps its GPUs, W cannot use them
  GpuTopology t = GpuTopology::uniform(2, 4, 2);
  t.types       = {"A", "B"};
  t.type_of     = {0, 0, 0, 0, 1, 1, 1, 1};
  GpuSchedulerConfig c;
  c.order               = GpuOrder::las;
  c.placement           = GpuPlacement::first;
  c.las_threshold_gpu_s = 1e9;
  GpuScheduler s(t, c);
  s.submit(0, 4, 0, 10, 1); // X
  s.submit(2, 4, 2, 10, 0); // R
  EXPECT_EQ(started(s.step(2)), (std::vector<uint32_t>{0, 2}));
  s.submit(1, 4, 1, 10, 1); // W: entered before R
  auto d = s.step(3);
  EXPECT_TRUE(d.preempt.empty());
  EXPECT_TRUE(d.starts.empty());
  EXPECT_TRUE(s.running(2));
}

TEST(GpuOrders, LasDemotesWithinTheClocksResolution)
{
  // attained service a rounding short of the threshold at the predicted time still demotes
  GpuSchedulerConfig c;
  c.order               = GpuOrder::las;
  c.las_threshold_gpu_s = 3250;
  GpuScheduler s(GpuTopology::uniform(8, 8, 8), c);
  s.submit(0, 64, 0, 1e9);
  s.step(0);
  double t = s.next_demotion(3e6 - 3250.0 / 64);
  s.set_attained(0, 3250 - 2e-9, t);
  EXPECT_EQ(s.queue_of(0), 1U);
}

TEST(GpuOrders, LasPrefersFreeGpusToPreempting)
{
  // two 4-GPU nodes: R runs on node 0; W, ranked before R once R is demoted, fits on the free
  // node 1, so nobody is preempted (pack would pick node 0's GPUs were they free: the fuller node)
  GpuSchedulerConfig c;
  c.order               = GpuOrder::las;
  c.placement           = GpuPlacement::pack;
  c.las_threshold_gpu_s = 10;
  GpuScheduler s(GpuTopology::uniform(2, 4, 2), c);
  s.submit(0, 4, 0, 100);
  EXPECT_EQ(started(s.step(0)), (std::vector<uint32_t>{0}));
  s.set_attained(0, 10, 2.5); // demoted
  s.submit(1, 4, 3, 100);
  auto d = s.step(3);
  EXPECT_TRUE(d.preempt.empty());
  ASSERT_EQ(started(d), (std::vector<uint32_t>{1}));
  EXPECT_EQ(nodes_of(s, d.starts[0].gpus), (std::set<uint32_t>{1}));
}

TEST(GpuTopology, AClosGroupsTheNodesSharingLeaves)
{
  // rail-optimized, leaves of 2 ports: NIC r of both nodes on leaf r, one leaf group of 2 nodes; each
  // node's 8 NICs on a leaf of its own (rails off, leaves of 8): a group per node
  auto rails = GpuTopology::of(sgai::platform::generate("tests/fixtures/platforms/rails_2dgx.json"));
  EXPECT_EQ(rails.leaf_of_node, (std::vector<uint32_t>{0, 0}));
  auto leaves = GpuTopology::of(sgai::platform::generate("tests/fixtures/platforms/leaves_2dgx_2to1.json"));
  EXPECT_EQ(leaves.leaf_of_node, (std::vector<uint32_t>{0, 1}));
}
