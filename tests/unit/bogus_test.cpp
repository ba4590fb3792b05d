/* Every bogus_* fixture is rejected with one message naming the file, the place, the value and
 * what was expected. */
#include "generators/platform/platform.hpp"
#include "generators/util/error.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <set>

using namespace sgai::platform;

namespace {

struct Bogus {
  const char* file;
  std::vector<std::string> expected; ///< substrings of the message, after "<file>: "
};

void PrintTo(const Bogus& b, std::ostream* os)
{
  *os << b.file;
}

const std::vector<Bogus>& cases()
{
  static const std::vector<Bogus> c = {
      {"bogus_unknown_key.json", {"at /clusters/0/nodez: unknown key 'nodez'", "accepted keys here: 'id', 'nodes'"}},
      {"bogus_unknown_node_type.json",
       {"at /clusters/0/nodes/0/type: unknown node type 'Bullx X'", "known: 'Accel', 'Duo'"}},
      {"bogus_missing_field.json", {"at /clusters/0: missing field 'id'"}},
      {"bogus_zero_count.json", {"at /clusters/0/nodes/0/number: value 0 out of range", "between 1 and"}},
      {"bogus_node_count_type.json", {"at /clusters/0/nodes/0/number: expected a whole number, got 'two'"}},
      {"bogus_negative_bandwidth.json", {"at /clusters/0/local_links/bandwidth: bandwidth '-10Gbps' must be positive"}},
      {"bogus_bad_unit.json",
       {"at /clusters/0/local_links/bandwidth: malformed bandwidth '10Gbsp'", "such as '10Gbps'", "units: bps"}},
      {"bogus_bad_latency.json", {"at /clusters/0/local_links/latency: malformed time '5 parsecs'", "units: w, d, h"}},
      {"bogus_duplicate_cluster.json", {"at /clusters/1/id: duplicate cluster id 'a'"}},
      {"bogus_duplicate_key.json", {"at /clusters/0/id: duplicate key 'id'"}},
      {"bogus_duplicate_type.json", {"at /types/processor_types/P2: duplicate processor type 'P2'", "tiny_types.json"}},
      {"bogus_fattree_size.json",
       {"at /clusters/0/topology/levels: the fat tree's levels hold 4 x 2 = 8 nodes", "the cluster has 6 nodes"}},
      {"bogus_torus_size.json", {"at /clusters/0/topology/dimensions: the torus dimensions 2 x 2 = 4", "has 5 nodes"}},
      {"bogus_dragonfly_size.json", {"at /clusters/0/topology: the dragonfly holds 2 groups", "= 16 nodes", "has 10"}},
      {"bogus_version.json", {"at /sgai_platform: unsupported platform version 2"}},
      {"bogus_syntax.json", {"line 4, column 74: invalid JSON"}},
      {"bogus_missing_catalogue.json", {"at /catalogues/0: catalogue 'no_such_types.json' not found"}},
      {"bogus_unknown_network.json",
       {"at /clusters/0/local_links/type: unknown network type 'Myrinet'", "known: 'Net10'"}},
      {"bogus_zero_clock.json", {"at /types/processor_types/Slow/clock_rate: value 0 must be positive"}},
      {"bogus_unknown_processor.json",
       {"at /types/node_types/N/processors/0/type: unknown processor type 'Xeon Nope'"}},
      {"bogus_gpu_precision.json", {"at /types/gpu_types/G/peak_flops/fp4: unknown precision 'fp4'", "'fp16'"}},
      {"bogus_gpu_architecture.json", {"at /types/gpu_types/G/architecture:", "'turing'", "'hopper'"}},
      {"bogus_effective_bandwidth.json",
       {"at /types/interconnect_types/X/effective_bandwidth: effective_bandwidth '500GBps' exceeds the bandwidth"}},
      {"bogus_nvls_efficiency.json",
       {"at /types/interconnect_types/X/nvls_efficiency: nvls_efficiency is in-switch reduction: only an nvswitch"}},
      {"bogus_nvls_efficiency_range.json",
       {"at /types/interconnect_types/X/nvls_efficiency: nvls_efficiency 1.5 is not a fraction in (0, 1]"}},
      {"bogus_gpu_memory_speed.json",
       {"at /types/gpu_types/G/pstates/1/memory_speed: memory_speed 1.2 must be a fraction of the memory bandwidth"}},
      {"bogus_initial_pstate.json", {"at /energy/initial_pstate: unknown P-state 'turbo'", "'active'", "'idle'"}},
      {"bogus_name_escape.json", {"at /name: '../../escaped' contains a path separator", "may not choose a folder"}},
      {"bogus_name_absolute.json", {"at /name: '/tmp/sgai-escaped' contains a path separator"}},
      {"bogus_cluster_id_control.json", {"at /clusters/0/id: cluster id", "holds a control character (byte 1)"}},
      {"bogus_huge_clock.json", {"at /types/processor_types/P/clock_rate: value 1e+308 is above 1e12 Hz"}},
      {"bogus_hdeeprm_extra_key.json", {"at /granularity: unknown key 'granularity'", "'clusters', 'global_links'"}},
      {"bogus_too_large.json",
       {"at /clusters/0/nodes/0/number: the platform grows beyond 10000000 SimGrid hosts", "16000000 nodes"}},
  };
  return c;
}

} // namespace

class BogusPlatform : public ::testing::TestWithParam<Bogus> {};

TEST_P(BogusPlatform, IsRejectedWithItsMessage)
{
  auto path = sgai::test::fixture("platforms") / GetParam().file;
  LoadOptions o;
  if (std::string(GetParam().file).find("hdeeprm") != std::string::npos) {
    SGAI_REQUIRE_SHARED_DATA();
    o.catalogues.push_back(sgai::test::hdeeprm_types());
  }
  try {
    generate(path, o);
    FAIL() << GetParam().file << " was accepted";
  } catch (const sgai::InputError& e) {
    std::string msg = e.what();
    EXPECT_EQ(msg.find('\n'), std::string::npos) << "one line: " << msg;
    for (const auto& part : GetParam().expected)
      EXPECT_NE(msg.find(part), std::string::npos) << "'" << part << "' not in: " << msg;
    bool names_file =
        msg.find(GetParam().file) != std::string::npos || msg.find("tiny_types.json") != std::string::npos;
    EXPECT_TRUE(names_file) << msg;
  }
}

INSTANTIATE_TEST_SUITE_P(Fixtures, BogusPlatform, ::testing::ValuesIn(cases()),
                         [](const ::testing::TestParamInfo<Bogus>& param_info) {
                           std::string n = param_info.param.file;
                           n             = n.substr(6, n.size() - 11); // bogus_<name>.json
                           return n;
                         });

TEST(BogusPlatform, EveryBogusFixtureHasACase)
{
  std::set<std::string> listed;
  for (const auto& c : cases())
    listed.insert(c.file);
  for (const auto& entry : std::filesystem::directory_iterator(sgai::test::fixture("platforms"))) {
    std::string name = entry.path().filename().string();
    if (name.rfind("bogus_", 0) == 0 && entry.path().extension() == ".json") { // XML ones: CLI tests
      EXPECT_TRUE(listed.count(name)) << name << " has no test case";
    }
  }
  EXPECT_GE(listed.size(), 10U);
}
