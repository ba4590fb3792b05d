/* Building Chakra traces in C++: nodes with automatic ids, dependencies and the attributes the
 * simulators read (num_ops, comm_type, comm_size, comm_src/dst/tag, is_cpu_op, pg_name), in the
 * encodings Chakra's own tools write. */
#ifndef SGAI_CHAKRA_BUILDER_HPP
#define SGAI_CHAKRA_BUILDER_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::chakra {

class TraceBuilder {
public:
  /** `first_id`: id of the first node (ASTRA-sim's microbenchmarks number the only node by rank). */
  explicit TraceBuilder(std::string version = "0.0.4", uint64_t first_id = 0);

  /** A node of any type; returns its id. `data_deps` are its data parents. */
  uint64_t add(NodeType type, std::string name, std::vector<uint64_t> data_deps = {});
  /** A compute node: num_ops operations (FLOPs), tensor_size bytes touched, optional duration. */
  uint64_t compute(std::string name, uint64_t num_ops, uint64_t tensor_size_bytes = 0,
                   std::vector<uint64_t> data_deps = {}, uint64_t duration_micros = 0);
  /** A collective over the process group `pg_name` (empty: every rank). */
  uint64_t collective(std::string name, CollectiveType type, uint64_t bytes, std::vector<uint64_t> data_deps = {},
                      std::string pg_name = {});
  uint64_t send(std::string name, uint32_t dst, uint64_t bytes, int32_t tag, std::vector<uint64_t> data_deps = {});
  uint64_t recv(std::string name, uint32_t src, uint64_t bytes, int32_t tag, std::vector<uint64_t> data_deps = {});
  uint64_t memory(std::string name, bool load, uint64_t bytes, std::vector<uint64_t> data_deps = {});

  void control_dep(uint64_t child, uint64_t parent);
  Node& node(uint64_t id);
  GlobalMetadata& metadata() { return trace_.metadata; }
  const Trace& trace() const { return trace_; }
  Trace take() { return std::move(trace_); }

private:
  Trace trace_;
  uint64_t first_id_;
};

} // namespace sgai::chakra

#endif
