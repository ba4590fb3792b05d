/* Transfers that start together and share links (plugins/communicator/shared_flows.hpp): hand
 * cases of the weighted max-min sharing and its phases, and random cases against SimGrid itself
 * (the same transfers as Comm::sendto on a random network, under CM02 with and without cross
 * traffic and under SimGrid's default LV08 with its factors, weight-S and TCP-gamma). */
#include "plugins/communicator/network.hpp"
#include "plugins/communicator/shared_flows.hpp"
#include "plugins/communicator/time_queue.hpp"
#include "sim_helpers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <iostream>
#include <limits>
#include <queue>
#include <random>
#include <tuple>

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
  // an empty transfer alone on its link pays its latency; one flow half the size ends first, the
  // other speeds up
  end = shared_finish_times(5, {flow(0, {{1, 1}}, 1, 2), flow(50, {{0, 1}}), flow(100, {{0, 1}})}, {10, 10});
  EXPECT_NEAR(end[0], 7, 1e-12);
  EXPECT_NEAR(end[1], 15, 1e-12);
  EXPECT_NEAR(end[2], 20, 1e-12);
  // an empty transfer meeting another on a link never ends in SimGrid 3.32: not worked out
  end = shared_finish_times(5, {flow(0, {{0, 1}}, 1, 2), flow(50, {{0, 1}})}, {10});
  EXPECT_TRUE(std::isnan(end[0]) && std::isnan(end[1]));
}

TEST(SharedFlows, ANetworkTakesFlowsAsTheyComeAndSolvesOnlyWhatTheyShare)
{
  // link 0 of 10 B/s: A (100 B) from 0, B (100 B) from 4; link 1: C (30 B, 10 B/s) from 4, alone
  communicator::SharedLinks links{{10, 10}, {}};
  communicator::FlowNetwork net(links);
  std::vector<std::pair<uint32_t, double>> ended;
  const uint32_t a = net.add(0, flow(100, {{0, 1}}), 9.5); // (9.5: its lone end, given as is when alone)
  EXPECT_EQ(net.next_event(), 10);
  net.advance(4, ended);
  EXPECT_TRUE(ended.empty());
  const uint32_t b = net.add(4, flow(100, {{0, 1}}));
  const uint32_t c = net.add(4, flow(30, {{1, 1}}), 7);
  EXPECT_TRUE(net.busy(0) && net.busy(1));
  // A has 60 left at 5 B/s: 16; C ends at its lone end (7, as given)
  EXPECT_EQ(net.next_event(), 7);
  net.advance(7, ended);
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0], std::make_pair(c, 7.0));
  EXPECT_FALSE(net.busy(1));
  EXPECT_NEAR(net.next_event(), 16, 1e-12);
  ended.clear();
  net.advance(net.next_event(), ended);
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0].first, a); // (shared: its time as worked out, not 9.5)
  EXPECT_NEAR(ended[0].second, 16, 1e-12);
  // B: 40 left at 16, alone: 20; the network is then empty
  ended.clear();
  net.advance(net.next_event(), ended);
  ASSERT_EQ(ended.size(), 1U);
  EXPECT_EQ(ended[0].first, b);
  EXPECT_NEAR(ended[0].second, 20, 1e-12);
  EXPECT_EQ(net.under_way(), 0U);
  EXPECT_EQ(net.shared_count(), 2U);
  EXPECT_TRUE(std::isinf(net.next_event()));
}

namespace {

/** Flows starting at `starts` on a FlowNetwork: their ends (NaN for all when it cannot go on). A
 *  flow starting at an instant where another ends starts after that end, as in SimGrid. */
std::vector<double> network_finish_times(const std::vector<double>& starts, const std::vector<SharedFlow>& flows,
                                         const communicator::SharedLinks& links, double precision)
{
  const size_t n = flows.size();
  std::vector<size_t> order(n);
  for (size_t i = 0; i < n; i++)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return starts[a] < starts[b]; });
  communicator::FlowNetwork net(links, precision);
  std::vector<double> end(n, std::numeric_limits<double>::quiet_NaN());
  std::vector<size_t> of_id;
  std::vector<std::pair<uint32_t, double>> ended;
  size_t next = 0;
  while (true) {
    const double flow = net.next_event();
    if (std::isnan(flow))
      return std::vector<double>(n, std::numeric_limits<double>::quiet_NaN());
    const double start = next < n ? starts[order[next]] : std::numeric_limits<double>::infinity();
    if (std::isinf(flow) && std::isinf(start))
      break;
    ended.clear();
    net.advance(std::min(flow, start), ended);
    for (const auto& [id, at] : ended)
      end[of_id.at(id)] = at;
    if (not ended.empty() || flow <= start)
      continue;
    for (; next < n && starts[order[next]] == start; next++) {
      const uint32_t id = net.add(start, flows[order[next]]);
      if (id >= of_id.size())
        of_id.resize(id + 1);
      of_id[id] = order[next];
    }
  }
  return end;
}

/** Random transfers on a random network, timed by SimGrid and by shared_finish_times (or, when
 *  `staggered`, by a FlowNetwork that gets each transfer at its start: ten instants 10 us apart)
 *  from LoneFlows' routes, penalties and bounds. */
void against_simgrid(const std::vector<std::string>& cfg, uint64_t seed, int cases, bool fat_pipe = true,
                     bool staggered = false)
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
    std::vector<double> offset, start;              ///< staggered: each transfer's start after t0, and in SimGrid
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
      c.offset.push_back(staggered ? 1e-5 * host(rng) : 0.0);
    }
  s4u::Actor::create("cases", hosts[0], [&]() {
    communicator::LoneFlows lone;
    for (Case& c : all) {
      const double t0 = c.t0 = s4u::Engine::get_clock();
      std::vector<SharedFlow> flows;
      for (const auto& [src, dst, bytes] : c.transfers)
        flows.push_back(lone.shared_flow(lone.path(src, dst), bytes));
      if (staggered) { // an actor a transfer, from its start to its end
        c.start.assign(flows.size(), 0);
        c.simgrid.assign(flows.size(), 0);
        std::vector<s4u::ActorPtr> senders;
        for (size_t i = 0; i < flows.size(); i++)
          senders.push_back(s4u::Actor::create("t", hosts[0], [&c, i, t0]() {
            s4u::this_actor::sleep_until(t0 + c.offset[i]);
            const auto& [src, dst, bytes] = c.transfers[i];
            c.start[i]                    = s4u::Engine::get_clock();
            s4u::Comm::sendto(src, dst, static_cast<uint64_t>(bytes));
            c.simgrid[i] = s4u::Engine::get_clock();
          }));
        for (auto& a : senders)
          a->join();
        c.worked_out = network_finish_times(c.start, flows, lone.capacities(1), lone.precision());
        for (size_t i = 0; i < flows.size(); i++) {
          const auto& [src, dst, bytes] = c.transfers[i];
          c.alone.push_back(c.start[i] + lone.seconds(lone.path(src, dst), bytes));
        }
        s4u::this_actor::sleep_for(1);
        continue;
      }
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
      const double start = staggered ? c.start[i] : c.t0;
      slowed += c.simgrid[i] - start > 1.01 * (c.alone[i] - start) ? 1 : 0;
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

TEST(SharedFlows, TransfersStartingAtRandomInstantsTakeWhatSimGridGivesThemUnderCm02)
{
  against_simgrid({"--cfg=network/model:CM02", "--cfg=network/crosstraffic:1"}, 4, 150, true, true);
}

TEST(SharedFlows, TransfersStartingAtRandomInstantsTakeWhatSimGridGivesThemUnderLv08)
{
  against_simgrid({}, 5, 150, false, true);
}

TEST(SharedFlows, RandomTransfersTakeWhatSimGridGivesThemUnderLv08)
{
  // (without the fat pipe: under LV08, 7 of about 1,900 transfers that shared one differed by up to
  // a few percent of their time; the replay does not work those out, LoneFlows::fat_pipes_exact)
  against_simgrid({}, 3, 150, false);
}

TEST(SharedFlows, AFlowEnteringOnALinkMarkedThisInstantIsBoundOnlyByItsMarkedLinksAsInSimGridsLazyUpdate)
{
  // SimGrid's lazy, selective update (lmm's update_modified_cnst_set): U and V end their latency
  // within 1 ns of each other, so one engine round takes both, U first. U marks link A; V's first
  // link is A, already marked, so V is not followed to B, and X (alone on B) keeps its whole rate
  // while V crosses B. Solving everything (network/optim:Full) would slow X while V runs.
  namespace s4u = simgrid::s4u;
  sim::SimulationOptions o;
  o.simgrid_args = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"};
  o.link_energy  = false;
  sim::Simulation simulation(o);
  s4u::NetZone* root = simulation.engine().get_netzone_root();
  if (root == nullptr)
    root = s4u::create_full_zone("world");
  auto* zone = s4u::create_full_zone("net");
  zone->set_parent(root);
  std::vector<s4u::Host*> h;
  for (int i = 0; i < 8; i++)
    h.push_back(zone->create_host("h" + std::to_string(i), 1e9));
  auto link = [&](const char* name, double latency) {
    s4u::Link* l = zone->create_link(name, 1e9);
    l->set_latency(latency);
    return s4u::LinkInRoute(l);
  };
  auto a = link("A", 1e-7), b = link("B", 1e-7), lu = link("LU", 1e-6), lv = link("LV", 9.005e-7);
  zone->add_route(h[0]->get_netpoint(), h[1]->get_netpoint(), nullptr, nullptr, {a}, false);        // W
  zone->add_route(h[2]->get_netpoint(), h[3]->get_netpoint(), nullptr, nullptr, {b}, false);        // X
  zone->add_route(h[4]->get_netpoint(), h[5]->get_netpoint(), nullptr, nullptr, {a, lu}, false);    // U
  zone->add_route(h[6]->get_netpoint(), h[7]->get_netpoint(), nullptr, nullptr, {a, b, lv}, false); // V
  zone->seal();
  const std::vector<std::tuple<int, int, double>> transfers = {{0, 1, 1e9}, {2, 3, 1e9}, {4, 5, 1e8}, {6, 7, 1e6}};
  std::vector<double> simgrid(transfers.size()), worked_out;
  s4u::Actor::create("t", h[0], [&]() {
    communicator::LoneFlows lone;
    std::vector<SharedFlow> flows;
    for (const auto& [s, d, bytes] : transfers)
      flows.push_back(lone.shared_flow(lone.path(h[s], h[d]), bytes));
    worked_out = communicator::shared_finish_times(0, flows, lone.capacities(1), lone.precision());
    std::vector<s4u::CommPtr> comms;
    for (const auto& [s, d, bytes] : transfers)
      comms.push_back(s4u::Comm::sendto_async(h[s], h[d], static_cast<uint64_t>(bytes)));
    for (size_t i = 0; i < comms.size(); i++) {
      comms[i]->wait();
      simgrid[i] = comms[i]->get_finish_time();
    }
  });
  simulation.run();
  ASSERT_EQ(worked_out.size(), simgrid.size());
  for (size_t i = 0; i < simgrid.size(); i++)
    EXPECT_NEAR(worked_out[i], simgrid[i], 1e-9 * simgrid[i]) << "transfer " << i;
  // X took its lone time: B's 1 GB/s for its 1e9 bytes after B's 100 ns, though V crossed B
  EXPECT_NEAR(simgrid[1], 1e-7 + 1.0, 1e-9);
  EXPECT_LT(simgrid[3], 0.1); // (V, 13 ms, crossed B while X ran)
}

TEST(TimeQueue, GivesEventsInTheOrderOfAHeapOfTimeAndSequence)
{
  // random pushes and pops, many at a few times (as ranks in step make them), some at once: the
  // queue gives what a min-heap of (time, sequence) gives
  std::mt19937_64 rng(5);
  communicator::TimeQueue<uint64_t> q;
  std::priority_queue<std::tuple<double, uint64_t>, std::vector<std::tuple<double, uint64_t>>, std::greater<>> heap;
  uint64_t seq  = 0;
  double now    = 0;
  size_t popped = 0;
  for (int round = 0; round < 20000; round++) {
    const int pushes = static_cast<int>(rng() % 4);
    for (int i = 0; i < pushes; i++) {
      const double when = now + static_cast<double>(rng() % 3) * 0.5; // (now, or one of two later times)
      q.push(when, seq);
      heap.emplace(when, seq);
      seq++;
    }
    const int pops = static_cast<int>(rng() % 4);
    for (int i = 0; i < pops && not heap.empty(); i++) {
      ASSERT_FALSE(q.empty());
      ASSERT_EQ(q.when(), std::get<0>(heap.top()));
      ASSERT_EQ(q.front(), std::get<1>(heap.top()));
      now = q.when();
      q.pop();
      heap.pop();
      popped++;
    }
    EXPECT_EQ(q.empty(), heap.empty());
  }
  EXPECT_GT(popped, 10000U);
}
