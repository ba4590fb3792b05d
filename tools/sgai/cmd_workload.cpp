#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/numbers.hpp"
#include "generators/util/units.hpp"
#include "generators/workload/batsim.hpp"
#include "tools/sgai/commands.hpp"

#include <iostream>
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

/** "4:24" -> (4, 24) */
std::pair<double, double> parse_range(const std::string& text)
{
  auto colon = text.find(':');
  try {
    if (colon == std::string::npos)
      throw std::invalid_argument(text);
    double a = std::stod(text.substr(0, colon));
    double b = std::stod(text.substr(colon + 1));
    if (not(a >= 0) || b < a)
      throw std::invalid_argument(text);
    return {a, b};
  } catch (const std::exception&) {
    throw InputError("--mem-bw", "", "bad range " + quote(text) + ": expected MIN:MAX in GB/s with 0 <= MIN <= MAX");
  }
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
  auto speed = units::parse(a.reference_speed, units::Quantity::speed);
  if (not speed || not(*speed > 0))
    throw InputError("--reference-speed", "",
                     "malformed speed " + quote(a.reference_speed) + ": expected " +
                         units::expected(units::Quantity::speed));
  conv.reference_speed                                 = *speed;
  std::tie(conv.mem_bw_min_gbps, conv.mem_bw_max_gbps) = parse_range(a.mem_bw);
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
