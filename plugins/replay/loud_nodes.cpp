#include "plugins/replay/loud_nodes.hpp"

#include "chakra/et_io.hpp"
#include "chakra/trace.hpp"

#include <exception>

namespace sgai::replay {

using chakra::NodeType;

bool loud_node(const chakra::Node& n, const std::map<std::string, std::vector<uint32_t>>& groups,
               const std::set<std::string>& world)
{
  switch (n.type) {
  case NodeType::comp:
  case NodeType::mem_load:
  case NodeType::mem_store:
    return false;
  case NodeType::comm_coll: {
    const auto* pg = n.attr("pg_name");
    if (pg == nullptr || not pg->as_string() || groups.empty())
      return false;
    auto it = groups.find(*pg->as_string());
    return it == groups.end() ? *pg->as_string() != "0" : world.count(it->first) == 0;
  }
  default:
    return true;
  }
}

std::optional<std::vector<uint64_t>> loud_nodes(const std::string& file,
                                                const std::map<std::string, std::vector<uint32_t>>& groups,
                                                const std::set<std::string>& world, size_t max)
{
  std::vector<uint64_t> ids;
  try {
    chakra::EtReader reader(file);
    chakra::Node n;
    while (reader.next(n)) {
      if (n.type == NodeType::metadata)
        return std::nullopt;
      if (loud_node(n, groups, world)) {
        ids.push_back(n.id);
        if (ids.size() > max)
          return std::nullopt;
      }
    }
  } catch (const std::exception&) {
    return std::nullopt;
  }
  return ids;
}

} // namespace sgai::replay
