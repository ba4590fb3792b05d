/* GPU fabrics as datacenters build them, generated at any size as sgai platform files (clos and
 * rail-optimized topologies, a NIC per GPU; docs/platforms.md). */
#ifndef SGAI_GENERATORS_PLATFORM_FABRICS_HPP
#define SGAI_GENERATORS_PLATFORM_FABRICS_HPP

#include <cstdint>
#include <string>

namespace sgai::platform {

/** A DGX H100 SuperPOD of `nodes` DGX H100 nodes (NVIDIA's reference architecture): scalable units
 *  of 32 nodes, each with 8 rail leaves (QM9700: 64 ports of NDR 400 Gb/s, 32 down to the NICs of
 *  rail r, 32 up); up to 4 units (32 leaves) one spine level joining every leaf, each leaf's 32
 *  uplinks spread over the spines (non-blocking); beyond, pods of 4 units under 32 spines of 32
 *  down and 32 up ports, and a core level joining the pods. `catalogue`: the path the file names
 *  for the catalogue holding "DGX H100" and "InfiniBand NDR". std::invalid_argument for 0 nodes or
 *  more than 8,192 (64 pods: a core switch's 64 ports). `sharp`: the switches reduce (NVIDIA SHARP,
 *  which the reference architecture's QM9700 switches offer; NCCL reaches it through CollNet). */
std::string superpod_json(uint32_t nodes, const std::string& catalogue, bool sharp = false);

} // namespace sgai::platform

#endif
