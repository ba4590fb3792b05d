/* The model of a GPU host, kept as a SimGrid host extension: peak FLOP/s per precision, memory
 * bandwidth and capacity, and its P-states. Built on first use from the host's properties, which
 * the platform generator writes from the accelerator catalogue (sgai_peak_flops_<precision>,
 * sgai_gpu_precision, sgai_memory_bandwidth_Bps, sgai_memory_bytes, sgai_pstate_memory_speeds),
 * and from the host's speed where they are absent. Kernel times come from it (roofline_seconds,
 * KernelTime).
 *
 * The P-state model (defined here once; docs/platforms.md): a P-state is a power cap with a
 * compute-clock fraction f (the host's speed in that state over its speed in P-state 0) and a
 * memory-bandwidth fraction m (default 1). A kernel's time in a P-state is
 * max(compute part / f, memory part / m), its parts taken at P-state 0 from its operations and
 * bytes; a kernel known only by its duration is classed compute- or memory-bound (classify_kernel)
 * and its duration scaled by 1/f or 1/m. */
#ifndef SGAI_PLUGINS_GPU_GPU_HPP
#define SGAI_PLUGINS_GPU_GPU_HPP

#include "core/kernels/kernel_model.hpp"

#include <simgrid/forward.h>
#include <xbt/base.h> // SG_BEGIN_DECL / SG_END_DECL: C linkage, as SimGrid's plugin headers declare it

#include <map>
#include <string>
#include <vector>

SG_BEGIN_DECL
/** The GPU model as a SimGrid plugin (as sg_host_energy_plugin_init() is the energy one): call it
 *  before loading the platform. Once the platform is created, every host carrying sgai's GPU
 *  properties (sgai_gpu_type, sgai_peak_flops_<precision>, sgai_memory_bandwidth_Bps,
 *  sgai_memory_bytes, sgai_pstate_memory_speeds: what `sgai platform generate` writes from the
 *  accelerator catalogue) gets its model, and a value that is not a positive number (memory
 *  speeds: in (0, 1]) is an error then: std::invalid_argument naming the host, the property and
 *  the value, out of load_platform. Without it, GpuModel::of builds a host's model on first use
 *  and reads such values as 0. Calling it again does nothing. */
void sgai_gpu_plugin_init(void);
SG_END_DECL

namespace sgai::gpu {

struct GpuModel {
  std::string type;
  std::string precision;                    ///< the default precision of kernels
  std::map<std::string, double> peak_flops; ///< per precision
  double mem_bw_Bps   = 0;                  ///< 0: unknown
  double memory_bytes = 0;
  /** Per P-state, the fraction of P-state 0's memory bandwidth (empty: 1 in every state). */
  std::vector<double> memory_speeds;

  /** The compute-clock fraction f of P-state `p` on `host` (its speed there over P-state 0's). */
  static double compute_speed(const simgrid::s4u::Host* host, unsigned long p);
  /** The memory-bandwidth fraction m of P-state `p` (1 unless the catalogue gives one). */
  double memory_speed(unsigned long p) const;

  /** Peak FLOP/s in `precision` (the default one when empty or unknown; the host's P-state 0
   *  speed when the host has no figures). */
  double peak(const std::string& precision = {}) const;

  /** The extension of `host`, created from its properties on first use. */
  static const GpuModel& of(simgrid::s4u::Host* host);
  /** Whether `host` is described as a GPU (sgai_gpu_type, sgai_peak_flops_*, sgai_memory_bandwidth_Bps). */
  static bool described(const simgrid::s4u::Host* host);
  /** std::invalid_argument naming the host, the property and the value when one of them is not a
   *  positive number (memory speeds: a comma-separated list in (0, 1]). */
  static void check_properties(const simgrid::s4u::Host* host);
};

} // namespace sgai::gpu

#endif
