/* ASTRA-sim's own input files, read unchanged: the analytical network YAML (topology, npus_count,
 * bandwidth in GB/s, latency in ns, one entry per dimension) and the system JSON (collective
 * implementations per dimension, chunking, endpoint delay, local memory bandwidth, peak
 * performance, roofline). Bad input: InputError naming the file, the line or JSON pointer, the
 * value and what was expected. */
#ifndef SGAI_PLUGINS_REPLAY_ASTRA_INPUTS_HPP
#define SGAI_PLUGINS_REPLAY_ASTRA_INPUTS_HPP

#include "core/collectives/schedule.hpp"
#include "plugins/communicator/network.hpp"

#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sgai::replay {

/** Network GB/s as ASTRA-sim's analytical backend reads them: 2^30 bytes per second
 *  (bw_GBps_to_Bpns); local-mem-bw GB/s are decimal, 1e9 bytes per second. */
constexpr double kNetworkGBps = 1073741824.0;
constexpr double kMemoryGBps  = 1e9;

/** Upper bounds of the system JSON's figures, far past any hardware (an NPU's memory runs at a
 *  few TB/s, its endpoint delay is nanoseconds, its peak a few PFLOP/s): a value beyond is a typo,
 *  such as 1e308, and an error naming the key and the value. */
constexpr double kMaxEndpointDelay_ns = 1e9; ///< endpoint-delay: 1 s
constexpr double kMaxLocalMemBw_GBps  = 1e6; ///< local-mem-bw: 1 PB/s
constexpr double kMaxPeakPerf_TFLOPs  = 1e6; ///< peak-perf: 1 EFLOP/s

std::vector<communicator::Dimension> read_network_yaml(const std::filesystem::path& file);

struct SystemConfig {
  /** Implementation per dimension of each collective (the *-implementation keys). */
  std::map<chakra::CollectiveType, std::vector<collectives::Algorithm>> implementations;
  uint32_t chunks         = 1;     ///< preferred-dataset-splits
  uint32_t active_chunks  = 1;     ///< active-chunks-per-dimension
  double endpoint_delay_s = 0;     ///< endpoint-delay (ns in the file)
  double local_mem_bw_Bps = 0;     ///< local-mem-bw (GB/s in the file); 0: reductions are free
  double peak_flops       = 0;     ///< peak-perf (TFLOP/s in the file); 0: not given
  bool roofline           = false; ///< roofline-enabled
  /** collective-optimization: localBWAware, or baseline (ASTRA-sim's when a system file leaves
   *  the key out); sgai's own replays without a system file use localBWAware. */
  collectives::AllReduceComposition all_reduce_composition = collectives::AllReduceComposition::local_bw_aware;
  std::vector<std::string> ignored; ///< keys read and accepted but not modelled
};

SystemConfig read_system_json(const std::filesystem::path& file);

/** Communicator groups: {"<id>": [ranks...]}. An id is ASTRA-sim's, a whole number from 0 to
 *  2^31-1 without sign or leading zero ("0", "12": std::stoi reads it back the same), or a name of
 *  letters, digits and "_-.:" that starts with a letter or digit ("dp_s0_t0" as sgai's generator
 *  writes, a hashed PyTorch group name); an ET's pg_name names one of them. Keys starting with '_'
 *  are comments. */
std::map<std::string, std::vector<uint32_t>> read_comm_groups(const std::filesystem::path& file);

} // namespace sgai::replay

#endif
