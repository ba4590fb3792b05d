#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "core/foundation/units.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/gpu_traces.hpp"
#include "generators/workload/synthetic.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <cmath>
#include <filesystem>
#include <iostream>
#include <optional>
#include <sstream>

namespace sgai::cli {

namespace {

struct Swf2JsonArgs {
  std::string swf;
  std::string out;
  std::optional<int64_t> first;
  int64_t offset              = 0;
  bool no_clean               = false;
  std::string reference_speed = "22Gf";
  std::string mem_bw          = "4:24";
  std::string mem_bw_values;
  int64_t seed       = 1;
  bool walltime      = false;
  double default_mem = 0;
};

// Bounds of the options (stated in --help): beyond them the figures are no machine's, and the
// products that follow (operations = time x speed, submission times = jobs x inter-arrival) stay
// finite and within the readers' bounds (times at most workload::max_time_s).
constexpr int64_t max_jobs_selected   = 1'000'000'000; ///< --first, --offset: past any log
constexpr int64_t max_jobs_generated  = 1'000'000;     ///< --jobs: about 250 MB of JSON, 300 MB in memory
constexpr double max_speed            = 1e18;          ///< --reference-speed: 1 Ef per core
constexpr double max_mem_bw_gbps      = 1e6;           ///< GB/s per core: 300 times an H100's HBM
constexpr double max_mem_mb           = 1e9;           ///< MB per core: a petabyte
constexpr double max_interarrival_s   = 86400;         ///< 1 day: x 1,000,000 jobs stays far below 1e12 s
const std::string speed_bounds        = "1f to 1Ef";
const std::string interarrival_bounds = "0s to 1d";

/** "4:24" -> (4, 24); each side a plain number, or a quantity when `q` is given ("1m:1d"). */
std::optional<std::pair<double, double>> range_of(const std::string& text, std::optional<units::Quantity> q)
{
  auto number = [&](const std::string& part) -> std::optional<double> {
    if (q)
      if (auto v = units::parse(part, *q))
        return v;
    if (part.empty() || part.find_first_not_of("0123456789.eE+-") != std::string::npos)
      return std::nullopt; // no "inf", "nan", hex or spaces
    try {                  // a plain number: seconds, MB or GB/s
      size_t used = 0;
      double v    = std::stod(part, &used);
      if (used == part.size() && std::isfinite(v))
        return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  };
  auto colon = text.find(':');
  if (colon == std::string::npos)
    return std::nullopt;
  auto a = number(text.substr(0, colon)), b = number(text.substr(colon + 1));
  if (not a || not b)
    return std::nullopt;
  return std::make_pair(*a, *b);
}

/** A MIN:MAX option with 0 <= MIN <= MAX <= max (0 < MIN when `positive`), checked when parsed. */
CLI::Option* add_range(CLI::App* cmd, const std::string& name, std::string& var, const std::string& help,
                       const std::string& expected, double max, std::optional<units::Quantity> q = {},
                       bool positive = false)
{
  return cmd->add_option(name, var, help + " (" + expected + ")")
      ->check(CLI::Validator(
          [=](std::string& text) -> std::string {
            auto r = range_of(text, q);
            if (not r || not(positive ? r->first > 0 : r->first >= 0) || not(r->second >= r->first) ||
                not(r->second <= max))
              return "bad range " + quote(text) + ": expected " + expected;
            return "";
          },
          "", ""));
}

std::pair<double, double> range(const std::string& text, std::optional<units::Quantity> q = {})
{
  return *range_of(text, q); // checked when parsed
}

double quantity(const std::string& text, units::Quantity q)
{
  return *units::parse(text, q); // checked when parsed
}

/** "4,8,12": GB/s values, each within [0, max_mem_bw_gbps]. */
std::optional<std::vector<double>> values_of(const std::string& text)
{
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    auto v = range_of(item + ":" + item, std::nullopt);
    if (not v || not(v->first >= 0 && v->first <= max_mem_bw_gbps))
      return std::nullopt;
    out.push_back(v->first);
  }
  if (out.empty() || (not text.empty() && text.back() == ','))
    return std::nullopt;
  return out;
}

int swf2json(const Swf2JsonArgs& a)
{
  check_output_file(a.out, {a.swf});
  workload::SwfConversion conv;
  conv.reference_speed                                 = quantity(a.reference_speed, units::Quantity::speed);
  std::tie(conv.mem_bw_min_gbps, conv.mem_bw_max_gbps) = range(a.mem_bw);
  if (not a.mem_bw_values.empty())
    conv.mem_bw_values = *values_of(a.mem_bw_values);
  conv.seed           = static_cast<uint64_t>(a.seed);
  conv.walltime       = a.walltime;
  conv.default_mem_mb = a.default_mem;

  workload::SwfLog log = workload::read_swf(a.swf);
  workload::SwfSelection sel;
  sel.offset = static_cast<uint64_t>(a.offset);
  if (a.first)
    sel.count = static_cast<uint64_t>(*a.first);
  sel.clean   = not a.no_clean;
  auto chosen = workload::select_swf(log, sel);
  if (chosen.records.empty()) {
    std::string why;
    for (const auto& [reason, n] : chosen.dropped)
      why += ", " + std::to_string(n) + " dropped: " + reason;
    throw InputError(a.swf, "",
                     "no job to convert: " + std::to_string(chosen.read) + " read" + why + ", offset " +
                         std::to_string(a.offset) + " (a workload needs at least one job)");
  }
  workload::SwfConversionReport report;
  auto w = workload::swf_to_workload(log, chosen, conv, &report);
  std::ostringstream text;
  workload::write_batsim(w, text);
  write_file_atomically(a.out, text.str());

  std::cout << "Read " << chosen.read << " jobs from " << a.swf << "\n";
  for (const auto& [why, n] : chosen.dropped)
    std::cout << "  dropped " << n << ": " << why << "\n";
  std::cout << "  kept " << w.jobs.size() << " jobs (offset " << a.offset << "), submission times shifted by -"
            << format_number(chosen.time_shift_s) << " s\n";
  if (report.run_time_unknown)
    std::cout << "  " << report.run_time_unknown
              << " jobs without a positive run time: no operations (and no requested time if the log gives none)\n";
  if (report.requested_time_unknown)
    std::cout << "  " << report.requested_time_unknown << " jobs without requested time: the run time is used\n";
  if (report.requested_time_below_run_time)
    std::cout << "  " << report.requested_time_below_run_time << " jobs ran longer than they requested\n";
  if (report.memory_unknown)
    std::cout << "  " << report.memory_unknown
              << " jobs without requested or used memory: " << format_number(conv.default_mem_mb) << " MB per core\n";
  std::cout << "Wrote " << a.out << "\n";
  return 0;
}

struct GenerateArgs {
  std::string out;
  int64_t jobs      = 0;
  int64_t max_cores = 64;
  double serial     = 0.25;
  std::string interarrival;
  double load                 = 0;
  int64_t cores               = 0;
  std::string run_time        = "1m:1d";
  double overestimate         = 3;
  std::string mem             = "0:0";
  std::string mem_bw          = "4:24";
  std::string reference_speed = "22Gf";
  int64_t seed                = 1;
};

int generate(const GenerateArgs& a)
{
  // every option is checked when parsed; what they make together is checked here, before any work
  if (not a.interarrival.empty() && a.load > 0)
    throw UsageError("--interarrival: give --interarrival or --load, not both");
  if (a.load > 0 && a.cores <= 0)
    throw UsageError("--load: --load needs --cores, the platform's core count");
  check_output_file(a.out);
  workload::SyntheticSpec s;
  s.jobs                                         = static_cast<uint64_t>(a.jobs);
  s.max_cores                                    = static_cast<uint32_t>(a.max_cores);
  s.serial_fraction                              = a.serial;
  std::tie(s.min_run_s, s.max_run_s)             = range(a.run_time, units::Quantity::time);
  s.overestimate                                 = a.overestimate;
  std::tie(s.mem_min_mb, s.mem_max_mb)           = range(a.mem);
  std::tie(s.mem_bw_min_gbps, s.mem_bw_max_gbps) = range(a.mem_bw);
  s.reference_speed                              = quantity(a.reference_speed, units::Quantity::speed);
  s.seed                                         = static_cast<uint64_t>(a.seed);
  s.name                                         = std::filesystem::path(a.out).stem().string();
  if (s.max_run_s * s.overestimate > workload::max_time_s)
    throw UsageError("--overestimate: the longest run time of --run-time " + quote(a.run_time) + " times " +
                     format_number(s.overestimate) + " is " + format_number(s.max_run_s * s.overestimate) +
                     " s, above 1e12 s, the longest requested time sgai takes");
  if (double ops = s.max_run_s * s.overestimate * s.reference_speed; ops > workload::max_work)
    throw UsageError("--run-time, --overestimate, --reference-speed: the longest requested time, " +
                     format_number(s.max_run_s * s.overestimate) + " s, at " + format_number(s.reference_speed) +
                     " flop/s makes " + format_number(ops) + " flop, above " + workload::max_flop_text);
  if (a.load > 0) {
    s.mean_interarrival_s = workload::interarrival_for_load(s, static_cast<uint64_t>(a.cores), a.load);
    if (s.mean_interarrival_s > max_interarrival_s)
      throw UsageError("--load: a load of " + format_number(a.load) + " on " + std::to_string(a.cores) +
                       " cores with these run times makes a mean inter-arrival time of " +
                       format_number(s.mean_interarrival_s) + " s, above 1 day (86400 s), the most it takes");
  } else if (not a.interarrival.empty()) {
    s.mean_interarrival_s = quantity(a.interarrival, units::Quantity::time);
  }
  try {
    auto w = workload::generate_workload(s);
    std::ostringstream text;
    workload::write_batsim(w, text);
    write_file_atomically(a.out, text.str());
  } catch (const std::invalid_argument& e) {
    throw UsageError(e.what());
  }
  std::cout << "Wrote " << a.jobs << " jobs to " << a.out << " (mean inter-arrival "
            << format_number(s.mean_interarrival_s) << " s, seed " << a.seed << ")\n";
  return 0;
}

int stats(const std::string& file, const std::string& field)
{
  auto w      = workload::read_workload(file);
  auto values = workload::field_values(w, field);
  if (values.empty())
    throw InputError(file, "", "no job of this workload has a value for " + quote(field));
  auto s = workload::summarize(values);
  std::cout << field << " over " << s.count << " of " << w.jobs.size() << " jobs of " << file << "\n"
            << "  min     " << format_number(s.min) << "\n"
            << "  q1      " << format_number(s.q1) << "\n"
            << "  median  " << format_number(s.median) << "\n"
            << "  q3      " << format_number(s.q3) << "\n"
            << "  p95     " << format_number(s.p95) << "\n"
            << "  p99     " << format_number(s.p99) << "\n"
            << "  max     " << format_number(s.max) << "\n"
            << "  mean    " << format_number(s.mean) << "\n";
  return 0;
}

/** The GPU-cluster trace converters: tiresias, gavel, alibaba. */
struct GpuTraceArgs {
  std::string trace;
  std::string out;
  std::string throughputs;
  std::string gpu = "v100";
  std::string qos;
  int64_t seed = 1;
  std::optional<int64_t> day;
};

int convert_gpu_trace(const std::string& kind, const GpuTraceArgs& a)
{
  std::vector<std::filesystem::path> inputs = {a.trace};
  if (not a.throughputs.empty())
    inputs.push_back(a.throughputs);
  check_output_file(a.out, inputs);
  workload::GpuTraceReport report;
  workload::Workload w;
  if (kind == "tiresias")
    w = workload::tiresias_to_workload(a.trace, &report);
  else {
    auto thr = workload::read_gavel_throughputs(a.throughputs);
    if (kind == "gavel")
      w = workload::gavel_to_workload(a.trace, thr, {a.gpu}, &report);
    else {
      workload::AlibabaOptions o{a.qos, static_cast<uint64_t>(a.seed), a.gpu, std::nullopt};
      if (a.day)
        o.day = static_cast<uint64_t>(*a.day);
      w = workload::alibaba_to_workload(a.trace, thr, o, &report);
    }
  }
  if (w.jobs.empty()) {
    std::string why;
    for (const auto& [reason, n] : report.skipped)
      why += ", " + std::to_string(n) + " skipped: " + reason;
    throw InputError(a.trace, "", "no job to convert: " + std::to_string(report.rows) + " rows read" + why);
  }
  std::ostringstream text;
  workload::write_batsim(w, text);
  write_file_atomically(a.out, text.str());
  std::cout << "Read " << report.rows << " rows from " << a.trace << "\n";
  for (const auto& [why, n] : report.skipped)
    std::cout << "  skipped " << n << ": " << why << "\n";
  std::cout << "  kept " << report.jobs << " training jobs asking for " << report.gpus << " GPUs\n";
  for (const auto& [what, n] : report.notes)
    std::cout << "  " << n << " jobs: " << what << "\n";
  std::cout << "Wrote " << a.out << "\n";
  return 0;
}

} // namespace

void add_workload_commands(CLI::App& app, Action& action)
{
  auto* wl =
      app.add_subcommand("workload", "Convert and describe workloads (SWF logs, Batsim JSON, GPU-cluster traces)");
  const std::string gbps = "MIN:MAX in GB/s with 0 <= MIN <= MAX <= 1000000";
  {
    auto a    = std::make_shared<Swf2JsonArgs>();
    auto* cmd = wl->add_subcommand("swf2json", "SWF log (plain or .gz) -> Batsim JSON with HDeepRM's fields");
    add_path(cmd, "swf", a->swf, "SWF log")->required();
    add_path(cmd, "--out", a->out, "Output Batsim JSON workload")->required();
    add_count(cmd, "--first", a->first, "Keep this many jobs (after cleaning)", 1, max_jobs_selected);
    add_count(cmd, "--offset", a->offset, "Skip this many jobs first (after cleaning)", 0, max_jobs_selected);
    cmd->add_flag("--no-clean", a->no_clean,
                  "Keep jobs with a non-positive or unknown run time (no operations) or an unknown submission time "
                  "(placed at 0); jobs without a processor count are always dropped");
    add_quantity(cmd, "--reference-speed", a->reference_speed,
                 "Speed of the reference machine: operations = time x speed (default 22Gf, HDeepRM's)",
                 units::Quantity::speed, 1, max_speed, speed_bounds);
    auto* mem_bw =
        add_range(cmd, "--mem-bw", a->mem_bw, "Memory bandwidth per core: uniform in MIN:MAX GB/s (default 4:24)", gbps,
                  max_mem_bw_gbps);
    cmd->add_option("--mem-bw-values", a->mem_bw_values,
                    "... or a uniform choice among these GB/s values: 4,8,12 (each 0 to 1000000)")
        ->check(CLI::Validator(
            [](std::string& text) -> std::string {
              return values_of(text) ? ""
                                     : "bad values " + quote(text) +
                                           ": expected GB/s numbers from 0 to 1000000 separated by commas";
            },
            "", ""))
        ->excludes(mem_bw);
    add_seed(cmd, a->seed, "Seed of the memory bandwidth draws");
    cmd->add_flag("--walltime", a->walltime, "Give every job a walltime equal to its requested time");
    add_real(cmd, "--default-mem", a->default_mem, "Memory (MB per core) of jobs whose log gives none", 0, max_mem_mb);
    cmd->callback([a, &action]() { action = [a]() { return swf2json(*a); }; });
  }
  {
    auto a    = std::make_shared<GenerateArgs>();
    auto* cmd = wl->add_subcommand("generate", "Seeded synthetic rigid jobs -> Batsim JSON with HDeepRM's fields");
    add_path(cmd, "--out", a->out, "Output Batsim JSON workload")->required();
    add_count(cmd, "--jobs", a->jobs, "Number of jobs", 1, max_jobs_generated)->required();
    add_count(cmd, "--max-cores", a->max_cores, "Largest job: sizes are 1 or powers of two up to this (default 64)", 1,
              UINT32_MAX);
    add_real(cmd, "--serial-fraction", a->serial, "Fraction of one-core jobs (default 0.25)", 0, 1);
    add_quantity(cmd, "--interarrival", a->interarrival, "Mean inter-arrival time, exponential (default 1m)",
                 units::Quantity::time, 0, max_interarrival_s, interarrival_bounds);
    add_real(cmd, "--load", a->load, "... or the offered load of --cores cores (0.9: 90% busy)", 0.001, 1000);
    add_count(cmd, "--cores", a->cores, "Cores of the target platform, for --load", 1, UINT32_MAX);
    add_range(cmd, "--run-time", a->run_time, "Run times, log-uniform in MIN:MAX (default 1m:1d)",
              "MIN:MAX times with 0 < MIN <= MAX <= 1e12 s, e.g. 1m:1d or 60:86400", workload::max_time_s,
              units::Quantity::time, true);
    add_real(cmd, "--overestimate", a->overestimate,
             "Requested time = run time x uniform in [1, this] (default 3; longest run time x this <= 1e12 s)", 1, 1e6);
    add_range(cmd, "--mem", a->mem, "Memory per core, uniform in MIN:MAX MB (default 0:0)",
              "MIN:MAX in MB per core with 0 <= MIN <= MAX <= 1e9", max_mem_mb);
    add_range(cmd, "--mem-bw", a->mem_bw, "Memory bandwidth per core, uniform in MIN:MAX GB/s (default 4:24)", gbps,
              max_mem_bw_gbps);
    add_quantity(cmd, "--reference-speed", a->reference_speed, "Operations = run time x this speed (default 22Gf)",
                 units::Quantity::speed, 1, max_speed, speed_bounds);
    add_seed(cmd, a->seed, "Seed of every draw");
    cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
  }
  for (const std::string kind : {"tiresias", "gavel", "alibaba"}) {
    auto a                = std::make_shared<GpuTraceArgs>();
    const char* what      = kind == "tiresias" ? "Tiresias' job trace CSV -> training jobs (Batsim JSON)"
                            : kind == "gavel" ? "Gavel's trace (msr or physical_cluster) -> training jobs (Batsim JSON)"
                                              : "Alibaba's 2023 GPU pod list -> training jobs (Batsim JSON)";
    auto* cmd             = wl->add_subcommand(kind, what);
    const char* trace_doc = kind == "tiresias"
                                ? "Trace CSV (job_id, num_gpu, submit_time, iterations, model_name, duration)"
                            : kind == "gavel" ? "Gavel trace (tab-separated, 7 or 10 fields)"
                                              : "Pod list CSV (openb_pod_list_*.csv)";
    add_path(cmd, "trace", a->trace, trace_doc)->required();
    add_path(cmd, "--out", a->out, "Output Batsim JSON workload")->required();
    if (kind != "tiresias") {
      add_path(cmd, "--throughputs", a->throughputs,
               "Gavel's measured throughputs (simulation_throughputs.json): steps/s alone per GPU kind, type and count")
          ->required();
      cmd->add_option("--gpu", a->gpu, "GPU kind whose throughputs time the jobs (default v100)")
          ->check(CLI::IsMember({"v100", "p100", "k80"}));
    }
    if (kind == "alibaba") {
      cmd->add_option("--qos", a->qos, "Keep only the pods of this qos (LS, BE, Burstable, Guaranteed)")
          ->check(CLI::IsMember({"LS", "BE", "Burstable", "Guaranteed"}));
      add_seed(cmd, a->seed, "Seed of the model each pod trains (a Gavel job type by a hash of the pod's name)");
      add_count(cmd, "--day", a->day,
                "Keep only the pods created on this day of the trace (0 first), timed from its start", 0, 100000);
    }
    cmd->callback([a, kind, &action]() { action = [a, kind]() { return convert_gpu_trace(kind, *a); }; });
  }
  {
    auto file  = std::make_shared<std::string>();
    auto field = std::make_shared<std::string>();
    auto* cmd  = wl->add_subcommand("stats", "Min, quartiles, p95, p99, max of a field of a workload");
    add_path(cmd, "workload", *file, "Batsim JSON or SWF workload")->required();
    cmd->add_option("field", *field, "req_time, size, mem, mem_bw, subtime or walltime")
        ->required()
        ->check(CLI::IsMember(workload::stats_fields()));
    cmd->callback([file, field, &action]() { action = [file, field]() { return stats(*file, *field); }; });
  }
}

} // namespace sgai::cli
