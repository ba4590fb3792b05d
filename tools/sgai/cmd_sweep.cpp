/* sgai sweep: experiment campaigns (Copper, docs/sweep.md).
 *   init CAMPAIGN.json [--dir D]                   the campaign's folder and database
 *   run CAMPAIGN.json [--dir D] [--jobs N] [--strategy grasp|random|full] [--runs K]
 *       [--runner local|slurm] [--throttle K] [--poll S] [--sbatch OPT]... [--sgai PATH]
 *                                                  runs it, N `sgai run` at a time here or N array
 *                                                  tasks in flight on Slurm; resumes
 *   status CAMPAIGN.json [--dir D]                 counts, the best run, the SLA forecast
 *   export CAMPAIGN.json [--dir D] --out RUNS.csv  one line per run
 * (evaluate: cmd_sweep_evaluate.cpp) */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/signals.hpp"
#include "core/sweep/assistant.hpp"
#include "core/sweep/campaign.hpp"
#include "core/sweep/slurm.hpp"
#include "core/sweep/store.hpp"
#include "core/sweep/strategy.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"
#include "tools/sgai/sweep_common.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <csignal>
#include <cstdlib>
#include <iostream>
#include <map>
#include <random>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

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

/** Opens a campaign's database, creating its folder and database on the first call. */
std::unique_ptr<CampaignStore> open_store(const SweepArgs& a, const Campaign& c)
{
  auto dir = folder_of(a, c);
  if (not std::filesystem::exists(database_of(dir))) {
    check_output_dir(dir, "--dir");
    ensure_directory(dir);
    CampaignStore::create(database_of(dir), c, now_s());
  }
  return std::make_unique<CampaignStore>(database_of(dir), c);
}

/** The runs to start next, at most `n` and none in `busy`: the queued ones first (accepted
 *  suggestions, runs stopped or lost), then points the strategy picks, as long as the SLA allows. */
std::vector<int64_t> next_runs(CampaignStore& store, const Campaign& c, const Space& space, const std::string& strategy,
                               std::mt19937_64& rng, uint32_t parallel, size_t n, const std::set<int64_t>& busy)
{
  std::vector<int64_t> out;
  if (n == 0)
    return out;
  auto records = store.runs();
  std::set<uint64_t> taken;
  std::vector<Result> results;
  uint64_t owing = 0; // running or queued: they start before any new run
  for (const auto& r : records) {
    taken.insert(r.point);
    if (r.status == "done")
      results.push_back({space.point(r.point), r.objective});
    if (r.status == "running" || r.status == "queued")
      ++owing;
    if (r.status == "queued" && busy.count(r.id) == 0 && out.size() < n)
      out.push_back(r.id);
  }
  SlaState sla      = sla_of(c, store, records, parallel);
  sla.running       = owing;
  uint64_t possible = runs_still_possible(sla);
  Strategy st       = Strategy::grasp;
  strategy_from_string(strategy, st);
  while (out.size() < n && possible > 0) {
    uint64_t point = 0;
    if (not next_point(st, space, results, taken, c.minimise, c.beta, rng, point))
      break;
    out.push_back(store.queue(point, strategy, now_s()));
    taken.insert(point);
    --possible;
  }
  return out;
}

/** Writes a run's derived experiment, removing what an earlier attempt left. */
void prepare_run(const std::filesystem::path& dir, const Campaign& c, const Space& space, const RunRecord& rec)
{
  auto run_dir = dir / "runs" / std::to_string(rec.id);
  std::error_code ec;
  std::filesystem::remove_all(run_dir / "out", ec);
  std::filesystem::remove(run_dir / "result.json", ec);
  ensure_directory(run_dir);
  write_file_atomically(run_dir / "experiment.json", derived_experiment(c, space.point(rec.point)));
}

RunRecord record_of(CampaignStore& store, int64_t id)
{
  for (auto& r : store.runs())
    if (r.id == id)
      return r;
  throw RunError("run " + std::to_string(id) + " is not in the campaign's database");
}

/** A run's objective from its summary.json (NaN when absent); InputError stops the campaign when a
 *  successful run does not report it. */
double objective_of(const Campaign& c, const std::filesystem::path& run_dir, int status, int64_t id)
{
  double objective = std::nan("");
  if (status == 0 && std::filesystem::exists(run_dir / "out" / "summary.json"))
    objective = figure_of(read_text_file(run_dir / "out" / "summary.json"), c.objective);
  if (status == 0 && not std::isfinite(objective))
    throw InputError(c.file.string(), "/objective/figure",
                     "the runs' summary.json has no number at " + quote(c.objective) + " (run " + std::to_string(id) +
                         ": " + (run_dir / "out" / "summary.json").string() + ")");
  return objective;
}

std::filesystem::path base_dir_of(const Campaign& c)
{
  return c.experiment.parent_path().empty() ? std::filesystem::path(".") : c.experiment.parent_path();
}

void print_end(CampaignStore& store, const Campaign& c, const Space& space, int64_t finished)
{
  std::cout << "Campaign " << c.name << ": " << finished << " runs ended in this call; " << store.count("done")
            << " done, " << store.count("failed") << " failed, " << store.count("queued") << " queued of "
            << space.count() << " points\n";
}

int run_local(const SweepArgs& a, const Globals& globals)
{
  Campaign c  = read_campaign(a.campaign);
  Space space = c.space();
  auto dir    = folder_of(a, c);
  auto store  = open_store(a, c);
  for (const auto& r : store->runs())
    if (r.status == "running" && r.runner == "slurm")
      throw InputError(c.file.string(), "",
                       "run " + std::to_string(r.id) + " is on Slurm (task " + r.job +
                           "): resume the campaign with --runner slurm, or cancel its tasks (scancel) first");
  if (int64_t n = store->requeue_running(); n > 0)
    std::cout << "Resumed: " << n << " run" << (n > 1 ? "s" : "") << " stopped while running, queued again\n";
  uint32_t jobs = a.jobs > 0 ? uint32_t(a.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::mt19937_64 rng(c.seed * 1000003 + store->runs().size());
  std::map<int, int64_t> children; // pid -> run
  int64_t started = 0, finished = 0;
  auto base_dir      = base_dir_of(c);
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
    std::set<int64_t> busy;
    for (const auto& [pid, id] : children)
      busy.insert(id);
    size_t room = children.size() < jobs ? jobs - children.size() : 0;
    if (a.runs > 0)
      room = std::min(room, size_t(std::max<int64_t>(0, a.runs - started)));
    for (int64_t id : next_runs(*store, c, space, a.strategy, rng, jobs, room, busy)) {
      auto lock     = output_lock();
      RunRecord rec = record_of(*store, id);
      prepare_run(dir, c, space, rec);
      auto run_dir = dir / "runs" / std::to_string(id);
      std::vector<std::string> argv{"/proc/self/exe",
                                    "run",
                                    (run_dir / "experiment.json").string(),
                                    "--out",
                                    (run_dir / "out").string(),
                                    "--base-dir",
                                    base_dir.string()};
      for (const auto& g : globals.simgrid_args)
        argv.push_back(g);
      store->start(id, now_s());
      auto pid = spawn_process(argv, (run_dir / "log.txt").string());
      if (not pid) {
        store->finish(id, now_s(), std::nan(""), -1, false);
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
    double objective = 0;
    try {
      objective = objective_of(c, dir / "runs" / std::to_string(id), status, id);
    } catch (const InputError&) {
      store->finish(id, now_s(), std::nan(""), status, false);
      stop_children();
      throw;
    }
    store->finish(id, now_s(), objective, status, status == 0 && std::isfinite(objective));
    ++finished;
  }
  print_end(*store, c, space, finished);
  return 0;
}

/** What a command printed, its non-empty lines joined by "; " (one line, for an error message). */
std::string said(const std::string& out)
{
  std::string line, all;
  std::istringstream in(out);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      all += (all.empty() ? "" : "; ") + line;
  return all.empty() ? std::string("no output") : all;
}

int run_slurm(const SweepArgs& a)
{
  namespace sl = sgai::sweep::slurm;
  Campaign c   = read_campaign(a.campaign);
  Space space  = c.space();
  auto dir     = folder_of(a, c);
  // Slurm first: when it is missing or refuses the array job, nothing is written. (Slurm's
  // commands retry a missing configuration file for a minute: said at once here.)
  if (const char* conf = std::getenv("SLURM_CONF"); conf != nullptr && *conf != 0 && not std::filesystem::exists(conf))
    throw RunError(std::string("Slurm: SLURM_CONF names ") + conf + ", which does not exist");
  Captured cfg = capture_process({"scontrol", "show", "config"});
  if (not cfg.status || *cfg.status != 0)
    throw RunError("Slurm: `scontrol show config` failed: " + said(cfg.output));
  uint64_t max_array = 1001;
  if (auto v = sl::config_value(cfg.output, "MaxArraySize"); v && not v->empty() && std::isdigit((*v)[0]))
    max_array = std::max<uint64_t>(1, std::stoull(*v));
  std::string sgai = a.sgai;
  if (sgai.empty())
    sgai = std::filesystem::read_symlink("/proc/self/exe").string();
  auto runs_dir        = std::filesystem::absolute(dir / "runs").lexically_normal();
  auto base_dir        = std::filesystem::absolute(base_dir_of(c)).lexically_normal();
  std::string script   = sl::wrapper_script(sgai, runs_dir.string(), base_dir.string());
  std::string job_name = "sgai-" + c.name;
  auto slurm_out       = std::filesystem::absolute(dir / "slurm" / "%A_%a.out").lexically_normal();
  auto sbatch = [&](const std::string& array, const std::filesystem::path& file, const std::vector<std::string>& tail,
                    bool test_only) {
    std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=" + job_name, "--array=" + array,
                                  "--output=" + slurm_out.string()};
    if (test_only)
      argv.push_back("--test-only");
    for (const auto& x : a.sbatch_args)
      argv.push_back(x);
    argv.push_back(file.string());
    for (const auto& x : tail)
      argv.push_back(x);
    return capture_process(argv);
  };
  {
    char name[] = "/tmp/sgai-task-XXXXXX";
    int fd      = mkstemp(name);
    if (fd < 0)
      throw RunError("cannot create a temporary file in /tmp");
    ::close(fd);
    write_file_atomically(name, script);
    Captured test = sbatch("0", name, {}, true);
    std::filesystem::remove(name);
    if (not test.status || *test.status != 0)
      throw RunError("Slurm: sbatch refuses the campaign's array job: " + said(test.output));
  }
  auto store = open_store(a, c);
  ensure_directory(dir / "slurm");
  write_file_atomically(dir / "slurm" / "task.sh", script);
  std::filesystem::permissions(dir / "slurm" / "task.sh",
                               std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                   std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                   std::filesystem::perms::others_exec);
  int64_t requeued = 0;
  for (const auto& r : store->runs())
    if (r.status == "running" && r.runner != "slurm") { // a local runner's, stopped
      store->requeue(r.id);
      ++requeued;
    }
  if (requeued > 0)
    std::cout << "Resumed: " << requeued << " run" << (requeued > 1 ? "s" : "")
              << " stopped while running locally, queued again\n";
  uint32_t window = a.jobs > 0 ? uint32_t(a.jobs) : 64;
  std::mt19937_64 rng(c.seed * 1000003 + store->runs().size());
  int64_t started = 0, finished = 0;
  uint64_t chunk_no = 0;
  while (std::filesystem::exists(dir / "slurm" / ("chunk-" + std::to_string(chunk_no) + ".txt")))
    ++chunk_no;
  for (;;) {
    // what the tasks left: result files first, the queue and scontrol for those without one
    auto records = store->runs();
    std::vector<RunRecord> flying;
    for (const auto& r : records)
      if (r.status == "running")
        flying.push_back(r);
    std::map<std::string, std::string> queued, known;
    std::set<std::string> asked;
    if (not flying.empty()) {
      Captured q = capture_process({"squeue", "-h", "-r", "-n", job_name, "-o", "%i %T"});
      if (not q.status || *q.status != 0)
        throw RunError("Slurm: squeue failed: " + said(q.output));
      queued = sl::queue_states(q.output);
    }
    size_t in_flight = 0;
    for (const auto& r : flying) {
      auto run_dir = dir / "runs" / std::to_string(r.id);
      auto collect = [&]() {
        std::error_code ec;
        if (not std::filesystem::exists(run_dir / "result.json", ec))
          return false;
        auto res    = sl::parse_result(read_text_file(run_dir / "result.json"));
        auto lock   = output_lock();
        int status  = res ? int(res->exit_status) : -1;
        double wall = res && res->ended >= res->started && res->started > 0 ? res->ended - res->started : std::nan("");
        double objective = 0;
        try {
          objective = objective_of(c, run_dir, status, r.id);
        } catch (const InputError&) { // recorded failed, then the campaign stops (its tasks go on)
          store->finish(r.id, now_s(), std::nan(""), status, false, wall);
          throw;
        }
        store->finish(r.id, now_s(), objective, status, status == 0 && std::isfinite(objective), wall);
        ++finished;
        return true;
      };
      if (collect())
        continue;
      if (auto it = queued.find(r.job); it != queued.end() && sl::in_flight(it->second)) {
        ++in_flight;
        continue;
      }
      std::string array = r.job.substr(0, r.job.find('_'));
      if (not array.empty() && asked.insert(array).second) {
        Captured j = capture_process({"scontrol", "-o", "show", "job", array});
        if (j.status && *j.status == 0)
          for (auto& [k, v] : sl::job_states(j.output))
            known[k] = v;
      }
      if (auto it = known.find(r.job); it != known.end() && sl::in_flight(it->second)) {
        ++in_flight;
        continue;
      }
      if (collect()) // it ended between the two looks
        continue;
      auto lock = output_lock();
      if (r.lost >= 1) {
        store->finish(r.id, now_s(), std::nan(""), -1, false);
        ++finished;
        std::cout << "Run " << r.id << ": Slurm task " << r.job << " left the queue without a result again: failed"
                  << std::endl;
      } else {
        store->lost(r.id);
        std::cout << "Run " << r.id << ": Slurm task " << r.job
                  << " left the queue without a result: queued again (once)" << std::endl;
      }
    }
    // new array jobs for the free places in the window
    size_t room = in_flight < window ? window - in_flight : 0;
    if (a.runs > 0)
      room = std::min(room, size_t(std::max<int64_t>(0, a.runs - started)));
    std::vector<int64_t> ids = next_runs(*store, c, space, a.strategy, rng, window, room, {});
    for (size_t from = 0; from < ids.size(); from += max_array) {
      std::vector<int64_t> chunk(ids.begin() + long(from), ids.begin() + long(std::min(ids.size(), from + max_array)));
      std::string lines;
      for (int64_t id : chunk) {
        prepare_run(dir, c, space, record_of(*store, id));
        lines += std::to_string(id) + "\n";
      }
      auto chunk_file = dir / "slurm" / ("chunk-" + std::to_string(chunk_no++) + ".txt");
      write_file_atomically(chunk_file, lines);
      std::string array = "0-" + std::to_string(chunk.size() - 1);
      if (a.throttle > 0)
        array += "%" + std::to_string(a.throttle);
      // submitted and recorded under the output lock: an interruption never comes between them
      auto lock    = output_lock();
      Captured sub = sbatch(array, std::filesystem::absolute(dir / "slurm" / "task.sh"),
                            {std::filesystem::absolute(chunk_file)}, false);
      auto job     = sub.status && *sub.status == 0 ? sl::parsable_job_id(sub.output) : std::nullopt;
      if (not job)
        throw RunError("Slurm: sbatch failed (the runs stay queued): " + said(sub.output));
      std::vector<CampaignStore::Started> st;
      for (size_t i = 0; i < chunk.size(); ++i)
        st.push_back({chunk[i], *job + "_" + std::to_string(i)});
      store->start(st, now_s(), "slurm");
      started += int64_t(chunk.size());
      in_flight += chunk.size();
      std::cout << "Submitted " << chunk.size() << " run" << (chunk.size() > 1 ? "s" : "") << " as array job " << *job
                << std::endl;
    }
    if (in_flight == 0)
      break;
    std::this_thread::sleep_for(std::chrono::duration<double>(a.poll));
  }
  print_end(*store, c, space, finished);
  return 0;
}

int run_run(const SweepArgs& a, const Globals& globals)
{
  return a.runner == "slurm" ? run_slurm(a) : run_local(a, globals);
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

double now_s()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::filesystem::path campaign_folder(const std::string& dir, const Campaign& c)
{
  if (not dir.empty())
    return dir;
  return c.file.parent_path() / (c.name + ".campaign");
}

std::filesystem::path existing_database(const std::filesystem::path& dir)
{
  std::error_code ec;
  if (not std::filesystem::exists(database_of(dir), ec))
    throw InputError(database_of(dir).string(), "",
                     "no campaign database here (sgai sweep init or sgai sweep run makes it; --dir names another "
                     "folder)");
  return database_of(dir);
}

SlaState sla_of(const Campaign& c, const CampaignStore& store, const std::vector<RunRecord>& records, uint32_t parallel)
{
  SlaState sla;
  double wall   = 0;
  int64_t ended = 0;
  for (const auto& r : records)
    if (r.status == "done" || r.status == "failed") {
      ++ended;
      wall += r.wall_s;
    }
  sla.max_runs   = c.max_runs;
  sla.deadline_s = c.deadline_s;
  sla.now_s      = now_s() - store.created();
  sla.parallel   = parallel;
  sla.mean_run_s = ended > 0 ? wall / double(ended) : 0;
  sla.finished   = uint64_t(ended);
  return sla;
}

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
