/* The local campaign runner (docs/sweep.md): `sgai run` processes here, N at a time. */
#ifndef SGAI_CORE_SWEEP_RUNNER_HPP
#define SGAI_CORE_SWEEP_RUNNER_HPP

#include "core/sweep/campaign.hpp"
#include "core/sweep/runs.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace sgai::sweep {

struct LocalOptions : RunnerOptions {
  std::string sgai = "sgai";         ///< the program each run starts as `sgai run` (searched in PATH)
  std::vector<std::string> run_args; ///< appended to each run's command line (SimGrid's --cfg=, --log=)
};

/** Runs campaign `c` in its folder `dir` (created with its database on the first call) until the
 *  strategy, the SLA or `o.runs` stop it: `o.jobs` runs at a time, each `SGAI run
 *  dir/runs/ID/experiment.json --out dir/runs/ID/out --base-dir BASE [run_args]` with its log in
 *  dir/runs/ID/log.txt, its objective read from its summary.json. Resumes a campaign: runs left
 *  running by a local runner are queued again (said on `o.progress`); InputError when runs are on
 *  Slurm. RunError when a run cannot start; InputError when a run that succeeded lacks the
 *  objective (the running ones are then stopped, and the run recorded failed). The runs' children
 *  are registered with the signal policy (process.hpp). */
RunSummary run_local(const Campaign& c, const std::filesystem::path& dir, const LocalOptions& o);

} // namespace sgai::sweep

#endif
