/* ASTRA-sim input files: the shared configurations read, and every bogus fixture in
 * tests/fixtures/astra rejected with its message (file, place, value, what was expected). */
#include "core/foundation/error.hpp"
#include "plugins/replay/astra_inputs.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <functional>

using namespace sgai::replay;
using namespace sgai::collectives;
using namespace sgai::communicator;
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
  EXPECT_EQ(sys.ignored.size(), 2U); // scheduling-policy, boost-mode
  EXPECT_EQ(sys.all_reduce_composition, AllReduceComposition::local_bw_aware);
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
      {"bogus_utf16.yml", "byte 0: not UTF-8 text (a UTF-16 or UTF-32 byte-order mark)"},
      {"bogus_dup_key.yml", "line 5: duplicate key 'npus_count' (first at line 2)"},
      {"bogus_tabs.yml", "line 2: a tab in the indentation (YAML indents with spaces only)"},
  };
  for (const auto& [file, message] : yaml) {
    auto msg = error_of([&, file = file]() { read_network_yaml(dir + file); });
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
      {"bogus_scheduling.json",
       "at /scheduling-policy: unknown value 'RANDOM' (expected one of: 'LIFO', 'FIFO', 'EXPLICIT')"},
      {"bogus_optimization.json",
       "at /collective-optimization: unknown value 'fast' (expected one of: 'baseline', 'localBWAware')"},
      {"bogus_boost.json", "at /boost-mode: value 2 out of range: expected a whole number between 0 and 1"},
      {"bogus_delay.json", "at /endpoint-delay: value 1e+308 out of range: expected a number >= 0 and <= 1e+09 (ns)"},
      {"bogus_membw_huge.json", "at /local-mem-bw: value 1000000000000.0 out of range: expected a number > 0 and <= "
                                "1e+06 (GB/s)"},
  };
  for (const auto& [file, message] : system) {
    auto msg = error_of([&, file = file]() { read_system_json(dir + file); });
    EXPECT_NE(msg.find(dir + file + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << file << ": " << msg;
  }
  const std::vector<std::pair<std::string, std::string>> groups = {
      {"bogus_groups_duplicate.json", "at /0/2: rank 1 appears twice in group '0'"},
      {"bogus_groups_empty.json", "at /1: group '1' has no rank"},
      {"bogus_groups_negative.json", "at /0/1"},
      {"bogus_groups_key.json", "at /-1: group id '-1' is neither a whole number >= 0 (ASTRA-sim's ids) nor a name"},
  };
  for (const auto& [file, message] : groups) {
    auto msg = error_of([&, file = file]() { read_comm_groups(dir + file); });
    EXPECT_NE(msg.find(dir + file + ": "), std::string::npos) << msg;
    EXPECT_NE(msg.find(message), std::string::npos) << file << ": " << msg;
  }
}

namespace {
std::filesystem::path write_temp(const std::string& name, const std::string& text)
{
  auto p = sgai::test::temp_dir() / name;
  std::ofstream(p, std::ios::binary) << text;
  return p;
}
} // namespace

TEST(AstraInputs, StrictButNotStricterThanYamlAndAstraSim)
{
  const std::string net = "topology: [ Ring ]\nnpus_count: [ 8 ]\nbandwidth: [ 50 ]\nlatency: [ 500 ]\n";
  // a UTF-8 byte-order mark, tabs after a line's first character (before a comment), CRLF lines
  EXPECT_EQ(read_network_yaml(write_temp("bom.yml", "\xef\xbb\xbf" + net)).size(), 1U);
  EXPECT_EQ(read_network_yaml(write_temp("tab.yml", "topology: [ Ring ]\t# one\nnpus_count:\t[ 8 ]\nbandwidth: [ 50 "
                                                    "]\nlatency: [ 500 ]\n\t\n  \t# a comment\n"))
                .size(),
            1U);
  EXPECT_EQ(read_network_yaml(write_temp("crlf.yml", "topology: [ Ring ]\r\nnpus_count: [ 8 ]\r\nbandwidth: [ 50 "
                                                     "]\r\nlatency: [ 500 ]\r\n"))
                .size(),
            1U);
  EXPECT_NE(error_of([&]() {
              read_network_yaml(write_temp("nul.yml", net + std::string(1, '\0')));
            }).find("line 5: not UTF-8 text (a NUL byte at byte 72)"),
            std::string::npos);
  EXPECT_NE(error_of([&]() {
              read_network_yaml(write_temp("latin1.yml", "# caf\xe9\n" + net));
            }).find("line 1: not UTF-8 text (a malformed byte sequence at byte 5)"),
            std::string::npos);
  EXPECT_NE(error_of([&]() {
              read_network_yaml(write_temp("tabitem.yml", "topology:\n\t- Ring\n"));
            }).find("line 2: a tab in the indentation"),
            std::string::npos);
  // ASTRA-sim's values of the keys sgai does not model
  auto sys = read_system_json(write_temp("sys.json", R"({"scheduling-policy": "EXPLICIT", "collective-optimization":
      "baseline", "boost-mode": 1, "track-local-mem": 0, "local-mem-trace-filename": "trace", "endpoint-delay": 0,
      "local-mem-bw": 1e6, "peak-perf": 1e6})"));
  EXPECT_EQ(sys.ignored.size(), 4U);
  EXPECT_EQ(sys.all_reduce_composition, AllReduceComposition::baseline);
  EXPECT_EQ(read_system_json(write_temp("sys0.json", "{}")).all_reduce_composition,
            AllReduceComposition::baseline); // ASTRA-sim's when the key is absent
  EXPECT_DOUBLE_EQ(sys.local_mem_bw_Bps, 1e15);
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"scheduling-policy": -1})", "at /scheduling-policy: expected one of 'LIFO', 'FIFO', 'EXPLICIT'"},
           {R"({"scheduling-policy": "lifo"})", "unknown value 'lifo'"},
           {R"({"collective-optimization": {}})", "at /collective-optimization: expected one of 'baseline'"},
           {R"({"boost-mode": "abc"})", "at /boost-mode: expected 0 or 1, got 'abc'"},
           {R"({"boost-mode": 0.5})", "at /boost-mode: value 0.5 is not a whole number"},
           {R"({"track-local-mem": 2})", "at /track-local-mem: value 2 out of range"},
           {R"({"endpoint-delay": -1})", "at /endpoint-delay: value -1 out of range"},
           {R"({"endpoint-delay": "10ns"})",
            "at /endpoint-delay: expected a number >= 0 and <= 1e+09 (ns), got '10ns'"},
           {R"({"local-mem-bw": 0})", "at /local-mem-bw: value 0 out of range: expected a number > 0"},
           {R"({"peak-perf": 1e300})", "at /peak-perf: value 1e+300 out of range"},
       }) {
    auto msg = error_of([&, text = text]() { read_system_json(write_temp("bad.json", text)); });
    EXPECT_NE(msg.find(message), std::string::npos) << text << ": " << msg;
  }
  // group ids: ASTRA-sim's whole numbers, and names (sgai's generator, hashed PyTorch groups)
  auto groups = read_comm_groups(
      write_temp("groups.json", R"({"0": [0], "2147483647": [1], "dp_s0_t0": [0, 1], "2c62a9.ptd:1-x": [1]})"));
  EXPECT_EQ(groups.size(), 4U);
  for (const auto& [text, message] : std::vector<std::pair<std::string, std::string>>{
           {R"({"01": [0]})", "at /01: group id '01' is not a whole number from 0 to 2147483647 without leading zero"},
           {R"({"2147483648": [0]})", "at /2147483648: group id '2147483648' is not a whole number"},
           {R"({"99999999999999999999999": [0]})", "is not a whole number from 0"},
           {R"({"": [0]})", "group id '' is neither"},
           {R"({"+1": [0]})", "group id '+1' is neither"},
           {R"({"a b": [0]})", "group id 'a b' is neither"},
       }) {
    auto msg = error_of([&, text = text]() { read_comm_groups(write_temp("bad_groups.json", text)); });
    EXPECT_NE(msg.find(message), std::string::npos) << text << ": " << msg;
  }
}
