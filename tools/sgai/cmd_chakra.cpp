#include "chakra/convert.hpp"
#include "chakra/et_io.hpp"
#include "chakra/et_json.hpp"
#include "chakra/generate.hpp"
#include "chakra/stats.hpp"
#include "chakra/synth.hpp"
#include "chakra/training.hpp"
#include "chakra/visualize.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json_writer.hpp"
#include "generators/util/numbers.hpp"
#include "generators/util/units.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/process.hpp"

#include <chrono>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <sstream>

namespace sgai::cli {

namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
};

struct StatsArgs {
  std::vector<std::string> inputs;
  std::string json;
  std::string replay_log;
  int64_t window   = 1 << 16;
  std::string deps = "all";
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
  std::vector<std::filesystem::path> files;
  for (const auto& in : a.inputs)
    for (auto& f : chakra::workload_files(in))
      files.push_back(std::move(f));
  auto t0 = std::chrono::steady_clock::now();
  std::vector<chakra::TraceStats> per_file;
  chakra::TraceStats total;
  std::vector<chakra::ReplayEvent> log;
  for (const auto& f : files) {
    per_file.push_back(
        chakra::trace_stats(f, static_cast<size_t>(a.window), a.deps == "all", a.replay_log.empty() ? nullptr : &log));
    chakra::accumulate(total, per_file.back());
  }
  double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
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
  chakra::DotOptions o;
  o.max_nodes     = static_cast<uint64_t>(a.max_nodes);
  o.name_contains = a.name;
  o.control_edges = not a.no_control;
  for (const auto& t : a.types) {
    auto type = chakra::node_type_from_string(t);
    if (not type)
      throw InputError("command line", "--type", "unknown node type " + quote(t) + " (COMP_NODE, COMM_COLL_NODE, ...)");
    o.types.insert(*type);
  }
  if (not a.ids.empty()) {
    auto colon = a.ids.find(':');
    try {
      if (colon == std::string::npos)
        throw std::invalid_argument(a.ids);
      if (colon > 0)
        o.min_id = std::stoull(a.ids.substr(0, colon));
      if (colon + 1 < a.ids.size())
        o.max_id = std::stoull(a.ids.substr(colon + 1));
    } catch (const std::exception&) {
      throw InputError("command line", "--ids",
                       "bad id range " + quote(a.ids) + ": expected FIRST:LAST (either may be empty)");
    }
  }
  std::string format = a.format;
  if (format.empty()) {
    auto ext = std::filesystem::path(a.out).extension().string();
    format   = ext == ".svg" ? "svg" : ext == ".pdf" ? "pdf" : ext == ".png" ? "png" : "dot";
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
  auto events = chakra::read_replay_log(log);
  AtomicFile f(out);
  uint64_t n = chakra::write_chrome_trace(events, f.stream());
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

int generate_training(const TrainingArgs& a)
{
  chakra::ModelSpec model;
  chakra::Parallelism p;
  try {
    model          = chakra::transformer(static_cast<uint32_t>(a.layers), static_cast<uint64_t>(a.hidden),
                                         static_cast<uint64_t>(a.sequence), static_cast<uint64_t>(a.batch),
                                         static_cast<uint32_t>(a.bytes));
    p.data         = static_cast<uint32_t>(a.dp);
    p.tensor       = static_cast<uint32_t>(a.tp);
    p.pipeline     = static_cast<uint32_t>(a.pp);
    p.microbatches = static_cast<uint32_t>(a.microbatches);
    auto bucket    = units::parse(a.bucket, units::Quantity::size);
    if (not bucket || not(*bucket >= 1))
      throw InputError("command line", "--bucket", "bad size " + quote(a.bucket) + ": expected bytes such as 25MiB");
    p.bucket_bytes = static_cast<uint64_t>(*bucket);
    auto traces    = chakra::training_iteration(model, p);
    auto files     = chakra::write_workload(a.out, a.prefix, traces);
    write_file_atomically(std::filesystem::path(a.out) / (a.prefix + ".groups.json"),
                          chakra::comm_groups_json(chakra::training_groups(p)));
    std::cout << "Wrote " << files.size() << " ranks (DP " << a.dp << " x TP " << a.tp << " x PP " << a.pp << ", "
              << a.microbatches << " microbatches): " << (std::filesystem::path(a.out) / a.prefix).string() << ".{0.."
              << files.size() - 1 << "}.et and its communicator groups " << a.prefix << ".groups.json\n";
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "", e.what());
  }
  return 0;
}

struct GenerateArgs {
  std::string kind;
  std::string collective = "all_reduce";
  int64_t ranks          = 8;
  std::string size       = "1MiB";
  std::string out;
  std::string prefix;
  int64_t nodes = 1000;
  int64_t width = 64;
  int64_t seed  = 1;
};

uint64_t parse_bytes(const std::string& text)
{
  auto v = units::parse(text, units::Quantity::size);
  if (not v || not(*v >= 1) || *v != std::floor(*v))
    throw InputError("command line", "--size",
                     "bad size " + quote(text) + ": expected a whole number of bytes such as 1MiB or 4096B");
  return static_cast<uint64_t>(*v);
}

int generate(const GenerateArgs& a)
{
  if (a.kind == "microbenchmark") {
    std::string upper = a.collective;
    for (auto& c : upper)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto type = chakra::collective_from_string(upper);
    if (not type)
      throw InputError("command line", "--collective",
                       "unknown collective " + quote(a.collective) +
                           " (known: all_reduce, reduce, all_gather, gather, scatter, broadcast, all_to_all, "
                           "reduce_scatter, reduce_scatter_block, barrier)");
    uint64_t bytes     = parse_bytes(a.size);
    auto traces        = chakra::microbenchmark(*type, static_cast<uint32_t>(a.ranks), bytes);
    std::string prefix = a.prefix.empty() ? chakra::collective_file_name(*type) : a.prefix;
    auto files         = chakra::write_workload(a.out, prefix, traces);
    std::cout << "Wrote " << files.size() << " ranks: " << (std::filesystem::path(a.out) / prefix).string() << ".{0.."
              << files.size() - 1 << "}.et\n";
    return 0;
  }
  // a random DAG, streamed
  std::filesystem::path file = a.out;
  if (file.extension() != ".et")
    throw InputError("command line", "--out", "a DAG is one ET file: give a name ending in .et, not " + quote(a.out));
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
    throw InputError("command line", "", "give either input traces or --model FILE, not both or neither");
  chakra::SynthModel model;
  if (not a.model.empty())
    model = chakra::read_synth_model(a.model);
  else {
    std::vector<std::filesystem::path> files;
    for (const auto& in : a.inputs)
      for (auto& f : chakra::workload_files(in))
        files.push_back(std::move(f));
    chakra::SynthFitOptions fo;
    fo.max_components = static_cast<uint32_t>(a.max_components);
    model             = chakra::fit_synth_model(files, fo);
  }
  chakra::SynthSampleOptions so;
  so.ranks        = static_cast<uint32_t>(a.ranks);
  so.group_size   = static_cast<uint32_t>(a.group_size);
  so.seed         = static_cast<uint64_t>(a.seed);
  so.markov_order = static_cast<uint32_t>(a.order);
  chakra::SynthOutput out;
  try {
    out = chakra::sample_synth(model, so);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "", e.what());
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

} // namespace

void add_chakra_commands(CLI::App& app, Action& action)
{
  auto* chakra = app.add_subcommand("chakra", "Chakra execution traces: convert, inspect, generate");
  {
    auto a    = std::make_shared<ConvertArgs>();
    auto* cmd = chakra->add_subcommand("jsonize", "ET -> JSON (exact: dejsonize gives the same bytes back)");
    cmd->add_option("et", a->in, "Chakra ET file")->required();
    cmd->add_option("--out", a->out, "JSON file to write")->required();
    cmd->callback([a, &action]() {
      action = [a]() {
        uint64_t n = chakra::jsonize_file(a->in, a->out);
        std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
        return 0;
      };
    });
  }
  {
    auto a    = std::make_shared<ConvertArgs>();
    auto* cmd = chakra->add_subcommand("dejsonize", "JSON (as written by jsonize) -> ET");
    cmd->add_option("json", a->in, "JSON file")->required();
    cmd->add_option("--out", a->out, "Chakra ET file to write")->required();
    cmd->callback([a, &action]() {
      action = [a]() {
        uint64_t n = chakra::dejsonize_file(a->in, a->out);
        std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
        return 0;
      };
    });
  }
  {
    auto a = std::make_shared<StatsArgs>();
    auto* cmd =
        chakra->add_subcommand("stats", "Node counts, collectives and bytes, compute operations, critical path of ETs");
    cmd->add_option("inputs", a->inputs, "ET files, folders of ETs, or workload prefixes (dir/name for dir/name.N.et)")
        ->required();
    cmd->add_option("--json", a->json, "Also write the figures as JSON");
    cmd->add_option("--replay-log", a->replay_log,
                    "Also write the replay log (issue and callback of every node, unlimited resources) for timeline");
    cmd->add_option("--window", a->window, "Nodes the feeder reads ahead (default 65536)")->check(CLI::PositiveNumber);
    cmd->add_option("--deps", a->deps,
                    "Dependencies to follow: all (data and control, default) or data (Chakra's own feeder; for "
                    "traces converted from PyTorch)")
        ->check(CLI::IsMember({"all", "data"}));
    cmd->callback([a, &action]() { action = [a]() { return stats(*a); }; });
  }
  {
    auto a = std::make_shared<VisualizeArgs>();
    auto* cmd =
        chakra->add_subcommand("visualize", "Graphviz drawing of an ET's dependency graph (dot, svg, pdf, png)");
    cmd->add_option("et", a->et, "Chakra ET file")->required();
    cmd->add_option("--out", a->out, "Output file (.dot, .svg, .pdf or .png)")->required();
    cmd->add_option("--format", a->format, "dot, svg, pdf or png (default: from the file name)")
        ->check(CLI::IsMember({"dot", "svg", "pdf", "png"}));
    cmd->add_option("--max-nodes", a->max_nodes, "Draw at most this many nodes (default 500)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--type", a->types, "Only nodes of this type (repeatable): COMP_NODE, COMM_COLL_NODE, ...");
    cmd->add_option("--name", a->name, "Only nodes whose name contains this text");
    cmd->add_option("--ids", a->ids, "Only ids in FIRST:LAST");
    cmd->add_flag("--no-control", a->no_control, "Do not draw control dependencies");
    cmd->callback([a, &action]() { action = [a]() { return visualize(*a); }; });
  }
  {
    auto a    = std::make_shared<ConvertPytorchArgs>();
    auto* cmd = chakra->add_subcommand(
        "convert", "PyTorch execution trace (+ the rank's Kineto trace for GPU kernels) -> Chakra ET");
    cmd->add_option("et", a->et, "PyTorch host execution trace JSON (.json or .json.gz)")->required();
    cmd->add_option("--kineto", a->kineto, "The same rank's Kineto (PyTorch profiler) trace JSON");
    cmd->add_option("--out", a->out, "Chakra ET file to write (prefix.RANK.et)")->required();
    cmd->callback([a, &action]() { action = [a]() { return convert(*a); }; });
  }
  {
    auto log  = std::make_shared<std::string>();
    auto out  = std::make_shared<std::string>();
    auto* cmd = chakra->add_subcommand("timeline", "Replay log -> Chrome trace JSON (Perfetto, chrome://tracing)");
    cmd->add_option("log", *log, "Replay log (CSV: rank,node_id,event,time_us,type,name)")->required();
    cmd->add_option("--out", *out, "Chrome trace JSON to write")->required();
    cmd->callback([log, out, &action]() { action = [log, out]() { return timeline(*log, *out); }; });
  }
  {
    auto* gen = chakra->add_subcommand(
        "generate", "Synthetic traces: collective microbenchmarks, training iterations, random DAGs");
    {
      auto a    = std::make_shared<GenerateArgs>();
      a->kind   = "microbenchmark";
      auto* cmd = gen->add_subcommand("microbenchmark", "One collective per rank, as ASTRA-sim's microbenchmarks");
      cmd->add_option("--collective", a->collective, "all_reduce, all_gather, reduce_scatter, all_to_all, ...");
      cmd->add_option("--ranks", a->ranks, "Number of ranks (NPUs)")->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
      cmd->add_option("--size", a->size, "Bytes per collective (default 1MiB)");
      cmd->add_option("--out", a->out, "Output folder")->required();
      cmd->add_option("--prefix", a->prefix, "File prefix (default: the collective's name)");
      cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
    }
    {
      auto a    = std::make_shared<TrainingArgs>();
      auto* cmd = gen->add_subcommand("training", "One training iteration of a GPT-style model under DP, TP and PP");
      auto size = CLI::Range(int64_t{1}, int64_t{1} << 40);
      cmd->add_option("--layers", a->layers, "Transformer layers (default 24)")->check(size);
      cmd->add_option("--hidden", a->hidden, "Hidden size (default 2048)")->check(size);
      cmd->add_option("--seq", a->sequence, "Sequence length (default 2048)")->check(size);
      cmd->add_option("--batch", a->batch, "Global batch in sequences (default 8)")->check(size);
      cmd->add_option("--bytes", a->bytes, "Bytes per element (default 2)")->check(CLI::Range(int64_t{1}, int64_t{16}));
      cmd->add_option("--dp", a->dp, "Data-parallel replicas")->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
      cmd->add_option("--tp", a->tp, "Tensor-parallel shards")->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
      cmd->add_option("--pp", a->pp, "Pipeline stages")->check(CLI::Range(int64_t{1}, int64_t{1} << 16));
      cmd->add_option("--microbatches", a->microbatches, "Microbatches per iteration")
          ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
      cmd->add_option("--bucket", a->bucket, "Gradient bucket size (default 25MiB)");
      cmd->add_option("--out", a->out, "Output folder")->required();
      cmd->add_option("--prefix", a->prefix, "File prefix (default training)");
      cmd->callback([a, &action]() { action = [a]() { return generate_training(*a); }; });
    }
    {
      auto a    = std::make_shared<GenerateArgs>();
      a->kind   = "dag";
      auto* cmd = gen->add_subcommand("dag", "A layered random DAG of compute nodes (benchmarks), streamed to disk");
      cmd->add_option("--nodes", a->nodes, "Number of nodes")->check(CLI::PositiveNumber);
      cmd->add_option("--width", a->width, "Parents are among the previous WIDTH nodes (default 64)")
          ->check(CLI::Range(int64_t{1}, int64_t{1} << 30));
      cmd->add_option("--seed", a->seed, "Seed")->check(CLI::NonNegativeNumber);
      cmd->add_option("--out", a->out, "Output ET file")->required();
      cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
    }
  }
  {
    auto a    = std::make_shared<SynthArgs>();
    auto* cmd = chakra->add_subcommand(
        "synth", "Fit collective types, order, counts and message sizes to real ETs; sample traces of any rank count");
    cmd->add_option("inputs", a->inputs, "ET files, folders or workload prefixes to fit");
    cmd->add_option("--model", a->model, "Sample from a model written before (PREFIX.model.json) instead of fitting");
    cmd->add_option("--ranks", a->ranks, "Ranks to generate (default 8)")
        ->check(CLI::Range(int64_t{1}, int64_t{1} << 20));
    cmd->add_option("--group-size", a->group_size, "Ranks per communicator group (default: all ranks in one)")
        ->check(CLI::Range(int64_t{0}, int64_t{1} << 20));
    cmd->add_option("--max-components", a->max_components, "Most Gaussian components per size distribution (default 4)")
        ->check(CLI::Range(int64_t{1}, int64_t{16}));
    cmd->add_option("--order", a->order, "1: collective types follow the fitted transitions; 0: independent draws")
        ->check(CLI::Range(int64_t{0}, int64_t{1}));
    cmd->add_option("--seed", a->seed, "Seed (default 1)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--out", a->out, "Output folder")->required();
    cmd->add_option("--prefix", a->prefix, "File prefix (default synth)");
    cmd->callback([a, &action]() { action = [a]() { return synth(*a); }; });
  }
}

} // namespace sgai::cli
