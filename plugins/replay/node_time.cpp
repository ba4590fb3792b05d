/* A compute node's time for the replay: its recorded duration or its operations and bytes on the
 * GPU's or host's model (docs/replay.md). */
#include "plugins/replay/node_time.hpp"
#include "plugins/gpu/gpu.hpp"

#include "chakra/trace.hpp"

#include <simgrid/s4u/Host.hpp>

#include <algorithm>

namespace sgai::replay {

namespace s4u = simgrid::s4u;

double mem_bw(const ReplayOptions& options, s4u::Host* gpu)
{
  if (options.gpu_mem_bw_Bps > 0)
    return options.gpu_mem_bw_Bps;
  if (options.system.local_mem_bw_Bps > 0)
    return options.system.local_mem_bw_Bps;
  return gpu::GpuModel::of(gpu).mem_bw_Bps;
}

kernels::KernelTime compute_time(const ReplayOptions& options, const chakra::Node& n, s4u::Host* host, bool gpu)
{
  double ops   = n.num_ops().value_or(0);
  double bytes = static_cast<double>(std::max<int64_t>(0, n.int_attr("tensor_size").value_or(0)));
  double peak  = not gpu                      ? host->get_pstate_speed(0) * host->get_core_count()
                 : options.gpu_peak_flops > 0 ? options.gpu_peak_flops
                                              : gpu::GpuModel::of(host).peak();
  kernels::KernelTime t;
  if (options.recorded_durations && n.duration_micros > 0) {
    double d = n.duration_micros * 1e-6;
    if (gpu &&
        kernels::classify_kernel(n.name, ops, bytes, peak, mem_bw(options, host)) == kernels::KernelBound::memory)
      t.memory_s = d;
    else
      t.compute_s = d;
    return t;
  }
  t.compute_s = ops > 0 && peak > 0 ? ops / peak : 0;
  if (gpu && options.system.roofline && mem_bw(options, host) > 0 && bytes > 0)
    t.memory_s = bytes / mem_bw(options, host);
  return t;
}

} // namespace sgai::replay
