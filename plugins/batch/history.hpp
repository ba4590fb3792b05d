/* What the workload manager records while it runs (jobs, machine states, energy, P-states,
 * over-utilization spans), and the writers of its output files (outputs.cpp). Plain C++. */
#ifndef SGAI_BATCH_HISTORY_HPP
#define SGAI_BATCH_HISTORY_HPP

#include "generators/platform/model.hpp"
#include "generators/workload/workload.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/batch/resources.hpp"

#include <array>
#include <filesystem>
#include <limits>
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

struct History {
  std::vector<JobRecord> records;
  std::vector<MachineSample> machine;
  std::vector<EnergySample> energy_series;
  std::vector<PStateChange> pstate_changes;
  std::vector<Span> spans;
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
};

std::vector<std::pair<std::string, double>> schedule_figures(const History& h, const workload::Workload& w,
                                                             const Resources& r);
std::vector<std::pair<std::string, std::string>> write_history(const History& h, const workload::Workload& w,
                                                               const Resources& r, const platform::Platform* platform,
                                                               const std::filesystem::path& dir);

} // namespace sgai::batch

#endif
