/* What a training prediction takes from a platform: its first GPU's kernel figures at the run's
 * precision (the catalogue's matmul, attention and stream figures), NCCL's view of its nodes (a
 * fat tree's nodes reach the network through their level-1 links), and the power figures of its
 * GPUs, processors and network links. */
#ifndef SGAI_CORE_TRAINING_PLATFORM_INPUTS_HPP
#define SGAI_CORE_TRAINING_PLATFORM_INPUTS_HPP

#include "core/training/config.hpp"
#include "core/training/predict.hpp"

#include <string>

namespace sgai::platform {
struct Platform;
struct GpuType;
} // namespace sgai::platform

namespace sgai::training {

struct PlatformInputs {
  GpuKernels gpu;
  Fabric fabric;
  const platform::GpuType* type = nullptr;
  double gpu_busy_w = 0, gpu_idle_w = 0; ///< P-state 0's full-load power, idle power
  double node_cpu_w = 0;                 ///< a node's processors at their rated power
  double nic_idle_w = 0, nic_busy_w = 0; ///< a node's network link (0: no wattage given)
};

/** The inputs from platform `p` (read from `file`, for messages) for its GPUs of type `gpu_type`
 *  (empty: its first GPU's type); InputError naming the file when the platform has no such GPU or
 *  its type lacks a figure the kernel model needs. */
PlatformInputs platform_inputs(const platform::Platform& p, Precision precision, const std::string& file,
                               const std::string& gpu_type = {});

} // namespace sgai::training

#endif
