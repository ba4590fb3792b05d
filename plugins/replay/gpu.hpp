/* The model of a GPU host, kept as a SimGrid host extension: peak FLOP/s per precision, memory
 * bandwidth and capacity. Built on first use from the host's properties, which the platform
 * generator writes from the accelerator catalogue (sgai_peak_flops_<precision>,
 * sgai_gpu_precision, sgai_memory_bandwidth_Bps, sgai_memory_bytes), and from the host's speed
 * where they are absent. Kernel times come from it (roofline_seconds). */
#ifndef SGAI_REPLAY_GPU_HPP
#define SGAI_REPLAY_GPU_HPP

#include <simgrid/forward.h>

#include <map>
#include <string>

namespace sgai::replay {

struct GpuModel {
  std::string type;
  std::string precision;                    ///< the default precision of kernels
  std::map<std::string, double> peak_flops; ///< per precision
  double mem_bw_Bps   = 0;                  ///< 0: unknown
  double memory_bytes = 0;

  /** Peak FLOP/s in `precision` (the default one when empty or unknown; the host's P-state 0
   *  speed when the host has no figures). */
  double peak(const std::string& precision = {}) const;

  /** The extension of `host`, created from its properties on first use. */
  static const GpuModel& of(simgrid::s4u::Host* host);
};

/** Roofline time of a kernel of `ops` operations touching `bytes` bytes: no faster than the peak,
 *  no faster than the memory bandwidth (when known and `roofline`). */
double roofline_seconds(double ops, double bytes, double peak_flops, double mem_bw_Bps, bool roofline);

} // namespace sgai::replay

#endif
