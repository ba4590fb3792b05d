/* Transfers that start together and share links (plugins/communicator/shared_flows.hpp): hand
 * cases of the weighted max-min sharing and its phases, and random cases against SimGrid itself
 * (the same transfers as Comm::sendto on a random network, under CM02 with and without cross
 * traffic and under SimGrid's default LV08 with its factors, weight-S and TCP-gamma). */
#include "plugins/communicator/network.hpp"
#include "plugins/communicator/shared_flows.hpp"
#include "sim_helpers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <iostream>
#include <random>

using namespace sgai;
using communicator::SharedFlow;

namespace {

SharedFlow flow(double bytes, std::vector<std::pair<uint32_t, double>> links, double penalty = 1, double latency = 0,
                double bound = -1)
{
  SharedFlow f;
  f.bytes   = bytes;
  f.links   = std::move(links);
  f.penalty = penalty;
  f.latency = latency;
  f.bound   = bound;
  return f;
}

std::vector<double> rates(const std::vector<SharedFlow>& flows, const std::vector<double>& capacity)
{
  std::vector<const SharedFlow*> view;
  for (const auto& f : flows)
    view.push_back(&f);
  return communicator::max_min_rates(view, {capacity, {}});
}

} // namespace

TEST(SharedFlows, MaxMinSharesByPenaltyBoundAndBottleneck)
{
  // equal penalties share equally; a share is inversely proportional to the penalty
  EXPECT_EQ(rates({flow(1, {{0, 1}}), flow(1, {{0, 1}})}, {10}), (std::vector<double>{5, 5}));
  auto r = rates({flow(1, {{0, 1}}, 1), flow(1, {{0, 1}}, 2)}, {10});
  EXPECT_NEAR(r[0], 20.0 / 3, 1e-12);
  EXPECT_NEAR(r[1], 10.0 / 3, 1e-12);
  // B's bottleneck (link 1: 4 for B and C) leaves A the rest of link 0: 10 - 2
  r = rates({flow(1, {{0, 1}}), flow(1, {{0, 1}, {1, 1}}), flow(1, {{1, 1}})}, {10, 4});
  EXPECT_NEAR(r[0], 8, 1e-12);
  EXPECT_NEAR(r[1], 2, 1e-12);
  EXPECT_NEAR(r[2], 2, 1e-12);
  // a flow held by its own bound leaves the rest to the other
  r = rates({flow(1, {{0, 1}}, 1, 0, 2), flow(1, {{0, 1}})}, {10});
  EXPECT_NEAR(r[0], 2, 1e-12);
  EXPECT_NEAR(r[1], 8, 1e-12);
  // cross traffic: 5% of each flow on its reverse route
  r = rates({flow(1, {{0, 1.05}})}, {10});
  EXPECT_NEAR(r[0], 10 / 1.05, 1e-12);
  r = rates({flow(1, {{0, 1}, {1, 0.05}}), flow(1, {{1, 1}, {0, 0.05}})}, {10, 10});
  EXPECT_NEAR(r[0], 10 / 1.05, 1e-12);
  // a fat pipe: each flow at most its capacity, but flows of different penalties get shares of the
  // level of the lowest penalty (lmm's max, not sum, of weight / penalty)
  auto a = flow(1, {{0, 1}}, 1), b = flow(1, {{0, 1}}, 2), c = flow(1, {{0, 1}}, 1);
  r = communicator::max_min_rates({&a, &c}, {{10}, {1}});
  EXPECT_EQ(r, (std::vector<double>{10, 10}));
  r = communicator::max_min_rates({&a, &b}, {{10}, {1}});
  EXPECT_EQ(r, (std::vector<double>{10, 5}));
  // no link, no bound: unbounded
  EXPECT_TRUE(std::isinf(rates({flow(1, {})}, {})[0]));
}

TEST(SharedFlows, LatencyFirstThenSharesWorkedOutAgainAtEachChange)
{
  auto shared_finish_times = [](double start, const std::vector<SharedFlow>& flows, std::vector<double> capacity) {
    return communicator::shared_finish_times(start, flows, {std::move(capacity), {}});
  };
  // two 100-byte flows on a link of 10 B/s after 1 s of latency: 5 B/s each, 20 s
  auto end = shared_finish_times(0, {flow(100, {{0, 1}}, 1, 1), flow(100, {{0, 1}}, 1, 1)}, {10});
  EXPECT_NEAR(end[0], 21, 1e-12);
  EXPECT_NEAR(end[1], 21, 1e-12);
  // A alone from 1 to 3 (20 bytes), then both at 5: A ends at 19, B alone again for its last 20
  end = shared_finish_times(0, {flow(100, {{0, 1}}, 1, 1), flow(100, {{0, 1}}, 1, 3)}, {10});
  EXPECT_NEAR(end[0], 19, 1e-12);
  EXPECT_NEAR(end[1], 21, 1e-12);
  // an empty transfer pays its latency; one flow half the size ends first, the other speeds up
  end = shared_finish_times(5, {flow(0, {{0, 1}}, 1, 2), flow(50, {{0, 1}}), flow(100, {{0, 1}})}, {10});
  EXPECT_NEAR(end[0], 7, 1e-12);
  EXPECT_NEAR(end[1], 15, 1e-12);
  EXPECT_NEAR(end[2], 20, 1e-12);
}

namespace {

/** Random transfers starting together on a random network, timed by SimGrid and by
 *  shared_finish_times from LoneFlows' routes, penalties and bounds. */
void against_simgrid(const std::vector<std::string>& cfg, uint64_t seed, int cases, bool fat_pipe = true)
{
  namespace s4u = simgrid::s4u;
  sim::SimulationOptions o;
  o.simgrid_args = cfg;
  o.link_energy  = false;
  sim::Simulation simulation(o);
  std::mt19937_64 rng(seed);
  // 10 hosts on a ring of 4 routers with a chord; host links split-duplex, router links shared or
  // split-duplex, one a fat pipe (fat_pipe)
  s4u::NetZone* root = simulation.engine().get_netzone_root();
  if (root == nullptr)
    root = s4u::create_full_zone("world");
  auto* zone = s4u::create_dijkstra_zone("net", true);
  zone->set_parent(root);
  std::uniform_real_distribution<double> bw(1e9, 1e11), lat(1e-7, 1e-5);
  std::vector<s4u::Host*> hosts;
  std::vector<simgrid::kernel::routing::NetPoint*> routers;
  for (int k = 0; k < 4; k++)
    routers.push_back(zone->create_router("r" + std::to_string(k)));
  auto connect = [&](simgrid::kernel::routing::NetPoint* a, simgrid::kernel::routing::NetPoint* b, s4u::Link* l,
                     bool split) {
    using D = s4u::LinkInRoute::Direction;
    zone->add_route(a, b, nullptr, nullptr, {s4u::LinkInRoute(l, split ? D::UP : D::NONE)}, false);
    zone->add_route(b, a, nullptr, nullptr, {s4u::LinkInRoute(l, split ? D::DOWN : D::NONE)}, false);
  };
  for (int h = 0; h < 10; h++) {
    hosts.push_back(zone->create_host("h" + std::to_string(h), 1e9));
    auto* l = zone->create_split_duplex_link("hl" + std::to_string(h), bw(rng));
    l->set_latency(lat(rng));
    connect(hosts.back()->get_netpoint(), routers[h % 4], l, true);
  }
  for (int k = 0; k < 5; k++) {
    const int a = k < 4 ? k : 0, b = k < 4 ? (k + 1) % 4 : 2;
    const bool split = k % 2 == 0;
    s4u::Link* l     = split ? zone->create_split_duplex_link("rl" + std::to_string(k), bw(rng))
                             : zone->create_link("rl" + std::to_string(k), bw(rng));
    if (k == 3 && fat_pipe)
      l->set_sharing_policy(s4u::Link::SharingPolicy::FATPIPE);
    l->set_latency(lat(rng));
    connect(routers[a], routers[b], l, split);
  }
  zone->seal();

  struct Case {
    std::vector<std::tuple<s4u::Host*, s4u::Host*, double>> transfers;
    std::vector<double> simgrid, worked_out, alone; ///< alone: the lone-flow end
    double t0 = 0;
  };
  std::vector<Case> all(cases);
  std::uniform_int_distribution<int> count(2, 24), host(0, 9);
  std::uniform_real_distribution<double> exponent(0, 8);
  for (Case& c : all)
    for (int i = count(rng); i > 0; i--) {
      int a = host(rng), b = host(rng);
      if (a == b)
        b = (b + 1) % 10;
      // (at least a byte: an empty Comm::sendto that shares a link never ends in SimGrid 3.32, and
      // holds a share of the link meanwhile; the replay never works those out)
      const double bytes = std::floor(std::pow(10.0, exponent(rng)));
      c.transfers.emplace_back(hosts[a], hosts[b], bytes);
    }
  s4u::Actor::create("cases", hosts[0], [&]() {
    communicator::LoneFlows lone;
    for (Case& c : all) {
      const double t0 = c.t0 = s4u::Engine::get_clock();
      std::vector<SharedFlow> flows;
      for (const auto& [src, dst, bytes] : c.transfers)
        flows.push_back(lone.shared_flow(lone.path(src, dst), bytes));
      c.worked_out = communicator::shared_finish_times(t0, flows, lone.capacities(1), lone.precision());
      std::vector<s4u::CommPtr> comms;
      std::vector<size_t> which;
      for (const auto& [src, dst, bytes] : c.transfers) {
        c.alone.push_back(t0 + lone.seconds(lone.path(src, dst), bytes));
        which.push_back(comms.size());
        comms.push_back(s4u::Comm::sendto_async(src, dst, static_cast<uint64_t>(bytes)));
      }
      c.simgrid.assign(comms.size(), 0);
      while (not comms.empty()) {
        const auto k              = static_cast<size_t>(s4u::Comm::wait_any(comms));
        c.simgrid.at(which.at(k)) = s4u::Engine::get_clock();
        comms.erase(comms.begin() + static_cast<std::ptrdiff_t>(k));
        which.erase(which.begin() + static_cast<std::ptrdiff_t>(k));
      }
      s4u::this_actor::sleep_for(1); // (the next case starts on an idle network)
    }
  });
  simulation.run();
  size_t transfers = 0, slowed = 0; // slowed: later than alone by over 1%
  for (const Case& c : all) {
    ASSERT_EQ(c.simgrid.size(), c.worked_out.size());
    for (size_t i = 0; i < c.simgrid.size(); i++) {
      const auto& [src, dst, bytes] = c.transfers[i];
      EXPECT_NEAR(c.worked_out[i], c.simgrid[i], 1e-9 * c.simgrid[i])
          << src->get_name() << " -> " << dst->get_name() << ", " << bytes << " bytes, transfer " << i << " of "
          << c.transfers.size();
      transfers++;
      slowed += c.simgrid[i] - c.t0 > 1.01 * (c.alone[i] - c.t0) ? 1 : 0;
    }
  }
  std::cout << transfers << " transfers, " << slowed << " slowed by sharing\n";
  EXPECT_GT(slowed, transfers / 5); // (many transfers share links)
}

} // namespace

TEST(SharedFlows, RandomTransfersTakeWhatSimGridGivesThemUnderCm02)
{
  against_simgrid({"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"}, 1, 150);
}

TEST(SharedFlows, RandomTransfersTakeWhatSimGridGivesThemUnderCm02WithCrossTraffic)
{
  against_simgrid({"--cfg=network/model:CM02", "--cfg=network/crosstraffic:1"}, 2, 150);
}

TEST(SharedFlows, RandomTransfersTakeWhatSimGridGivesThemUnderLv08)
{
  // (without the fat pipe: under LV08, 7 of about 1,900 transfers that shared one differed by up to
  // a few percent of their time; the replay does not work those out, LoneFlows::fat_pipes_exact)
  against_simgrid({}, 3, 150, false);
}
