/* Routes cross the links the platform description says, identically whether the platform was
 * built through S4U or loaded from the generated XML. */
#include "generators/platform/network.hpp"
#include "sim_helpers.hpp"

#include <gtest/gtest.h>

using namespace sgai;
namespace sg4 = simgrid::s4u;

namespace {

struct Case {
  std::string fixture;
  bool xml;
};

void PrintTo(const Case& c, std::ostream* os)
{
  *os << c.fixture << (c.xml ? " (XML)" : " (JSON)");
}

platform::Platform load(sim::Simulation& s, const std::string& file, bool xml)
{
  platform::Platform p = platform::generate(file);
  if (xml)
    s.load_platform(test::write_temp_xml(p));
  else
    s.build_platform(p);
  return p;
}

std::vector<double> bandwidths(const std::string& a, const std::string& b, std::vector<double>* latencies = nullptr)
{
  std::vector<sg4::Link*> links;
  double lat = 0;
  sg4::Host::by_name(a)->route_to(sg4::Host::by_name(b), links, &lat);
  std::vector<double> out;
  for (const auto* l : links) {
    out.push_back(l->get_bandwidth());
    if (latencies)
      latencies->push_back(l->get_latency());
  }
  return out;
}

} // namespace

class AllRoutes : public ::testing::TestWithParam<Case> {};

TEST_P(AllRoutes, MatchTheDescription)
{
  sim::Simulation s;
  auto p         = load(s, "tests/fixtures/platforms/" + GetParam().fixture + ".json", GetParam().xml);
  size_t checked = 0;
  for (uint32_t a = 0; a < p.hosts.size(); a++)
    for (uint32_t b = 0; b < p.hosts.size(); b++) {
      auto expected = platform::expected_route(p, a, b);
      if (not expected)
        continue;
      EXPECT_EQ(test::simgrid_route(p.hosts[a].name, p.hosts[b].name), *expected)
          << p.hosts[a].name << " -> " << p.hosts[b].name;
      checked++;
    }
  EXPECT_EQ(checked, p.hosts.size() * (p.hosts.size() - 1));
}

INSTANTIATE_TEST_SUITE_P(Fixtures, AllRoutes,
                         ::testing::Values(Case{"tiny_flat", false}, Case{"tiny_flat", true}, Case{"tiny_gpu", false},
                                           Case{"tiny_gpu", true}, Case{"tiny_mixed", false}, Case{"tiny_mixed", true},
                                           Case{"rails_2dgx", false}, Case{"leaves_2dgx_2to1", false},
                                           Case{"shared_nic_2node", false}, Case{"rails_2dgx_nopxn", false}),
                         [](const ::testing::TestParamInfo<Case>& param_info) {
                           return param_info.param.fixture + (param_info.param.xml ? "_xml" : "_json");
                         });

class GaiaRoute : public ::testing::TestWithParam<bool> {};

TEST_P(GaiaRoute, CoresOfTwoNodesCrossTheirNics)
{
  // gaia.json: local_links InfiniBand QDR (10.0Gbps), latency 0us.
  sim::Simulation s;
  load(s, "platforms/gaia.json", GetParam());
  EXPECT_EQ(test::simgrid_route("gaia_cluster-n0-p0-c0", "gaia_cluster-n5-p1-c3"),
            (std::vector<std::string>{"gaia_cluster-n0-nic_UP", "gaia_cluster-n5-nic_DOWN"}));
  std::vector<double> lat;
  EXPECT_EQ(bandwidths("gaia_cluster-n0-p0-c0", "gaia_cluster-n5-p1-c3", &lat), (std::vector<double>{1.25e9, 1.25e9}));
  EXPECT_EQ(lat, (std::vector<double>{0, 0}));
}

INSTANTIATE_TEST_SUITE_P(Both, GaiaRoute, ::testing::Values(false, true));

class Mc2Route : public ::testing::TestWithParam<bool> {};

TEST_P(Mc2Route, ClustersJoinThroughGlobalLinks)
{
  // mc2.json: Gigabit Ethernet local and global links.
  sim::Simulation s;
  load(s, "platforms/mc2.json", GetParam());
  EXPECT_EQ(test::simgrid_route("ajax_cluster-n0-p0-c0", "zewura_cluster-n3-p7-c9"),
            (std::vector<std::string>{"ajax_cluster-n0-nic_UP", "ajax_cluster-global_UP", "mc2-switch",
                                      "zewura_cluster-global_DOWN", "zewura_cluster-n3-nic_DOWN"}));
  for (double bw : bandwidths("ajax_cluster-n0-p0-c0", "zewura_cluster-n3-p7-c9"))
    EXPECT_EQ(bw, 1.25e8);
}

INSTANTIATE_TEST_SUITE_P(Both, Mc2Route, ::testing::Values(false, true));

TEST(FatTreeRoute, LevelsKeepTheirOwnLinks)
{
  sim::Simulation s;
  load(s, "tests/fixtures/platforms/tiny_fattree.json", false);
  std::vector<double> lat;
  // two leaf switches apart: level 1 (Net100: 12.5 GB/s, 1 us), level 2 (Net400: 50 GB/s, 2 us)
  EXPECT_EQ(bandwidths("ft-n0", "ft-n7", &lat), (std::vector<double>{12.5e9, 50e9, 50e9, 12.5e9}));
  EXPECT_EQ(lat, (std::vector<double>{1e-6, 2e-6, 2e-6, 1e-6}));
  EXPECT_EQ(bandwidths("ft-n0", "ft-n1").size(), 2U); // same leaf switch
}

TEST(FatTreeRoute, GpuNodesAreLeaves)
{
  sim::Simulation s;
  load(s, "platforms/hgx-h100-cluster.json", false);
  auto r = test::simgrid_route("hgx-n0-gpu0", "hgx-n31-gpu5");
  ASSERT_EQ(r.size(), 6U);
  EXPECT_EQ(r.front(), "hgx-n0-gpu0-pcie_UP");
  EXPECT_EQ(r.back(), "hgx-n31-gpu5-pcie_DOWN");
  auto bw = bandwidths("hgx-n0-gpu0", "hgx-n31-gpu5");
  EXPECT_EQ(bw, (std::vector<double>{63e9, 400e9, 400e9, 400e9, 400e9, 63e9}));
  // inside a node, GPUs talk over NVSwitch
  EXPECT_EQ(test::simgrid_route("hgx-n3-gpu1", "hgx-n3-gpu6"),
            (std::vector<std::string>{"hgx-n3-gpu1-nvlink_UP", "hgx-n3-gpu6-nvlink_DOWN"}));
}

TEST(TorusRoute, HopsFollowTheTorus)
{
  sim::Simulation s;
  load(s, "platforms/tpu-v5e-pod.json", false);
  for (double bw : bandwidths("pod-n0-gpu0", "pod-n10-gpu0"))
    EXPECT_EQ(bw, 50e9);
  EXPECT_EQ(bandwidths("pod-n0-gpu0", "pod-n1-gpu0").size(), 1U);
  EXPECT_EQ(bandwidths("pod-n0-gpu0", "pod-n3-gpu0").size(), 1U); // wrap-around in a ring of 4
}
