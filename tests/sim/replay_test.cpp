/* Trace replay end to end: ASTRA-sim's reference, the MLCommons trace with its Perfetto timeline,
 * energy against its formula and under a power cap, and traces that disagree or deadlock. */
#include "../unit/dlrm_fixture.hpp"
#include "chakra/builder.hpp"
#include "chakra/et_io.hpp"
#include "chakra/generate.hpp"
#include "chakra/visualize.hpp"
#include "core/foundation/error.hpp"
#include "plugins/gpu/gpu.hpp"
#include "plugins/replay/run.hpp"
#include "sim_helpers.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <sstream>

using namespace sgai::replay;
using namespace sgai::kernels;
using namespace sgai::gpu;
using namespace sgai::communicator;
using namespace sgai::collectives;
using sgai::chakra::CollectiveType;
using sgai::chakra::TraceBuilder;

namespace {

std::filesystem::path write(const std::string& name, const std::string& text)
{
  auto path = sgai::test::temp_dir() / name;
  sgai::write_file_atomically(path, text);
  return path;
}

std::filesystem::path ring_yaml(uint32_t npus)
{
  return write("ring" + std::to_string(npus) + ".yml", "topology: [ Ring ]\nnpus_count: [ " + std::to_string(npus) +
                                                           " ]\nbandwidth: [ 50.0 ]\nlatency: [ 500.0 ]\n");
}

std::filesystem::path plain_system()
{
  return write("system.json", R"({"preferred-dataset-splits": 1, "all-reduce-implementation": ["ring"],
 "all-gather-implementation": ["ring"], "reduce-scatter-implementation": ["ring"], "all-to-all-implementation": ["ring"]})");
}

/** `traces` written as the workload "w" of the test folder `name`, to replay on `network` with
 *  `system`, links shared (`aware`) or not (ASTRA-sim's congestion-unaware backend). */
AstraRunOptions traces_on(const std::string& name, const std::vector<sgai::chakra::Trace>& traces,
                          std::filesystem::path system, std::filesystem::path network, bool aware)
{
  auto dir = sgai::test::temp_dir() / name;
  sgai::chakra::write_workload(dir, "w", traces);
  AstraRunOptions o;
  o.workloads        = {(dir / "w").string()};
  o.system           = std::move(system);
  o.network          = std::move(network);
  o.congestion_aware = aware;
  o.out              = dir / "out";
  return o;
}

/** [Ring 4 (50 GB/s, 500 ns), Ring 2 (10 GB/s, 5 us)]: eight NPUs on two dimensions. */
std::filesystem::path two_ring_dimensions(const std::string& name)
{
  return write(
      name + "_net.yml",
      "topology: [ Ring, Ring ]\nnpus_count: [ 4, 2 ]\nbandwidth: [ 50.0, 10.0 ]\nlatency: [ 500.0, 5000.0 ]\n");
}

std::string error_of(const AstraRunOptions& o)
{
  try {
    run_astra(o);
  } catch (const std::exception& e) {
    return e.what();
  }
  return "no error";
}

/** energy.csv as name -> joules. */
std::map<std::string, double> energy_of(const std::filesystem::path& dir)
{
  std::map<std::string, double> out;
  std::ifstream in(dir / "energy.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto a = line.find(','), b = line.rfind(',');
    out[line.substr(a + 1, b - a - 1)] = std::stod(line.substr(b + 1));
  }
  return out;
}

} // namespace

TEST(Replay, AstraSimReferenceRingAllReduce)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto base = sgai::test::shared_data("astra-sim");
  AstraRunOptions o;
  o.workloads = {(base / "examples/workload/microbenchmarks/all_reduce/8npus_1MB/all_reduce").string()};
  o.system    = base / "tests/rt_template/inputs/system_cfg.json";
  o.network   = base / "tests/rt_template/inputs/network_cfg.yml";
  o.out       = sgai::test::temp_dir() / "rt";
  auto r      = run_astra(o);
  // ASTRA-sim 2's reference: 117,780 ns on every rank (tests/rt_template/refs/stdout.txt); the
  // difference is its rounding of every message and reduction to whole nanoseconds.
  EXPECT_NEAR(r.makespan_s * 1e9, 117780, 117780 * 0.01);
  ASSERT_EQ(r.ranks.size(), 8U);
  for (const auto& x : r.ranks)
    EXPECT_NEAR(x.end_s, r.makespan_s, 1e-12);
  ASSERT_EQ(r.collectives.size(), 1U);
  EXPECT_EQ(r.collectives[0].algorithm, "ring");
  EXPECT_EQ(r.collectives[0].bytes, 1048576U);
  EXPECT_TRUE(std::filesystem::exists(o.out / "collectives.csv"));
  // links.csv: each ring link carries one direction, 4 chunks x 14 messages of 32 KiB: bytes, and
  // the time they take at the link's bandwidth
  std::ifstream links(o.out / "links.csv");
  std::string line;
  int up = 0;
  while (std::getline(links, line))
    if (line.find("_UP,") != std::string::npos) {
      auto a = line.find(',', line.find(',') + 1), b = line.find(',', a + 1), c = line.find(',', b + 1);
      EXPECT_DOUBLE_EQ(std::stod(line.substr(a + 1, b - a - 1)), 56 * 32768.0) << line;
      EXPECT_NEAR(std::stod(line.substr(b + 1, c - b - 1)), 56 * 32768 / (50.0 * (1 << 30)), 1e-12) << line;
      up++;
    }
  EXPECT_EQ(up, 8);
}

TEST(Replay, MlcommonsTraceReplaysAndItsTimelineIsAChromeTrace)
{
  SGAI_REQUIRE_SHARED_DATA();
  AstraRunOptions o;
  o.workloads      = {sgai::test::shared_data("chakra/mlcommons-chakra.0.et").string()};
  o.system         = plain_system();
  o.network        = ring_yaml(1);
  o.out            = sgai::test::temp_dir() / "ml";
  o.data_deps_only = true; // its control dependencies hold two-node cycles (docs/chakra.md)
  auto r           = run_astra(o);
  EXPECT_EQ(r.nodes, 3664U);
  // recorded durations replay as they are: no faster than the critical path of `chakra stats`
  EXPECT_GE(r.makespan_s, 46140e-6 * 0.999);
  auto events = sgai::chakra::read_replay_log(o.out / "replay_log.csv");
  EXPECT_EQ(events.size(), 2U * 3664);
  std::ostringstream chrome;
  sgai::chakra::write_chrome_trace(events, chrome);
  auto j = nlohmann::json::parse(chrome.str());
  EXPECT_GE(j.at("traceEvents").size(), 3664U);
}

namespace {

/** Rank 0 computes 2e12 operations, rank 1 1e12, then both all-reduce 1 MiB; 1 TFLOP/s NPUs. */
AstraRunOptions energy_case(const std::string& name, uint32_t pstate)
{
  std::vector<sgai::chakra::Trace> ranks;
  for (int r = 0; r < 2; r++) {
    TraceBuilder b;
    auto c = b.compute("gemm", r == 0 ? 2000000000000ULL : 1000000000000ULL);
    b.collective("ar", CollectiveType::all_reduce, 1 << 20, {c});
    ranks.push_back(b.take());
  }
  auto dir = sgai::test::temp_dir() / (name + "_in");
  sgai::chakra::write_workload(dir, "w", ranks);
  AstraRunOptions o;
  o.workloads   = {(dir / "w").string()};
  o.system      = plain_system();
  o.network     = ring_yaml(2);
  o.peak_tflops = 1;
  o.link_idle_w = 1;
  o.link_busy_w = 3;
  o.pstate      = pstate;
  o.out         = sgai::test::temp_dir() / (name + "_out");
  return o;
}

} // namespace

TEST(Replay, GpuEnergyIsIdlePowerPlusBusyPowerTimesBusyTime)
{
  auto o   = energy_case("full", 0);
  auto r   = run_astra(o);
  double T = r.makespan_s;
  auto e   = energy_of(o.out);
  // idle x T + (busy - idle) x busy time, per NPU (70 W idle, 700 W busy): 2 s and 1 s busy
  EXPECT_NEAR(r.ranks[0].compute_s, 2.0, 1e-9);
  EXPECT_NEAR(e.at("npu0"), 70 * T + 630 * 2.0, 1e-6 * e.at("npu0"));
  EXPECT_NEAR(e.at("npu1"), 70 * T + 630 * 1.0, 1e-6 * e.at("npu1"));
  // a 2-NPU ring is one full-duplex link: two directions of 1 W idle over T, up to 3 W busy
  // power: idle + (busy - idle) x load; the all-reduce's two steps send 1 MiB each way at
  // 50 GiB/s, and SimGrid counts the link fully loaded during each step's 500 ns latency too
  double full_load_s = (1 << 20) / (50.0 * (1 << 30)) + 2 * 500e-9;
  EXPECT_NEAR(r.link_energy_j - 2 * 1.0 * T, 2 * 2.0 * full_load_s, 1e-3 * 4 * full_load_s);
}

TEST(Replay, APowerCapStretchesComputeAndLowersEnergy)
{
  auto o       = energy_case("capped", 2); // H100 P-state 2: the 300 W cap, f = (230 / 630)^(1/3)
  auto r       = run_astra(o);
  auto e       = energy_of(o.out);
  double f     = std::cbrt(230.0 / 630.0);
  double busy0 = 2.0 / f, busy1 = 1.0 / f, T = r.makespan_s;
  EXPECT_NEAR(r.ranks[0].compute_s, busy0, 1e-9);
  EXPECT_NEAR(e.at("npu0"), 70 * T + 230 * busy0, 1e-6 * e.at("npu0"));
  EXPECT_NEAR(e.at("npu1"), 70 * T + 230 * busy1, 1e-6 * e.at("npu1"));
  // full speed: T0 = 2 s + the all-reduce, E0 = 70 T0 + 630 x 2 for NPU 0
  double allreduce = T - busy0, full = 70 * (2.0 + allreduce) + 630 * 2.0;
  EXPECT_LT(e.at("npu0"), full * 0.75);
}

TEST(Replay, RanksThatDisagreeOnACollectiveAreNamed)
{
  std::vector<sgai::chakra::Trace> ranks;
  for (int r = 0; r < 2; r++) {
    TraceBuilder b;
    b.collective("c", r == 0 ? CollectiveType::all_reduce : CollectiveType::all_gather, 4096);
    ranks.push_back(b.take());
  }
  auto dir = sgai::test::temp_dir() / "mismatch";
  sgai::chakra::write_workload(dir, "w", ranks);
  AstraRunOptions o;
  o.workloads = {(dir / "w").string()};
  o.system    = plain_system();
  o.network   = ring_yaml(2);
  o.out       = sgai::test::temp_dir() / "mismatch_out";
  auto msg    = error_of(o);
  EXPECT_NE(msg.find("rank 1, node 0: collective #1 of group 'world' is ALL_GATHER of 4096 bytes, but rank 0 (node 0) "
                     "issued ALL_REDUCE of 4096 bytes"),
            std::string::npos)
      << msg;
  EXPECT_FALSE(std::filesystem::exists(o.out));
}

TEST(Replay, ADeadlockedTraceNamesItsBlockedRanks)
{
  // rank 1 waits for a send rank 0 never makes; rank 0 waits in an all-reduce rank 1 never joins
  std::vector<sgai::chakra::Trace> ranks(2);
  {
    TraceBuilder b;
    b.collective("ar", CollectiveType::all_reduce, 4096);
    ranks[0] = b.take();
  }
  {
    TraceBuilder b;
    auto r = b.recv("wait_for_0", 0, 1024, 7);
    b.collective("ar", CollectiveType::all_reduce, 4096, {r});
    ranks[1] = b.take();
  }
  auto dir = sgai::test::temp_dir() / "deadlock";
  sgai::chakra::write_workload(dir, "w", ranks);
  AstraRunOptions o;
  o.workloads = {(dir / "w").string()};
  o.system    = plain_system();
  o.network   = ring_yaml(2);
  o.out       = sgai::test::temp_dir() / "deadlock_out";
  auto msg    = error_of(o);
  EXPECT_NE(msg.find("the replay deadlocked: 2 rank(s) blocked"), std::string::npos) << msg;
  EXPECT_NE(msg.find("rank 0: comm node 0 (COMM_COLL_NODE 'ar') waiting for ALL_REDUCE #1 of group 'world' (1 of 2 "
                     "ranks arrived)"),
            std::string::npos)
      << msg;
  EXPECT_NE(msg.find("rank 1: p2p node 0 (COMM_RECV_NODE 'wait_for_0') waiting for a send from rank 0 (tag 7)"),
            std::string::npos)
      << msg;
}

TEST(Replay, NetworkAndRanksMustAgree)
{
  std::vector<sgai::chakra::Trace> ranks(3);
  for (auto& t : ranks) {
    TraceBuilder b;
    b.collective("ar", CollectiveType::all_reduce, 4096);
    t = b.take();
  }
  auto dir = sgai::test::temp_dir() / "three";
  sgai::chakra::write_workload(dir, "w", ranks);
  AstraRunOptions o;
  o.workloads = {(dir / "w").string()};
  o.system    = plain_system();
  o.network   = ring_yaml(4);
  o.out       = sgai::test::temp_dir() / "three_out";
  EXPECT_NE(error_of(o).find("the dimensions (4) make 4 NPUs but the workload"), std::string::npos);
}

TEST(Replay, GpuModelComesFromThePlatformsCatalogue)
{
  sgai::sim::Simulation sim;
  sim.load_platform("platforms/hgx-h100.json");
  auto* gpu     = simgrid::s4u::Host::by_name("hgx-n0-gpu3");
  const auto& m = GpuModel::of(gpu);
  EXPECT_EQ(m.type, "H100 SXM5 80GB");
  EXPECT_EQ(m.precision, "bf16");
  EXPECT_DOUBLE_EQ(m.peak(), 989.4e12);
  EXPECT_DOUBLE_EQ(m.peak("fp64"), 34e12);
  EXPECT_DOUBLE_EQ(m.mem_bw_Bps, 3.35e12);
  EXPECT_DOUBLE_EQ(m.memory_bytes, 81559.0 * 1024 * 1024); // nvidia-smi's total, 81559 MiB
  EXPECT_EQ(&GpuModel::of(gpu), &m);                       // one extension per host
  // its P-states: the catalogue's caps at the clock fractions of the P-state model, HBM3 not slowed
  ASSERT_EQ(gpu->get_pstate_count(), 3UL);
  EXPECT_NEAR(GpuModel::compute_speed(gpu, 1), capped_clock_fraction(500, 70, 700), 1e-6);
  EXPECT_NEAR(GpuModel::compute_speed(gpu, 2), capped_clock_fraction(300, 70, 700), 1e-6);
  EXPECT_DOUBLE_EQ(m.memory_speed(2), 1.0);
  // a CPU host has no GPU figures: its speed
  auto* cpu = simgrid::s4u::Host::by_name("hgx-n0-p0");
  EXPECT_DOUBLE_EQ(GpuModel::of(cpu).peak(), cpu->get_pstate_speed(0) * cpu->get_core_count());
  // roofline: compute-bound, then memory-bound
  EXPECT_DOUBLE_EQ(roofline_seconds(1e12, 1e9, 1e12, 1e11, true), 1.0);
  EXPECT_DOUBLE_EQ(roofline_seconds(1e9, 1e12, 1e12, 1e11, true), 10.0);
  EXPECT_DOUBLE_EQ(roofline_seconds(1e9, 1e12, 1e12, 1e11, false), 1e-3);
}

TEST(Replay, DlrmRanksRunCpuOperatorsBesideTheirGpuKernels)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto files = sgai::test::dlrm_converted("replay_dlrm");
  // what each rank's streams must be busy for: the recorded durations of its nodes, by stream
  std::vector<double> gpu(8, 0), cpu(8, 0);
  for (int r = 0; r < 8; r++) {
    auto t = sgai::chakra::read_trace(files[r]);
    for (const auto& n : t.nodes)
      if (n.type == sgai::chakra::NodeType::comp)
        (n.bool_attr("is_cpu_op").value_or(false) ? cpu : gpu)[r] += n.duration_micros * 1e-6;
  }
  AstraRunOptions o;
  o.workloads = {(sgai::test::dlrm_dir() / "replay_dlrm").string()};
  o.system    = plain_system();
  o.network = write("switch8.yml", "topology: [ Switch ]\nnpus_count: [ 8 ]\nbandwidth: [ 100 ]\nlatency: [ 1000 ]\n");
  o.data_deps_only = true; // host operators and their kernels point at each other through control edges
  o.out            = sgai::test::temp_dir() / "dlrm_out";
  auto r           = run_astra(o);
  ASSERT_EQ(r.ranks.size(), 8U);
  EXPECT_EQ(r.collectives.size(), 8U); // 3 all-reduces and 5 all-to-alls, matched across the 8 ranks
  for (const auto& x : r.ranks) {
    EXPECT_NEAR(x.compute_s, gpu[x.rank], 1e-9) << x.rank; // kernels in order on the GPU
    EXPECT_NEAR(x.cpu_s, cpu[x.rank], 1e-9) << x.rank;     // operators in order on its CPU host
    EXPECT_GT(x.cpu_s, 0);
    EXPECT_LT(x.end_s, x.compute_s + x.cpu_s + x.comm_s); // they overlap
  }
}

namespace {

/** Two 8-rank 64 MiB ring all-reduces on a 16-NPU ring (50 GiB/s, 500 ns), placed by `npus`. */
AstraRunResult two_jobs_on_a_ring(const std::string& name, std::vector<std::string> npus)
{
  auto dir = sgai::test::temp_dir() / name;
  sgai::chakra::write_workload(dir, "ar", sgai::chakra::microbenchmark(CollectiveType::all_reduce, 8, 64 << 20));
  AstraRunOptions o;
  o.workloads = {(dir / "ar").string(), (dir / "ar").string()};
  o.npus      = std::move(npus);
  o.system    = plain_system();
  o.network   = ring_yaml(16);
  o.out       = dir / "out";
  return run_astra(o);
}

// a job on NPUs 0-7 of the ring: 7 -> 0 goes back over 7 links, so its steps take 7 latencies
const double kSideBySide = 14 * (7 * 500e-9 + (64 << 20) / 8 / (50.0 * (1 << 30)));

} // namespace

TEST(Replay, JobsSideBySideOnARingDoNotContend)
{
  auto r = two_jobs_on_a_ring("side", {"0-7", "8-15"});
  ASSERT_EQ(r.collectives.size(), 2U);
  for (const auto& c : r.collectives)
    EXPECT_NEAR(c.end_s - c.start_s, kSideBySide, 1e-9);
}

TEST(Replay, JobsInterleavedOnARingShareEveryLinkAndTakeTwiceAsLong)
{
  // job A on the even NPUs, job B on the odd ones: each hop of one crosses a link of the other
  auto r = two_jobs_on_a_ring("interleaved", {"0,2,4,6,8,10,12,14", "1,3,5,7,9,11,13,15"});
  ASSERT_EQ(r.collectives.size(), 2U);
  for (const auto& c : r.collectives)
    EXPECT_NEAR((c.end_s - c.start_s) / kSideBySide, 2.0, 0.2);
}

TEST(Replay, NpuListsAreChecked)
{
  auto dir = sgai::test::temp_dir() / "npus";
  sgai::chakra::write_workload(dir, "ar", sgai::chakra::microbenchmark(CollectiveType::all_reduce, 8, 1 << 20));
  AstraRunOptions o;
  o.workloads = {(dir / "ar").string(), (dir / "ar").string()};
  o.system    = plain_system();
  o.network   = ring_yaml(16);
  o.out       = dir / "out";
  o.npus      = {"0-7", "7-14"};
  EXPECT_NE(error_of(o).find("--npus '7-14': NPU 7 serves two ranks"), std::string::npos) << error_of(o);
  o.npus = {"0-7", "8-16"};
  EXPECT_NE(error_of(o).find("NPU 16 does not exist (the network has 16)"), std::string::npos);
  o.npus = {"0-7", "8-x"};
  EXPECT_NE(error_of(o).find("bad NPU range '8-x'"), std::string::npos);
  o.npus = {"0-7"};
  EXPECT_NE(error_of(o).find("1 NPU lists for 2 workloads"), std::string::npos);
  o.npus = {"0-6", "8-15"};
  EXPECT_NE(error_of(o).find("7 NPUs for the 8 ranks"), std::string::npos);
}

namespace {

/** Eight NPUs on [Ring 4 (50 GB/s, 500 ns), Ring 2 (10 GB/s, 5 us)]; every rank issues one 1 MiB
 *  all-reduce in group "1" (`group`) or in the default group "0" (group empty); the ranks outside
 *  the group issue nothing. */
AstraRunResult two_dimensions(const std::string& name, const std::vector<uint32_t>& group, bool aware)
{
  std::vector<sgai::chakra::Trace> traces;
  std::string members;
  for (uint32_t r = 0; r < 8; r++) {
    TraceBuilder b;
    bool in = group.empty() || std::find(group.begin(), group.end(), r) != group.end();
    if (in)
      b.collective("ar", CollectiveType::all_reduce, 1 << 20, {}, group.empty() ? "0" : "1");
    else
      b.compute("idle", 0, 0, {}, 0);
    traces.push_back(b.take());
  }
  for (uint32_t m : group)
    members += (members.empty() ? "" : ", ") + std::to_string(m);
  auto o = traces_on(name, traces, write(name + "_system.json", R"({"preferred-dataset-splits": 1, "endpoint-delay": 0,
 "all-reduce-implementation": ["ring", "ring"], "all-gather-implementation": ["ring", "ring"],
 "reduce-scatter-implementation": ["ring", "ring"], "all-to-all-implementation": ["ring", "ring"]})"),
                     two_ring_dimensions(name), aware);
  o.comm_groups = write(name + "_groups.json", group.empty() ? std::string(R"({"2": [0, 1, 2, 3]})")
                                                             : "{\"1\": [" + members + "], \"2\": [0, 1, 2, 3]}");
  return run_astra(o);
}

double only_duration(const AstraRunResult& r)
{
  EXPECT_EQ(r.collectives.size(), 1U);
  return r.collectives.empty() ? 0 : r.collectives[0].end_s - r.collectives[0].start_s;
}

} // namespace

TEST(Replay, CongestionUnawareCostsATransferInTheFirstDimensionWhereItsNpusDiffer)
{
  // NPUs 0 = (0, 0) and 5 = (1, 1) differ in both dimensions: ASTRA-sim's congestion-unaware
  // backend costs their transfers in dimension 0 alone, as between 0 and 1 = (1, 0): 2 ring steps
  // of 512 KiB at 500 ns + 2^19 / (50 x 2^30 B/s)
  double cross = only_duration(two_dimensions("cross_unaware", {0, 5}, false));
  EXPECT_NEAR(cross, 2 * (500e-9 + (1 << 19) / (50.0 * (1 << 30))), 1e-12);
}

TEST(Replay, CongestionAwareTransfersTakeTheirRouteAcrossDimensions)
{
  // with links shared, the transfers between NPUs 0 and 5 cross dimension 1 too (10 GB/s, 5 us)
  double routed = only_duration(two_dimensions("cross_aware", {0, 5}, true));
  EXPECT_GT(routed, 2 * (5000e-9 + (1 << 19) / (10.0 * (1 << 30))));
}

TEST(Replay, AGroupOfEveryRankIsTheWorld)
{
  // ASTRA-sim plans a group of every NPU over every dimension, as its default group
  auto every = two_dimensions("every", {7, 6, 5, 4, 3, 2, 1, 0}, false);
  ASSERT_EQ(every.collectives.size(), 1U);
  EXPECT_EQ(every.collectives[0].algorithm, "ring+ring");
  EXPECT_EQ(every.collectives[0].ranks, 8U);
}

TEST(Replay, TheDefaultGroupZeroIsTheWorld)
{
  // pg_name "0" with a communicator-group file that does not define it: every rank (ASTRA-sim's)
  auto dflt = two_dimensions("default", {}, false);
  ASSERT_EQ(dflt.collectives.size(), 1U);
  EXPECT_EQ(dflt.collectives[0].algorithm, "ring+ring");
  EXPECT_EQ(dflt.collectives[0].ranks, 8U);
}

namespace {

/** Two NPUs on a ring (50 GB/s, 500 ns), nothing shared: each all-reduces 1 MiB while rank 0 sends
 *  1 MiB to rank 1, both issued at once. */
AstraRunResult send_beside_a_collective(const std::string& name, bool sends_on_comm_stream)
{
  std::vector<sgai::chakra::Trace> traces;
  for (uint32_t r = 0; r < 2; r++) {
    TraceBuilder b;
    b.collective("ar", CollectiveType::all_reduce, 1 << 20, {});
    if (r == 0)
      b.send("s", 1, 1 << 20, 7);
    else
      b.recv("r", 0, 1 << 20, 7);
    traces.push_back(b.take());
  }
  auto o                 = traces_on(name, traces, plain_system(), ring_yaml(2), false);
  o.sends_on_comm_stream = sends_on_comm_stream;
  return run_astra(o);
}

// a 1 MiB message over one hop; the 2-rank ring all-reduce is two steps of half of it
const double kMessage   = 500e-9 + (1 << 20) / (50.0 * (1 << 30));
const double kAllReduce = 2 * (500e-9 + (1 << 19) / (50.0 * (1 << 30)));

} // namespace

TEST(Replay, ASendWaitsForTheCollectiveOnTheCommunicationStream)
{
  // ASTRA-sim's hardware resource: one GPU communication at a time, receives exempt
  auto r = send_beside_a_collective("serial_send", true);
  ASSERT_EQ(r.ranks.size(), 2U);
  for (const auto& x : r.ranks) {
    EXPECT_NEAR(x.end_s, kAllReduce + kMessage, 1e-12) << x.rank;
    // communication time: the union of the collective's and the point-to-point's intervals
    EXPECT_NEAR(x.comm_s, kAllReduce + kMessage, 1e-12) << x.rank;
  }
}

TEST(Replay, SendsOnTheirOwnStreamsRunBesideTheCollective)
{
  auto r = send_beside_a_collective("own_stream_send", false);
  ASSERT_EQ(r.ranks.size(), 2U);
  for (const auto& x : r.ranks) {
    EXPECT_NEAR(x.end_s, std::max(kAllReduce, kMessage), 1e-12) << x.rank;
    // overlapping intervals count once: never more than the wall time
    EXPECT_NEAR(x.comm_s, std::max(kAllReduce, kMessage), 1e-12) << x.rank;
  }
}

TEST(Replay, APowerCapStretchesComputeBoundKernelsOnly)
{
  // each of two ranks: a GEMM and a device-to-device copy of 1 s each (recorded durations); under
  // the 300 W cap only the GEMM stretches, by 1/f (the copy is memory-bound and m = 1)
  auto dir = sgai::test::temp_dir() / "bound";
  std::vector<sgai::chakra::Trace> ranks;
  for (int r = 0; r < 2; r++) {
    TraceBuilder b;
    auto g = b.compute("ampere_bf16_s16816gemm_128x128", 1000, 0, {}, 1000000);
    b.compute("Memcpy DtoD (Device -> Device)", 0, 0, {g}, 1000000);
    ranks.push_back(b.take());
  }
  sgai::chakra::write_workload(dir, "w", ranks);
  AstraRunOptions o;
  o.workloads = {(dir / "w").string()};
  o.system    = plain_system();
  o.network   = ring_yaml(2);
  o.pstate    = 2;
  o.out       = dir / "out";
  auto r      = run_astra(o);
  ASSERT_EQ(r.ranks.size(), 2U);
  double f = capped_clock_fraction(300, 70, 700);
  EXPECT_NEAR(r.ranks[0].compute_s, 1.0 / f + 1.0, 1e-9);
}

TEST(GpuPStateModel, ComputeBoundTimeTimesTheClockFractionIsTheSameInEveryState)
{
  const KernelTime gemm{0.25, 0.05}; // compute-bound: 0.25 s of compute, 0.05 s of memory traffic
  for (double cap : {700.0, 600.0, 500.0, 400.0, 300.0}) {
    double f = capped_clock_fraction(cap, 70, 700);
    EXPECT_NEAR(gemm.at(f, 1.0) * f, 0.25, 1e-9) << cap;
  }
  EXPECT_DOUBLE_EQ(capped_clock_fraction(700, 70, 700), 1.0);
  EXPECT_NEAR(capped_clock_fraction(500, 70, 700), 0.880459, 1e-6);
  EXPECT_NEAR(capped_clock_fraction(300, 70, 700), 0.714709, 1e-6);
  EXPECT_THROW(capped_clock_fraction(60, 70, 700), std::invalid_argument);
  EXPECT_THROW(capped_clock_fraction(800, 70, 700), std::invalid_argument);
}

TEST(GpuPStateModel, MemoryBoundTimeIsUnchangedWhenTheMemoryKeepsItsBandwidth)
{
  const KernelTime copy{0.01, 0.2};
  for (double f : {1.0, 0.88, 0.71, 0.5})
    EXPECT_DOUBLE_EQ(copy.at(f, 1.0), 0.2) << f; // until the compute part / f exceeds it
  EXPECT_DOUBLE_EQ(copy.at(0.04, 1.0), 0.25);    // then compute-bound
  EXPECT_DOUBLE_EQ(copy.at(1.0, 0.5), 0.4);      // a slower memory clock stretches it
}

TEST(GpuPStateModel, KernelsKnownByTheirDurationAreClassedByIntensityThenName)
{
  // H100 bf16: ridge point 989.4e12 / 3.35e12 = 295 operations per byte
  EXPECT_EQ(classify_kernel("x", 1e12, 1e9, 989.4e12, 3.35e12), KernelBound::compute);
  EXPECT_EQ(classify_kernel("sm90_xmma_gemm", 1e9, 1e9, 989.4e12, 3.35e12), KernelBound::memory);
  EXPECT_EQ(classify_kernel("ampere_bf16_s16816gemm_relu_128x128", 0, 0, 0, 0), KernelBound::compute);
  EXPECT_EQ(classify_kernel("aten::addmm", 0, 0, 0, 0), KernelBound::compute);
  EXPECT_EQ(classify_kernel("Memcpy DtoD (Device -> Device)", 0, 0, 0, 0), KernelBound::memory);
  EXPECT_EQ(classify_kernel("void at::native::vectorized_elementwise_kernel<4>", 0, 0, 0, 0), KernelBound::memory);
  EXPECT_EQ(classify_kernel("multi_tensor_apply_kernel<AdamFunctor>", 0, 0, 0, 0), KernelBound::memory);
  EXPECT_EQ(classify_kernel("layer3_fwd_mb0", 0, 0, 0, 0), KernelBound::compute); // unknown: compute
}

TEST(Replay, APStatesMemorySpeedReachesTheGpuModel)
{
  auto path = write("memory_speed.json", R"({
  "sgai_platform": 1, "name": "memory-speed",
  "types": {
    "gpu_types": { "G": { "peak_flops": { "fp16": "10Tf" }, "default_precision": "fp16",
                          "memory_capacity": "16GB", "memory_bandwidth": "1TBps", "idle_power": 50, "max_power": 300,
                          "pstates": [ { "speed": 1, "max_power": 300 },
                                       { "speed": 0.8, "max_power": 200, "memory_speed": 0.9 } ] } },
    "node_types": { "N": { "gpus": [ { "type": "G", "number": 1 } ] } },
    "network_types": { "E": { "bandwidth": "1Gbps" } }
  },
  "clusters": [ { "id": "a", "nodes": [ { "type": "N", "number": 1 } ], "local_links": { "type": "E", "latency": "0us" } } ]
})");
  sgai::sim::Simulation sim;
  sim.load_platform(path.string());
  simgrid::s4u::Host* gpu = nullptr;
  for (auto* h : simgrid::s4u::Engine::get_instance()->get_all_hosts())
    if (h->get_property("sgai_gpu_type") != nullptr)
      gpu = h;
  ASSERT_NE(gpu, nullptr);
  const auto& m = GpuModel::of(gpu);
  EXPECT_DOUBLE_EQ(m.memory_speed(0), 1.0);
  EXPECT_DOUBLE_EQ(m.memory_speed(1), 0.9);
  EXPECT_DOUBLE_EQ(GpuModel::compute_speed(gpu, 1), 0.8);
  // a memory-bound kernel there: 1 s at P-state 0, 1 / 0.9 s
  EXPECT_DOUBLE_EQ(KernelTime({0, 1.0}).at(GpuModel::compute_speed(gpu, 1), m.memory_speed(1)), 1.0 / 0.9);
}

TEST(Replay, OlderGpusOfTheCatalogueCarryTheirDatasheetFigures)
{
  // the GPUs the public GPU-cluster traces and profiler traces ran on (docs/platforms.md): one node of
  // each, read through the catalogue
  auto catalogue = std::filesystem::absolute("platforms/catalogues/accelerators.json").string();
  auto path      = write("older_gpus.json", R"({
  "sgai_platform": 1, "name": "older-gpus", "catalogues": [ ")" +
                                                catalogue + R"(" ],
  "types": { "node_types": {
    "V": { "gpus": [ { "type": "V100 SXM2 16GB", "number": 1 } ] },
    "P": { "gpus": [ { "type": "P100 SXM2 16GB", "number": 1 } ] },
    "K": { "gpus": [ { "type": "K80 GK210", "number": 1 } ] },
    "A": { "gpus": [ { "type": "A100 SXM4 40GB", "number": 1 } ] } },
    "network_types": { "E": { "bandwidth": "1Gbps" } } },
  "clusters": [ { "id": "c", "nodes": [ { "type": "V", "number": 1 }, { "type": "P", "number": 1 },
                                         { "type": "K", "number": 1 }, { "type": "A", "number": 1 } ],
                  "local_links": { "type": "E", "latency": "0us" } } ]
})");
  sgai::sim::Simulation sim;
  sim.load_platform(path.string());
  std::map<std::string, const GpuModel*> by_type;
  for (auto* h : simgrid::s4u::Engine::get_instance()->get_all_hosts())
    if (h->get_property("sgai_gpu_type") != nullptr)
      by_type[h->get_property("sgai_gpu_type")] = &GpuModel::of(h);
  ASSERT_EQ(by_type.size(), 4U);
  const auto& v = *by_type.at("V100 SXM2 16GB");
  EXPECT_DOUBLE_EQ(v.peak("fp32"), 15.7e12);
  EXPECT_DOUBLE_EQ(v.peak("fp16"), 125e12); // tensor cores
  EXPECT_DOUBLE_EQ(v.mem_bw_Bps, 900e9);
  EXPECT_EQ(v.precision, "fp32");
  const auto& p = *by_type.at("P100 SXM2 16GB");
  EXPECT_DOUBLE_EQ(p.peak("fp16"), 21.2e12);
  EXPECT_DOUBLE_EQ(p.mem_bw_Bps, 732e9);
  const auto& k = *by_type.at("K80 GK210"); // one of a K80 board's two GPUs, as CUDA shows it
  EXPECT_DOUBLE_EQ(k.peak(), 4.365e12);
  EXPECT_DOUBLE_EQ(k.memory_bytes, 12e9);
  const auto& a = *by_type.at("A100 SXM4 40GB");
  EXPECT_DOUBLE_EQ(a.peak(), 312e12);
  EXPECT_DOUBLE_EQ(a.mem_bw_Bps, 1555e9);
}

namespace {

/** Eight NPUs on [Ring 4 (50 GB/s, 500 ns), Ring 2 (10 GB/s, 5 us)], every rank all-reducing 1 MiB
 *  in the default group with ASTRA-sim's involved_dim attribute `attr`. */
AstraRunOptions involved(const std::string& name, const sgai::chakra::Attribute& attr)
{
  std::vector<sgai::chakra::Trace> traces;
  for (uint32_t r = 0; r < 8; r++) {
    TraceBuilder b;
    auto id = b.collective("ar", CollectiveType::all_reduce, 1 << 20, {});
    b.node(id).attrs.push_back(attr);
    traces.push_back(b.take());
  }
  return traces_on(name, traces, write(name + "_system.json", R"({"preferred-dataset-splits": 1, "endpoint-delay": 0,
 "all-reduce-implementation": ["ring", "ring"]})"),
                   two_ring_dimensions(name), false);
}

sgai::chakra::Attribute involved_dim(sgai::chakra::AttrKind kind, sgai::chakra::Attribute::Value value)
{
  sgai::chakra::Attribute a;
  a.name  = "involved_dim";
  a.kind  = kind;
  a.value = std::move(value);
  return a;
}

} // namespace

TEST(Replay, InvolvedDimLimitsADefaultGroupCollectiveToItsDimensions)
{
  // ASTRA-sim's involved_dim [1, 0]: a ring all-reduce in each group of 4 along dimension 0 only,
  // 6 steps of 256 KiB at 500 ns + 2^18 / (50 x 2^30 B/s)
  auto r = run_astra(
      involved("involved_first", involved_dim(sgai::chakra::AttrKind::bool_list, std::vector<uint64_t>{1, 0})));
  ASSERT_EQ(r.collectives.size(), 1U);
  EXPECT_EQ(r.collectives[0].algorithm, "ring+ring on dims 10");
  EXPECT_NEAR(r.collectives[0].end_s - r.collectives[0].start_s, 6 * (500e-9 + (1 << 18) / (50.0 * (1 << 30))), 1e-12);
}

TEST(Replay, InvolvedDimOfAnotherKindIsAnError)
{
#if defined(__SANITIZE_ADDRESS__)
  // (the error is thrown from the planning step's fallback, deep on the rank's actor stack, which
  // Debian's SimGrid does not annotate for AddressSanitizer: it reports stale poison there)
  GTEST_SKIP() << "an exception thrown on an actor's stack: the sanitizers cannot follow it";
#endif
  auto msg =
      error_of(involved("involved_kind", involved_dim(sgai::chakra::AttrKind::int64_list, std::vector<int64_t>{1, 0})));
  EXPECT_NE(msg.find("involved_dim of kind int64_list: expected a bool_list"), std::string::npos) << msg;
}

namespace {

/** Four ranks whose traces start with PyTorch's process_group:init metadata node (as Chakra's
 *  converter writes it: Python's repr of a list holding one JSON text), groups "1" = {0, 1} and
 *  "2" = {2, 3}; ranks 0-1 all-reduce 1 MiB in group "1", ranks 2-3 in group "2". */
AstraRunOptions process_group_metadata(const std::string& name, const std::string& groups_json)
{
  std::vector<sgai::chakra::Trace> traces;
  for (uint32_t r = 0; r < 4; r++) {
    TraceBuilder b;
    auto meta = b.add(sgai::chakra::NodeType::metadata, "## process_group:init ##");
    sgai::chakra::IOInfo io;
    io.values           = "['" + groups_json + "']";
    b.node(meta).inputs = io;
    b.collective("ar", CollectiveType::all_reduce, 1 << 20, {meta}, r < 2 ? "1" : "2");
    traces.push_back(b.take());
  }
  return traces_on(name, traces, plain_system(), ring_yaml(4), false);
}

} // namespace

TEST(Replay, ProcessGroupsComeFromPyTorchsMetadataNode)
{
  auto r = run_astra(process_group_metadata(
      "pg_meta", R"([{"pg_name": "0", "pg_desc": "default_pg", "ranks": []}, {"pg_name": "1", "ranks": [0, 1]},)"
                 R"( {"pg_name": "2", "ranks": [2, 3]}])"));
  ASSERT_EQ(r.collectives.size(), 2U); // one per group, of two ranks each
  for (const auto& c : r.collectives) {
    EXPECT_EQ(c.ranks, 2U) << c.group;
    // a 2-rank ring all-reduce of 1 MiB, one chunk: 2 steps of 512 KiB over one hop
    EXPECT_NEAR(c.end_s - c.start_s, 2 * (500e-9 + (1 << 19) / (50.0 * (1 << 30))), 1e-12) << c.group;
  }
}

TEST(Replay, AProcessGroupWithARankTheJobLacksIsAnError)
{
  auto msg = error_of(process_group_metadata("pg_meta_bad", R"([{"pg_name": "1", "ranks": [0, 9]}])"));
  EXPECT_NE(msg.find("process group '1' lists rank 9, which the job of 4 ranks does not have"), std::string::npos)
      << msg;
}
