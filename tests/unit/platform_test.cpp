/* Platform generation without an Engine: counts, speeds, wattages and names against the inputs. */
#include "core/foundation/error.hpp"
#include "generators/platform/network.hpp"
#include "generators/platform/platform.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>

using namespace sgai::platform;
using sgai::test::fixture;
using sgai::test::hdeeprm_platform;
using sgai::test::hdeeprm_types;

namespace {

/** Cores and peak speed of an HDeepRM platform computed straight from its JSON files. */
std::pair<uint64_t, double> hdeeprm_expected(const std::string& name)
{
  auto load = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return nlohmann::json::parse(in);
  };
  auto plat      = load(hdeeprm_platform(name));
  auto nodes     = load(hdeeprm_types() / "node_types.json");
  auto procs     = load(hdeeprm_types() / "processor_types.json");
  uint64_t cores = 0;
  double flops   = 0;
  for (const auto& c : plat["clusters"])
    for (const auto& g : c["nodes"])
      for (const auto& p : nodes[g["type"].get<std::string>()]["processors"]) {
        const auto& pt = procs[p["type"].get<std::string>()];
        uint64_t n     = g["number"].get<uint64_t>() * p["number"].get<uint64_t>() * pt["cores"].get<uint64_t>();
        cores += n;
        flops += static_cast<double>(n) * pt["clock_rate"].get<double>() * 1e9 * pt["dpflops_per_cycle"].get<double>();
      }
  return {cores, flops};
}

} // namespace

class HDeepRMPlatforms : public ::testing::TestWithParam<std::string> {};

TEST_P(HDeepRMPlatforms, ReadUnchangedAndMatchTheirHierarchy)
{
  SGAI_REQUIRE_SHARED_DATA();
  Platform p          = generate(hdeeprm_platform(GetParam()));
  auto [cores, flops] = hdeeprm_expected(GetParam());
  EXPECT_EQ(p.core_count(), cores);
  EXPECT_EQ(p.hosts.size(), cores); // HDeepRM style: one host per core
  EXPECT_NEAR(p.total_flops(), flops, flops * 1e-12);
  EXPECT_TRUE(xml_limitation(p).empty());
}

INSTANTIATE_TEST_SUITE_P(All, HDeepRMPlatforms, ::testing::Values("gaia", "mc2", "learning", "das2", "pik", "ricc"));

TEST(Platform, GaiaHas2280CoreHosts)
{
  SGAI_REQUIRE_SHARED_DATA();
  Platform p = generate(hdeeprm_platform("gaia"));
  EXPECT_EQ(p.hosts.size(), 2280U);
  EXPECT_EQ(p.nodes.size(), 153U);
  EXPECT_EQ(p.clusters.size(), 1U);
}

TEST(Platform, ShippedPlatformsMatchTheirSources)
{
  SGAI_REQUIRE_SHARED_DATA();
  // The converted copies in platforms/ expand exactly like HDeepRM's originals.
  for (const char* name : {"gaia", "mc2", "learning"}) {
    Platform a = generate(std::filesystem::path("platforms") / (std::string(name) + ".json"));
    Platform b = generate(hdeeprm_platform(name));
    ASSERT_EQ(a.hosts.size(), b.hosts.size()) << name;
    EXPECT_EQ(a.total_flops(), b.total_flops()) << name;
    for (size_t i = 0; i < a.hosts.size(); i++)
      EXPECT_EQ(a.hosts[i].name, b.hosts[i].name);
  }
  Platform mc = generate("platforms/metacentrum2013.json");
  EXPECT_EQ(mc.clusters.size(), 20U);
  EXPECT_EQ(mc.nodes.size(), 495U);
  EXPECT_EQ(mc.core_count(), 8412U);
}

TEST(Platform, GranularityChangesHostsNotCores)
{
  SGAI_REQUIRE_SHARED_DATA();
  LoadOptions o;
  for (auto [g, hosts] :
       {std::pair{Granularity::core, 2280U}, {Granularity::processor, 342U}, {Granularity::node, 153U}}) {
    o.granularity = g;
    Platform p    = generate(hdeeprm_platform("gaia"), o);
    EXPECT_EQ(p.hosts.size(), hosts);
    EXPECT_EQ(p.core_count(), 2280U);
    EXPECT_NEAR(p.total_flops(), generate(hdeeprm_platform("gaia")).total_flops(), 1e3);
  }
}

TEST(Platform, CorePStatesFollowHDeepRM)
{
  // tiny_types: P2 = 2 cores at 1 GHz x 4 flops/cycle, 20 W TDP -> 10 W per core.
  Platform p         = generate(fixture("platforms/tiny_flat.json"));
  const HostClass& c = p.class_of(p.hosts[0]);
  ASSERT_EQ(c.pstates.size(), 3U);
  EXPECT_EQ(p.cpu_pstate_names, (std::vector<std::string>{"idle", "active", "membw_limited"}));
  EXPECT_EQ(c.initial_pstate, 0);
  EXPECT_DOUBLE_EQ(c.pstates[0].speed_flops, 4e9);
  EXPECT_DOUBLE_EQ(c.pstates[1].speed_flops, 4e9);
  EXPECT_DOUBLE_EQ(c.pstates[2].speed_flops, 3e9);
  EXPECT_DOUBLE_EQ(c.pstates[0].idle_w, 0.5);
  EXPECT_DOUBLE_EQ(c.pstates[1].idle_w, 2.5);
  EXPECT_DOUBLE_EQ(c.pstates[1].all_cores_w, 10);
  EXPECT_DOUBLE_EQ(c.pstates[2].all_cores_w, 10);
}

TEST(Platform, ProcessorHostsInterpolateBetweenIdleAndFull)
{
  LoadOptions o;
  o.granularity      = Granularity::processor;
  Platform p         = generate(fixture("platforms/tiny_flat.json"), o);
  const HostClass& c = p.class_of(p.hosts[0]); // P2: 20 W for 2 cores
  EXPECT_EQ(c.cores, 2);
  EXPECT_DOUBLE_EQ(c.pstates[1].idle_w, 5);    // active: 25% of 20 W
  EXPECT_DOUBLE_EQ(c.pstates[1].epsilon_w, 5); // k busy cores of 2: 5 + k/2 x 15 W
  EXPECT_DOUBLE_EQ(c.pstates[1].all_cores_w, 20);
}

TEST(Platform, GpuHostsCarryTheirFigures)
{
  Platform p = generate(fixture("platforms/tiny_gpu.json"));
  ASSERT_EQ(p.gpus.size(), 4U);
  const HostDesc& g  = p.hosts[p.gpus[0].host];
  const HostClass& c = p.class_of(g);
  EXPECT_EQ(g.name, "g-n0-gpu0");
  ASSERT_EQ(c.pstates.size(), 2U);
  EXPECT_DOUBLE_EQ(c.pstates[0].speed_flops, 40e12); // default precision fp16
  EXPECT_DOUBLE_EQ(c.pstates[1].speed_flops, 20e12);
  EXPECT_DOUBLE_EQ(c.pstates[0].idle_w, 50);
  EXPECT_DOUBLE_EQ(c.pstates[1].all_cores_w, 150);
  bool found = false;
  for (const auto& [k, v] : c.properties)
    found = found || (k == "sgai_peak_flops_fp32" && v == "1e+13");
  EXPECT_TRUE(found);
}

TEST(Platform, NodeGranularityRejectsMixedSpeeds)
{
  SGAI_REQUIRE_SHARED_DATA();
  LoadOptions o;
  o.granularity = Granularity::node;
  try {
    generate(hdeeprm_platform("learning"), o);
    FAIL() << "expected an error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("mixes processors of different speeds"), std::string::npos) << e.what();
  }
}

TEST(Platform, ExpectedRoutesFollowTheDescription)
{
  Platform p = generate(fixture("platforms/tiny_flat.json"));
  auto host  = [&](const std::string& n) {
    for (uint32_t i = 0; i < p.hosts.size(); i++)
      if (p.hosts[i].name == n)
        return i;
    throw std::runtime_error("no host " + n);
  };
  EXPECT_EQ(*expected_route(p, host("alpha-n0-p0-c0"), host("alpha-n1-p0-c1")),
            (std::vector<std::string>{"alpha-n0-nic_UP", "alpha-n1-nic_DOWN"}));
  EXPECT_EQ(*expected_route(p, host("alpha-n0-p0-c0"), host("beta-n0-p1-c3")),
            (std::vector<std::string>{"alpha-n0-nic_UP", "alpha-global_UP", "tiny_flat-switch", "beta-global_DOWN",
                                      "beta-n0-nic_DOWN"}));
}
