/* Drawing Chakra traces: Graphviz dot of the dependency graph (with a node limit and filters so big
 * traces stay readable), and Chrome trace JSON (Perfetto, chrome://tracing) of a replay log. */
#ifndef SGAI_CHAKRA_VISUALIZE_HPP
#define SGAI_CHAKRA_VISUALIZE_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <ostream>
#include <set>
#include <string>

namespace sgai::chakra {

struct DotOptions {
  uint64_t max_nodes = 500;       ///< nodes drawn at most (the first ones kept by the filters)
  std::set<NodeType> types;       ///< only these types (empty: all)
  std::string name_contains;      ///< only nodes whose name contains this (empty: all)
  std::optional<uint64_t> min_id; ///< only ids in [min_id, max_id]
  std::optional<uint64_t> max_id;
  bool control_edges = true; ///< draw control dependencies (dashed)
};

struct DotSummary {
  uint64_t nodes_read  = 0;
  uint64_t nodes_drawn = 0;
  uint64_t edges_drawn = 0;
  bool truncated       = false; ///< more nodes matched than max_nodes
};

/** Streams the graph of `et` as Graphviz dot: compute nodes as boxes, communication as ellipses
 *  (colour by type), data edges solid, control edges dashed; edges only between drawn nodes. */
DotSummary write_dot(const std::filesystem::path& et, const DotOptions& options, std::ostream& out);

/** One line of a replay log: a node issued or called back (completed) on a rank at a time. */
struct ReplayEvent {
  uint32_t rank  = 0;
  uint64_t node  = 0;
  bool issue     = true; ///< false: callback (completion)
  double time_us = 0;
  NodeType type  = NodeType::invalid;
  std::string name;
  uint64_t line = 0; ///< its line in the log read (0: not read from a file)
};

/** The latest time a replay log may give: 1e18 us, 1e12 s, the longest time sgai takes. */
constexpr double max_log_time_us = 1e18;

/** Reads a replay log: CSV "rank,node_id,event,time_us,type,name" with event issue|callback,
 *  time_us from 0 to max_log_time_us and type a NodeType name; InputError naming the file and the
 *  line on bad input (a NUL byte, a malformed field, text that is not UTF-8). */
std::vector<ReplayEvent> read_replay_log(const std::filesystem::path& log);
/** Writes a replay log (the header line, then the events). */
void write_replay_log(const std::vector<ReplayEvent>& events, std::ostream& out);

/** Chrome trace JSON of a replay log: one process per rank, threads "compute", "memory",
 *  "communication", one complete event per issued node (issue -> callback). Returns the events.
 *  InputError naming `source` (the log's file) and the event's line when issues and callbacks do
 *  not pair up. */
uint64_t write_chrome_trace(const std::vector<ReplayEvent>& events, std::ostream& out,
                            const std::string& source = "replay log");

} // namespace sgai::chakra

#endif
