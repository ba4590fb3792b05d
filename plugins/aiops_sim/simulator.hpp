/* The AI-ops platform on SimGrid (PipeSim, docs/aiops.md): pipelines arriving by an hour-of-week
 * profile, their tasks queued at capacity-limited pools (one actor per pool slot, never one per
 * pipeline), each task a read from the data store, a SimGrid execution and a write back (contended
 * communications, or the analytic isolated-transfer time), deployed models drifting and a detector
 * that sleeps until a trigger's crossing time to start retraining. Rows go to SQLite from a writer
 * thread; the simulation stays single-threaded. */
#ifndef SGAI_PLUGINS_AIOPS_SIM_SIMULATOR_HPP
#define SGAI_PLUGINS_AIOPS_SIM_SIMULATOR_HPP

#include "core/aiops/experiment.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sgai::platform {
struct Platform;
}

namespace sgai::aiops_sim {

struct RunOptions {
  /** Where aiops.sqlite and the CSV summaries go (an existing folder; callers stage it). */
  std::filesystem::path output_dir;
  bool database = true;
  /** SimGrid options (--cfg=...), before the platform is built. */
  std::vector<std::string> simgrid_args;
  /** Called once per simulated day with the simulated time and the pipelines arrived so far. */
  std::function<void(double now, double duration, uint64_t pipelines)> progress;
};

struct RunSummary {
  uint64_t pipelines = 0, arrivals = 0, retrainings = 0, gated = 0;
  uint64_t tasks      = 0;
  uint64_t activities = 0; ///< SimGrid activities the workers and the arrival actor ran
  double end_s        = 0; ///< when the last pipeline ended (arrivals stop at the duration)
  double mean_wait_s = 0, max_wait_s = 0;
  double mean_staleness       = 0; ///< over the deployed models and the duration
  double retraining_compute_s = 0; ///< compute seconds of the triggered pipelines
  uint64_t database_bytes     = 0;
  /** Every figure, in order, as summary.csv holds them (docs/aiops.md lists them); NaN for a figure
   *  the run cannot give (hosts' energy without wattage_per_state), written empty. */
  std::vector<std::pair<std::string, double>> figures;
  /** Why an energy figure is missing or 0, one line each (sim::EnergyReport::notes). */
  std::vector<std::string> notes;
};

/** SimGrid options an AI-ops run sets unless given: selective LMM updates (the same solution,
 *  found faster when each event touches few of many hosts and links). */
std::vector<std::string> default_simgrid_args(const std::vector<std::string>& given);

class Simulator;

/** An AI-ops run on an Engine whose platform is loaded (`platform`: its expanded JSON hierarchy,
 *  null for SimGrid XML): reads the model files, checks the experiment against the platform and
 *  creates the actors; finish() after the Engine ran writes the outputs. InputError for bad input
 *  (model files, hosts, task kinds without times). */
class Run {
public:
  Run(const aiops::ExperimentSpec& spec, const platform::Platform* platform, const RunOptions& options);
  Run(const Run&)            = delete;
  Run& operator=(const Run&) = delete;
  ~Run();
  RunSummary finish();
  /** The hosts of its pools. */
  std::vector<std::string> hosts() const;

private:
  std::unique_ptr<Simulator> impl_;
};

/** Runs an experiment in this process (its one SimGrid Engine) and writes its outputs into
 *  options.output_dir. InputError for bad input, RunError for failures while running. */
RunSummary run_experiment(const aiops::ExperimentSpec& spec, const RunOptions& options);

} // namespace sgai::aiops_sim

#endif
