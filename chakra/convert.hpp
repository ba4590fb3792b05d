/* PyTorch host execution traces (JSON, schema 1.0.x), optionally linked with the rank's Kineto
 * (PyTorch profiler) trace, converted into a Chakra ET. */
#ifndef SGAI_CHAKRA_CONVERT_HPP
#define SGAI_CHAKRA_CONVERT_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>

namespace sgai::chakra {

struct ConversionReport {
  uint64_t host_ops         = 0; ///< top-level operators (COMP_NODE, is_cpu_op)
  uint64_t unknown_ops      = 0; ///< top-level entries that are no known operator: INVALID_NODE
  uint64_t gpu_ops          = 0; ///< kernels, copies and memsets from Kineto (is_cpu_op false)
  uint64_t host_ops_linked  = 0; ///< host operators found in the Kineto trace
  uint64_t kernels_unlinked = 0; ///< GPU events whose launch no host operator encloses (dropped)
  std::map<CollectiveType, uint64_t> collectives;
  uint64_t point_to_point = 0;
};

/** Converts one rank. `kineto` may be empty (then collectives come from the host trace's
 *  nccl:* operators, without GPU kernels). Inputs may be gzip-compressed. InputError on bad
 *  input, naming the file and the JSON pointer. */
Trace convert_pytorch(const std::filesystem::path& host_et, const std::filesystem::path& kineto,
                      ConversionReport* report = nullptr);

/** The collective a NCCL operator or kernel name denotes ("nccl:all_reduce",
 *  "ncclKernel_AllReduce_RING_LL_Sum_float(...)", "ncclDevKernel_AllGather_..."). */
std::optional<CollectiveType> collective_of_name(const std::string& name);

} // namespace sgai::chakra

#endif
