/* NCCL's plan for one collective on SimGrid hosts: the algorithm and protocol its tuning model picks
 * (core/collectives/nccl.hpp) turned into a schedule (rings over rails, NCCL's trees, NVLS) and the
 * protocol's costs, as the trace replay and the GPU-cluster manager run them. */
#ifndef SGAI_CORE_COLLECTIVES_NCCL_PLAN_HPP
#define SGAI_CORE_COLLECTIVES_NCCL_PLAN_HPP

#include "core/collectives/nccl.hpp"
#include "core/collectives/schedule.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {
struct Platform;
}

namespace sgai::collectives {

/** A collective as NCCL runs it: its schedule, name and protocol costs. */
struct NcclPlan {
  std::shared_ptr<const Schedule> schedule;
  std::string algorithm;
  std::unique_ptr<nccl::ProtocolCosts> costs;
  uint32_t lanes = 1; ///< independent channels: chunks and chunks in flight multiply by it
};

/** Schedules by key, shared between the collectives of a run. */
using ScheduleCache = std::map<std::string, std::shared_ptr<const Schedule>>;

/** NCCL's plan for a collective of `type` and `bytes` (comm_size) over members whose nodes are
 *  `node` (member i on node[i], any numbering), `algo` / `proto` forced when given (NCCL_ALGO /
 *  NCCL_PROTO), `latency(i, j)` the path latency between members i and j. None when NCCL does not
 *  tune the collective (all-to-all) and nothing is forced; std::invalid_argument, with the reason,
 *  when a forced algorithm or protocol cannot run it. */
std::optional<NcclPlan> plan_nccl(const nccl::System& system, CollectiveType type, uint64_t bytes,
                                  const std::vector<uint32_t>& node, std::optional<nccl::Algo> algo,
                                  std::optional<nccl::Proto> proto, ScheduleCache& cache,
                                  const std::function<double(uint32_t, uint32_t)>& latency);

/** The planning step every runner of collectives takes (the trace replay, the GPU-cluster manager,
 *  what-if on a platform): NCCL's plan (plan_nccl) when `system` is given and NCCL's model applies
 *  to the collective, else the schedule `fallback` gives, under the name it sets, on one lane.
 *  std::invalid_argument from plan_nccl or `fallback` passes through. */
NcclPlan plan_collective(const nccl::System* system, CollectiveType type, uint64_t bytes,
                         const std::vector<uint32_t>& node, std::optional<nccl::Algo> algo,
                         std::optional<nccl::Proto> proto, ScheduleCache& cache,
                         const std::function<double(uint32_t, uint32_t)>& latency,
                         const std::function<std::shared_ptr<const Schedule>(std::string& name)>& fallback);

/** What NCCL would detect on a platform, from its first GPU's node: none when the GPU type names no
 *  architecture (NCCL's model then does not apply). */
std::optional<nccl::System> nccl_system(const platform::Platform& p);

} // namespace sgai::collectives

#endif
