/* Every shipped platform loads in a SimGrid Engine, built from its JSON and, where SimGrid XML
 * can describe it, from the generated XML; host counts and speeds match the hierarchy. */
#include "core/foundation/error.hpp"
#include "plugins/platform_sim/inspect.hpp"
#include "sim_helpers.hpp"

#include <gtest/gtest.h>

using namespace sgai;

namespace {

struct Case {
  std::string file;
  bool xml;
};

void PrintTo(const Case& c, std::ostream* os)
{
  *os << c.file << (c.xml ? " (XML)" : " (JSON)");
}

std::vector<Case> cases()
{
  std::vector<Case> out;
  for (const char* f :
       {"platforms/gaia.json", "platforms/mc2.json", "platforms/learning.json", "platforms/metacentrum2013.json",
        "platforms/hgx-h100.json", "platforms/hgx-h100-cluster.json", "platforms/hgx-h100-64.json",
        "platforms/tpu-v5e-pod.json", "tests/fixtures/platforms/tiny_flat.json",
        "tests/fixtures/platforms/tiny_gpu.json", "tests/fixtures/platforms/tiny_mixed.json",
        "tests/fixtures/platforms/tiny_fattree.json", "tests/fixtures/platforms/tiny_fattree_gpu.json",
        "tests/fixtures/platforms/tiny_torus.json", "tests/fixtures/platforms/tiny_dragonfly.json"})
    out.push_back({f, false});
  // The platforms SimGrid XML can describe (tests/unit/xml_test.cpp checks the others are refused).
  for (const char* f :
       {"platforms/gaia.json", "platforms/mc2.json", "platforms/learning.json", "platforms/metacentrum2013.json",
        "platforms/hgx-h100.json", "platforms/tpu-v5e-pod.json", "tests/fixtures/platforms/tiny_flat.json",
        "tests/fixtures/platforms/tiny_gpu.json", "tests/fixtures/platforms/tiny_mixed.json",
        "tests/fixtures/platforms/tiny_torus.json", "tests/fixtures/platforms/tiny_dragonfly.json"})
    out.push_back({f, true});
  return out;
}

std::string case_name(const ::testing::TestParamInfo<Case>& param_info)
{
  std::string n = std::filesystem::path(param_info.param.file).stem().string();
  for (auto& c : n)
    if (not std::isalnum(static_cast<unsigned char>(c)))
      c = '_';
  return n + (param_info.param.xml ? "_xml" : "_json");
}

} // namespace

class LoadPlatform : public ::testing::TestWithParam<Case> {};

TEST_P(LoadPlatform, HostsAndSpeedMatchTheHierarchy)
{
  platform::Platform p = platform::generate(GetParam().file);
  sim::Simulation s;
  if (GetParam().xml) {
    ASSERT_TRUE(platform::xml_limitation(p).empty()) << platform::xml_limitation(p);
    s.load_platform(test::write_temp_xml(p));
  } else {
    s.build_platform(p);
  }
  auto summary = platform_sim::summarize_engine();
  EXPECT_EQ(summary.hosts - summary.gateway_hosts, p.hosts.size());
  EXPECT_NEAR(summary.peak_flops, p.total_flops(), p.total_flops() * 1e-12);
  EXPECT_EQ(summary.hosts_without_wattage, 0U);
  auto [idle, full] = p.power_range_w();
  double link_idle = 0, link_full = 0;
  for (const auto& l : p.links)
    if (l.idle_w) {
      link_idle += (l.sharing == platform::Sharing::splitduplex ? 2 : 1) * *l.idle_w;
      link_full += (l.sharing == platform::Sharing::splitduplex ? 2 : 1) * *l.busy_w;
    }
  EXPECT_NEAR(summary.idle_w, idle - link_idle, 1e-6 * idle);
  EXPECT_NEAR(summary.max_w, full - link_full, 1e-6 * full);
  for (const auto& h : p.hosts) {
    auto* sh = simgrid::s4u::Host::by_name_or_null(h.name);
    ASSERT_NE(sh, nullptr) << h.name;
    EXPECT_EQ(sh->get_core_count(), p.class_of(h).cores);
    EXPECT_EQ(static_cast<int>(sh->get_pstate()), p.class_of(h).initial_pstate);
  }
}

INSTANTIATE_TEST_SUITE_P(Shipped, LoadPlatform, ::testing::ValuesIn(cases()), case_name);

TEST(LoadPlatform, HDeepRMFileUnchanged)
{
  SGAI_REQUIRE_SHARED_DATA();
  sim::Simulation s;
  auto p = s.load_platform(test::hdeeprm_platform("gaia"));
  ASSERT_TRUE(p);
  EXPECT_EQ(simgrid::s4u::Engine::get_instance()->get_host_count(), 2280U);
}

TEST(LoadPlatform, BadXmlIsAnInputError)
{
  sim::Simulation s;
  const auto& dir = test::temp_dir();
  auto file       = dir / "broken.xml";
  write_file_atomically(file, "<?xml version='1.0'?>\n<platform version=\"4.1\"><zone id=\"z\" routing=\"Full\">"
                              "<host id=\"h\" speed=\"fast\"/></zone></platform>\n");
  EXPECT_THROW(s.load_platform(file), InputError);
}
