/* What sgai's Slurm runner reads from and gives to Slurm (docs/sweep.md): the array task's wrapper
 * script, and the outputs of `scontrol show config`, `sbatch --parsable`, `squeue` and
 * `scontrol -o show job`. Pure text handling; the runner (slurm_runner.hpp) runs the commands. */
#ifndef SGAI_CORE_SWEEP_SLURM_HPP
#define SGAI_CORE_SWEEP_SLURM_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>

namespace sgai::sweep::slurm {

/** A setting of `scontrol show config` ("MaxArraySize            = 1001"); nullopt when absent. */
std::optional<std::string> config_value(const std::string& scontrol_config, const std::string& key);

/** The job id `sbatch --parsable` printed ("123" or "123;cluster"); nullopt when there is none. */
std::optional<std::string> parsable_job_id(const std::string& sbatch_output);

/** `squeue -h -r -o "%i %T"`: array task ("123_4") -> state, for the tasks still queued or
 *  running. A line that is not "ID STATE" is skipped. */
std::map<std::string, std::string> queue_states(const std::string& squeue_output);

/** `scontrol -o show job ID`: array task ("123_4", from ArrayJobId and ArrayTaskId) -> JobState,
 *  for every task Slurm still knows (finished ones stay for MinJobAge). */
std::map<std::string, std::string> job_states(const std::string& scontrol_output);

/** True for the states of a task that has not ended (PENDING, RUNNING, CONFIGURING, COMPLETING,
 *  SUSPENDED, REQUEUED, RESIZING, SIGNALING, STAGE_OUT). */
bool in_flight(const std::string& state);

/** The array task's wrapper (POSIX sh). Called as `task.sh CHUNK_FILE`: line SLURM_ARRAY_TASK_ID+1
 *  of the chunk file is "RUN_ID"; it runs `SGAI run RUNS/RUN_ID/experiment.json --out
 *  RUNS/RUN_ID/out --base-dir BASE` with its log in RUNS/RUN_ID/log.txt, then writes
 *  RUNS/RUN_ID/result.json ({"exit_status", "task", "host", "started", "ended"}) under a temporary
 *  name and renames it: the result is there whole or not at all. */
std::string wrapper_script(const std::string& sgai, const std::string& runs_dir, const std::string& base_dir);

/** What a task's result.json says. */
struct TaskResult {
  int64_t exit_status = -1;
  std::string task;
  double started = 0, ended = 0;
};
/** Parses result.json; nullopt when it is not one. */
std::optional<TaskResult> parse_result(const std::string& text);

} // namespace sgai::sweep::slurm

#endif
