/* A compute node's time for the replay (replay.cpp's stream actors). */
#ifndef SGAI_PLUGINS_REPLAY_NODE_TIME_HPP
#define SGAI_PLUGINS_REPLAY_NODE_TIME_HPP

#include "core/kernels/kernel_model.hpp"
#include "plugins/replay/replay.hpp"

namespace sgai::chakra {
struct Node;
}

namespace sgai::replay {

/** Memory bandwidth of a GPU: the options', the system's local-mem-bw, else its model's. */
double mem_bw(const ReplayOptions& options, simgrid::s4u::Host* gpu);

/** A compute node's time on `host` at P-state 0, in a compute and a memory part: its recorded
 *  duration (on a GPU, classed compute- or memory-bound: classify_kernel), or num_ops at peak (the
 *  GPU's model, or the host's speed for a CPU) and, with the roofline, tensor_size at the memory
 *  bandwidth (the kernel takes the longer of the two). */
kernels::KernelTime compute_time(const ReplayOptions& options, const chakra::Node& n, simgrid::s4u::Host* host,
                                 bool gpu);

} // namespace sgai::replay

#endif
