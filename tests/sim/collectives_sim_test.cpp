/* Collectives on SimGrid against their alpha-beta formulas, with the CM02 model (no latency or
 * bandwidth factors, no cross traffic): ring, switch, several sizes and rank counts. */
#include "plugins/communicator/communicator.hpp"
#include "plugins/communicator/network.hpp"
#include "sim_helpers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <map>

using namespace sgai::communicator;
using namespace sgai::collectives;
using sgai::chakra::CollectiveType;
namespace s4u = simgrid::s4u;

namespace {

constexpr double kBandwidth = 50e9; // 50 GB/s
constexpr double kLatency   = 500e-9;

struct Net {
  Dimension::Kind kind;
  uint32_t n;
  std::vector<s4u::Host*> hosts;
};

/** One Engine with a ring and a switch of each size, then `body` run by a driver actor. */
void with_networks(const std::function<void(std::vector<Net>&)>& body)
{
  sgai::sim::SimulationOptions so;
  so.simgrid_args = sgai::test::pure_cm02();
  so.host_energy  = false;
  so.link_energy  = false;
  sgai::sim::Simulation sim(so);
  std::vector<Net> nets;
  for (auto kind : {Dimension::Kind::ring, Dimension::Kind::switch_})
    for (uint32_t n : {4U, 8U, 16U}) {
      Dimension d{kind, n, kBandwidth, kLatency};
      std::string prefix = std::string(to_string(kind)) + std::to_string(n) + "_";
      nets.push_back({kind, n, build_npu_network(prefix, {d}).npus});
    }
  s4u::Actor::create("driver", nets[0].hosts[0], [&]() { body(nets); });
  sim.run();
}

/** Simulated duration of one collective started now by every rank at once. */
double run_one(const Net& net, CollectiveType type, Algorithm algorithm, double bytes, CollectiveOptions o = {})
{
  auto schedule = std::make_shared<const Schedule>(make_schedule(type, algorithm, net.n));
  CollectiveRun run(schedule, net.hosts, bytes, o);
  double start = s4u::Engine::get_clock();
  std::vector<s4u::ActorPtr> ranks;
  for (uint32_t r = 0; r < net.n; r++)
    ranks.push_back(s4u::Actor::create("rank" + std::to_string(r), net.hosts[r], [&run, r]() { run.run_rank(r); }));
  for (auto& a : ranks)
    a->join();
  return s4u::Engine::get_clock() - start;
}

double alpha_of(const Net& net)
{
  return net.kind == Dimension::Kind::ring ? kLatency : 2 * kLatency; // a switch: up and down
}

} // namespace

TEST(CollectivesSim, RingAlgorithmsMatchTheirFormulasOnRingsAndSwitches)
{
  int checked = 0;
  with_networks([&](std::vector<Net>& nets) {
    for (const auto& net : nets)
      for (double bytes : {double(1 << 20), double(64 << 20)})
        for (auto type : {CollectiveType::all_reduce, CollectiveType::all_gather, CollectiveType::reduce_scatter,
                          CollectiveType::all_to_all}) {
          double sim     = run_one(net, type, Algorithm::ring, bytes);
          double formula = alpha_beta_time(type, Algorithm::ring, net.n, bytes, alpha_of(net), kBandwidth);
          EXPECT_NEAR(sim / formula, 1.0, 0.01)
              << to_string(net.kind) << " n=" << net.n << " " << sgai::chakra::to_string(type) << " " << bytes
              << " B: simulated " << sim << " s, formula " << formula << " s";
          checked++;
        }
  });
  EXPECT_EQ(checked, 2 * 3 * 2 * 4);
}

TEST(CollectivesSim, TreeHalvingDoublingAndDirectMatchTheirFormulasOnSwitches)
{
  int checked = 0;
  with_networks([&](std::vector<Net>& nets) {
    for (const auto& net : nets) {
      if (net.kind != Dimension::Kind::switch_)
        continue;
      for (double bytes : {double(1 << 20), double(64 << 20)})
        for (auto [type, algorithm] : std::vector<std::pair<CollectiveType, Algorithm>>{
                 {CollectiveType::all_reduce, Algorithm::double_binary_tree},
                 {CollectiveType::all_reduce, Algorithm::halving_doubling},
                 {CollectiveType::reduce_scatter, Algorithm::halving_doubling},
                 {CollectiveType::all_gather, Algorithm::halving_doubling},
                 {CollectiveType::broadcast, Algorithm::halving_doubling},
                 {CollectiveType::all_to_all, Algorithm::direct},
                 {CollectiveType::all_reduce, Algorithm::direct},
                 {CollectiveType::broadcast, Algorithm::direct}}) {
          double sim     = run_one(net, type, algorithm, bytes);
          double formula = alpha_beta_time(type, algorithm, net.n, bytes, alpha_of(net), kBandwidth);
          EXPECT_NEAR(sim / formula, 1.0, 0.01)
              << to_string(algorithm) << " n=" << net.n << " " << sgai::chakra::to_string(type) << " " << bytes
              << " B: simulated " << sim << " s, formula " << formula << " s";
          checked++;
        }
    }
  });
  EXPECT_EQ(checked, 3 * 2 * 8);
}

TEST(CollectivesSim, ChunksRunOneAfterTheOtherOrOverlapOnChannels)
{
  with_networks([&](std::vector<Net>& nets) {
    const Net& ring8 = nets[1];
    ASSERT_EQ(ring8.n, 8U);
    const double bytes = 8 << 20;
    double one         = run_one(ring8, CollectiveType::all_reduce, Algorithm::ring, bytes, {4, 1, 0});
    EXPECT_NEAR(one / alpha_beta_time(CollectiveType::all_reduce, Algorithm::ring, 8, bytes, kLatency, kBandwidth, 4),
                1.0, 0.01);
    // four channels share the same links: the bandwidth term stays, the latencies overlap
    double four = run_one(ring8, CollectiveType::all_reduce, Algorithm::ring, bytes, {4, 4, 0});
    EXPECT_LT(four, one);
    EXPECT_GT(four, alpha_beta_time(CollectiveType::all_reduce, Algorithm::ring, 8, bytes, 0, kBandwidth));
    // reductions at 100 GB/s add (n-1) x 3 x chunk/n / 100e9 per chunk on the critical path
    double reduced = run_one(ring8, CollectiveType::all_reduce, Algorithm::ring, bytes, {1, 1, 100e9});
    double plain   = run_one(ring8, CollectiveType::all_reduce, Algorithm::ring, bytes, {1, 1, 0});
    EXPECT_NEAR(reduced - plain, 7 * 3 * (bytes / 8) / 100e9, 1e-9);
    // an endpoint delay of 10 ns at the start of the chunk and after each of its 14 receives
    double delayed = run_one(ring8, CollectiveType::all_reduce, Algorithm::ring, bytes, {1, 1, 0, 10e-9});
    EXPECT_NEAR(delayed - plain, 15 * 10e-9, 1e-12);
  });
}

namespace {

/** Rings of 8 ranks on their own links except the link closing each (7 -> 0), which is a trunk:
 *  `rings` rings closing over `trunks` trunks (ring i over trunk i % trunks). */
struct RingSet {
  std::vector<std::vector<s4u::Host*>> rings;
  std::vector<double> end;
};

RingSet make_rings(s4u::NetZone* zone, const std::string& name, int rings, int trunks)
{
  RingSet set;
  std::vector<s4u::Link*> trunk;
  for (int t = 0; t < trunks; t++)
    trunk.push_back(
        zone->create_split_duplex_link(name + "_trunk" + std::to_string(t), kBandwidth)->set_latency(kLatency));
  for (int g = 0; g < rings; g++) {
    std::vector<s4u::Host*> hosts;
    for (int i = 0; i < 8; i++)
      hosts.push_back(zone->create_host(name + "_r" + std::to_string(g) + "_" + std::to_string(i), 1e12));
    for (int i = 0; i < 8; i++) {
      s4u::Link* l = i == 7 ? trunk[g % trunks]
                            : zone->create_split_duplex_link(name + "_r" + std::to_string(g) + "_l" + std::to_string(i),
                                                             kBandwidth)
                                  ->set_latency(kLatency);
      zone->add_route(hosts[i]->get_netpoint(), hosts[(i + 1) % 8]->get_netpoint(), nullptr, nullptr,
                      {s4u::LinkInRoute(l, s4u::LinkInRoute::Direction::UP)}, false);
    }
    set.rings.push_back(hosts);
  }
  set.end.assign(rings, 0);
  return set;
}

/** One simulation: one ring alone; two rings sharing a trunk; two rings with a trunk each. All
 *  start a 64 MiB ring all-reduce at time 0 (the sets share no link). */
std::vector<RingSet> contention_runs()
{
  sgai::sim::SimulationOptions so;
  so.simgrid_args = sgai::test::pure_cm02();
  so.host_energy  = false;
  so.link_energy  = false;
  sgai::sim::Simulation sim(so);
  auto* zone                = s4u::create_full_zone("rings");
  std::vector<RingSet> sets = {make_rings(zone, "alone", 1, 1), make_rings(zone, "shared", 2, 1),
                               make_rings(zone, "apart", 2, 2)};
  zone->seal();
  auto schedule = std::make_shared<const Schedule>(make_schedule(CollectiveType::all_reduce, Algorithm::ring, 8));
  std::vector<std::unique_ptr<CollectiveRun>> runs;
  for (auto& set : sets)
    for (size_t g = 0; g < set.rings.size(); g++) {
      runs.push_back(std::make_unique<CollectiveRun>(schedule, set.rings[g], 64 << 20, CollectiveOptions{}));
      CollectiveRun* run = runs.back().get();
      double* end        = &set.end[g];
      for (uint32_t r = 0; r < 8; r++)
        s4u::Actor::create("rank" + std::to_string(r), set.rings[g][r], [run, end, r]() {
          run->run_rank(r);
          *end = std::max(*end, s4u::Engine::get_clock());
        });
    }
  sim.run();
  return sets;
}

} // namespace

TEST(CollectivesSim, JobsSharingABottleneckTakeTwiceAsLongAndOthersAsLongAsAlone)
{
  auto sets    = contention_runs();
  double alone = sets[0].end[0];
  EXPECT_NEAR(alone, alpha_beta_time(CollectiveType::all_reduce, Algorithm::ring, 8, 64 << 20, kLatency, kBandwidth),
              1e-9);
  for (double t : sets[1].end)
    EXPECT_NEAR(t / alone, 2.0, 0.2) << "sharing a trunk: " << t << " s, alone " << alone << " s";
  for (double t : sets[2].end)
    EXPECT_NEAR(t / alone, 1.0, 0.01) << "sharing nothing: " << t << " s, alone " << alone << " s";
}
