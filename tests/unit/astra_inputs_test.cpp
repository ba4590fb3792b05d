/* ASTRA-sim input files: the shared configurations read, and every bogus fixture in
 * tests/fixtures/astra rejected with its message (file, place, value, what was expected). */
#include "generators/util/error.hpp"
#include "plugins/replay/astra_inputs.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <functional>

using namespace sgai::replay;
using sgai::test::error_of;

TEST(AstraInputs, SharedConfigurationsRead)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto base = sgai::test::shared_data("astra-sim");
  auto ring = read_network_yaml(base / "tests/rt_template/inputs/network_cfg.yml");
  ASSERT_EQ(ring.size(), 1U);
  EXPECT_EQ(ring[0].kind, Dimension::Kind::ring);
  EXPECT_EQ(ring[0].npus, 8U);
  EXPECT_DOUBLE_EQ(ring[0].bandwidth_Bps, 50.0 * (1 << 30)); // ASTRA-sim's GB/s are 2^30 B/s
  EXPECT_DOUBLE_EQ(ring[0].latency_s, 500e-9);
  auto torus = read_network_yaml(base / "inputs/network/tpu_v3_32_2dtorus.yml");
  ASSERT_EQ(torus.size(), 2U);
  EXPECT_EQ(torus[0].npus * torus[1].npus, 32U);
  auto sys = read_system_json(base / "tests/rt_template/inputs/system_cfg.json");
  EXPECT_EQ(sys.chunks, 4U);
  EXPECT_EQ(sys.active_chunks, 1U);
  EXPECT_DOUBLE_EQ(sys.endpoint_delay_s, 10e-9);
  EXPECT_DOUBLE_EQ(sys.local_mem_bw_Bps, 50e9);
  EXPECT_EQ(sys.implementations.at(CollectiveType::all_to_all), std::vector<Algorithm>{Algorithm::ring});
  EXPECT_EQ(sys.ignored.size(), 3U); // scheduling-policy, collective-optimization, boost-mode
  auto h100 = read_system_json(base / "inputs/system/analytical/hgx_h100_8gpu.json");
  EXPECT_EQ(h100.active_chunks, 2U);
  EXPECT_DOUBLE_EQ(h100.local_mem_bw_Bps, 3350e9);
  EXPECT_TRUE(h100.roofline);
  EXPECT_DOUBLE_EQ(h100.peak_flops, 700e12);
}

TEST(AstraInputs, EveryBogusFixtureIsRejectedWithItsMessage)
{
  const std::string dir                                       = "tests/fixtures/astra/";
  const std::vector<std::pair<std::string, std::string>> yaml = {
      {"bogus_topology.yml", "line 1: topology[1] 'Torus' is not Ring, Switch or FullyConnected"},
      {"bogus_units.yml", "line 3: bandwidth[0] '50Gbps' is not a number"},
      {"bogus_dimensions.yml", "line 2: 'npus_count' has 2 entries for 1 dimensions in 'topology'"},
      {"bogus_zero_npus.yml", "npus_count[0] '0' is not a whole number of NPUs >= 1"},
      {"bogus_bandwidth.yml", "bandwidth[0] '-50' must be positive (GB/s)"},
      {"bogus_latency.yml", "latency[0] '-1' must be >= 0 (ns)"},
      {"bogus_key.yml", "line 3: unknown key 'bandwith' (known: topology, npus_count, bandwidth, latency)"},
      {"bogus_missing.yml", "missing key 'latency'"},
      {"bogus_syntax.yml", "not valid YAML"},
  };
  for (const auto& [file, message] : yaml) {
    auto msg = error_of([&]() { read_network_yaml(dir + file); });
    EXPECT_NE(msg.find(dir + file + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << file << ": " << msg;
  }
  const std::vector<std::pair<std::string, std::string>> system = {
      {"bogus_implementation.json",
       "at /all-reduce-implementation/1: unknown implementation 'butterfly' (known: ring, direct, halvingDoubling, "
       "doubleBinaryTree)"},
      {"bogus_splits.json", "at /preferred-dataset-splits"},
      {"bogus_key.json", "unknown key 'preferred-dataset-split'"},
      {"bogus_custom.json", "custom collective implementations (ETs per rank) are not supported yet"},
      {"bogus_membw.json", "at /local-mem-bw"},
  };
  for (const auto& [file, message] : system) {
    auto msg = error_of([&]() { read_system_json(dir + file); });
    EXPECT_NE(msg.find(dir + file + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << file << ": " << msg;
  }
  const std::vector<std::pair<std::string, std::string>> groups = {
      {"bogus_groups_duplicate.json", "at /0/2: rank 1 appears twice in group '0'"},
      {"bogus_groups_empty.json", "at /1: group '1' has no rank"},
      {"bogus_groups_negative.json", "at /0/1"},
  };
  for (const auto& [file, message] : groups) {
    auto msg = error_of([&]() { read_comm_groups(dir + file); });
    EXPECT_NE(msg.find(message), std::string::npos) << file << ": " << msg;
  }
}
