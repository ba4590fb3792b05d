/* Figures of a Chakra trace: node counts by type, collectives by type (count and bytes), point to
 * point traffic, compute operations, and the critical path by recorded durations (the makespan of
 * a replay with unlimited resources, computed through the Feeder in bounded memory). */
#ifndef SGAI_CHAKRA_STATS_HPP
#define SGAI_CHAKRA_STATS_HPP

#include "chakra/feeder.hpp"
#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <map>
#include <string>
#include <vector>

namespace sgai::chakra {

struct TraceStats {
  std::string file;
  std::optional<uint32_t> rank;
  uint64_t nodes = 0;
  std::map<NodeType, uint64_t> by_type;
  struct Traffic {
    uint64_t count = 0;
    uint64_t bytes = 0;
  };
  std::map<CollectiveType, Traffic> collectives;
  uint64_t collectives_without_type = 0; ///< COMM_COLL nodes whose comm_type is absent or unknown
  Traffic sends, recvs;
  double compute_ops            = 0; ///< sum of num_ops over compute nodes (FLOPs)
  uint64_t compute_without_ops  = 0;
  uint64_t cpu_ops              = 0; ///< nodes with is_cpu_op true
  uint64_t total_duration_us    = 0;
  uint64_t critical_path_us     = 0;
  uint64_t control_deps_ignored = 0;              ///< on the node itself or on nodes not in the trace
  bool data_deps_only           = false;          ///< control dependencies not followed
  bool pytorch_converted        = false;          ///< written by Chakra's PyTorch converter (pytorch_converted)
  std::map<std::string, uint64_t> process_groups; ///< pg_name -> collectives in it
};

struct ReplayEvent;

/** Reads the file once through a Feeder (window of `window` nodes; control dependencies followed
 *  as `deps` says, see follow_control). With `log`, also appends the issue and callback events of
 *  the unlimited-resource replay (rank from the file name, else 0). */
TraceStats trace_stats(const std::filesystem::path& et, size_t window = 1 << 16, Deps deps = Deps::automatic,
                       std::vector<ReplayEvent>* log = nullptr);

/** Adds b's counts to a (critical path: the maximum). */
void accumulate(TraceStats& a, const TraceStats& b);

} // namespace sgai::chakra

#endif
