/* The dependency-resolution engine a simulator drives over one ET: a node becomes issuable when all
 * its data and control parents have completed; the simulator takes issuable nodes, reports their
 * completions and looks nodes up. Nodes are read from the file as needed into a bounded window
 * and dropped once completed (completed ids are kept as intervals), so a trace larger than memory
 * replays. Parents that never appear and dependency cycles are reported, never waited on. */
#ifndef SGAI_CHAKRA_FEEDER_HPP
#define SGAI_CHAKRA_FEEDER_HPP

#include "chakra/et_io.hpp"

#include <cstdint>
#include <deque>
#include <map>
#include <optional>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sgai::chakra {

/** Which dependencies a replay waits for. */
enum class Deps {
  automatic, ///< data only for traces converted from PyTorch (pytorch_converted), else all
  all,       ///< data and control dependencies
  data,      ///< data dependencies only, as Chakra's own feeder
};

/** "auto", "all" or "data". */
std::optional<Deps> deps_from_string(std::string_view text);

/** Whether Chakra's PyTorch converter (chakra_converter PyTorch) wrote the trace: it copies the
 *  host trace's header into the GlobalMetadata, whose attributes then include pid, start_ts and
 *  finish_ts. Such traces record the host call hierarchy as control dependencies, an operator and
 *  the kernel it launched pointing at each other. A `schema` attribute alone is no marker: Chakra's
 *  other converters write one too. */
bool pytorch_converted(const GlobalMetadata& metadata);

/** Whether a replay of the trace waits for control dependencies under `deps`. */
bool follow_control(Deps deps, const GlobalMetadata& metadata);

class Feeder {
public:
  struct Options {
    /** Nodes read ahead and not yet completed, at most. A trace whose parents come later in the
     *  file than this many nodes needs a larger window (the error says so). */
    size_t window = 1 << 16;
    /** Wait for control parents as well as data parents. Traces converted from PyTorch record the
     *  host call hierarchy as control dependencies (a CPU op and the kernel it launched point at
     *  each other): replay those on data dependencies only, as Chakra's own feeder does. */
    bool control = true;
    /** While nodes are in flight, keep at most this many read and waiting (their parents'
     *  completions will release them); with nothing in flight, read up to the window. */
    size_t lookahead = 1024;
  };

  explicit Feeder(EtReader reader);
  Feeder(EtReader reader, Options options);

  const GlobalMetadata& metadata() const { return reader_.metadata(); }

  /** The next issuable node (in file order among those ready), or nullptr when none is ready now:
   *  then complete() an issued node, or the trace is finished. The pointer stays valid until
   *  complete() of that node. InputError on a cycle, a parent that never appears, a duplicate id,
   *  or a window too small for the trace. */
  const Node* next_issuable();
  /** Reports an issued node as completed; its children may become issuable. */
  void complete(uint64_t id);
  /** A node read and not yet completed, or nullptr. */
  const Node* lookup(uint64_t id) const;
  /** Every node read, issued and completed. */
  bool finished();
  /** Whether node `id` has been completed. */
  bool completed(uint64_t id) const { return is_completed(id); }

  uint64_t nodes_read() const { return reader_.nodes_read(); }
  uint64_t nodes_completed() const { return completed_count_; }
  size_t nodes_in_window() const { return index_.size(); }
  size_t nodes_in_flight() const { return in_flight_; }
  /** Intervals of completed ids kept (memory of the feeder beyond its window). */
  size_t completed_intervals() const { return completed_.size(); }
  /** Control dependencies dropped: on the node itself, or on nodes that never came (traces
   *  converted from PyTorch keep host-side parents that are not in the trace). A missing data
   *  parent is an error instead. */
  uint64_t control_deps_ignored() const { return ctrl_ignored_; }

private:
  struct Entry {
    Node node;
    uint32_t pending = 0; ///< parents not completed yet
    bool issued      = false;
    std::vector<uint32_t> children; ///< their slots
  };

  bool is_completed(uint64_t id) const;
  void mark_completed(uint64_t id);
  /** Reads up to `limit` nodes, stopping early once a node is ready or the window is full. */
  void fill(size_t limit);
  void admit(uint32_t slot, uint64_t offset);
  Entry* find(uint64_t id);
  const Entry* find(uint64_t id) const;
  Entry& at(uint64_t id);
  /** Drops control edges to parents not read yet; true when some node became ready. */
  bool release_missing_control();
  [[noreturn]] void diagnose_stuck();

  EtReader reader_;
  Options options_;
  bool eof_ = false;
  // Nodes in the window live in recycled slots (their strings and vectors keep their capacity).
  std::unordered_map<uint64_t, uint32_t> index_; ///< id -> slot
  std::deque<Entry> slots_;
  std::vector<uint32_t> free_slots_;
  struct Waiting {
    uint32_t child; ///< slot
    bool data;      ///< a data dependency (else control only)
  };
  std::unordered_map<uint64_t, std::vector<Waiting>> waiting_on_; ///< parent not read yet -> children
  std::deque<uint32_t> ready_;             ///< slots of issuable nodes, in the order they became so
  std::map<uint64_t, uint64_t> completed_; ///< first id -> last id of each completed interval
  uint64_t completed_count_ = 0;
  size_t in_flight_         = 0;
  uint64_t ctrl_ignored_    = 0;
};

} // namespace sgai::chakra

#endif
