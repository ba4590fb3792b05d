/* The pure part of the GPU P-state model (plugins/gpu/gpu.hpp keeps the SimGrid host
 * extension): kernel times split into compute and memory parts, a kernel's bound from its
 * intensity or its name, the clock fraction a power cap allows, roofline times. No SimGrid here:
 * the what-if engine (whatif/) and the GPU-cluster manager share it. */
#ifndef SGAI_CORE_KERNELS_KERNEL_MODEL_HPP
#define SGAI_CORE_KERNELS_KERNEL_MODEL_HPP

#include <string>

namespace sgai::kernels {

/** A kernel's time at P-state 0, in a compute part and a memory part (either may be 0). */
struct KernelTime {
  double compute_s = 0;
  double memory_s  = 0;
  /** The time with compute clock fraction f and memory bandwidth fraction m:
   *  max(compute_s / f, memory_s / m). */
  double at(double f, double m) const;
};

enum class KernelBound { compute, memory };

/** Whether a kernel known by its duration is bound by compute or by memory: by its arithmetic
 *  intensity against the GPU's ridge point (ops / bytes >= peak / memory bandwidth: compute) when
 *  both are known (ops and bytes > 0, peak and bandwidth > 0), else by its name (copies, fills,
 *  element-wise, normalisation (cuDNN's batch norm too), pooling, layout changes, softmax,
 *  reductions, optimizers: memory; GEMMs, convolutions, FFTs and attention, whatever their epilogue,
 *  and anything unknown: compute). */
KernelBound classify_kernel(const std::string& name, double ops, double bytes, double peak_flops, double mem_bw_Bps);

/** The SM clock fraction a power cap allows, as sgai's assumed model has it: dynamic power grows
 *  with the cube of the clock (P = idle + (max - idle) f^3, voltage following frequency), so
 *  f = ((cap - idle) / (max - idle))^(1/3), within (0, 1]. std::invalid_argument unless
 *  idle < cap <= max. */
double capped_clock_fraction(double cap_w, double idle_w, double max_w);

/** Roofline time of a kernel of `ops` operations touching `bytes` bytes: no faster than the peak,
 *  no faster than the memory bandwidth (when known and `roofline`). */
double roofline_seconds(double ops, double bytes, double peak_flops, double mem_bw_Bps, bool roofline);

} // namespace sgai::kernels

#endif
