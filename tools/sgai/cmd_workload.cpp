#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/numbers.hpp"
#include "generators/util/units.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/synthetic.hpp"
#include "tools/sgai/commands.hpp"

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
  int64_t first               = -1;
  int64_t offset              = 0;
  bool no_clean               = false;
  std::string reference_speed = "22Gf";
  std::string mem_bw          = "4:24";
  std::string mem_bw_values;
  int64_t seed       = 1;
  bool walltime      = false;
  double default_mem = 0;
};

/** "4:24" -> (4, 24); each side a plain number, or a quantity when `q` is given ("1m:1d"). */
std::pair<double, double> parse_range(const std::string& text, const std::string& option, const std::string& expected,
                                      std::optional<units::Quantity> q = {})
{
  auto number = [&](const std::string& part) -> std::optional<double> {
    if (q)
      if (auto v = units::parse(part, *q))
        return v;
    try { // a plain number: seconds, MB or GB/s
      size_t used = 0;
      double v    = std::stod(part, &used);
      if (used == part.size())
        return v;
    } catch (const std::exception&) {
    }
    return std::nullopt;
  };
  auto colon = text.find(':');
  std::optional<double> a, b;
  if (colon != std::string::npos) {
    a = number(text.substr(0, colon));
    b = number(text.substr(colon + 1));
  }
  if (not a || not b || not(*a >= 0) || not(*b >= *a) || not std::isfinite(*b))
    throw InputError("command line", option, "bad range " + quote(text) + ": expected " + expected);
  return {*a, *b};
}

double reference_speed(const std::string& text)
{
  auto speed = units::parse(text, units::Quantity::speed);
  if (not speed || not(*speed > 0))
    throw InputError("command line", "--reference-speed",
                     "malformed speed " + quote(text) + ": expected " + units::expected(units::Quantity::speed));
  return *speed;
}

std::vector<double> parse_values(const std::string& text)
{
  std::vector<double> out;
  std::stringstream ss(text);
  std::string item;
  while (std::getline(ss, item, ',')) {
    try {
      size_t used = 0;
      double v    = std::stod(item, &used);
      if (used != item.size() || v < 0)
        throw std::invalid_argument(item);
      out.push_back(v);
    } catch (const std::exception&) {
      throw InputError("--mem-bw-values", "",
                       "bad value " + quote(item) + ": expected GB/s numbers separated by commas");
    }
  }
  if (out.empty())
    throw InputError("--mem-bw-values", "", "no value given");
  return out;
}

int swf2json(const Swf2JsonArgs& a)
{
  workload::SwfLog log = workload::read_swf(a.swf);
  workload::SwfSelection sel;
  sel.offset = static_cast<uint64_t>(a.offset);
  if (a.first >= 0)
    sel.count = static_cast<uint64_t>(a.first);
  sel.clean   = not a.no_clean;
  auto chosen = workload::select_swf(log, sel);
  workload::SwfConversion conv;
  conv.reference_speed = reference_speed(a.reference_speed);
  std::tie(conv.mem_bw_min_gbps, conv.mem_bw_max_gbps) =
      parse_range(a.mem_bw, "--mem-bw", "MIN:MAX in GB/s with 0 <= MIN <= MAX");
  if (not a.mem_bw_values.empty())
    conv.mem_bw_values = parse_values(a.mem_bw_values);
  conv.seed           = static_cast<uint64_t>(a.seed);
  conv.walltime       = a.walltime;
  conv.default_mem_mb = a.default_mem;
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
  workload::SyntheticSpec s;
  s.jobs                             = static_cast<uint64_t>(a.jobs);
  s.max_cores                        = static_cast<uint32_t>(a.max_cores);
  s.serial_fraction                  = a.serial;
  std::tie(s.min_run_s, s.max_run_s) = parse_range(
      a.run_time, "--run-time", "MIN:MAX times with 0 < MIN <= MAX, e.g. 1m:1d or 60:86400", units::Quantity::time);
  if (not(s.min_run_s > 0))
    throw InputError("command line", "--run-time", "the shortest run time must be > 0");
  s.overestimate                       = a.overestimate;
  std::tie(s.mem_min_mb, s.mem_max_mb) = parse_range(a.mem, "--mem", "MIN:MAX in MB per core with 0 <= MIN <= MAX");
  std::tie(s.mem_bw_min_gbps, s.mem_bw_max_gbps) =
      parse_range(a.mem_bw, "--mem-bw", "MIN:MAX in GB/s with 0 <= MIN <= MAX");
  s.reference_speed = reference_speed(a.reference_speed);
  s.seed            = static_cast<uint64_t>(a.seed);
  s.name            = std::filesystem::path(a.out).stem().string();
  if (not a.interarrival.empty() && a.load > 0)
    throw InputError("command line", "--interarrival", "give --interarrival or --load, not both");
  try {
    if (a.load > 0) {
      if (a.cores <= 0)
        throw InputError("command line", "--load", "--load needs --cores, the platform's core count");
      s.mean_interarrival_s = workload::interarrival_for_load(s, static_cast<uint64_t>(a.cores), a.load);
    } else if (not a.interarrival.empty()) {
      auto gap = units::parse(a.interarrival, units::Quantity::time);
      if (not gap || not(*gap >= 0))
        throw InputError("command line", "--interarrival",
                         "malformed time " + quote(a.interarrival) + ": expected " +
                             units::expected(units::Quantity::time));
      s.mean_interarrival_s = *gap;
    }
    auto w = workload::generate_workload(s);
    std::ostringstream text;
    workload::write_batsim(w, text);
    write_file_atomically(a.out, text.str());
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "", e.what());
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

} // namespace

void add_workload_commands(CLI::App& app, Action& action)
{
  auto* wl = app.add_subcommand("workload", "Convert and describe workloads (SWF logs, Batsim JSON)");
  {
    auto a    = std::make_shared<Swf2JsonArgs>();
    auto* cmd = wl->add_subcommand("swf2json", "SWF log (plain or .gz) -> Batsim JSON with HDeepRM's fields");
    cmd->add_option("swf", a->swf, "SWF log")->required();
    cmd->add_option("--out", a->out, "Output Batsim JSON workload")->required();
    cmd->add_option("--first", a->first, "Keep this many jobs (after cleaning)")->check(CLI::NonNegativeNumber);
    cmd->add_option("--offset", a->offset, "Skip this many jobs first (after cleaning)")->check(CLI::NonNegativeNumber);
    cmd->add_flag("--no-clean", a->no_clean, "Keep jobs with a non-positive run time or processor count");
    cmd->add_option("--reference-speed", a->reference_speed,
                    "Speed of the reference machine: operations = time x speed (default 22Gf, HDeepRM's)");
    cmd->add_option("--mem-bw", a->mem_bw, "Memory bandwidth per core: uniform in MIN:MAX GB/s (default 4:24)");
    cmd->add_option("--mem-bw-values", a->mem_bw_values, "... or a uniform choice among these GB/s values: 4,8,12");
    cmd->add_option("--seed", a->seed, "Seed of the memory bandwidth draws")->check(CLI::NonNegativeNumber);
    cmd->add_flag("--walltime", a->walltime, "Give every job a walltime equal to its requested time");
    cmd->add_option("--default-mem", a->default_mem, "Memory (MB per core) of jobs whose log gives none")
        ->check(CLI::NonNegativeNumber);
    cmd->callback([a, &action]() { action = [a]() { return swf2json(*a); }; });
  }
  {
    auto a    = std::make_shared<GenerateArgs>();
    auto* cmd = wl->add_subcommand("generate", "Seeded synthetic rigid jobs -> Batsim JSON with HDeepRM's fields");
    cmd->add_option("--out", a->out, "Output Batsim JSON workload")->required();
    cmd->add_option("--jobs", a->jobs, "Number of jobs")->required()->check(CLI::PositiveNumber);
    cmd->add_option("--max-cores", a->max_cores, "Largest job: sizes are 1 or powers of two up to this (default 64)")
        ->check(CLI::Range(int64_t{1}, int64_t{UINT32_MAX}));
    cmd->add_option("--serial-fraction", a->serial, "Fraction of one-core jobs (default 0.25)")
        ->check(CLI::Range(0.0, 1.0));
    cmd->add_option("--interarrival", a->interarrival, "Mean inter-arrival time, exponential (default 1m)");
    cmd->add_option("--load", a->load, "... or the offered load of --cores cores (0.9: 90% busy)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--cores", a->cores, "Cores of the target platform, for --load")->check(CLI::PositiveNumber);
    cmd->add_option("--run-time", a->run_time, "Run times, log-uniform in MIN:MAX (default 1m:1d)");
    cmd->add_option("--overestimate", a->overestimate, "Requested time = run time x uniform in [1, this] (default 3)")
        ->check(CLI::Range(1.0, 1e6));
    cmd->add_option("--mem", a->mem, "Memory per core, uniform in MIN:MAX MB (default 0:0)");
    cmd->add_option("--mem-bw", a->mem_bw, "Memory bandwidth per core, uniform in MIN:MAX GB/s (default 4:24)");
    cmd->add_option("--reference-speed", a->reference_speed, "Operations = run time x this speed (default 22Gf)");
    cmd->add_option("--seed", a->seed, "Seed of every draw")->check(CLI::NonNegativeNumber);
    cmd->callback([a, &action]() { action = [a]() { return generate(*a); }; });
  }
  {
    auto file  = std::make_shared<std::string>();
    auto field = std::make_shared<std::string>();
    auto* cmd  = wl->add_subcommand("stats", "Min, quartiles, p95, p99, max of a field of a workload");
    cmd->add_option("workload", *file, "Batsim JSON or SWF workload")->required();
    cmd->add_option("field", *field, "req_time, size, mem, mem_bw, subtime or walltime")
        ->required()
        ->check(CLI::IsMember(workload::stats_fields()));
    cmd->callback([file, field, &action]() { action = [file, field]() { return stats(*file, *field); }; });
  }
}

} // namespace sgai::cli
