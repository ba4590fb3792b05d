/* The Slurm campaign runner (docs/sweep.md): the runs as array jobs of a wrapper script, followed
 * through their result files, squeue and scontrol. Slurm's outputs are read by slurm.hpp. */
#ifndef SGAI_CORE_SWEEP_SLURM_RUNNER_HPP
#define SGAI_CORE_SWEEP_SLURM_RUNNER_HPP

#include "core/sweep/campaign.hpp"
#include "core/sweep/runs.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sgai::sweep {

struct SlurmOptions : RunnerOptions {
  std::string sgai;                     ///< the sgai binary the tasks run (a path the nodes see)
  int64_t throttle = 0;                 ///< at most this many array tasks at once (0: no limit)
  double poll_s    = 10;                ///< seconds between looks at the queue
  std::vector<std::string> sbatch_args; ///< passed to sbatch before the script
};

/** Runs campaign `c` in its folder `dir` on Slurm until the strategy, the SLA or `o.runs` stop it:
 *  at most `o.jobs` array tasks in flight, each running slurm::wrapper_script (written to
 *  dir/slurm/task.sh) on a chunk file of run ids (dir/slurm/chunk-N.txt), with Slurm's output in
 *  dir/slurm/. Slurm is asked first (SLURM_CONF, `scontrol show config`, `sbatch --test-only`):
 *  RunError, nothing written, when it is missing or refuses the job. Resumes a campaign: runs a
 *  local runner left running are queued again, those on Slurm followed; a task that leaves the
 *  queue without a result runs once more, then fails. Says on `o.progress` what it submits and
 *  what it loses. RunError when a Slurm command fails; InputError when a run that succeeded lacks
 *  the objective (the run recorded failed; its tasks go on). */
RunSummary run_slurm(const Campaign& c, const std::filesystem::path& dir, const SlurmOptions& o);

} // namespace sgai::sweep

#endif
