/* P-states change speed and power as derived; energy of fixed executions equals hand-computed
 * values (SimGrid's host_energy and link_energy plugins). Figures from tiny_types.json:
 * P2 processors: 2 cores x 4 Gflop/s, 20 W TDP (10 W per core); P-states 0 idle (5%), 1 active
 * (idle core 25%), 2 membw_limited (75% speed). */
#include "sim_helpers.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>

#include <gtest/gtest.h>

using namespace sgai;
namespace sg4 = simgrid::s4u;

namespace {

std::unique_ptr<sim::Simulation> load(const std::string& fixture, std::optional<platform::Granularity> g = {},
                                      std::vector<std::string> args = {})
{
  sim::SimulationOptions o;
  o.simgrid_args = std::move(args);
  auto s         = std::make_unique<sim::Simulation>(o);
  platform::LoadOptions lo;
  lo.granularity = g;
  s->load_platform(test::fixture("platforms/" + fixture + ".json"), lo);
  return s;
}

} // namespace

TEST(Energy, CoreHostMatchesHandComputedValue)
{
  auto s         = load("tiny_flat");
  sg4::Host* h   = sg4::Host::by_name("alpha-n0-p0-c0");
  sg4::Host* off = sg4::Host::by_name("alpha-n1-p0-c0");
  ASSERT_EQ(h->get_pstate(), 0U); // starts idle
  sg4::Actor::create("worker", h, [h]() {
    h->set_pstate(1);
    sg4::this_actor::execute(8e9); // 2 s at 4 Gflop/s, 10 W
    sg4::this_actor::sleep_for(2); // idle core of an active processor: 2.5 W
    h->set_pstate(0);
    sg4::this_actor::sleep_for(1); // idle processor: 0.5 W
  });
  s->run();
  EXPECT_DOUBLE_EQ(sg4::Engine::get_clock(), 5.0);
  EXPECT_NEAR(sg_host_get_consumed_energy(h), 2 * 10 + 2 * 2.5 + 1 * 0.5, 1e-9);
  EXPECT_NEAR(sg_host_get_consumed_energy(off), 5 * 0.5, 1e-9);
}

TEST(Energy, PStateSwitchChangesSpeedAndPower)
{
  auto s       = load("tiny_flat");
  sg4::Host* h = sg4::Host::by_name("beta-n0-p1-c0"); // P4 core: 8 Gflop/s, 20 W
  sg4::Actor::create("worker", h, [h]() {
    h->set_pstate(2); // membw_limited: 75% speed at full power
    EXPECT_DOUBLE_EQ(h->get_speed(), 6e9);
    EXPECT_DOUBLE_EQ(sg_host_get_current_consumption(h), 5.0); // idle in this state: 25% of 20 W
    double t0 = sg4::Engine::get_clock();
    sg4::this_actor::execute(12e9);
    EXPECT_DOUBLE_EQ(sg4::Engine::get_clock() - t0, 2.0);
    h->set_pstate(1);
    EXPECT_DOUBLE_EQ(h->get_speed(), 8e9);
    sg4::this_actor::execute(8e9);
  });
  s->run();
  EXPECT_DOUBLE_EQ(sg4::Engine::get_clock(), 3.0);
  EXPECT_NEAR(sg_host_get_consumed_energy(h), 2 * 20 + 1 * 20, 1e-9);
}

TEST(Energy, ProcessorHostInterpolatesBetweenOneCoreAndAll)
{
  auto s       = load("tiny_flat", platform::Granularity::processor);
  sg4::Host* h = sg4::Host::by_name("alpha-n0-p0"); // 2 cores, 20 W
  sg4::Actor::create("worker", h, [h]() {
    h->set_pstate(1);
    sg4::this_actor::execute(4e9); // one core of two busy for 1 s: 5 + 1/2 x (20 - 5) = 12.5 W
    auto a = sg4::this_actor::exec_async(4e9);
    auto b = sg4::this_actor::exec_async(4e9);
    a->wait();
    b->wait(); // both cores busy for 1 s: 20 W
  });
  s->run();
  EXPECT_DOUBLE_EQ(sg4::Engine::get_clock(), 2.0);
  EXPECT_NEAR(sg_host_get_consumed_energy(h), 12.5 + 20, 1e-9);
}

TEST(Energy, GpuPStatesCapPower)
{
  auto s       = load("tiny_gpu");
  sg4::Host* g = sg4::Host::by_name("g-n0-gpu0"); // 40 Tflop/s at 300 W, or 20 Tflop/s at 150 W; idle 50 W
  sg4::Actor::create("kernel", g, [g]() {
    sg4::this_actor::execute(40e12);
    g->set_pstate(1);
    sg4::this_actor::execute(20e12);
    sg4::this_actor::sleep_for(1);
  });
  s->run();
  EXPECT_DOUBLE_EQ(sg4::Engine::get_clock(), 3.0);
  EXPECT_NEAR(sg_host_get_consumed_energy(g), 300 + 150 + 50, 1e-9);
}

TEST(Energy, LinkEnergyFollowsUse)
{
  // Net10 links: 1.25 GB/s, 1 us, 1 W idle, 3 W busy. 1.25 GB from node 0 to node 1 takes
  // 2 us of latency and 1 s at full bandwidth on alpha-n0-nic_UP and alpha-n1-nic_DOWN.
  auto s = load("tiny_flat", std::nullopt, test::pure_cm02());
  sg4::Actor::create("sender", sg4::Host::by_name("alpha-n0-p0-c0"), []() {
    sg4::Comm::sendto(sg4::Host::by_name("alpha-n0-p0-c0"), sg4::Host::by_name("alpha-n1-p0-c0"), 1.25e9);
  });
  s->run();
  double t = sg4::Engine::get_clock();
  EXPECT_NEAR(t, 1.0 + 2e-6, 1e-12);
  // SimGrid counts a link as used by the flow from its start, latency phase included.
  EXPECT_NEAR(sg_link_get_consumed_energy(sg4::Link::by_name("alpha-n0-nic_UP")), 3 * t, 1e-9);
  EXPECT_NEAR(sg_link_get_consumed_energy(sg4::Link::by_name("alpha-n1-nic_DOWN")), 3 * t, 1e-9);
  EXPECT_NEAR(sg_link_get_consumed_energy(sg4::Link::by_name("alpha-n0-nic_DOWN")), 1 * t, 1e-9);
}
