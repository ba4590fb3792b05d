/* A whole replay from ASTRA-sim's inputs: network YAML -> SimGrid NPU network, system JSON,
 * optional communicator groups, one or more workloads (ET prefixes) mapped to consecutive NPUs;
 * runs the simulation and writes the output folder (ranks.csv, collectives.csv, energy.csv,
 * replay_log.csv, summary.json). Used by `sgai replay` and by experiment files. */
#ifndef SGAI_PLUGINS_REPLAY_RUN_HPP
#define SGAI_PLUGINS_REPLAY_RUN_HPP

#include "plugins/replay/replay.hpp"

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sgai::replay {

struct AstraRunOptions {
  std::vector<std::string> workloads; ///< ET prefixes (dir/name for dir/name.N.et), files or folders
  /** NPUs of each workload's ranks, as text ("0-7", "0,2,4,6", "8-11 16-19"); none: consecutive
   *  NPUs in workload order. Given, there is one per workload and no NPU serves two ranks. */
  std::vector<std::string> npus;
  std::filesystem::path system, network, comm_groups;
  std::filesystem::path out;
  std::vector<std::string> simgrid_args;
  double peak_tflops = 0;                   ///< NPU speed; 0: the system's peak-perf, else 1000
  double gpu_idle_w = 70, gpu_busy_w = 700; ///< H100 SXM5 figures (platforms/catalogues)
  double link_idle_w = 0, link_busy_w = 0;  ///< link_energy figures per link (0: none)
  uint32_t pstate = 0;                      ///< P-state of every NPU: 1 and 2 are H100 power caps (500 W, 300 W)
  /** false: ASTRA-sim's congestion-unaware network, where transfers never share a link (SimGrid's
   *  FATPIPE links: each flow alone at the link's bandwidth); true: links shared (max-min). */
  bool congestion_aware = true;
  /** Wait for data dependencies only (true) or for control ones too (false); unset: data only for
   *  traces converted from PyTorch (chakra::pytorch_converted), all otherwise. */
  std::optional<bool> data_deps_only;
  bool recorded_durations = true;
  /** A send waits for the NPU's communication in flight and holds it (ASTRA-sim's hardware
   *  resource); false: point-to-point operations run beside the collectives (NCCL's streams). */
  bool sends_on_comm_stream = true;
  /** Every congestion-aware collective's transfers run on SimGrid, even a collective's that has the
   *  network to itself (ReplayOptions::network_to_itself). */
  bool step_by_step = false;
};

struct AstraRunResult {
  double makespan_s = 0, wall_s = 0;
  uint64_t nodes = 0;
  std::vector<RankResult> ranks;
  std::vector<CollectiveRecord> collectives;
  double gpu_energy_j = 0, link_energy_j = 0;
  /** Why an energy figure is missing or 0, one line each (sim::EnergyReport::notes). */
  std::vector<std::string> energy_notes;
  std::vector<std::string> files; ///< written in `out`
};

AstraRunResult run_astra(const AstraRunOptions& options);

} // namespace sgai::replay

#endif
