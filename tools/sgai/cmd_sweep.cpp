/* sgai sweep: experiment campaigns (Copper, docs/sweep.md).
 *   init CAMPAIGN.json [--dir D]                   the campaign's folder and database
 *   run CAMPAIGN.json [--dir D] [--jobs N] [--strategy grasp|random|full] [--runs K]
 *                                                  runs it locally, N `sgai run` at a time; resumes
 *   status CAMPAIGN.json [--dir D]                 counts, the best run, the SLA forecast
 *   export CAMPAIGN.json [--dir D] --out RUNS.csv  one line per run
 * (evaluate: cmd_sweep_evaluate.cpp) */
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/signals.hpp"
#include "plugins/sweep/assistant.hpp"
#include "plugins/sweep/campaign.hpp"
#include "plugins/sweep/store.hpp"
#include "plugins/sweep/strategy.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <chrono>
#include <cmath>
#include <csignal>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <thread>
#include <unistd.h>

namespace sgai::cli {

namespace {

using namespace sgai::sweep;

struct SweepArgs {
  std::string campaign, dir, strategy = "grasp", out;
  int64_t jobs = 0, runs = 0;
};

double now_s()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::filesystem::path folder_of(const SweepArgs& a, const Campaign& c)
{
  if (not a.dir.empty())
    return a.dir;
  return c.file.parent_path() / (c.name + ".campaign");
}

std::filesystem::path database_of(const std::filesystem::path& dir)
{
  return dir / "campaign.sqlite";
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

int run_run(const SweepArgs& a, const Globals& globals)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  auto dir    = folder_of(a, c);
  if (not std::filesystem::exists(database_of(dir))) {
    check_output_dir(dir, "--dir");
    ensure_directory(dir);
    CampaignStore::create(database_of(dir), c, now_s());
  }
  CampaignStore store(database_of(dir), c);
  if (int64_t n = store.requeue_running(); n > 0)
    std::cout << "Resumed: " << n << " run" << (n > 1 ? "s" : "") << " stopped while running, queued again\n";
  uint32_t jobs = a.jobs > 0 ? uint32_t(a.jobs) : std::max(1u, std::thread::hardware_concurrency());
  auto records  = store.runs();
  std::mt19937_64 rng(c.seed * 1000003 + records.size());
  std::map<int, int64_t> children; // pid -> run
  int64_t started = 0, finished = 0;
  auto base_dir      = c.experiment.parent_path().empty() ? std::filesystem::path(".") : c.experiment.parent_path();
  auto stop_children = [&children]() {
    for (const auto& [pid, id] : children)
      ::kill(pid, SIGTERM);
    while (not children.empty()) {
      auto [pid, status] = wait_any_child();
      if (pid < 0)
        break;
      children.erase(pid);
    }
  };
  for (;;) {
    records = store.runs();
    std::set<uint64_t> taken;
    std::vector<Result> results;
    double wall   = 0;
    int64_t ended = 0, queued = 0;
    for (const auto& r : records) {
      taken.insert(r.point);
      if (r.status == "done" || r.status == "failed") {
        ++ended;
        wall += r.wall_s;
      }
      if (r.status == "done")
        results.push_back({space.point(r.point), r.objective});
      if (r.status == "queued")
        ++queued;
    }
    SlaState sla;
    sla.max_runs      = c.max_runs;
    sla.deadline_s    = c.deadline_s;
    sla.now_s         = now_s() - store.created();
    sla.parallel      = jobs;
    sla.mean_run_s    = ended > 0 ? wall / double(ended) : 0;
    sla.finished      = uint64_t(ended);
    sla.running       = children.size() + uint64_t(queued); // queued runs start before any new one
    uint64_t possible = runs_still_possible(sla);
    // start runs while slots are free: queued ones first, then the strategy's
    while (children.size() < jobs && (a.runs == 0 || started < a.runs)) {
      int64_t id = -1;
      for (const auto& r : records)
        if (r.status == "queued" && not [&]() {
              for (const auto& [pid, run] : children)
                if (run == r.id)
                  return true;
              return false;
            }()) {
          id = r.id;
          break;
        }
      if (id < 0) {
        if (possible == 0)
          break;
        uint64_t point = 0;
        Strategy st    = Strategy::grasp;
        strategy_from_string(a.strategy, st);
        if (not next_point(st, space, results, taken, c.minimise, c.beta, rng, point))
          break;
        id = store.queue(point, a.strategy, now_s());
        taken.insert(point);
        --possible;
      }
      auto lock            = output_lock();
      const RunRecord* rec = nullptr;
      records              = store.runs();
      for (const auto& r : records)
        if (r.id == id)
          rec = &r;
      auto run_dir = dir / "runs" / std::to_string(id);
      std::error_code ec;
      std::filesystem::remove_all(run_dir / "out", ec); // what a stopped attempt left
      ensure_directory(run_dir);
      write_file_atomically(run_dir / "experiment.json", derived_experiment(c, space.point(rec->point)));
      std::vector<std::string> argv{"/proc/self/exe",
                                    "run",
                                    (run_dir / "experiment.json").string(),
                                    "--out",
                                    (run_dir / "out").string(),
                                    "--base-dir",
                                    base_dir.string()};
      for (const auto& g : globals.simgrid_args)
        argv.push_back(g);
      store.start(id, now_s());
      auto pid = spawn_process(argv, (run_dir / "log.txt").string());
      if (not pid) {
        store.finish(id, now_s(), std::nan(""), -1, false);
        stop_children();
        throw RunError("cannot start sgai run for run " + std::to_string(id));
      }
      children[*pid] = id;
      ++started;
    }
    if (children.empty())
      break;
    auto [pid, status] = wait_any_child();
    if (pid < 0)
      break;
    // recorded under the output lock: when an interruption stops the campaign, it takes the lock
    // before it signals the runs, so a run it stops is never recorded as failed (it runs again on
    // resuming)
    auto lock  = output_lock();
    int64_t id = children.at(pid);
    children.erase(pid);
    auto run_dir     = dir / "runs" / std::to_string(id);
    double objective = std::nan("");
    if (status == 0 && std::filesystem::exists(run_dir / "out" / "summary.json"))
      objective = figure_of(read_text_file(run_dir / "out" / "summary.json"), c.objective);
    store.finish(id, now_s(), objective, status, status == 0 && std::isfinite(objective));
    ++finished;
    if (status == 0 && not std::isfinite(objective)) {
      stop_children();
      throw InputError(c.file.string(), "/objective/figure",
                       "the runs' summary.json has no number at " + quote(c.objective) + " (run " + std::to_string(id) +
                           ": " + (run_dir / "out" / "summary.json").string() + ")");
    }
  }
  std::cout << "Campaign " << c.name << ": " << finished << " runs ended in this call; " << store.count("done")
            << " done, " << store.count("failed") << " failed, " << store.count("queued") << " queued of "
            << space.count() << " points\n";
  return 0;
}

int run_status(const SweepArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  auto dir    = folder_of(a, c);
  CampaignStore store(database_of(dir), c);
  auto records = store.runs();
  std::vector<Result> results;
  std::set<uint64_t> taken;
  const RunRecord* best = nullptr;
  double wall           = 0;
  int64_t ended         = 0;
  for (const auto& r : records) {
    taken.insert(r.point);
    if (r.status == "done") {
      results.push_back({space.point(r.point), r.objective});
      if (best == nullptr || (c.minimise ? r.objective < best->objective : r.objective > best->objective))
        best = &r;
    }
    if (r.status == "done" || r.status == "failed") {
      ++ended;
      wall += r.wall_s;
    }
  }
  std::cout << "Campaign " << c.name << " (" << space.count() << " points): " << store.count("done") << " done, "
            << store.count("running") << " running, " << store.count("queued") << " queued, " << store.count("failed")
            << " failed\n";
  if (best != nullptr) {
    std::cout << "Best: run " << best->id << ", " << c.objective << " = " << best->objective << " at";
    Point p = space.point(best->point);
    for (size_t d = 0; d < p.size(); ++d)
      std::cout << " " << c.parameters[d].name << "=" << shown_value(c.parameters[d].values[p[d]]);
    std::cout << "\n";
  }
  SlaState sla;
  sla.max_runs   = c.max_runs;
  sla.deadline_s = c.deadline_s;
  sla.now_s      = now_s() - store.created();
  sla.parallel   = std::max(1u, std::thread::hardware_concurrency());
  sla.mean_run_s = ended > 0 ? wall / double(ended) : 0;
  sla.finished   = uint64_t(ended);
  double eps     = c.eps > 0 ? c.eps : kDefaultEps;
  size_t minpts  = c.min_points > 0 ? c.min_points : default_min_points(space);
  Forecast f     = forecast(space, results, taken, c.minimise, sla, eps, minpts);
  std::cout << "SLA: "
            << (f.possible == std::numeric_limits<uint64_t>::max() ? std::string("no limit")
                                                                   : std::to_string(f.possible) + " more runs possible")
            << "; " << f.clusters.count << " cluster" << (f.clusters.count == 1 ? "" : "s") << " of good runs, "
            << f.pending_total << " free points around them"
            << (f.violation ? ": the current strategy would break the SLA" : "") << "\n";
  return 0;
}

int run_export(const SweepArgs& a)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  CampaignStore store(database_of(folder_of(a, c)), c);
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
  add_count(run, "--jobs", ra->jobs, "Runs at a time (default: the core count)", 1, 4096);
  add_count(run, "--runs", ra->runs, "Start at most this many runs in this call (default: as the SLA allows)", 1,
            int64_t(1) << 40);
  run->add_option("--strategy", ra->strategy, "grasp (default: Copper's GRASP with its DOE model), random or full")
      ->check(CLI::IsMember({"grasp", "random", "full"}));
  add("status", "A campaign's runs, its best run and the SLA forecast", run_status);
  auto [exp, ea] = add("export", "A campaign's runs as CSV", run_export);
  add_path(exp, "--out", ea->out, "The CSV file to write")->required();

  add_sweep_evaluate(*sweep, action);
}

} // namespace sgai::cli
