/* sgai sweep: experiment campaigns (Copper, docs/sweep.md).
 *   init CAMPAIGN.json [--dir D]                   the campaign's folder and database
 *   run CAMPAIGN.json [--dir D] [--jobs N] [--strategy grasp|random|full] [--runs K]
 *       [--runner local|slurm] [--throttle K] [--poll S] [--sbatch OPT]... [--sgai PATH]
 *                                                  runs it, N `sgai run` at a time here or N array
 *                                                  tasks in flight on Slurm; resumes
 *   status CAMPAIGN.json [--dir D]                 counts, the best run, the SLA forecast
 *   export CAMPAIGN.json [--dir D] --out RUNS.csv  one line per run
 * The runners are the library's (core/sweep/runner.hpp, slurm_runner.hpp); evaluate:
 * cmd_sweep_evaluate.cpp. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/sweep/assistant.hpp"
#include "core/sweep/campaign.hpp"
#include "core/sweep/folder.hpp"
#include "core/sweep/runner.hpp"
#include "core/sweep/runs.hpp"
#include "core/sweep/slurm_runner.hpp"
#include "core/sweep/store.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <set>
#include <thread>

namespace sgai::cli {

namespace {

using namespace sgai::sweep;

struct SweepArgs {
  std::string campaign, dir, strategy = "grasp", out, runner = "local", sgai;
  int64_t jobs = 0, runs = 0, throttle = 0;
  double poll = 10;
  std::vector<std::string> sbatch_args;
};

std::filesystem::path folder_of(const SweepArgs& a, const Campaign& c)
{
  return campaign_folder(a.dir, c);
}

int run_init(const SweepArgs& a)
{
  Campaign c = read_campaign(a.campaign);
  auto dir   = folder_of(a, c);
  check_output_dir(dir, "--dir");
  ensure_directory(dir);
  CampaignStore::create(database_of(dir), c, now_s());
  std::cout << "Campaign " << c.name << ": " << c.space().count() << " points over " << c.parameters.size()
            << " parameters; its database is " << database_of(dir).string() << "\n";
  return 0;
}

void print_end(const Campaign& c, const RunSummary& s)
{
  std::cout << "Campaign " << c.name << ": " << s.ended << " runs ended in this call; " << s.done << " done, "
            << s.failed << " failed, " << s.queued << " queued of " << s.points << " points\n";
}

/** The runners' options shared by both (progress said on the standard output). */
void runner_options(const SweepArgs& a, RunnerOptions& o)
{
  o.strategy   = a.strategy;
  o.jobs       = a.jobs;
  o.runs       = a.runs;
  o.dir_option = "--dir";
  o.progress   = &std::cout;
}

int run_local_runner(const SweepArgs& a, const Globals& globals)
{
  Campaign c = read_campaign(a.campaign);
  LocalOptions o;
  runner_options(a, o);
  o.sgai     = "/proc/self/exe"; // this sgai
  o.run_args = globals.simgrid_args;
  print_end(c, run_local(c, folder_of(a, c), o));
  return 0;
}

int run_slurm_runner(const SweepArgs& a)
{
  Campaign c = read_campaign(a.campaign);
  SlurmOptions o;
  runner_options(a, o);
  o.sgai        = a.sgai.empty() ? std::filesystem::read_symlink("/proc/self/exe").string() : a.sgai;
  o.throttle    = a.throttle;
  o.poll_s      = a.poll;
  o.sbatch_args = a.sbatch_args;
  print_end(c, run_slurm(c, folder_of(a, c), o));
  return 0;
}

int run_run(const SweepArgs& a, const Globals& globals)
{
  return a.runner == "slurm" ? run_slurm_runner(a) : run_local_runner(a, globals);
}

int run_status(const SweepArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  auto dir    = folder_of(a, c);
  CampaignStore store(existing_database(dir), c);
  auto records = store.runs();
  std::vector<Result> results;
  std::set<uint64_t> taken;
  const RunRecord* best = nullptr;
  for (const auto& r : records) {
    taken.insert(r.point);
    if (r.status == "done") {
      results.push_back({space.point(r.point), r.objective});
      if (best == nullptr || (c.minimise ? r.objective < best->objective : r.objective > best->objective))
        best = &r;
    }
  }
  // a local run left "running" by a runner that is gone (its lock on the folder released) is stopped:
  // the next sgai sweep run queues it again
  int64_t stopped = 0;
  if (not RunnerLock::held(dir))
    for (const auto& r : records)
      stopped += r.status == "running" && r.runner != "slurm";
  std::cout << "Campaign " << c.name << " (" << space.count() << " points): " << store.count("done") << " done, "
            << store.count("running") - stopped << " running, ";
  if (stopped > 0)
    std::cout << stopped << " stopped (will be rerun), ";
  std::cout << store.count("queued") << " queued, " << store.count("failed") << " failed\n";
  if (best != nullptr) {
    std::cout << "Best: run " << best->id << ", " << c.objective << " = " << best->objective << " at";
    Point p = space.point(best->point);
    for (size_t d = 0; d < p.size(); ++d)
      std::cout << " " << c.parameters[d].name << "=" << shown_value(c.parameters[d].values[p[d]]);
    std::cout << "\n";
  }
  SlaState sla  = sla_of(c, store, records, std::max(1u, std::thread::hardware_concurrency()));
  double eps    = c.eps > 0 ? c.eps : kDefaultEps;
  size_t minpts = c.min_points > 0 ? c.min_points : default_min_points(space);
  Forecast f    = forecast(space, results, taken, c.minimise, sla, eps, minpts);
  std::cout << "SLA: "
            << (f.possible == std::numeric_limits<uint64_t>::max() ? std::string("no limit")
                                                                   : std::to_string(f.possible) + " more runs possible")
            << "; " << f.clusters.count << " cluster" << (f.clusters.count == 1 ? "" : "s") << " of good runs, "
            << f.pending_total << " free points around them"
            << (f.violation ? ": the current strategy would break the SLA" : "") << "\n";
  if (f.violation)
    std::cout << "Copper suggests a new strategy: sgai sweep suggest " << c.file.string()
              << " --exploitation 0.66 (then accept)\n";
  return 0;
}

int run_export(const SweepArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  CampaignStore store(existing_database(folder_of(a, c)), c);
  check_output_file(a.out, {c.file, database_of(folder_of(a, c))});
  AtomicFile f(a.out);
  auto& o = f.stream();
  o.precision(12);
  o << "run,status,origin,attempts";
  for (const auto& p : c.parameters)
    o << "," << p.name;
  o << ",objective,wall_s\n";
  for (const auto& r : store.runs()) {
    o << r.id << "," << r.status << "," << r.origin << "," << r.attempts;
    Point p = space.point(r.point);
    for (size_t d = 0; d < p.size(); ++d) {
      std::string v = shown_value(c.parameters[d].values[p[d]]);
      if (v.find_first_of(",\"") != std::string::npos) {
        std::string q = "\"";
        for (char ch : v)
          q += ch == '"' ? std::string("\"\"") : std::string(1, ch);
        v = q + "\"";
      }
      o << "," << v;
    }
    o << "," << (std::isfinite(r.objective) ? std::to_string(r.objective) : std::string()) << "," << r.wall_s << "\n";
  }
  f.commit();
  std::cout << "Wrote " << a.out << "\n";
  return 0;
}

} // namespace

void add_sweep_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* sweep = app.add_subcommand("sweep", "Experiment campaigns (Copper): parameter sweeps over an sgai experiment");
  sweep->require_subcommand(1);
  auto add = [&](const char* name, const char* help, auto run) {
    auto a    = std::make_shared<SweepArgs>();
    auto* cmd = sweep->add_subcommand(name, help);
    add_path(cmd, "campaign", a->campaign, "The campaign file (JSON, docs/sweep.md)")->required();
    add_path(cmd, "--dir", a->dir, "The campaign's folder (default: <campaign name>.campaign beside its file)");
    cmd->callback([a, &action, run]() { action = [a, run]() { return run(*a); }; });
    return std::make_pair(cmd, a);
  };
  add("init", "Create a campaign's folder and database", run_init);
  auto [run, ra] = add("run", "Run a campaign locally (resumes where it stopped)",
                       [&globals](const SweepArgs& x) { return run_run(x, globals); });
  add_count(run, "--jobs", ra->jobs,
            "Runs at a time (default: the core count; Slurm: array tasks in flight, default 64)", 1, 4096);
  add_count(run, "--runs", ra->runs, "Start at most this many runs in this call (default: as the SLA allows)", 1,
            int64_t(1) << 40);
  run->add_option("--strategy", ra->strategy, "grasp (default: Copper's GRASP with its DOE model), random or full")
      ->check(CLI::IsMember({"grasp", "random", "full"}));
  run->add_option("--runner", ra->runner, "local (default: N processes here) or slurm (sbatch --array)")
      ->check(CLI::IsMember({"local", "slurm"}));
  add_count(run, "--throttle", ra->throttle, "Slurm: at most this many array tasks at once (sbatch --array=...%K)", 1,
            1000000);
  add_real(run, "--poll", ra->poll, "Slurm: seconds between looks at the queue (default 10)", 0.1, 3600);
  run->add_option("--sbatch", ra->sbatch_args,
                  "Slurm: an option passed to sbatch (repeatable, e.g. --sbatch=--partition=batch)")
      ->allow_extra_args(false);
  run->add_option("--sgai", ra->sgai, "Slurm: the sgai binary the tasks run (default: this one)");
  add("status", "A campaign's runs, its best run and the SLA forecast", run_status);
  auto [exp, ea] = add("export", "A campaign's runs as CSV", run_export);
  add_path(exp, "--out", ea->out, "The CSV file to write")->required();

  add_sweep_evaluate(*sweep, action);
  add_sweep_analyst_commands(*sweep, action);
}

} // namespace sgai::cli
