/* sgai collective bench: nccl-tests on a simulated platform. The sizes become one chain of
 * collectives per rank (chakra traces written to a scratch folder), replayed on the first N GPUs of
 * a JSON platform by an experiment (the replay component, so the platform's links, routes and
 * network model are those of `sgai run`); each collective's time gives a line in nccl-tests' own
 * columns. */
#include "chakra/builder.hpp"
#include "chakra/generate.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "core/foundation/units.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/replay/replay.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/generated.hpp"
#include "tools/sgai/options.hpp"

#include <nlohmann/json.hpp>
#include <xbt/log.h>

#include <cmath>
#include <cstdio>
#include <fstream>
#include <iostream>
#include <sstream>
#include <unistd.h>

namespace sgai::cli {

namespace {

struct BenchArgs {
  std::string platform;
  int64_t gpus      = 8;
  std::string op    = "all_reduce";
  std::string sizes = "8B:8GiB";
  int64_t factor    = 2;
  std::string algo  = "auto"; ///< NCCL's choice (auto), or ring, tree, nvls, direct, halving_doubling
  std::string proto = "auto"; ///< NCCL's choice (auto), or LL, LL128, Simple
  std::vector<int64_t> dims;  ///< hierarchical: GPUs per level, the first varying fastest
  int64_t chunks   = 1;       ///< pieces of each collective, one in flight per dimension
  int64_t channels = 0;       ///< NCCL's channels over rails (rings entering the nodes at different GPUs); 0: auto
};

constexpr double kMaxBytes = 1099511627776.0; ///< 1 TiB per collective

/** nccl-tests' ops: the Chakra collective, whether it reduces, its bus bandwidth factor, and the
 *  share of nccl-tests' size that is one rank's comm_size (ASTRA-sim's convention: all-gather
 *  counts what one rank contributes, nccl-tests the gathered buffer). */
struct Op {
  chakra::CollectiveType type;
  bool reduces;
};

Op op_of(const std::string& name)
{
  if (name == "all_reduce")
    return {chakra::CollectiveType::all_reduce, true};
  if (name == "all_gather")
    return {chakra::CollectiveType::all_gather, false};
  if (name == "reduce_scatter")
    return {chakra::CollectiveType::reduce_scatter, true};
  if (name == "alltoall")
    return {chakra::CollectiveType::all_to_all, false};
  return {chakra::CollectiveType::broadcast, false};
}

double bus_factor(const std::string& op, double n)
{
  if (op == "all_reduce")
    return 2 * (n - 1) / n;
  if (op == "broadcast")
    return 1;
  return (n - 1) / n; // all_gather, reduce_scatter, alltoall: of the whole buffer nccl-tests prints
}

std::vector<uint64_t> size_list(const BenchArgs& a)
{
  auto colon     = a.sizes.find(':');
  std::string lo = a.sizes.substr(0, colon), hi = colon == std::string::npos ? lo : a.sizes.substr(colon + 1);
  auto bytes = [&](std::string text) {
    if (not text.empty() && text.find_first_not_of("0123456789") == std::string::npos)
      text += "B";
    auto v = units::parse(text, units::Quantity::size);
    if (not v || *v < 1 || *v > kMaxBytes || *v != std::floor(*v))
      throw InputError("command line", "--sizes",
                       quote(text) + " is not a whole number of bytes from 1B to 1TiB (as in 8B:8GiB)");
    return static_cast<uint64_t>(*v);
  };
  uint64_t from = bytes(lo), to = bytes(hi);
  if (to < from)
    throw InputError("command line", "--sizes", "the last size " + quote(hi) + " is below the first " + quote(lo));
  std::vector<uint64_t> out;
  for (double s = static_cast<double>(from); s <= static_cast<double>(to) && out.size() < 64; s *= a.factor)
    out.push_back(static_cast<uint64_t>(s));
  return out;
}

int bench(const BenchArgs& a, const Globals& globals)
{
  const Op op      = op_of(a.op);
  const auto sizes = size_list(a);
  if ((a.algo == "tree" || a.algo == "nvls" || a.algo == "nvls_tree") && a.op != "all_reduce")
    throw UsageError("--algo " + a.algo + " is an all-reduce: not " + a.op);
  if ((a.algo == "direct" || a.algo == "halving_doubling") && a.proto != "auto")
    throw UsageError("--proto is NCCL's: its algorithms are ring, tree and nvls, not " + a.algo);
  if (a.algo == "halving_doubling" && (a.op == "alltoall" || (a.gpus & (a.gpus - 1)) != 0))
    throw UsageError("--algo halving_doubling needs a power-of-two --gpus and has no alltoall");
  auto ext = std::filesystem::path(a.platform).extension().string();
  if (ext == ".xml" || ext == ".XML")
    throw InputError(a.platform, "",
                     "a SimGrid XML platform: collective bench takes sgai's JSON platforms, whose hierarchy names the "
                     "GPUs");
  const auto n = static_cast<uint32_t>(a.gpus);
  if (not a.dims.empty()) {
    int64_t product = 1;
    for (int64_t d : a.dims)
      product = std::min<int64_t>(product * d, int64_t{1} << 40); // (bounded: no overflow)
    if (product != a.gpus)
      throw UsageError("--dims: the levels make " + std::to_string(product) + " GPUs, not the " +
                       std::to_string(a.gpus) + " of --gpus");
    if (not a.dims.empty() &&
        (a.algo == "auto" || a.algo == "tree" || a.algo == "nvls" || a.algo == "nvls_tree" || a.proto != "auto"))
      throw UsageError("--dims runs an algorithm per level without NCCL's model: name it with --algo ring, direct or "
                       "halving_doubling, without --proto");
  }
  platform::Platform p = platform::generate(a.platform);
  if (p.gpus.size() < n)
    throw InputError(a.platform, "",
                     "has " + std::to_string(p.gpus.size()) + " GPUs, fewer than the " + std::to_string(n) +
                         " --gpus asks for");
  // ASTRA-sim's comm_size for nccl-tests' size: one rank's part of an all-gather
  auto comm_size = [&](uint64_t size) {
    return op.type == chakra::CollectiveType::all_gather ? std::max<uint64_t>(1, size / n) : size;
  };
  // a scratch folder that is never published: removed at the end, on an error or a signal
  StagingDir scratch(std::filesystem::temp_directory_path() / ("sgai-collective-" + std::to_string(::getpid())));
  const auto& dir = scratch.path();
  std::vector<chakra::Trace> traces;
  for (uint32_t r = 0; r < n; r++) {
    chakra::TraceBuilder b("0.0.4", 0);
    uint64_t last = 0;
    for (size_t i = 0; i < sizes.size(); i++) {
      std::vector<uint64_t> deps;
      if (i > 0)
        deps.push_back(last);
      last = b.collective(a.op + "_" + std::to_string(sizes[i]), op.type, comm_size(sizes[i]), deps);
    }
    traces.push_back(b.take());
  }
  chakra::write_workload(dir / "w", "bench", traces);
  // reductions at the GPU's memory bandwidth (two reads and a write per byte), one chunk
  double mem_bw = p.catalogue.gpus.count(p.gpus[0].type) ? p.catalogue.gpus.at(p.gpus[0].type).mem_bw_Bps : 0;
  nlohmann::ordered_json system = {{"preferred-dataset-splits", a.chunks},
                                   {"active-chunks-per-dimension", 1},
                                   {"collective-optimization", "localBWAware"}};
  const size_t levels           = std::max<size_t>(1, a.dims.size());
  // NCCL's algorithms go through its model (the replay's "algorithm"); the others are ASTRA-sim's
  const bool nccl_algo =
      a.algo == "auto" || a.algo == "ring" || a.algo == "tree" || a.algo == "nvls" || a.algo == "nvls_tree";
  if (not nccl_algo || not a.dims.empty())
    for (const char* key : {"all-reduce-implementation", "all-gather-implementation", "reduce-scatter-implementation",
                            "all-to-all-implementation"})
      system[key] = std::vector<std::string>(levels, a.algo);
  else if (op.type == chakra::CollectiveType::all_to_all) // NCCL's all-to-all: every peer at once
    system["all-to-all-implementation"] = std::vector<std::string>(1, "direct");
  if (mem_bw > 0)
    system["local-mem-bw"] = mem_bw / 1e9;
  write_file_atomically(dir / "system.json", system.dump(2) + "\n");

  nlohmann::ordered_json e;
  e["sgai_experiment"] = 1;
  e["name"]            = "collective-bench";
  e["seed"]            = 1;
  e["platform"]        = {{"file", std::filesystem::absolute(a.platform).lexically_normal().string()}};
  e["components"]      = nlohmann::ordered_json::array(
           {{{"type", "replay"},
             {"options", {{"workloads", {(dir / "w" / "bench").string()}}, {"system", (dir / "system.json").string()}}}}});
  if (not a.dims.empty())
    e["components"][0]["options"]["dims"] = a.dims;
  if (nccl_algo && a.dims.empty()) {
    e["components"][0]["options"]["algorithm"] = a.algo;
    e["components"][0]["options"]["protocol"]  = a.proto;
  } else
    e["components"][0]["options"]["nccl"] = false;
  // auto: as NCCL, one ring per rail when the GPUs span several nodes (a node's GPUs each reach the
  // network through their own NIC path), one ring inside a node
  // without NCCL's model (--channels, or an algorithm it does not have): one ring per rail when the
  // GPUs span several nodes (a node's GPUs each reach the network through their own NIC path)
  int64_t channels = a.channels;
  if (a.channels > 0 && nccl_algo && a.dims.empty()) {
    if (a.algo != "ring" || a.proto != "auto")
      throw UsageError("--channels lays out plain rings without NCCL's protocols: use it with --algo ring alone");
    e["components"][0]["options"].erase("algorithm");
    e["components"][0]["options"].erase("protocol");
    e["components"][0]["options"]["nccl"]       = false;
    system["all-reduce-implementation"]         = system["all-gather-implementation"] =
        system["reduce-scatter-implementation"] = std::vector<std::string>(1, "ring");
    write_file_atomically(dir / "system.json", system.dump(2) + "\n");
  }
  if (channels == 0) {
    uint32_t per_node = p.nodes[p.gpus[0].node].gpu_count;
    channels          = (a.algo == "ring" && a.dims.empty() && per_node > 1 && n > per_node) ? per_node : 1;
  }
  if (channels > 1 && e["components"][0]["options"].contains("nccl"))
    e["components"][0]["options"]["channels"] = channels;
  xbt_log_control_set("xbt_cfg.thres:warning"); // the model's defaults and the experiment's name are not news
  xbt_log_control_set("sgai_experiment.thres:warning");
  run_generated_experiment(e.dump(2), "sgai collective bench", dir / "out", globals,
                           {{"at /platform/file", "--platform"}});

  // the collectives in order, one per size (collectives.csv: ..., duration_ns, ...)
  std::ifstream in(dir / "out" / "collectives.csv");
  std::string line;
  std::getline(in, line);
  std::vector<double> ns;
  std::vector<std::string> how; // algorithm/protocol of each collective
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() >= 12) {
      ns.push_back(std::stod(f[8]));
      how.push_back(f[4] + (f[11] == "-" ? "" : "/" + f[11]));
    }
  }
  if (ns.size() != sizes.size())
    throw RunError("the replay gave " + std::to_string(ns.size()) + " collectives for " + std::to_string(sizes.size()) +
                   " sizes");
  std::string model;
  {
    std::ifstream s(dir / "out" / "summary.json");
    auto j = nlohmann::json::parse(s, nullptr, false);
    if (j.is_object() && j.contains("network_model"))
      model = j["network_model"].get<std::string>();
  }
  std::string dims;
  for (int64_t d : a.dims)
    dims += (dims.empty() ? "" : "x") + std::to_string(d);
  std::printf("# sgai collective bench: %s on %u GPUs of %s (%s), algorithm %s, protocol %s%s, %lld chunk(s), "
              "network model %s\n",
              a.op.c_str(), n, a.platform.c_str(), p.gpus[0].type.c_str(), a.algo.c_str(), a.proto.c_str(),
              dims.empty() ? "" : (" on levels " + dims).c_str(), static_cast<long long>(a.chunks), model.c_str());
  std::printf("#                                                              out-of-place\n");
  std::printf("#       size         count      type   redop    root     time   algbw   busbw #wrong  algorithm\n");
  std::printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)\n");
  double sum_busbw = 0;
  for (size_t i = 0; i < sizes.size(); i++) {
    double t_s   = ns[i] * 1e-9;
    double algbw = t_s > 0 ? static_cast<double>(sizes[i]) / t_s / 1e9 : 0;
    double busbw = algbw * bus_factor(a.op, n);
    sum_busbw += busbw;
    std::printf("%12llu  %12llu     float  %6s  %6d  %7.2f  %6.2f  %6.2f    N/A  %s\n",
                static_cast<unsigned long long>(sizes[i]), static_cast<unsigned long long>(sizes[i] / 4),
                op.reduces ? "sum" : "none", a.op == "broadcast" ? 0 : -1, ns[i] / 1e3, algbw, busbw, how[i].c_str());
  }
  std::printf("# Avg bus bandwidth    : %g\n", sum_busbw / static_cast<double>(sizes.size()));
  return 0;
}

} // namespace

void add_collective_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* col       = app.add_subcommand("collective", "Collective benchmarks on a simulated platform");
  auto a          = std::make_shared<BenchArgs>();
  auto* bench_cmd = col->add_subcommand(
      "bench", "nccl-tests on a JSON platform's first GPUs: one line per size in nccl-tests' columns");
  add_path(bench_cmd, "--platform", a->platform, "sgai JSON platform with GPUs")->required();
  add_count(bench_cmd, "--gpus", a->gpus, "GPUs (ranks), the platform's first in hierarchy order (default 8)", 2,
            65536);
  bench_cmd->add_option("--op", a->op, "all_reduce (default), all_gather, reduce_scatter, alltoall, broadcast")
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast"}));
  bench_cmd->add_option("--sizes", a->sizes, "FIRST:LAST bytes, or one size (default 8B:8GiB; at most 64 sizes)");
  bench_cmd
      ->add_option("--dims", a->dims,
                   "Hierarchical collectives: GPUs per level, the first varying fastest (8,4: 8 GPUs per "
                   "node, 4 nodes), the algorithm on each level, levels overlapping chunk by chunk")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  add_count(bench_cmd, "--channels", a->channels,
            "NCCL's channels over rails: rings side by side, each entering the nodes at another GPU, so every "
            "GPU's path to the network carries traffic (ring algorithm; default: the GPUs of a node when the "
            "GPUs span several nodes, else 1)",
            1, 64);
  add_count(bench_cmd, "--chunks", a->chunks, "Pieces of each collective, one in flight per level (default 1)", 1,
            1024);
  add_count(bench_cmd, "--factor", a->factor, "Size multiplier between lines, nccl-tests' -f (default 2)", 2, 1024);
  bench_cmd
      ->add_option("--algo", a->algo,
                   "auto (default: NCCL's tuning model picks), ring, tree (NCCL's double binary tree; across nodes "
                   "chains in the nodes), nvls (in-switch reduction in one node), nvls_tree (NVLS in each node, trees "
                   "between them), or without NCCL's model direct, halving_doubling")
      ->check(CLI::IsMember({"auto", "ring", "tree", "nvls", "nvls_tree", "direct", "halving_doubling"}));
  bench_cmd->add_option("--proto", a->proto, "auto (default: NCCL's tuning model picks), LL, LL128, Simple")
      ->check(CLI::IsMember({"auto", "LL", "LL128", "Simple"}));
  bench_cmd->callback([a, &globals, &action]() { action = [a, &globals]() { return bench(*a, globals); }; });
}

} // namespace sgai::cli
