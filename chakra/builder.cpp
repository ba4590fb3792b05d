#include "chakra/builder.hpp"

#include <stdexcept>

namespace sgai::chakra {

TraceBuilder::TraceBuilder(std::string version, uint64_t first_id)
    : first_id_(first_id)
{
  trace_.metadata.version = std::move(version);
}

uint64_t TraceBuilder::add(NodeType type, std::string name, std::vector<uint64_t> data_deps)
{
  Node n;
  n.id   = first_id_ + trace_.nodes.size();
  n.name = std::move(name);
  n.type = type;
  for (uint64_t d : data_deps)
    if (d >= n.id || d < first_id_)
      throw std::invalid_argument("TraceBuilder: node " + std::to_string(n.id) + " cannot depend on " +
                                  std::to_string(d) + ", which is not an earlier node");
  n.data_deps = std::move(data_deps);
  trace_.nodes.push_back(std::move(n));
  return trace_.nodes.back().id;
}

uint64_t TraceBuilder::compute(std::string name, uint64_t num_ops, uint64_t tensor_size_bytes,
                               std::vector<uint64_t> data_deps, uint64_t duration_micros)
{
  uint64_t id = add(NodeType::comp, std::move(name), std::move(data_deps));
  Node& n     = node(id);
  n.attrs.push_back(Attribute::of_bool("is_cpu_op", false));
  n.attrs.push_back(Attribute::of_int64("num_ops", static_cast<int64_t>(num_ops)));
  if (tensor_size_bytes > 0)
    n.attrs.push_back(Attribute::of_uint64("tensor_size", tensor_size_bytes));
  n.duration_micros = duration_micros;
  return id;
}

uint64_t TraceBuilder::collective(std::string name, CollectiveType type, uint64_t bytes,
                                  std::vector<uint64_t> data_deps, std::string pg_name)
{
  uint64_t id = add(NodeType::comm_coll, std::move(name), std::move(data_deps));
  Node& n     = node(id);
  n.attrs.push_back(Attribute::of_bool("is_cpu_op", false));
  n.attrs.push_back(Attribute::of_int64("comm_type", static_cast<int64_t>(type)));
  n.attrs.push_back(Attribute::of_int64("comm_size", static_cast<int64_t>(bytes)));
  if (not pg_name.empty())
    n.attrs.push_back(Attribute::of_string("pg_name", std::move(pg_name)));
  return id;
}

uint64_t TraceBuilder::send(std::string name, uint32_t dst, uint64_t bytes, int32_t tag,
                            std::vector<uint64_t> data_deps)
{
  uint64_t id = add(NodeType::comm_send, std::move(name), std::move(data_deps));
  Node& n     = node(id);
  n.attrs.push_back(Attribute::of_int64("comm_type", static_cast<int64_t>(NodeType::comm_send)));
  n.attrs.push_back(Attribute::of_int64("comm_size", static_cast<int64_t>(bytes)));
  n.attrs.push_back(Attribute::of_int32("comm_dst", static_cast<int32_t>(dst)));
  n.attrs.push_back(Attribute::of_int32("comm_tag", tag));
  return id;
}

uint64_t TraceBuilder::recv(std::string name, uint32_t src, uint64_t bytes, int32_t tag,
                            std::vector<uint64_t> data_deps)
{
  uint64_t id = add(NodeType::comm_recv, std::move(name), std::move(data_deps));
  Node& n     = node(id);
  n.attrs.push_back(Attribute::of_int64("comm_type", static_cast<int64_t>(NodeType::comm_recv)));
  n.attrs.push_back(Attribute::of_int64("comm_size", static_cast<int64_t>(bytes)));
  n.attrs.push_back(Attribute::of_int32("comm_src", static_cast<int32_t>(src)));
  n.attrs.push_back(Attribute::of_int32("comm_tag", tag));
  return id;
}

uint64_t TraceBuilder::memory(std::string name, bool load, uint64_t bytes, std::vector<uint64_t> data_deps)
{
  uint64_t id = add(load ? NodeType::mem_load : NodeType::mem_store, std::move(name), std::move(data_deps));
  node(id).attrs.push_back(Attribute::of_uint64("tensor_size", bytes));
  return id;
}

void TraceBuilder::control_dep(uint64_t child, uint64_t parent)
{
  if (parent >= child || parent < first_id_)
    throw std::invalid_argument("TraceBuilder: control dependency of " + std::to_string(child) + " on " +
                                std::to_string(parent) + ", which is not an earlier node");
  node(child).ctrl_deps.push_back(parent);
}

Node& TraceBuilder::node(uint64_t id)
{
  if (id < first_id_ || id - first_id_ >= trace_.nodes.size())
    throw std::out_of_range("TraceBuilder: no node " + std::to_string(id));
  return trace_.nodes[id - first_id_];
}

} // namespace sgai::chakra
