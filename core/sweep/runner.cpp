#include "core/sweep/runner.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/signals.hpp"
#include "core/sweep/folder.hpp"
#include "core/sweep/process.hpp"

#include <cmath>
#include <csignal>
#include <map>
#include <ostream>
#include <thread>

namespace sgai::sweep {

namespace {

/** The runs in flight: pid -> run. */
using Children = std::map<int, int64_t>;

/** Signals every child and waits for them all. */
void stop_children(Children& children)
{
  for (const auto& [pid, id] : children)
    ::kill(pid, SIGTERM);
  while (not children.empty()) {
    auto [pid, status] = wait_any_child();
    if (pid < 0)
      break;
    children.erase(pid);
  }
}

/** Queues again the runs a stopped local runner left running; InputError when some are on Slurm. */
void resume(CampaignStore& store, const Campaign& c, std::ostream* progress)
{
  for (const auto& r : store.runs())
    if (r.status == "running" && r.runner == "slurm")
      throw InputError(c.file.string(), "",
                       "run " + std::to_string(r.id) + " is on Slurm (task " + r.job +
                           "): resume the campaign with --runner slurm, or cancel its tasks (scancel) first");
  if (int64_t n = store.requeue_running(); n > 0 && progress != nullptr)
    *progress << "Resumed: " << n << " run" << (n > 1 ? "s" : "") << " stopped while running, queued again\n";
}

} // namespace

RunSummary run_local(const Campaign& c, const std::filesystem::path& dir, const LocalOptions& o)
{
  Space space = c.space();
  auto store  = open_store(dir, c, o.dir_option);
  RunnerLock runner(dir);
  resume(*store, c, o.progress);
  uint32_t jobs = o.jobs > 0 ? uint32_t(o.jobs) : std::max(1u, std::thread::hardware_concurrency());
  std::mt19937_64 rng(c.seed * 1000003 + store->runs().size());
  Children children;
  int64_t started = 0, finished = 0;
  auto base_dir = base_dir_of(c);
  for (;;) {
    std::set<int64_t> busy;
    for (const auto& [pid, id] : children)
      busy.insert(id);
    size_t room = children.size() < jobs ? jobs - children.size() : 0;
    if (o.runs > 0)
      room = std::min(room, size_t(std::max<int64_t>(0, o.runs - started)));
    for (int64_t id : next_runs(*store, c, space, o.strategy, rng, jobs, room, busy)) {
      auto lock     = output_lock();
      RunRecord rec = record_of(*store, id);
      prepare_run(dir, c, space, rec);
      auto run_dir = dir / "runs" / std::to_string(id);
      std::vector<std::string> argv{o.sgai,
                                    "run",
                                    (run_dir / "experiment.json").string(),
                                    "--out",
                                    (run_dir / "out").string(),
                                    "--base-dir",
                                    base_dir.string()};
      for (const auto& g : o.run_args)
        argv.push_back(g);
      store->start(id, now_s());
      auto pid = spawn_process(argv, (run_dir / "log.txt").string());
      if (not pid) {
        store->finish(id, now_s(), std::nan(""), -1, false);
        stop_children(children);
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
      stop_children(children);
      throw;
    }
    store->finish(id, now_s(), objective, status, status == 0 && std::isfinite(objective));
    ++finished;
  }
  return summary_of(*store, space, finished);
}

} // namespace sgai::sweep
