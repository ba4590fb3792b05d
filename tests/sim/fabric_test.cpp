/* GPU fabrics as built (a NIC per GPU on leaf switches; tests/fixtures/platforms/rails_2dgx.json,
 * leaves_2dgx_2to1.json, shared_nic_2node.json): hand-computed cases of rails, shared NICs and an
 * oversubscribed spine, run on SimGrid. */
#include "generators/platform/fabrics.hpp"
#include "generators/platform/network.hpp"
#include "plugins/communicator/collective.hpp"
#include "sim_helpers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>

#include <gtest/gtest.h>

#include <functional>

using namespace sgai;
namespace sg4 = simgrid::s4u;

namespace {

/** Runs `body` in an actor on the first host of the platform `fixture`. */
void on(const std::string& fixture, const std::function<void()>& body)
{
  sim::Simulation s;
  s.load_platform("tests/fixtures/platforms/" + fixture + ".json", {});
  bool ran = false;
  sg4::Actor::create("driver", sg4::Engine::get_instance()->get_all_hosts().front(), [&]() {
    body();
    ran = true;
  });
  s.run();
  ASSERT_TRUE(ran);
}

sg4::Host* host(const std::string& name)
{
  return sg4::Host::by_name(name);
}

/** Concurrent runs of `work(i)` for i < n, each in its own actor; each one's duration. */
std::vector<double> concurrently(size_t n, const std::function<void(size_t)>& work)
{
  std::vector<double> took(n, -1);
  std::vector<sg4::ActorPtr> actors;
  for (size_t i = 0; i < n; i++)
    actors.push_back(sg4::Actor::create("w" + std::to_string(i), sg4::this_actor::get_host(), [&, i]() {
      double t0 = sg4::Engine::get_clock();
      work(i);
      took[i] = sg4::Engine::get_clock() - t0;
    }));
  for (auto& a : actors)
    a->join();
  return took;
}

/** Sends `bytes` from a to b and waits for it. */
void transfer(sg4::Host* a, sg4::Host* b, double bytes)
{
  sg4::Comm::sendto(a, b, bytes);
}

constexpr double kGiB = 1024.0 * 1024 * 1024;

/** GPU k of nodes 0 and 1 of the cluster `id`: one rail's ring. */
std::vector<sg4::Host*> ring(const std::string& id, size_t k)
{
  std::string g = "-gpu" + std::to_string(k);
  return {host(id + "-n0" + g), host(id + "-n1" + g)};
}

/** A lone 1 GiB ring all-reduce between the two nodes (a bandwidth-bound all-reduce of 2 ranks: two
 *  steps of 512 MiB at the NIC's 50 GB/s), then eight at once, one per rail: each one's time. */
std::pair<double, std::vector<double>> eight_rings(const std::string& id)
{
  double alone = communicator::all_reduce(ring(id, 0), kGiB);
  EXPECT_NEAR(alone, kGiB / 50e9, 0.01 * kGiB / 50e9);
  return {alone, concurrently(8, [&](size_t k) { communicator::all_reduce(ring(id, k), kGiB); })};
}

/** Two 1 GiB flows at once leaving rail 0 for other rails, one from each node of the cluster "r":
 *  each one's time. */
std::vector<double> cross_rail_flows()
{
  return concurrently(2, [](size_t i) {
    if (i == 0)
      transfer(host("r-n0-gpu0"), host("r-n1-gpu1"), kGiB);
    else
      transfer(host("r-n1-gpu0"), host("r-n0-gpu2"), kGiB);
  });
}

} // namespace

TEST(Fabric, EightRailRingsEachRunAtTheSingleRingsRate)
{
  // Rail-optimized: leaf k holds NIC k of both nodes. GPU k of node 0 and GPU k of node 1 all-reduce
  // 1 GiB over NIC k; the eight rings share no link (no spine traffic), so each runs as alone.
  on("rails_2dgx", []() {
    auto [alone, each] = eight_rings("r");
    for (double t : each)
      EXPECT_NEAR(t, alone, 0.01 * alone);
    for (size_t k = 0; k < 8; k++)
      for (const auto& l : test::simgrid_route("r-n0-gpu" + std::to_string(k), "r-n1-gpu" + std::to_string(k)))
        EXPECT_EQ(l.find("-L2-"), std::string::npos) << l << ": a ring on one rail crosses the spine";
  });
}

TEST(Fabric, EightRingsThroughATwoToOneSpineTakeTwiceAsLong)
{
  // Each node's 8 NICs on a leaf of its own, 1.6 Tb/s of uplinks to one spine for 3.2 Tb/s of NICs:
  // the 8 rings share 1.6 Tb/s each way, each at half its NIC's rate.
  on("leaves_2dgx_2to1", []() {
    auto [alone, each] = eight_rings("l");
    for (double t : each)
      EXPECT_NEAR(t, 2 * alone, 0.01 * 2 * alone);
  });
}

TEST(Fabric, TwoJobsOnOneRailShareItsNicTwoOnSeparateRailsDoNot)
{
  // 4 NICs for 8 GPUs: GPUs 0 and 1 both reach the network through NIC 0 (rail 0), GPU 2 through
  // NIC 1. Two jobs each moving 1 GiB between their GPUs of node 0 and node 1.
  on("shared_nic_2node", []() {
    const double t_nic = kGiB / 50e9;
    auto job           = [](int gpu) {
      return std::make_pair(host("s-n0-gpu" + std::to_string(gpu)), host("s-n1-gpu" + std::to_string(gpu)));
    };
    auto one_rail = concurrently(2, [&](size_t i) {
      auto [a, b] = job(static_cast<int>(i)); // GPUs 0 and 1: rail 0 both
      transfer(a, b, kGiB);
    });
    for (double t : one_rail)
      EXPECT_NEAR(t, 2 * t_nic, 0.01 * 2 * t_nic);
    auto two_rails = concurrently(2, [&](size_t i) {
      auto [a, b] = job(static_cast<int>(2 * i)); // GPUs 0 and 2: rails 0 and 1
      transfer(a, b, kGiB);
    });
    for (double t : two_rails)
      EXPECT_NEAR(t, t_nic, 0.01 * t_nic);
  });
}

TEST(Fabric, AnOversubscribedSpineSlowsCrossRailTrafficByItsRatio)
{
  // rails_2dgx_nopxn: each leaf has 2 NIC ports (800 Gb/s) and one 400 Gb/s link to the spine (2:1);
  // PXN off. Two flows leaving rail 0 for other rails share that uplink: each at half the NIC's rate;
  // a flow on one rail does not touch it.
  on("rails_2dgx_nopxn", []() {
    const double t_nic = kGiB / 50e9;
    auto cross         = cross_rail_flows();
    for (double t : cross)
      EXPECT_NEAR(t, 2 * t_nic, 0.01 * 2 * t_nic);
    auto same = concurrently(2, [&](size_t i) {
      if (i == 0)
        transfer(host("r-n0-gpu0"), host("r-n1-gpu0"), kGiB);
      else
        transfer(host("r-n1-gpu0"), host("r-n0-gpu0"), kGiB); // the other direction: its own side of each link
    });
    for (double t : same)
      EXPECT_NEAR(t, t_nic, 0.01 * t_nic);
  });
}

TEST(Fabric, PxnTakesAnNvlinkHopToTheReceiversRailAndKeepsTrafficOffTheSpine)
{
  // rails_2dgx, PXN on (NCCL's default): GPU 0 of node 0 to GPU 1 of node 1 crosses NVLink to GPU 1
  // of node 0 and leaves by its NIC, on rail 1: no spine link; the two flows that shared rail 0's
  // uplink without PXN now each run at the NIC's rate.
  on("rails_2dgx", []() {
    EXPECT_EQ(test::simgrid_route("r-n0-gpu0", "r-n1-gpu1"),
              (std::vector<std::string>{"r-n0-gpu0-nvlink_UP", "r-n0-gpu1-nvlink_DOWN", "r-n0-gpu1-pcie_UP",
                                        "r-n0-nic1_UP", "r-n1-nic1_DOWN", "r-n1-gpu1-pcie_DOWN"}));
    // on its own rail nothing changes
    EXPECT_EQ(test::simgrid_route("r-n0-gpu3", "r-n1-gpu3"),
              (std::vector<std::string>{"r-n0-gpu3-pcie_UP", "r-n0-nic3_UP", "r-n1-nic3_DOWN", "r-n1-gpu3-pcie_DOWN"}));
    const double t_nic = kGiB / 50e9;
    auto cross         = cross_rail_flows();
    for (double t : cross)
      EXPECT_NEAR(t, t_nic, 0.01 * t_nic);
  });
}

TEST(Fabric, ARacksNicsReachAnotherRackOverEveryUplink)
{
  // tor_4dgx: two racks of two DGX nodes, each rack's 16 NICs under one switch with 16 uplinks of
  // 400 Gb/s. Destination-mod-k by the destination NIC: NIC j of the other rack is reached over
  // uplink j, so the 8 GPUs of node 0 sending to the 8 GPUs of node 2 at once each run at the NIC's
  // rate (by the destination leaf, all 8 would share one uplink: 8 times as long).
  on("tor_4dgx", []() {
    EXPECT_EQ(test::simgrid_route("t-n0-gpu5", "t-n2-gpu3"),
              (std::vector<std::string>{"t-n0-gpu5-pcie_UP", "t-n0-nic5_UP", "t-L2-0-up3_UP", "t-L2-1-up3_DOWN",
                                        "t-n2-nic3_DOWN", "t-n2-gpu3-pcie_DOWN"}));
    EXPECT_EQ(test::simgrid_route("t-n0-gpu5", "t-n3-gpu3")[2], "t-L2-0-up11_UP"); // NIC 11 of the rack
    const double t_nic = kGiB / 50e9;
    auto took          = concurrently(8, [&](size_t k) {
      transfer(host("t-n0-gpu" + std::to_string(k)), host("t-n2-gpu" + std::to_string(k)), kGiB);
    });
    for (double t : took)
      EXPECT_NEAR(t, t_nic, 0.01 * t_nic);
  });
}

TEST(Fabric, ASuperPodOfFiveUnitsRoutesRailsOnTheirLeavesAndPodsThroughTheCore)
{
  // 160 DGX H100 nodes: 5 scalable units of 32, 40 rail leaves, pods of 4 units (32 leaves) under 32
  // spines each, a core level joining the 2 pods. Every route of a sample equals the description's.
  auto file = test::temp_dir() / "superpod-160.json";
  {
    AtomicFile f(file);
    f.stream() << platform::superpod_json(160,
                                          std::filesystem::absolute("platforms/catalogues/accelerators.json").string());
    f.commit();
  }
  sim::Simulation s;
  auto p = s.load_platform(file, {});
  ASSERT_TRUE(p);
  EXPECT_EQ(p->gpus.size(), 1280u);
  EXPECT_EQ(p->clusters[0].leaves, 40u);
  ASSERT_EQ(p->clusters[0].clos.size(), 2u);
  EXPECT_EQ(p->clusters[0].clos[0].switches, 64u);   // 2 pods x 32 spines
  EXPECT_EQ(p->clusters[0].clos[1].switches, 1024u); // 32 x 32 core switches
  // rail 3 of unit 0: on its leaf
  EXPECT_EQ(test::simgrid_route("pod-n0-gpu3", "pod-n31-gpu3").size(), 4u);
  // rail 3 of units 0 and 1 (one pod): up to a spine and down
  EXPECT_EQ(test::simgrid_route("pod-n0-gpu3", "pod-n32-gpu3").size(), 6u);
  // units 0 and 4 are in different pods: through a core switch
  auto far = test::simgrid_route("pod-n0-gpu3", "pod-n159-gpu3");
  EXPECT_EQ(far.size(), 8u);
  EXPECT_NE(far[3].find("-L3-"), std::string::npos) << far[3];
  size_t checked = 0;
  for (uint32_t a = 0; a < p->hosts.size(); a += 97)
    for (uint32_t b = 5; b < p->hosts.size(); b += 131) {
      auto expected = platform::expected_route(*p, a, b);
      if (not expected)
        continue;
      EXPECT_EQ(test::simgrid_route(p->hosts[a].name, p->hosts[b].name), *expected)
          << p->hosts[a].name << " -> " << p->hosts[b].name;
      checked++;
    }
  EXPECT_GT(checked, 200u);
}
