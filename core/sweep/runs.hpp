/* What both campaign runners (runner.hpp: local processes; slurm_runner.hpp: Slurm job arrays) do
 * with a campaign's runs: their options and summary, the runs to start next as the strategy and
 * the SLA allow, a run's derived experiment and its objective (docs/sweep.md). */
#ifndef SGAI_CORE_SWEEP_RUNS_HPP
#define SGAI_CORE_SWEEP_RUNS_HPP

#include "core/sweep/assistant.hpp"
#include "core/sweep/campaign.hpp"
#include "core/sweep/space.hpp"
#include "core/sweep/store.hpp"

#include <cstdint>
#include <filesystem>
#include <iosfwd>
#include <random>
#include <set>
#include <string>
#include <vector>

namespace sgai::sweep {

/** What both runners take. */
struct RunnerOptions {
  std::string strategy = "grasp"; ///< grasp, random or full (another name: grasp)
  /** Local: runs at a time (0: the core count); Slurm: array tasks in flight (0: 64). */
  int64_t jobs = 0;
  int64_t runs = 0; ///< start at most this many runs in this call (0: as the SLA allows)
  /** The option or place that chose the campaign's folder, named when it cannot be made. */
  std::string dir_option = "--dir";
  /** Where the runner says what it does (runs resumed, array jobs submitted, tasks lost); null: nowhere. */
  std::ostream* progress = nullptr;
};

/** A runner's call once it ended: the runs that ended in it, and the campaign's counts then. */
struct RunSummary {
  int64_t ended = 0;
  int64_t done = 0, failed = 0, queued = 0;
  uint64_t points = 0; ///< of the campaign's space
};

/** The SLA's state from a campaign's runs: finished runs, mean run time, time left; `parallel`
 *  runs at a time. */
SlaState sla_of(const Campaign& c, const CampaignStore& store, const std::vector<RunRecord>& records,
                uint32_t parallel);

/** The runs to start next, at most `n` and none in `busy`: the queued ones first (accepted
 *  suggestions, runs stopped or lost), then points the strategy picks (queued in the store under
 *  its name), as long as the SLA allows with `parallel` runs at a time. */
std::vector<int64_t> next_runs(CampaignStore& store, const Campaign& c, const Space& space, const std::string& strategy,
                               std::mt19937_64& rng, uint32_t parallel, size_t n, const std::set<int64_t>& busy);

/** Writes run `rec`'s derived experiment into `dir`/runs/ID/experiment.json, removing what an
 *  earlier attempt left there (out/, result.json). */
void prepare_run(const std::filesystem::path& dir, const Campaign& c, const Space& space, const RunRecord& rec);

/** Run `id`'s record in the store; RunError when there is none. */
RunRecord record_of(CampaignStore& store, int64_t id);

/** A run's objective from its out/summary.json in `run_dir` (NaN when the run failed or wrote
 *  none); InputError at the campaign's /objective/figure when a run that succeeded (`status` 0)
 *  does not report it. */
double objective_of(const Campaign& c, const std::filesystem::path& run_dir, int status, int64_t id);

/** The folder the runs' relative paths resolve against: the campaign's experiment's. */
std::filesystem::path base_dir_of(const Campaign& c);

/** The summary of a runner's call in which `ended` runs ended. */
RunSummary summary_of(CampaignStore& store, const Space& space, int64_t ended);

} // namespace sgai::sweep

#endif
