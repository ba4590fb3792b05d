/* Every bogus_* fixture is rejected with one message naming the file, the place, the value and
 * what was expected. Also the GPU catalogue (platforms/catalogues/accelerators.json): its figures, the
 * keys the PyTorch-trace what-if analysis reads (source, device_names, multiprocessors), their errors,
 * and find_gpu_by_device_name. */
#include "core/foundation/error.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
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
      {"bogus_clos_size.json",
       {"at /clusters/0/topology/levels: the clos's levels join 2 x 4 = 8 NIC ports", "32 NICs on 16 leaves"}},
      {"bogus_clos_no_nics.json",
       {"at /clusters/0/nodes/0/type: node type 'GpuBox' names no 'nics'", "each NIC of a node to a leaf"}},
      {"bogus_clos_leaf_link.json", {"at /clusters/0/topology/levels/0/link: unknown key 'link'", "'down'"}},
      {"bogus_nics_near_gpu.json",
       {"at /types/node_types/Box/nics/near_gpus/1: GPU 2 is not one of the node's GPUs 0 to 1"}},
      {"bogus_nics_type.json",
       {"at /types/node_types/Box/nics/type: unknown network type 'Myrinet 2000'", "'ConnectX-7 NDR'"}},
      {"bogus_nics_too_many.json", {"at /types/node_types/Box/nics/number: a node has at most 1024 NICs, not 1025"}},
      {"bogus_host_interconnect_nvswitch.json",
       {"at /types/node_types/Box/host_interconnect: host_interconnect 'NVSwitch NVLink5' must be of kind 'pcie' or "
        "'nvlink'"}},
      {"bogus_clos_too_many_nics.json",
       {"at /clusters/0/topology: the clos would link 12800000 NICs: at most 10000000"}},
      {"bogus_transport.json",
       {"at /types/transport_types/Carrier pigeon/kind: unknown value 'avian'", "'tcp_gpudirect'"}},
      {"bogus_transport_protocols.json",
       {"at /types/transport_types/T/protocols: NCCL needs Simple on every transport"}},
      {"bogus_network_transport.json", {"at /types/network_types/Fast/transport: unknown transport type 'Warp drive'"}},
      {"bogus_transport_gpu_direct.json", {"at /types/transport_types/T/gpu_direct: expected true or false, got 'no'"}},
      {"bogus_sharp_roce.json",
       {"at /clusters/0/topology/sharp: SHARP reduces in InfiniBand switches, but the NICs of node type 'Grand Teton "
        "H100'",
        "'ConnectX-7 400G RoCE', over 'RoCE verbs'"}},
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

namespace {

const Catalogue& accelerators()
{
  static const Catalogue cat = load_catalogue("platforms/catalogues/accelerators.json");
  return cat;
}

/** The message of loading a catalogue file holding one GPU type "G" with `extra` keys added. */
std::string gpu_catalogue_error(const std::string& file_name, const std::string& extra)
{
  auto path = sgai::test::temp_dir() / file_name;
  std::ofstream(path) << R"({"sgai_catalogue": 1, "gpu_types": {"G": {"peak_flops": {"fp16": "10Tf"},
    "default_precision": "fp16", "memory_capacity": "16GB", "memory_bandwidth": "1TBps", "idle_power": 50,
    "max_power": 300, )"
                      << extra << "}}}";
  return sgai::test::error_of([&] { load_catalogue(path); });
}

} // namespace

TEST(GpuCatalogue, EveryGpuTypeSaysWhereItsFiguresComeFrom)
{
  ASSERT_GE(accelerators().gpus.size(), 13U);
  for (const auto& [name, g] : accelerators().gpus) {
    EXPECT_FALSE(g.source.empty()) << name;
    if (name != "TPU v5e") { // not a CUDA / ROCm device
      EXPECT_FALSE(g.device_names.empty()) << name;
      EXPECT_GT(g.multiprocessors, 0) << name;
    }
  }
}

TEST(GpuCatalogue, NewTypesLoadWithTheirFigures)
{
  const auto& gpus = accelerators().gpus;
  ASSERT_TRUE(gpus.count("V100 DGXS 32GB"));
  const GpuType& dgxs = gpus.at("V100 DGXS 32GB");
  EXPECT_DOUBLE_EQ(dgxs.peak_flops.at("fp64"), 7.8e12);
  EXPECT_DOUBLE_EQ(dgxs.peak_flops.at("fp32"), 15.7e12);
  EXPECT_DOUBLE_EQ(dgxs.peak_flops.at("fp16"), 125e12);
  EXPECT_EQ(dgxs.default_precision, "fp32");
  EXPECT_DOUBLE_EQ(dgxs.memory_bytes, 32510.0 * 1024 * 1024); // nvidia-smi's total, 32510 MiB
  EXPECT_DOUBLE_EQ(dgxs.mem_bw_Bps, 900e9);
  EXPECT_DOUBLE_EQ(dgxs.max_w, 300);
  EXPECT_EQ(dgxs.multiprocessors, 80);
  EXPECT_EQ(dgxs.architecture, "volta");
  EXPECT_EQ(dgxs.device_names, std::vector<std::string>{"Tesla V100-DGXS-32GB"});

  ASSERT_TRUE(gpus.count("RTX 2080 Ti"));
  const GpuType& rtx = gpus.at("RTX 2080 Ti");
  EXPECT_DOUBLE_EQ(rtx.peak_flops.at("fp32"), 13.4e12);
  EXPECT_DOUBLE_EQ(rtx.peak_flops.at("fp16"), 53.8e12); // FP16 tensor with FP32 accumulate
  EXPECT_DOUBLE_EQ(rtx.memory_bytes, 11e9);
  EXPECT_DOUBLE_EQ(rtx.mem_bw_Bps, 616e9);
  EXPECT_DOUBLE_EQ(rtx.max_w, 250);
  EXPECT_EQ(rtx.multiprocessors, 68);
  EXPECT_NE(rtx.source.find("FP32 accumulate"), std::string::npos) << rtx.source;

  ASSERT_TRUE(gpus.count("MI250 GCD"));
  const GpuType& gcd = gpus.at("MI250 GCD"); // half of an MI250
  EXPECT_DOUBLE_EQ(gcd.peak_flops.at("fp64"), 45.3e12 / 2);
  EXPECT_DOUBLE_EQ(gcd.peak_flops.at("fp32"), 45.3e12 / 2);
  EXPECT_DOUBLE_EQ(gcd.peak_flops.at("fp16"), 362.1e12 / 2);
  EXPECT_DOUBLE_EQ(gcd.peak_flops.at("bf16"), 362.1e12 / 2);
  EXPECT_DOUBLE_EQ(gcd.memory_bytes, 64e9);
  EXPECT_DOUBLE_EQ(gcd.mem_bw_Bps, 3.2768e12 / 2);
  EXPECT_DOUBLE_EQ(gcd.max_w, 500.0 / 2);
  EXPECT_EQ(gcd.multiprocessors, 104);
  EXPECT_NE(gcd.source.find("half of the 500 W"), std::string::npos) << gcd.source;

  EXPECT_EQ(gpus.at("V100 SXM2 32GB").multiprocessors, 80);
  EXPECT_DOUBLE_EQ(gpus.at("V100 SXM2 32GB").peak_flops.at("fp16"), 125e12);
  EXPECT_EQ(gpus.at("A100 SXM4 40GB").multiprocessors, 108);
  EXPECT_EQ(gpus.at("A100 SXM4 80GB").multiprocessors, 108);
  EXPECT_EQ(gpus.at("H100 SXM5 80GB").multiprocessors, 132);
  EXPECT_EQ(gpus.at("H200 SXM 141GB").multiprocessors, 132);
  EXPECT_EQ(gpus.at("B200 SXM 180GB").multiprocessors, 148);
  // A100's attention: FlashAttention-2's published forward + backward figure (FP16, taken for BF16
  // too), both passes at it; causal at 8k: 182 TFLOP/s
  for (const char* a100 : {"A100 SXM4 80GB", "A100 SXM4 40GB"})
    for (const char* prec : {"bf16", "fp16"}) {
      const auto& att = gpus.at(a100).attention.at(prec);
      EXPECT_EQ(att.kernel, "FlashAttention-2");
      ASSERT_EQ(att.seq.size(), 6u);
      EXPECT_DOUBLE_EQ(att.seq[4], 8192);
      EXPECT_DOUBLE_EQ(att.forward_causal[4], 182e12);
      EXPECT_EQ(att.forward, att.backward);
    }
}

TEST(GpuCatalogue, FindsTheTypeOfATraceDeviceByName)
{
  const auto& cat = accelerators();
  auto name_of    = [&cat](std::string_view device, int sms = 0, double memory = 0) -> std::string {
    const GpuType* g = find_gpu_by_device_name(cat, device, sms, memory);
    return g ? g->name : "nothing";
  };
  EXPECT_EQ(name_of("Tesla V100-SXM2-32GB"), "V100 SXM2 32GB");
  EXPECT_EQ(name_of("Tesla V100-SXM2-32GB", 80, 34089730048), "V100 SXM2 32GB");
  EXPECT_EQ(name_of("tesla v100-sxm2-32gb "), "V100 SXM2 32GB"); // case and blanks do not matter
  EXPECT_EQ(name_of("Tesla V100-SXM2-16GB"), "V100 SXM2 16GB");
  EXPECT_EQ(name_of("Tesla V100-DGXS-32GB"), "V100 DGXS 32GB");
  EXPECT_EQ(name_of("NVIDIA A100-PG509-200", 108, 42505273344), "A100 SXM4 40GB");
  EXPECT_EQ(name_of("NVIDIA A100-SXM4-40GB"), "A100 SXM4 40GB");
  EXPECT_EQ(name_of("NVIDIA H100 80GB HBM3", 132, 85045477376), "H100 SXM5 80GB");
  EXPECT_EQ(name_of("NVIDIA GeForce RTX 2080 Ti", 68, 11554717696), "RTX 2080 Ti");
  EXPECT_EQ(name_of("AMD Instinct MI250X / MI250", 104, 68702699520), "MI250 GCD");
  // The name MI250X and MI250 share: an MI250X die has 110 compute units, which no type has.
  EXPECT_EQ(name_of("AMD Instinct MI250X / MI250", 110, 68702699520), "nothing");
  // A named type whose memory the trace contradicts.
  EXPECT_EQ(name_of("Tesla V100-SXM2-16GB", 80, 34089730048), "nothing");
}

TEST(GpuCatalogue, FindsAGenericallyNamedDeviceByItsFigures)
{
  const auto& cat  = accelerators();
  const GpuType* g = find_gpu_by_device_name(cat, "AMD Radeon Graphics", 104, 68719476736.0); // 64 GiB
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "MI250 GCD");
  g = find_gpu_by_device_name(cat, "AMD Radeon Graphics", 104, 68702699520.0); // what a trace reports
  ASSERT_NE(g, nullptr);
  EXPECT_EQ(g->name, "MI250 GCD");
  // Without both figures, or with memory more than 10% away, a generic name finds nothing.
  EXPECT_EQ(find_gpu_by_device_name(cat, "AMD Radeon Graphics", 104, 0), nullptr);
  EXPECT_EQ(find_gpu_by_device_name(cat, "AMD Radeon Graphics", 104, 128e9), nullptr);
  // 80 SMs and 32 GB: V100 SXM2 32GB and V100 DGXS 32GB both fit, so neither is chosen.
  EXPECT_EQ(find_gpu_by_device_name(cat, "", 80, 34089730048.0), nullptr);
}

TEST(GpuCatalogue, AnUnknownNameFindsNothing)
{
  const auto& cat = accelerators();
  EXPECT_EQ(find_gpu_by_device_name(cat, "NVIDIA Quadro Q9000", 0, 0), nullptr);
  EXPECT_EQ(find_gpu_by_device_name(cat, "NVIDIA Quadro Q9000", 7, 3e9), nullptr);
  // A model the catalogue does not list is not matched by its figures: the PCIe A100 has the SXM4
  // board's 108 SMs and 80 GB, not its power nor its bandwidth.
  EXPECT_EQ(find_gpu_by_device_name(cat, "NVIDIA A100 80GB PCIe", 108, 85097971712.0), nullptr);
}

TEST(GpuCatalogue, BadDeviceNamesAreRejectedWithFileAndPointer)
{
  std::string msg = gpu_catalogue_error("bad_device_names.json", R"("device_names": "Tesla V100-SXM2-32GB")");
  EXPECT_NE(msg.find("bad_device_names.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at /gpu_types/G/device_names: device_names must be a list of strings"), std::string::npos) << msg;
  msg = gpu_catalogue_error("bad_device_name_item.json", R"("device_names": ["Tesla V100-SXM2-32GB", 3])");
  EXPECT_NE(msg.find("bad_device_name_item.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at /gpu_types/G/device_names/1: device_names must be a list of strings"), std::string::npos)
      << msg;
  msg = gpu_catalogue_error("blank_device_name.json", R"("device_names": [" "])");
  EXPECT_NE(msg.find("at /gpu_types/G/device_names/0: device name ' ' is blank"), std::string::npos) << msg;
  msg = gpu_catalogue_error("bad_multiprocessors.json", R"("multiprocessors": 0)");
  EXPECT_NE(msg.find("bad_multiprocessors.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at /gpu_types/G/multiprocessors: value 0 out of range"), std::string::npos) << msg;
  msg = gpu_catalogue_error("bad_source.json", R"("source": 7)");
  EXPECT_NE(msg.find("at /gpu_types/G/source: expected a string"), std::string::npos) << msg;
  // Inline types of a platform: the same checks, at the pointer inside the platform file.
  msg = sgai::test::error_of([] {
    parse_spec(R"({"sgai_platform": 1, "types": {"gpu_types": {"G": {"peak_flops": {"fp16": "10Tf"},
      "default_precision": "fp16", "memory_capacity": "16GB", "memory_bandwidth": "1TBps", "idle_power": 50,
      "max_power": 300, "device_names": {"name": "x"}}}}, "clusters": []})",
               "inline_types.json", ".");
  });
  EXPECT_NE(msg.find("inline_types.json"), std::string::npos) << msg;
  EXPECT_NE(msg.find("at /types/gpu_types/G/device_names: device_names must be a list of strings"), std::string::npos)
      << msg;
  EXPECT_EQ(
      gpu_catalogue_error("good.json", R"("source": "a datasheet", "device_names": ["X 1"], "multiprocessors": 2)"),
      "no error");
}

TEST(GpuCatalogue, BadMatmulFiguresAreRejectedWithFileAndPointer)
{
  auto mm = [](const std::string& figures) {
    return gpu_catalogue_error("matmul.json",
                               R"("multiprocessors": 2, "matmul": {"source": "a table", )" + figures + "}");
  };
  EXPECT_NE(mm(R"("fp16": {"fraction": 1.5, "shape": [1, 2, 3]})")
                .find("at /gpu_types/G/matmul/fp16/fraction: fraction 1.5 must be a fraction of the peak"),
            std::string::npos);
  EXPECT_NE(mm(R"("fp8": {"fraction": 0.5, "shape": [1, 2, 3]})")
                .find("at /gpu_types/G/matmul/fp8: precision 'fp8' has no peak_flops here"),
            std::string::npos);
  EXPECT_NE(mm(R"("fp16": null)")
                .find("at /gpu_types/G/matmul/fp16: precision 'fp16' is null: give its figures or leave it out"),
            std::string::npos); // (was a crash: a fuzzer's kind of find)
  EXPECT_NE(mm(R"("fp16": {"fraction": 0.5, "shape": [1, 2]})")
                .find("at /gpu_types/G/matmul/fp16/shape: shape must be [M, N, K]"),
            std::string::npos);
  EXPECT_NE(mm(R"("fp16": {"fraction": 0.5, "shape": [1, 2, 3], "tile": 4})")
                .find("at /gpu_types/G/matmul/fp16/tile: unknown key 'tile'"),
            std::string::npos);
  // the GEMM model's fixed costs: times between 0 and 1 ms, with their source
  EXPECT_NE(mm(R"("overheads": {"kernel": "-1us", "wave": "1us", "source": "a fit"})")
                .find("at /gpu_types/G/matmul/overheads/kernel: "),
            std::string::npos);
  EXPECT_NE(mm(R"("overheads": {"kernel": "1us", "wave": "2s", "source": "a fit"})")
                .find("at /gpu_types/G/matmul/overheads/wave: wave overhead '2s' must lie between 0 and 1 ms"),
            std::string::npos);
  EXPECT_NE(mm(R"("overheads": {"kernel": "1us", "wave": "1us"})")
                .find("at /gpu_types/G/matmul/overheads: missing field 'source'"),
            std::string::npos);
  EXPECT_EQ(mm(R"("overheads": {"kernel": "2.5us", "wave": "2us", "source": "a fit"}, "fp16": {"fraction": 0.5,
                  "shape": [1, 2, 3]})"),
            "no error");
  std::string msg = gpu_catalogue_error("matmul_sms.json", R"("matmul": {"source": "a table"})");
  EXPECT_NE(msg.find("at /gpu_types/G/matmul: matmul needs the GPU's multiprocessors"), std::string::npos) << msg;
  EXPECT_EQ(mm(R"("fp16": {"fraction": 0.5, "shape": [1, 2, 3]})"), "no error");
  // a burst figure's sustained share: a fraction
  EXPECT_EQ(mm(R"("fp16": {"fraction": 0.5, "shape": [1, 2, 3], "sustained": 0.9})"), "no error");
  msg = mm(R"("fp16": {"fraction": 0.5, "shape": [1, 2, 3], "sustained": 1.2})");
  EXPECT_NE(msg.find("at /gpu_types/G/matmul/fp16/sustained: sustained 1.2 must be a fraction of the burst figure"),
            std::string::npos)
      << msg;
}

TEST(GpuCatalogue, BadAttentionAndStreamFiguresAreRejectedWithFileAndPointer)
{
  auto at = [](const std::string& figures) {
    return gpu_catalogue_error("attention.json", R"("attention": {"source": "a paper", "fp16": {"kernel": "k", )"
                                                 R"("head_dim": 128, "seq": [1024, 2048], )" +
                                                     figures + "}}");
  };
  const std::string good = R"("forward": [1, 2], "forward_causal": [1, 2], "backward": [1, 2])";
  EXPECT_EQ(at(good), "no error");
  std::string msg = at(R"("forward": [1], "forward_causal": [1, 2], "backward": [1, 2])");
  EXPECT_NE(msg.find("at /gpu_types/G/attention/fp16/forward: expected 2 positive numbers, got [1]"), std::string::npos)
      << msg;
  msg = gpu_catalogue_error("attention.json", R"("attention": {"source": "a paper", "fp16": {"kernel": "k", )"
                                              R"("head_dim": 128, "seq": [2048, 1024], )" +
                                                  good + "}}");
  EXPECT_NE(msg.find("at /gpu_types/G/attention/fp16/seq: the values must increase, got [2048,1024]"),
            std::string::npos)
      << msg;
  msg = at(R"("forward": [1, 2], "forward_causal": [1, 2], "backward": [1, -2])");
  EXPECT_NE(msg.find("at /gpu_types/G/attention/fp16/backward/1:"), std::string::npos) << msg;
  // the sustained rate: a fraction of the measured one, with its source
  auto sustained = [&](const std::string& block) {
    return gpu_catalogue_error("attention.json",
                               R"("attention": {"source": "a paper", "sustained": )" + block +
                                   R"(, "fp16": {"kernel": "k", "head_dim": 128, "seq": [1024, 2048], )" + good + "}}");
  };
  EXPECT_EQ(sustained(R"({"fraction": 0.9, "source": "a ratio"})"), "no error");
  msg = sustained(R"({"fraction": 1.5, "source": "a ratio"})");
  EXPECT_NE(
      msg.find("at /gpu_types/G/attention/sustained/fraction: fraction 1.5 must be a fraction of the measured rate"),
      std::string::npos)
      << msg;
  msg = sustained(R"({"fraction": 0.9})");
  EXPECT_NE(msg.find("at /gpu_types/G/attention/sustained"), std::string::npos) << msg;
  msg = gpu_catalogue_error("stream.json", R"("stream": {"fraction": 1.2, "source": "a copy"})");
  EXPECT_NE(msg.find("at /gpu_types/G/stream/fraction: fraction 1.2 must be a fraction of the memory bandwidth"),
            std::string::npos)
      << msg;
  msg = gpu_catalogue_error("stream.json", R"("stream": {"fraction": 0.9, "source": ""})");
  EXPECT_NE(msg.find("at /gpu_types/G/stream/source: source is empty"), std::string::npos) << msg;
  EXPECT_EQ(gpu_catalogue_error("stream.json", R"("stream": {"fraction": 0.9, "source": "a copy"})"), "no error");
}
