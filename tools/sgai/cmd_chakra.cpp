#include "chakra/convert.hpp"
#include "chakra/et_io.hpp"
#include "chakra/et_json.hpp"
#include "chakra/generate.hpp"
#include "chakra/stats.hpp"
#include "chakra/synth.hpp"
#include "chakra/training.hpp"
#include "chakra/visualize.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "core/foundation/units.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace sgai::cli {

namespace {

// Bounds of the options, stated in --help and checked before any work: they keep what a command
// reads, holds and writes to what a machine has (each says why).
constexpr int64_t max_window       = int64_t{1} << 22; ///< feeder window: 4 M nodes, about 4 GiB held
constexpr int64_t max_drawn        = 100'000;          ///< nodes drawn: Graphviz lays out no more usefully
constexpr int64_t max_ranks        = 65'536;           ///< one ET file per rank
constexpr int64_t max_dag_nodes    = 100'000'000;      ///< streamed, about 60 bytes each: 6 GB on disk
constexpr int64_t max_dag_width    = int64_t{1} << 20; ///< a replay's window must hold this many nodes
constexpr int64_t max_trace_nodes  = 2'000'000;        ///< traces built in memory (training, synth): ~2.5 GiB
constexpr double max_layer_flops   = 1e18;             ///< forward FLOPs of one layer: num_ops stay integers
constexpr double max_message_bytes = 1099511627776.0;  ///< --size, --bucket: 1 TiB
const std::string message_bounds   = "1B to 1TiB";

const std::vector<std::string> collective_names = {
    "all_reduce", "reduce",         "all_gather",           "gather", "scatter", "broadcast",
    "all_to_all", "reduce_scatter", "reduce_scatter_block", "barrier"};

std::optional<chakra::CollectiveType> collective_of(const std::string& name)
{
  std::string upper = name;
  for (auto& c : upper)
    c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return chakra::collective_from_string(upper);
}

/** --prefix: it names the output files (PREFIX.0.et, ...), so a plain name: not empty, no '/',
 *  not "." or "..", not hidden (check_plain_name); anything else is a usage error. */
CLI::Option* add_prefix(CLI::App* cmd, std::string& var, const std::string& help)
{
  return cmd->add_option("--prefix", var, help + " (a plain name: no folder)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            try {
              check_plain_name(text, "command line", "--prefix");
            } catch (const InputError& e) {
              return e.message();
            }
            return "";
          },
          "", ""));
}

/** "FIRST:LAST", either side empty or digits, FIRST <= LAST; nothing when malformed. */
std::optional<std::pair<std::optional<uint64_t>, std::optional<uint64_t>>> id_range(const std::string& text)
{
  auto colon = text.find(':');
  if (colon == std::string::npos)
    return std::nullopt;
  auto side = [](const std::string& part, bool& ok) -> std::optional<uint64_t> {
    if (part.empty())
      return std::nullopt;
    if (part.size() > 19 || part.find_first_not_of("0123456789") != std::string::npos) {
      ok = false;
      return std::nullopt;
    }
    return std::stoull(part);
  };
  bool ok    = true;
  auto first = side(text.substr(0, colon), ok);
  auto last  = side(text.substr(colon + 1), ok);
  if (not ok || (first && last && *first > *last))
    return std::nullopt;
  return std::make_pair(first, last);
}

/** The ET files named by inputs (files, folders, workload prefixes). */
std::vector<std::filesystem::path> et_files(const std::vector<std::string>& inputs)
{
  std::vector<std::filesystem::path> files;
  for (const auto& in : inputs)
    for (auto& f : chakra::workload_files(in))
      files.push_back(std::move(f));
  return files;
}

struct ConvertArgs {
  std::string in;
  std::string out;
};

struct StatsArgs {
  std::vector<std::string> inputs;
  std::string json;
  std::string replay_log;
  int64_t window   = 1 << 16;
  std::string deps = "auto";
};

std::string bytes_text(uint64_t b)
{
  return format_fixed(static_cast<double>(b) / (1 << 20), 3) + " MiB";
}

void print_stats(const chakra::TraceStats& s, std::ostream& o)
{
  o << "  nodes " << s.nodes << " (";
  bool first = true;
  for (const auto& [t, n] : s.by_type) {
    o << (first ? "" : ", ") << chakra::to_string(t) << " " << n;
    first = false;
  }
  o << ")\n";
  for (const auto& [t, c] : s.collectives)
    o << "  " << chakra::to_string(t) << ": " << c.count << " collectives, " << bytes_text(c.bytes) << "\n";
  if (s.collectives_without_type)
    o << "  collectives without a known comm_type: " << s.collectives_without_type << "\n";
  if (s.sends.count || s.recvs.count)
    o << "  point to point: " << s.sends.count << " sends (" << bytes_text(s.sends.bytes) << "), " << s.recvs.count
      << " receives (" << bytes_text(s.recvs.bytes) << ")\n";
  o << "  compute: " << format_number(s.compute_ops) << " operations";
  if (s.compute_without_ops)
    o << " (" << s.compute_without_ops << " compute nodes without num_ops)";
  o << "; CPU ops " << s.cpu_ops << "\n";
  o << "  durations: total " << s.total_duration_us << " us, critical path " << s.critical_path_us << " us\n";
  if (s.control_deps_ignored)
    o << "  control dependencies ignored (on the node itself or on nodes not in the trace): " << s.control_deps_ignored
      << "\n";
  if (not s.process_groups.empty()) {
    o << "  process groups:";
    for (const auto& [g, n] : s.process_groups)
      o << " " << g << " (" << n << ")";
    o << "\n";
  }
}

void json_stats(json::Writer& w, const chakra::TraceStats& s)
{
  w.begin_object();
  if (not s.file.empty())
    w.field("file", s.file);
  if (s.rank)
    w.field("rank", uint64_t{*s.rank});
  w.field("nodes", s.nodes);
  w.key("nodes_by_type").begin_object(true);
  for (const auto& [t, n] : s.by_type)
    w.field(chakra::to_string(t), n);
  w.end_object();
  w.key("collectives").begin_object();
  for (const auto& [t, c] : s.collectives) {
    w.key(chakra::to_string(t)).begin_object(true);
    w.field("count", c.count).field("bytes", c.bytes);
    w.end_object();
  }
  w.end_object();
  w.field("collectives_without_type", s.collectives_without_type);
  w.field("sends", s.sends.count).field("send_bytes", s.sends.bytes);
  w.field("recvs", s.recvs.count).field("recv_bytes", s.recvs.bytes);
  w.field("compute_ops", s.compute_ops).field("compute_without_ops", s.compute_without_ops);
  w.field("cpu_ops", s.cpu_ops);
  w.field("total_duration_us", s.total_duration_us).field("critical_path_us", s.critical_path_us);
  w.field("control_deps_ignored", s.control_deps_ignored);
  w.key("process_groups").begin_object(true);
  for (const auto& [g, n] : s.process_groups)
    w.field(g, n);
  w.end_object();
  w.end_object();
}

int stats(const StatsArgs& a)
{
  if (not a.json.empty() && not a.replay_log.empty() &&
      std::filesystem::path(a.json).lexically_normal() == std::filesystem::path(a.replay_log).lexically_normal())
    throw UsageError("--replay-log: " + quote(a.replay_log) + " is also the --json file: give two names");
  auto files = et_files(a.inputs);
  if (not a.json.empty())
    check_output_file(a.json, files, "--json");
  if (not a.replay_log.empty())
    check_output_file(a.replay_log, files, "--replay-log");
  auto deps = *chakra::deps_from_string(a.deps);
  auto t0   = std::chrono::steady_clock::now();
  std::vector<chakra::TraceStats> per_file;
  chakra::TraceStats total;
  std::vector<chakra::ReplayEvent> log;
  for (const auto& f : files) {
    per_file.push_back(
        chakra::trace_stats(f, static_cast<size_t>(a.window), deps, a.replay_log.empty() ? nullptr : &log));
    chakra::accumulate(total, per_file.back());
  }
  double wall        = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  uint64_t auto_data = 0;
  for (const auto& s : per_file)
    if (deps == chakra::Deps::automatic && s.data_deps_only)
      auto_data++;
  if (auto_data)
    std::cout << "Note: "
              << (auto_data == per_file.size() ? "the trace" + std::string(auto_data > 1 ? "s were" : " was")
                                               : std::to_string(auto_data) + " of the traces were")
              << " converted from PyTorch (GlobalMetadata pid, start_ts, finish_ts): following data dependencies "
                 "only, as Chakra's feeder does (--deps all follows control dependencies too)\n";
  for (const auto& s : per_file) {
    std::cout << s.file << (s.rank ? " (rank " + std::to_string(*s.rank) + ")" : "") << "\n";
    print_stats(s, std::cout);
  }
  if (per_file.size() > 1) {
    std::cout << "All " << per_file.size() << " ranks\n";
    print_stats(total, std::cout);
  }
  std::cout << "Read and resolved " << total.nodes << " nodes in " << format_fixed(wall, 3) << " s ("
            << format_fixed(wall > 0 ? static_cast<double>(total.nodes) / wall : 0, 0) << " nodes/s)\n";
  if (not a.json.empty()) {
    std::ostringstream text;
    json::Writer w(text);
    w.begin_object();
    w.field("ranks", static_cast<uint64_t>(per_file.size()));
    w.key("total");
    json_stats(w, total);
    w.key("files").begin_array();
    for (const auto& s : per_file)
      json_stats(w, s);
    w.end_array();
    w.end_object();
    write_file_atomically(a.json, text.str() + "\n");
  }
  if (not a.replay_log.empty()) {
    std::ostringstream text;
    chakra::write_replay_log(log, text);
    write_file_atomically(a.replay_log, text.str());
  }
  return 0;
}

struct VisualizeArgs {
  std::string et;
  std::string out;
  std::string format;
  int64_t max_nodes = 500;
  std::vector<std::string> types;
  std::string name;
  std::string ids;
  bool no_control = false;
};

int visualize(const VisualizeArgs& a)
{
  std::string format = a.format;
  if (format.empty()) {
    auto ext = std::filesystem::path(a.out).extension().string();
    if (ext != ".dot" && ext != ".svg" && ext != ".pdf" && ext != ".png")
      throw UsageError("--out: " + quote(a.out) + (ext.empty() ? " has no extension" : " ends in " + quote(ext)) +
                       ": expected .dot, .svg, .pdf or .png (or --format dot, svg, pdf or png)");
    format = ext.substr(1);
  }
  check_output_file(a.out, {a.et});
  chakra::DotOptions o;
  o.max_nodes     = static_cast<uint64_t>(a.max_nodes);
  o.name_contains = a.name;
  o.control_edges = not a.no_control;
  for (const auto& t : a.types)
    o.types.insert(*chakra::node_type_from_string(t)); // checked when parsed
  if (not a.ids.empty()) {
    auto r = *id_range(a.ids); // checked when parsed
    if (r.first)
      o.min_id = *r.first;
    if (r.second)
      o.max_id = *r.second;
  }
  std::filesystem::path out = a.out;
  std::filesystem::path dot = format == "dot" ? out : std::filesystem::path(out.string() + ".tmp.dot");
  chakra::DotSummary s;
  {
    AtomicFile f(dot);
    s = chakra::write_dot(a.et, o, f.stream());
    f.commit();
  }
  if (format != "dot") {
    // Graphviz renders to a temporary name, renamed once complete
    std::string tmp = out.string() + ".tmp." + format;
    auto status     = run_process({"dot", "-T" + format, dot.string(), "-o", tmp});
    std::error_code ec;
    std::filesystem::remove(dot, ec);
    if (not status || *status != 0) {
      std::filesystem::remove(tmp, ec);
      throw RunError("Graphviz's dot could not render " + format + " (is graphviz installed?)");
    }
    std::filesystem::rename(tmp, out);
  }
  std::cout << "Wrote " << out.string() << ": " << s.nodes_drawn << " nodes and " << s.edges_drawn << " edges of "
            << s.nodes_read << " nodes" << (s.truncated ? " (truncated: raise --max-nodes or filter)" : "") << "\n";
  return 0;
}

struct ConvertPytorchArgs {
  std::string et;
  std::string kineto;
  std::string out;
};

int convert(const ConvertPytorchArgs& a)
{
  std::vector<std::filesystem::path> inputs = {a.et};
  if (not a.kineto.empty())
    inputs.emplace_back(a.kineto);
  check_output_file(a.out, inputs);
  chakra::ConversionReport r;
  auto trace = chakra::convert_pytorch(a.et, a.kineto, &r);
  chakra::write_trace(a.out, trace);
  std::cout << "Wrote " << a.out << " (" << trace.nodes.size() << " nodes): " << r.host_ops << " host operators";
  if (not a.kineto.empty())
    std::cout << ", " << r.gpu_ops << " GPU operations (" << r.host_ops_linked << " of the "
              << r.host_ops + r.unknown_ops << " top-level entries found in the Kineto trace)";
  std::cout << "\n";
  for (const auto& [t, n] : r.collectives)
    std::cout << "  " << chakra::to_string(t) << ": " << n << "\n";
  if (r.point_to_point)
    std::cout << "  point to point: " << r.point_to_point << "\n";
  if (r.kernels_unlinked)
    std::cout << "  GPU events without a host operator launching them (left out): " << r.kernels_unlinked << "\n";
  if (r.unknown_ops)
    std::cerr << "sgai: warning: " << r.unknown_ops
              << " top-level entries are no known operator: kept as INVALID_NODE nodes\n";
  return 0;
}

int timeline(const std::string& log, const std::string& out)
{
  check_output_file(out, {log});
  auto events = chakra::read_replay_log(log);
  AtomicFile f(out);
  uint64_t n = chakra::write_chrome_trace(events, f.stream(), log);
  f.commit();
  std::cout << "Wrote " << out << " (" << n << " events; open it in https://ui.perfetto.dev or chrome://tracing)\n";
  return 0;
}

struct TrainingArgs {
  int64_t layers = 24, hidden = 2048, sequence = 2048, batch = 8, bytes = 2;
  int64_t dp = 1, tp = 1, pp = 1, microbatches = 1;
  std::string bucket = "25MiB";
  std::string out;
  std::string prefix = "training";
};

uint64_t training_nodes(const TrainingArgs& a)
{
  chakra::Parallelism p;
  p.data         = static_cast<uint32_t>(a.dp);
  p.tensor       = static_cast<uint32_t>(a.tp);
  p.pipeline     = static_cast<uint32_t>(a.pp);
  p.microbatches = static_cast<uint32_t>(a.microbatches);
  return chakra::training_node_bound(static_cast<uint64_t>(a.layers), p);
}

int generate_training(const TrainingArgs& a)
{
  // what the options make together, checked before any work (each alone is checked when parsed)
  if (a.layers < a.pp)
    throw UsageError("--pp: the model has " + std::to_string(a.layers) + " layers for " + std::to_string(a.pp) +
                     " pipeline stages: each stage needs a layer");
  int64_t ranks = a.dp * a.tp * a.pp; // each at most 65,536: no overflow
  if (ranks > max_ranks)
    throw UsageError("--dp, --tp, --pp: DP " + std::to_string(a.dp) + " x TP " + std::to_string(a.tp) + " x PP " +
                     std::to_string(a.pp) + " makes " + grouped(ranks) + " ranks, above " + grouped(max_ranks) +
                     ", the most sgai generates (one ET file each)");
  double h = static_cast<double>(a.hidden), sq = static_cast<double>(a.sequence), b = static_cast<double>(a.batch);
  double flops = 24 * b * sq * h * h + 4 * b * sq * sq * h;
  if (flops > max_layer_flops)
    throw UsageError("--hidden, --seq, --batch: hidden " + std::to_string(a.hidden) + ", sequence " +
                     std::to_string(a.sequence) + " and batch " + std::to_string(a.batch) + " make " +
                     format_number(flops) + " forward FLOPs per layer, above 1e18, the most sgai generates");
  uint64_t nodes = training_nodes(a);
  if (nodes > static_cast<uint64_t>(max_trace_nodes))
    throw UsageError("--layers, --microbatches, --dp, --tp, --pp: " + std::to_string(a.layers) + " layers, " +
                     std::to_string(a.microbatches) + " microbatches on " + grouped(ranks) + " ranks make up to " +
                     grouped(static_cast<int64_t>(std::min<uint64_t>(nodes, INT64_MAX))) + " trace nodes, above " +
                     grouped(max_trace_nodes) + ", the most sgai builds in memory");
  check_output_dir(a.out);
  chakra::ModelSpec model = chakra::transformer(static_cast<uint32_t>(a.layers), static_cast<uint64_t>(a.hidden),
                                                static_cast<uint64_t>(a.sequence), static_cast<uint64_t>(a.batch),
                                                static_cast<uint32_t>(a.bytes));
  chakra::Parallelism p;
  p.data         = static_cast<uint32_t>(a.dp);
  p.tensor       = static_cast<uint32_t>(a.tp);
  p.pipeline     = static_cast<uint32_t>(a.pp);
  p.microbatches = static_cast<uint32_t>(a.microbatches);
  p.bucket_bytes = static_cast<uint64_t>(*units::parse(a.bucket, units::Quantity::size)); // checked when parsed
  auto traces    = chakra::training_iteration(model, p);
  auto files     = chakra::write_workload(a.out, a.prefix, traces);
  write_file_atomically(std::filesystem::path(a.out) / (a.prefix + ".groups.json"),
                        chakra::comm_groups_json(chakra::training_groups(p)));
  std::cout << "Wrote " << files.size() << " ranks (DP " << a.dp << " x TP " << a.tp << " x PP " << a.pp << ", "
            << a.microbatches << " microbatches): " << (std::filesystem::path(a.out) / a.prefix).string() << ".{0.."
            << files.size() - 1 << "}.et and its communicator groups " << a.prefix << ".groups.json\n";
  return 0;
}

struct ChakraGenerateArgs {
  std::string kind;
  std::string collective = "all_reduce";
  int64_t ranks          = 8;
  std::string size       = "1MiB";
  std::string out;
  std::string prefix;
  int64_t nodes = 1000;
  int64_t count = 1;
  int64_t width = 64;
  int64_t seed  = 1;
};

int generate(const ChakraGenerateArgs& a)
{
  if (a.kind == "microbenchmark") {
    if (a.ranks * a.count > 100000000) // (both bounded: no overflow)
      throw UsageError("--ranks x --count: " + std::to_string(a.ranks) + " x " + std::to_string(a.count) +
                       " collectives is above 100,000,000");
    check_output_dir(a.out);
    auto type   = *collective_of(a.collective); // checked when parsed
    auto bytes  = static_cast<uint64_t>(*units::parse(a.size, units::Quantity::size));
    auto traces = chakra::microbenchmark(type, static_cast<uint32_t>(a.ranks), bytes, static_cast<uint32_t>(a.count));
    std::string prefix = a.prefix.empty() ? chakra::collective_file_name(type) : a.prefix;
    auto files         = chakra::write_workload(a.out, prefix, traces);
    std::cout << "Wrote " << files.size() << " ranks: " << (std::filesystem::path(a.out) / prefix).string() << ".{0.."
              << files.size() - 1 << "}.et\n";
    return 0;
  }
  // a random DAG, streamed
  std::filesystem::path file = a.out;
  if (file.extension() != ".et")
    throw UsageError("--out: a DAG is one ET file: give a name ending in .et, not " + quote(a.out));
  check_output_file(file);
  chakra::GlobalMetadata m;
  m.version = "0.0.4";
  chakra::EtWriter w(file, m);
  chakra::random_dag(w, static_cast<uint64_t>(a.nodes), static_cast<uint32_t>(a.width), static_cast<uint64_t>(a.seed));
  w.commit();
  std::cout << "Wrote " << file.string() << " (" << a.nodes << " nodes)\n";
  return 0;
}

struct SynthArgs {
  std::vector<std::string> inputs;
  std::string model;
  int64_t ranks          = 8;
  int64_t group_size     = 0;
  int64_t seed           = 1;
  int64_t max_components = 4;
  int64_t order          = 1;
  std::string out;
  std::string prefix = "synth";
};

int synth(const SynthArgs& a)
{
  if (a.inputs.empty() == a.model.empty())
    throw UsageError("give either input traces or --model FILE, not both or neither");
  if (a.group_size > a.ranks || (a.group_size > 0 && a.ranks % a.group_size != 0))
    throw UsageError("--group-size: a group size of " + std::to_string(a.group_size) + " does not divide " +
                     std::to_string(a.ranks) + " ranks");
  check_output_dir(a.out);
  chakra::SynthModel model;
  if (not a.model.empty())
    model = chakra::read_synth_model(a.model);
  else {
    chakra::SynthFitOptions fo;
    fo.max_components = static_cast<uint32_t>(a.max_components);
    model             = chakra::fit_synth_model(et_files(a.inputs), fo);
  }
  // every rank holds its group's sequence (and a compute node before each collective when the
  // model has compute gaps), all in memory at once
  double nodes = static_cast<double>(a.ranks) * static_cast<double>(std::max<uint64_t>(model.length_max, 1)) *
                 (model.compute_gap.components.empty() ? 1 : 2);
  if (nodes > static_cast<double>(max_trace_nodes))
    throw InputError(a.model.empty() ? a.inputs.front() : a.model, "--ranks",
                     std::to_string(a.ranks) + " ranks of sequences up to " + std::to_string(model.length_max) +
                         " collectives make up to " + format_number(nodes) + " trace nodes, above " +
                         grouped(max_trace_nodes) + ", the most sgai builds in memory: ask for fewer ranks");
  chakra::SynthSampleOptions so;
  so.ranks        = static_cast<uint32_t>(a.ranks);
  so.group_size   = static_cast<uint32_t>(a.group_size);
  so.seed         = static_cast<uint64_t>(a.seed);
  so.markov_order = static_cast<uint32_t>(a.order);
  chakra::SynthOutput out;
  try {
    out = chakra::sample_synth(model, so);
  } catch (const std::invalid_argument& e) {
    throw InputError(a.model.empty() ? a.inputs.front() : a.model, "", e.what());
  }
  StagingDir staging(a.out);
  chakra::write_workload(staging.path(), a.prefix, out.ranks);
  write_file_atomically(staging.path() / (a.prefix + ".groups.json"), chakra::comm_groups_json(out.groups));
  write_file_atomically(staging.path() / (a.prefix + ".model.json"), chakra::synth_model_json(model));
  staging.publish();

  auto& o = std::cout;
  o << "Model: " << model.input_ranks << " input ranks, " << model.composition.size()
    << " collective types, sequence length " << format_fixed(model.length_mean, 2) << " +- "
    << format_fixed(model.length_stddev, 2) << " (" << model.length_min << " to " << model.length_max << ")";
  if (model.skipped_collectives)
    o << ", " << model.skipped_collectives << " collectives without comm_type or comm_size left out";
  o << "\n";
  o << "type                  input share  synthetic share  components  KS statistic\n";
  for (const auto& [type, share] : model.composition) {
    auto sampled   = out.sampled_sizes.find(type);
    size_t n       = sampled == out.sampled_sizes.end() ? 0 : sampled->second.size();
    auto observed  = model.observed_sizes.find(type);
    std::string ks = "-";
    if (observed != model.observed_sizes.end() && n > 0)
      ks = format_fixed(chakra::ks_statistic(observed->second, sampled->second), 4);
    std::string name = chakra::to_string(type);
    name.resize(std::max<size_t>(name.size(), 22), ' ');
    std::string in_share  = format_fixed(share, 4),
                out_share = format_fixed(
                    out.sampled_collectives ? static_cast<double>(n) / static_cast<double>(out.sampled_collectives) : 0,
                    4);
    in_share.resize(13, ' ');
    out_share.resize(17, ' ');
    std::string comps = std::to_string(model.sizes.at(type).components.size());
    comps.resize(12, ' ');
    o << name << in_share << out_share << comps << ks << "\n";
  }
  o << "Wrote " << out.ranks.size() << " ranks in " << out.groups.size() << " group(s) (" << out.sampled_collectives
    << " collectives drawn, one sequence per group): " << (std::filesystem::path(a.out) / a.prefix).string() << ".{0.."
    << out.ranks.size() - 1 << "}.et, " << a.prefix << ".groups.json, " << a.prefix << ".model.json\n";
  return 0;
}

/** Adds "chakra jsonize ET --out JSON". */
void add_jsonize(CLI::App* chakra, Action& action)
{
  auto a    = std::make_shared<ConvertArgs>();
  auto* cmd = chakra->add_subcommand("jsonize", "ET -> JSON (exact: dejsonize gives the same bytes back)");
  add_path(cmd, "et", a->in, "Chakra ET file")->required();
  add_path(cmd, "--out", a->out, "JSON file to write")->required();
  cmd->callback([a, &action]() {
    action = [a]() {
      check_output_file(a->out, {a->in});
      uint64_t n = chakra::jsonize_file(a->in, a->out);
      std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
      return 0;
    };
  });
}

/** Adds "chakra dejsonize JSON --out ET". */
void add_dejsonize(CLI::App* chakra, Action& action)
{
  auto a    = std::make_shared<ConvertArgs>();
  auto* cmd = chakra->add_subcommand("dejsonize", "JSON (as written by jsonize) -> ET");
  add_path(cmd, "json", a->in, "JSON file")->required();
  add_path(cmd, "--out", a->out, "Chakra ET file to write")->required();
  cmd->callback([a, &action]() {
    action = [a]() {
      check_output_file(a->out, {a->in});
      uint64_t n = chakra::dejsonize_file(a->in, a->out);
      std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
      return 0;
    };
  });
}

/** Adds "chakra stats INPUT... [--json F] [--replay-log F] [--window N] [--deps D]". */
void add_stats(CLI::App* chakra, Action& action)
{
  auto a = std::make_shared<StatsArgs>();
  auto* cmd =
      chakra->add_subcommand("stats", "Node counts, collectives and bytes, compute operations, critical path of ETs");
  cmd->add_option("inputs", a->inputs, "ET files, folders of ETs, or workload prefixes (dir/name for dir/name.N.et)")
      ->required();
  add_path(cmd, "--json", a->json, "Also write the figures as JSON");
  add_path(cmd, "--replay-log", a->replay_log,
           "Also write the replay log (issue and callback of every node, unlimited resources) for timeline");
  add_count(cmd, "--window", a->window, "Nodes the feeder reads ahead (default 65536)", 1, max_window);
  cmd->add_option("--deps", a->deps,
                  "Dependencies to follow: auto (default: data for traces converted from PyTorch by Chakra, all "
                  "otherwise), all (data and control) or data (Chakra's own feeder)")
      ->check(CLI::IsMember({"auto", "all", "data"}));
  cmd->callback([a, &action]() { action = [a]() { return stats(*a); }; });
}

/** Adds "chakra visualize ET --out FILE" and its filters. */
void add_visualize(CLI::App* chakra, Action& action)
{
  auto a    = std::make_shared<VisualizeArgs>();
  auto* cmd = chakra->add_subcommand("visualize", "Graphviz drawing of an ET's dependency graph (dot, svg, pdf, png)");
  add_path(cmd, "et", a->et, "Chakra ET file")->required();
  add_path(cmd, "--out", a->out, "Output file (.dot, .svg, .pdf or .png)")->required();
  cmd->add_option("--format", a->format, "dot, svg, pdf or png (default: from the file name)")
      ->check(CLI::IsMember({"dot", "svg", "pdf", "png"}));
  add_count(cmd, "--max-nodes", a->max_nodes, "Draw at most this many nodes (default 500)", 1, max_drawn);
  cmd->add_option("--type", a->types, "Only nodes of this type (repeatable): COMP_NODE, COMM_COLL_NODE, ...")
      ->check(CLI::Validator(
          [](std::string& t) -> std::string {
            return chakra::node_type_from_string(t)
                       ? ""
                       : "unknown node type " + quote(t) +
                             " (INVALID_NODE, METADATA_NODE, MEM_LOAD_NODE, MEM_STORE_NODE, COMP_NODE, "
                             "COMM_SEND_NODE, COMM_RECV_NODE, COMM_COLL_NODE, ...)";
          },
          "", ""));
  cmd->add_option("--name", a->name, "Only nodes whose name contains this text");
  cmd->add_option("--ids", a->ids, "Only ids in FIRST:LAST (either may be empty; FIRST <= LAST)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            return id_range(text) ? ""
                                  : "bad id range " + quote(text) +
                                        ": expected FIRST:LAST, node ids with FIRST <= LAST (either may be empty)";
          },
          "", ""));
  cmd->add_flag("--no-control", a->no_control, "Do not draw control dependencies");
  cmd->callback([a, &action]() { action = [a]() { return visualize(*a); }; });
}

/** Adds "chakra convert ET [--kineto K] --out ET". */
void add_convert(CLI::App* chakra, Action& action)
{
  auto a    = std::make_shared<ConvertPytorchArgs>();
  auto* cmd = chakra->add_subcommand(
      "convert", "PyTorch execution trace (+ the rank's Kineto trace for GPU kernels) -> Chakra ET");
  add_path(cmd, "et", a->et, "PyTorch host execution trace JSON (.json or .json.gz)")->required();
  add_path(cmd, "--kineto", a->kineto, "The same rank's Kineto (PyTorch profiler) trace JSON");
  add_path(cmd, "--out", a->out, "Chakra ET file to write (prefix.RANK.et)")->required();
  cmd->callback([a, &action]() { action = [a]() { return convert(*a); }; });
}

/** Adds "chakra timeline LOG --out JSON". */
void add_timeline(CLI::App* chakra, Action& action)
{
  auto log  = std::make_shared<std::string>();
  auto out  = std::make_shared<std::string>();
  auto* cmd = chakra->add_subcommand("timeline", "Replay log -> Chrome trace JSON (Perfetto, chrome://tracing)");
  add_path(cmd, "log", *log, "Replay log (CSV: rank,node_id,event,time_us,type,name)")->required();
  add_path(cmd, "--out", *out, "Chrome trace JSON to write")->required();
  cmd->callback([log, out, &action]() { action = [log, out]() { return timeline(*log, *out); }; });
}

/** Adds "chakra generate microbenchmark" to `gen`. */
void add_generate_microbenchmark(CLI::App* gen, Action& action)
{
  auto a    = std::make_shared<ChakraGenerateArgs>();
  a->kind   = "microbenchmark";
  auto* cmd = gen->add_subcommand("microbenchmark", "One collective per rank, as ASTRA-sim's microbenchmarks");
  cmd->add_option("--collective", a->collective, "all_reduce, all_gather, reduce_scatter, all_to_all, ...")
      ->check(CLI::Validator(
          [](std::string& c) -> std::string {
            std::string known;
            for (const auto& n : collective_names)
              known += (known.empty() ? "" : ", ") + n;
            return collective_of(c) ? "" : "unknown collective " + quote(c) + " (known: " + known + ")";
          },
          "", ""));
  add_count(cmd, "--ranks", a->ranks, "Number of ranks (NPUs; one ET file each)", 1, max_ranks);
  add_quantity(cmd, "--size", a->size, "Bytes per collective (default 1MiB)", units::Quantity::size, 1,
               max_message_bytes, message_bounds, true);
  add_count(cmd, "--count", a->count, "Collectives per rank, each after the one before (default 1)", 1, 1000000);
  add_path(cmd, "--out", a->out, "Output folder")->required();
  add_prefix(cmd, a->prefix, "File prefix (default: the collective's name)");
  cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
}

/** Adds "chakra generate training" to `gen`. */
void add_generate_training(CLI::App* gen, Action& action)
{
  auto a    = std::make_shared<TrainingArgs>();
  auto* cmd = gen->add_subcommand("training", "One training iteration of a GPT-style model under DP, TP and PP");
  add_count(cmd, "--layers", a->layers, "Transformer layers (default 24)", 1, 4096);
  add_count(cmd, "--hidden", a->hidden, "Hidden size (default 2048)", 1, 65536);
  add_count(cmd, "--seq", a->sequence, "Sequence length (default 2048)", 1, 1 << 20);
  add_count(cmd, "--batch", a->batch, "Global batch in sequences (default 8)", 1, 65536);
  cmd->add_option("--bytes", a->bytes, "Bytes per element: 1, 2, 4, 8 or 16 (default 2: fp16, bf16)")
      ->check(CLI::Validator(
          [](std::string& text) -> std::string {
            for (const char* size : {"1", "2", "4", "8", "16"})
              if (text == size)
                return "";
            return quote(text.size() > 40 ? text.substr(0, 40) + "..." : text) +
                   " is not an element size: expected 1, 2, 4, 8 or 16 bytes";
          },
          "", ""));
  add_count(cmd, "--dp", a->dp, "Data-parallel replicas (DP x TP x PP at most 65,536 ranks)", 1, max_ranks);
  add_count(cmd, "--tp", a->tp, "Tensor-parallel shards", 1, max_ranks);
  add_count(cmd, "--pp", a->pp, "Pipeline stages (at most --layers)", 1, max_ranks);
  add_count(cmd, "--microbatches", a->microbatches,
            "Microbatches per iteration (all ranks together at most 2,000,000 trace nodes)", 1, 65536);
  add_quantity(cmd, "--bucket", a->bucket, "Gradient bucket size (default 25MiB)", units::Quantity::size, 1,
               max_message_bytes, message_bounds, true);
  add_path(cmd, "--out", a->out, "Output folder")->required();
  add_prefix(cmd, a->prefix, "File prefix (default training)");
  cmd->callback([a, &action]() { action = [a]() { return generate_training(*a); }; });
}

/** Adds "chakra generate dag" to `gen`. */
void add_generate_dag(CLI::App* gen, Action& action)
{
  auto a    = std::make_shared<ChakraGenerateArgs>();
  a->kind   = "dag";
  auto* cmd = gen->add_subcommand("dag", "A layered random DAG of compute nodes (benchmarks), streamed to disk");
  add_count(cmd, "--nodes", a->nodes, "Number of nodes (about 60 bytes each on disk; default 1000)", 1, max_dag_nodes);
  add_count(cmd, "--width", a->width, "Parents are among the previous WIDTH nodes (default 64)", 1, max_dag_width);
  add_seed(cmd, a->seed, "Seed");
  add_path(cmd, "--out", a->out, "Output ET file")->required();
  cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
}

/** Adds "chakra generate microbenchmark|training|dag". */
void add_generate(CLI::App* chakra, Action& action)
{
  auto* gen = chakra->add_subcommand("generate",
                                     "Synthetic traces: collective microbenchmarks, training iterations, random DAGs");
  add_generate_microbenchmark(gen, action);
  add_generate_training(gen, action);
  add_generate_dag(gen, action);
}

/** Adds "chakra synth [INPUT...] [--model M] --out DIR" and its options. */
void add_synth(CLI::App* chakra, Action& action)
{
  auto a    = std::make_shared<SynthArgs>();
  auto* cmd = chakra->add_subcommand(
      "synth", "Fit collective types, order, counts and message sizes to real ETs; sample traces of any rank count");
  cmd->add_option("inputs", a->inputs, "ET files, folders or workload prefixes to fit");
  add_path(cmd, "--model", a->model, "Sample from a model written before (PREFIX.model.json) instead of fitting");
  add_count(cmd, "--ranks", a->ranks, "Ranks to generate (default 8; all at most 2,000,000 trace nodes)", 1, max_ranks);
  add_count(cmd, "--group-size", a->group_size,
            "Ranks per communicator group, dividing --ranks (default: all ranks in one)", 0, max_ranks);
  add_count(cmd, "--max-components", a->max_components, "Most Gaussian components per size distribution (default 4)", 1,
            16);
  add_count(cmd, "--order", a->order, "1: collective types follow the fitted transitions; 0: independent draws", 0, 1);
  add_seed(cmd, a->seed, "Seed (default 1)");
  add_path(cmd, "--out", a->out, "Output folder")->required();
  add_prefix(cmd, a->prefix, "File prefix (default synth)");
  cmd->callback([a, &action]() { action = [a]() { return synth(*a); }; });
}
} // namespace

void add_chakra_commands(CLI::App& app, Action& action)
{
  auto* chakra = app.add_subcommand("chakra", "Chakra execution traces: convert, inspect, generate");
  add_jsonize(chakra, action);
  add_dejsonize(chakra, action);
  add_stats(chakra, action);
  add_visualize(chakra, action);
  add_convert(chakra, action);
  add_timeline(chakra, action);
  add_generate(chakra, action);
  add_synth(chakra, action);
}

} // namespace sgai::cli
