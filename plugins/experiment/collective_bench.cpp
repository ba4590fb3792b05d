#include "plugins/experiment/collective_bench.hpp"

#include "chakra/builder.hpp"
#include "chakra/generate.hpp"
#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/units.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/experiment/generated.hpp"

#include <nlohmann/json.hpp>
#include <xbt/log.h>

#include <cmath>
#include <fstream>
#include <set>
#include <sstream>
#include <unistd.h>

namespace sgai::experiment {

namespace {

constexpr double kMaxBytes = 1099511627776.0; ///< 1 TiB per collective

/** nccl-tests' ops: the Chakra collective, whether it reduces, its bus bandwidth factor, and the
 *  share of nccl-tests' size that is one rank's comm_size (ASTRA-sim's convention: all-gather
 *  counts what one rank contributes, nccl-tests the gathered buffer). */
struct Op {
  chakra::CollectiveType type;
  bool reduces;
  bool sendrecv = false; ///< nccl-tests' sendrecv: each rank sends to the next, receives from the previous
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
  if (name == "sendrecv")
    return {chakra::CollectiveType::all_to_all, false, true};
  return {chakra::CollectiveType::broadcast, false};
}

double bus_factor(const std::string& op, double n)
{
  if (op == "all_reduce")
    return 2 * (n - 1) / n;
  if (op == "broadcast" || op == "sendrecv")
    return 1;
  return (n - 1) / n; // all_gather, reduce_scatter, alltoall: of the whole buffer nccl-tests prints
}

std::vector<uint64_t> size_list(const BenchOptions& a)
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

/** The checks of the options alone, before the platform is read. */
void check_options(const BenchOptions& a)
{
  if (a.op == "sendrecv" && (a.algo != "auto" || a.proto != "auto" || not a.dims.empty() || a.channels > 0))
    throw UsageError("--op sendrecv is point-to-point: --algo, --proto, --dims and --channels are a collective's");
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
}

/** One chain of collectives per rank, one per size, written as the workload `dir`/w/bench. */
void write_traces(const std::filesystem::path& dir, const BenchOptions& a, const Op& op,
                  const std::vector<uint64_t>& sizes, uint32_t n)
{
  // ASTRA-sim's comm_size for nccl-tests' size: one rank's part of an all-gather
  auto comm_size = [&](uint64_t size) {
    return op.type == chakra::CollectiveType::all_gather ? std::max<uint64_t>(1, size / n) : size;
  };
  std::vector<chakra::Trace> traces;
  for (uint32_t r = 0; r < n; r++) {
    chakra::TraceBuilder b("0.0.4", 0);
    uint64_t last = 0;
    std::vector<uint64_t> deps;
    for (size_t i = 0; i < sizes.size(); i++) {
      if (op.sendrecv) { // nccl-tests' sendrecv: to the next rank, from the previous, side by side
        auto tag = static_cast<int32_t>(i);
        auto s   = b.send("sendrecv_send_" + std::to_string(i), (r + 1) % n, sizes[i], tag, deps);
        auto v   = b.recv("sendrecv_recv_" + std::to_string(i), (r + n - 1) % n, sizes[i], tag, deps);
        deps     = {s, v};
        continue;
      }
      last = b.collective(a.op + "_" + std::to_string(sizes[i]), op.type, comm_size(sizes[i]), deps);
      deps = {last};
    }
    traces.push_back(b.take());
  }
  chakra::write_workload(dir / "w", "bench", traces);
}

/** NCCL's algorithms go through its model (the replay's "algorithm"); the others are ASTRA-sim's. */
bool is_nccl_algo(const std::string& algo)
{
  return algo == "auto" || algo == "ring" || algo == "tree" || algo == "nvls" || algo == "nvls_tree";
}

/** The replay's system JSON, written to `dir`/system.json: reductions at the GPU's memory bandwidth
 *  (two reads and a write per byte), the chunks, the algorithms without NCCL's model. */
nlohmann::ordered_json write_system(const std::filesystem::path& dir, const BenchOptions& a, const Op& op,
                                    const platform::Platform& p)
{
  double mem_bw = p.catalogue.gpus.count(p.gpus[0].type) ? p.catalogue.gpus.at(p.gpus[0].type).mem_bw_Bps : 0;
  nlohmann::ordered_json system = {{"preferred-dataset-splits", a.chunks},
                                   {"active-chunks-per-dimension", 1},
                                   {"collective-optimization", "localBWAware"}};
  const size_t levels           = std::max<size_t>(1, a.dims.size());
  if (not is_nccl_algo(a.algo) || not a.dims.empty())
    for (const char* key : {"all-reduce-implementation", "all-gather-implementation", "reduce-scatter-implementation",
                            "all-to-all-implementation"})
      system[key] = std::vector<std::string>(levels, a.algo);
  else if (op.type == chakra::CollectiveType::all_to_all) // NCCL's all-to-all: every peer at once
    system["all-to-all-implementation"] = std::vector<std::string>(1, "direct");
  if (mem_bw > 0)
    system["local-mem-bw"] = mem_bw / 1e9;
  write_file_atomically(dir / "system.json", system.dump(2) + "\n");
  return system;
}

/** The platform the run loads: the given one, or with --pxn-disable a copy in `dir` whose clos
 *  clusters route without PXN (NCCL_PXN_DISABLE=1), its catalogues named by absolute paths. */
std::filesystem::path platform_file(const std::filesystem::path& dir, const BenchOptions& a)
{
  auto given = std::filesystem::absolute(a.platform).lexically_normal();
  if (not a.pxn_disable)
    return given;
  auto doc = nlohmann::ordered_json::parse(read_text_file(given), nullptr, false);
  if (doc.is_discarded() || not doc.is_object())
    throw InputError(a.platform, "", "not a JSON platform (--pxn-disable rewrites one)");
  if (doc.contains("catalogues") && doc["catalogues"].is_array())
    for (auto& c : doc["catalogues"])
      if (c.is_string() && std::filesystem::path(c.get<std::string>()).is_relative())
        c = (given.parent_path() / c.get<std::string>()).lexically_normal().string();
  if (doc.contains("clusters") && doc["clusters"].is_array())
    for (auto& c : doc["clusters"])
      if (c.is_object() && c.contains("topology") && c["topology"].is_object()) {
        auto& t = c["topology"];
        if (t.value("kind", "") == "clos" || t.value("kind", "") == "rail_optimized")
          t["pxn"] = false;
      }
  auto out = dir / "platform.json";
  write_file_atomically(out, doc.dump(2) + "\n");
  return out;
}

/** The experiment: the replay component on the workload and system of `dir`, with NCCL's model or
 *  plain rings (channels over rails); rewrites `system` for plain rings. */
nlohmann::ordered_json experiment_of(const std::filesystem::path& dir, const BenchOptions& a,
                                     const platform::Platform& p, nlohmann::ordered_json& system)
{
  const auto n         = static_cast<uint32_t>(a.gpus);
  const bool nccl_algo = is_nccl_algo(a.algo);
  nlohmann::ordered_json e;
  e["sgai_experiment"] = 1;
  e["name"]            = "collective-bench";
  e["seed"]            = 1;
  e["platform"]        = {{"file", platform_file(dir, a).string()}};
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
  return e;
}

/** The rows from the run's collectives.csv (the collectives in order, one per size: ...,
 *  duration_ns, ...) and its network model from summary.json. */
/** Each sendrecv size's time (ns): from its first issue to its last callback over the ranks
 *  (replay_log.csv: rank,node_id,event,time_us,type,name). */
std::vector<double> sendrecv_times(const std::filesystem::path& out, size_t sizes)
{
  std::vector<double> first(sizes, -1), last(sizes, -1);
  std::ifstream in(out / "replay_log.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    if (f.size() < 6 || f[5].rfind("sendrecv_", 0) != 0)
      continue;
    size_t i = std::stoul(f[5].substr(f[5].rfind('_') + 1));
    double t = std::stod(f[3]) * 1e3;
    if (i >= sizes)
      continue;
    if (f[2] == "issue" && (first[i] < 0 || t < first[i]))
      first[i] = t;
    if (f[2] == "callback")
      last[i] = std::max(last[i], t);
  }
  std::vector<double> ns;
  for (size_t i = 0; i < sizes; i++)
    if (first[i] >= 0 && last[i] >= 0)
      ns.push_back(last[i] - first[i]);
  return ns;
}

BenchResult read_rows(const std::filesystem::path& out, const BenchOptions& a, const Op& op,
                      const std::vector<uint64_t>& sizes)
{
  std::ifstream in(out / "collectives.csv");
  std::string line;
  std::getline(in, line);
  std::vector<double> ns;
  std::vector<std::string> how; // algorithm/protocol of each collective
  if (op.sendrecv) {
    ns = sendrecv_times(out, sizes.size());
    how.assign(ns.size(), "p2p");
    in.setstate(std::ios::eofbit);
  }
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
  BenchResult result;
  auto summary = json::load(out / "summary.json"); // the run's own: present and well formed
  if (auto model = summary.object().optional("network_model"))
    result.network_model = model->string();
  const auto n     = static_cast<uint32_t>(a.gpus);
  double sum_busbw = 0;
  for (size_t i = 0; i < sizes.size(); i++) {
    BenchRow row;
    double t_s    = ns[i] * 1e-9;
    row.size      = sizes[i];
    row.count     = sizes[i] / 4;
    row.redop     = op.reduces ? "sum" : "none";
    row.root      = a.op == "broadcast" ? 0 : -1;
    row.time_us   = ns[i] / 1e3;
    row.algbw     = t_s > 0 ? static_cast<double>(sizes[i]) / t_s / 1e9 : 0;
    row.busbw     = row.algbw * bus_factor(a.op, n);
    row.algorithm = how[i];
    sum_busbw += row.busbw;
    result.rows.push_back(row);
  }
  result.avg_busbw = sum_busbw / static_cast<double>(sizes.size());
  return result;
}

/** NCCL's model of each row's algorithm and protocol (BenchOptions::breakdown). */
void add_breakdown(BenchResult& r, const BenchOptions& a, const Op& op, const platform::Platform& p)
{
  auto sys = collectives::nccl_system(p);
  if (not sys)
    return;
  const auto n = static_cast<uint32_t>(a.gpus);
  std::set<uint32_t> nodes;
  for (uint32_t i = 0; i < n; i++)
    nodes.insert(p.gpus[i].node);
  auto m = collectives::nccl::model(*sys, op.type, n, static_cast<uint32_t>(nodes.size()));
  for (auto& row : r.rows) {
    auto slash = row.algorithm.find('/');
    if (slash == std::string::npos)
      continue;
    collectives::nccl::Algo al;
    collectives::nccl::Proto pr;
    std::string algo = row.algorithm.substr(0, std::min(slash, row.algorithm.find(' ')));
    if (not collectives::nccl::algo_from_string(algo, al) ||
        not collectives::nccl::proto_from_string(row.algorithm.substr(slash + 1), pr))
      continue;
    double t  = m.time_us(al, pr, static_cast<double>(row.size));
    double bw = m.bandwidth_GBps[static_cast<size_t>(al)][static_cast<size_t>(pr)];
    if (t < 0 || bw <= 0)
      continue;
    BenchBreakdown& b = row.breakdown;
    b.known           = true;
    b.model_us        = t;
    b.bandwidth_us    = static_cast<double>(row.size) / (1000 * bw);
    b.latency_us      = t - b.bandwidth_us;
    // NCCL counts an all-gather's output (the bench's size is the output already)
    b.channels = collectives::nccl::channels(*sys, al, pr, n, static_cast<double>(row.size));
    if (nodes.size() > 1) {
      auto pl         = collectives::nccl::ring_pipeline(*sys, m, pr, b.channels, 0);
      b.pipeline_GBps = pl.sustained_Bps() / 1e9;
      b.latency_bound = pl.latency_bound();
    }
  }
}

} // namespace

BenchResult collective_bench(const BenchOptions& a)
{
  const Op op      = op_of(a.op);
  const auto sizes = size_list(a);
  check_options(a);
  const auto n         = static_cast<uint32_t>(a.gpus);
  platform::Platform p = platform::generate(a.platform);
  if (p.gpus.size() < n)
    throw InputError(a.platform, "",
                     "has " + std::to_string(p.gpus.size()) + " GPUs, fewer than the " + std::to_string(n) +
                         " --gpus asks for");
  // a scratch folder that is never published: removed at the end, on an error or a signal
  StagingDir scratch(std::filesystem::temp_directory_path() / ("sgai-collective-" + std::to_string(::getpid())));
  const auto& dir = scratch.path();
  write_traces(dir, a, op, sizes, n);
  nlohmann::ordered_json system = write_system(dir, a, op, p);
  nlohmann::ordered_json e      = experiment_of(dir, a, p, system);
  xbt_log_control_set("xbt_cfg.thres:warning"); // the model's defaults and the experiment's name are not news
  xbt_log_control_set("sgai_experiment.thres:warning");
  run_generated_experiment(e.dump(2), "sgai collective bench", dir / "out", a.simgrid_args,
                           {{"at /platform/file", "--platform"}});
  BenchResult result = read_rows(dir / "out", a, op, sizes);
  result.gpu_type    = p.gpus[0].type;
  if (a.breakdown)
    add_breakdown(result, a, op, p);
  return result;
}

} // namespace sgai::experiment
