/* What the workload manager records while it runs (jobs, machine states, energy, P-states,
 * over-utilization spans), and the writers of its output files (outputs.cpp). Plain C++. */
#ifndef SGAI_PLUGINS_BATCH_HISTORY_HPP
#define SGAI_PLUGINS_BATCH_HISTORY_HPP

#include "core/scheduling/resources.hpp"
#include "generators/platform/model.hpp"
#include "generators/workload/workload.hpp"
#include "plugins/batch/manager.hpp"

#include <array>
#include <cstdint>
#include <filesystem>
#include <limits>
#include <memory>
#include <string>
#include <utility>
#include <vector>

namespace sgai::batch {

struct MachineSample {
  double t;
  double flops_in_use; ///< speed of the busy cores (HDeepRM's makespan reward)
  uint32_t busy_cores;
  uint32_t free_cores;
  size_t queued;
  size_t running;
  std::array<uint32_t, 5> machines; ///< hosts in each MachineState
};

struct EnergySample {
  double t;
  double joules;
};

struct PStateChange {
  double t;
  uint32_t host;
  int pstate;
};

struct Span {
  uint32_t processor;
  double start;
  double end;
  double peak_demand_gbps;
};

/** The time series a run writes (ManagerConfig::series): bits of one file each. */
enum SeriesBits : unsigned {
  series_machine_states  = 1,
  series_energy          = 2,
  series_pstate_changes  = 4,
  series_overutilization = 8,
  series_all             = 15,
};
/** "all", "none" or a comma-separated list of machine_states, energy, pstate_changes,
 *  overutilization; std::invalid_argument naming the unknown word. */
unsigned parse_series(const std::string& list);

/** The time series of a run, written row by row as the run goes: into files of the output folder
 *  when it is known at the start (large runs do not hold them in memory), else into memory until
 *  commit(). A sample at the time of the previous one replaces it. Series not asked for are not
 *  recorded at all. */
class SeriesWriter {
public:
  SeriesWriter(unsigned which, const std::filesystem::path& dir);
  ~SeriesWriter();
  SeriesWriter(const SeriesWriter&)            = delete;
  SeriesWriter& operator=(const SeriesWriter&) = delete;

  bool wants(unsigned bit) const { return (which_ & bit) != 0; }
  void machine(const MachineSample& s);
  void energy(double t, double joules);
  /** The time of the last energy sample (-infinity: none). */
  double last_energy_t() const { return energy_pending_ ? energy_last_.t : -std::numeric_limits<double>::infinity(); }
  void pstate(double t, const std::string& host, int pstate, const std::string& name);
  void span(const Span& s, uint32_t first_core, double capacity_gbps);
  uint64_t pstate_changes() const { return pstate_count_; }
  uint64_t spans() const { return span_count_; }
  /** Writes the files (into `dir`: the folder given at the start, if any) and returns them with
   *  what they hold. */
  std::vector<std::pair<std::string, std::string>> commit(const std::filesystem::path& dir);

private:
  struct File;
  unsigned which_;
  std::filesystem::path dir_;
  std::vector<std::unique_ptr<File>> files_; ///< machine_states, energy, pstate_changes, overutilization
  MachineSample machine_last_{};
  bool machine_pending_ = false;
  EnergySample energy_last_{};
  bool energy_pending_   = false;
  uint64_t pstate_count_ = 0, span_count_ = 0;
  bool committed_ = false;
  std::ostream& out(size_t k);
  void flush_machine();
  void flush_energy();
};

struct History {
  std::vector<JobRecord> records;
  /** The workload name of each job submitted by another actor, from its index `first_submitted`
   *  on (jobs.csv's workload_name); the jobs before it are the workload's own. */
  std::vector<std::string> submitted_from;
  size_t first_submitted = SIZE_MAX;
  std::unique_ptr<SeriesWriter> series;
  double first_submit = std::numeric_limits<double>::infinity();
  bool energy         = true; ///< false: some host has no power model (no energy figures)
  double plugin_total = 0;    ///< all hosts' energy at the end, read from the plugin
  double idle_energy  = 0;
  /** Machine-seconds in each MachineState, over the intervals that ended (as Batsim counts them:
   *  each host's last interval is left out). */
  std::array<double, 5> time_in_state{};
  uint64_t machine_switches = 0; ///< machines switched on or off
  uint64_t grouped_switches = 0; ///< switch requests (one per decision and direction)
  uint32_t machine_count    = 0;
  /** An external scheduler's exchanges: requests sent, events it sent back (0: none decided). */
  uint64_t scheduler_requests = 0;
  uint64_t scheduler_events   = 0;
};

std::vector<std::pair<std::string, double>> schedule_figures(const History& h, const workload::Workload& w,
                                                             const scheduling::Resources& r);
/** Writes jobs.csv, schedule.json/.csv and the time series (h.series) into dir. */
std::vector<std::pair<std::string, std::string>> write_history(History& h, const workload::Workload& w,
                                                               const scheduling::Resources& r,
                                                               const std::filesystem::path& dir);

} // namespace sgai::batch

#endif
