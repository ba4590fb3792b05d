#include "core/sweep/runs.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/sweep/folder.hpp"
#include "core/sweep/strategy.hpp"

#include <cmath>

namespace sgai::sweep {

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

RunSummary summary_of(CampaignStore& store, const Space& space, int64_t ended)
{
  RunSummary s;
  s.ended  = ended;
  s.done   = store.count("done");
  s.failed = store.count("failed");
  s.queued = store.count("queued");
  s.points = space.count();
  return s;
}

} // namespace sgai::sweep
