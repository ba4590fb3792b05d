/* ASTRA-sim's own input files, read unchanged: the analytical network YAML (topology, npus_count,
 * bandwidth in GB/s, latency in ns, one entry per dimension) and the system JSON (collective
 * implementations per dimension, chunking, endpoint delay, local memory bandwidth, peak
 * performance, roofline). Bad input: InputError naming the file, the line or JSON pointer, the
 * value and what was expected. */
#ifndef SGAI_REPLAY_ASTRA_INPUTS_HPP
#define SGAI_REPLAY_ASTRA_INPUTS_HPP

#include "plugins/replay/network.hpp"
#include "plugins/replay/schedule.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sgai::replay {

/** Network GB/s as ASTRA-sim's analytical backend reads them: 2^30 bytes per second
 *  (bw_GBps_to_Bpns); local-mem-bw GB/s are decimal, 1e9 bytes per second. */
constexpr double kNetworkGBps = 1073741824.0;
constexpr double kMemoryGBps  = 1e9;

std::vector<Dimension> read_network_yaml(const std::filesystem::path& file);

struct SystemConfig {
  /** Implementation per dimension of each collective (the *-implementation keys). */
  std::map<CollectiveType, std::vector<Algorithm>> implementations;
  uint32_t chunks         = 1;      ///< preferred-dataset-splits
  uint32_t active_chunks  = 1;      ///< active-chunks-per-dimension
  double endpoint_delay_s = 0;      ///< endpoint-delay (ns in the file)
  double local_mem_bw_Bps = 0;      ///< local-mem-bw (GB/s in the file); 0: reductions are free
  double peak_flops       = 0;      ///< peak-perf (TFLOP/s in the file); 0: not given
  bool roofline           = false;  ///< roofline-enabled
  std::vector<std::string> ignored; ///< keys read and accepted but not modelled
};

SystemConfig read_system_json(const std::filesystem::path& file);

/** Communicator groups: {"<id>": [ranks...]}. */
std::map<std::string, std::vector<uint32_t>> read_comm_groups(const std::filesystem::path& file);

} // namespace sgai::replay

#endif
