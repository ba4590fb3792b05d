#include "chakra/trace.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <limits>
#include <sstream>
#include <unordered_set>

namespace sgai::chakra {

namespace {

constexpr std::array<const char*, kNodeTypeCount> kNodeTypeNames = {
    "INVALID_NODE",   "METADATA_NODE",  "MEM_LOAD_NODE", "MEM_STORE_NODE", "COMP_NODE",      "COMM_SEND_NODE",
    "COMM_RECV_NODE", "COMM_COLL_NODE", "STORAGE_NODE",  "BATCH_NODE",     "CHECKPOINT_NODE"};

constexpr std::array<const char*, kCollectiveTypeCount> kCollectiveNames = {
    "ALL_REDUCE", "REDUCE",         "ALL_GATHER",           "GATHER", "SCATTER", "BROADCAST",
    "ALL_TO_ALL", "REDUCE_SCATTER", "REDUCE_SCATTER_BLOCK", "BARRIER"};

constexpr std::array<const char*, 33> kKindNames = {"",
                                                    "",
                                                    "",
                                                    "double_val",
                                                    "double_list",
                                                    "float_val",
                                                    "float_list",
                                                    "int32_val",
                                                    "int32_list",
                                                    "int64_val",
                                                    "int64_list",
                                                    "uint32_val",
                                                    "uint32_list",
                                                    "uint64_val",
                                                    "uint64_list",
                                                    "sint32_val",
                                                    "sint32_list",
                                                    "sint64_val",
                                                    "sint64_list",
                                                    "fixed32_val",
                                                    "fixed32_list",
                                                    "fixed64_val",
                                                    "fixed64_list",
                                                    "sfixed32_val",
                                                    "sfixed32_list",
                                                    "sfixed64_val",
                                                    "sfixed64_list",
                                                    "bool_val",
                                                    "bool_list",
                                                    "string_val",
                                                    "string_list",
                                                    "bytes_val",
                                                    "bytes_list"};

bool is_integer_kind(AttrKind k)
{
  switch (k) {
  case AttrKind::int32_val:
  case AttrKind::int64_val:
  case AttrKind::uint32_val:
  case AttrKind::uint64_val:
  case AttrKind::sint32_val:
  case AttrKind::sint64_val:
  case AttrKind::fixed32_val:
  case AttrKind::fixed64_val:
  case AttrKind::sfixed32_val:
  case AttrKind::sfixed64_val:
  case AttrKind::bool_val:
    return true;
  default:
    return false;
  }
}

} // namespace

const char* to_string(NodeType t)
{
  auto i = static_cast<size_t>(t);
  return i < kNodeTypeNames.size() ? kNodeTypeNames[i] : "UNKNOWN_NODE";
}

std::optional<NodeType> node_type_from_int(int64_t v)
{
  if (v < 0 || v >= kNodeTypeCount)
    return std::nullopt;
  return static_cast<NodeType>(v);
}

std::optional<NodeType> node_type_from_string(std::string_view s)
{
  for (size_t i = 0; i < kNodeTypeNames.size(); i++)
    if (s == kNodeTypeNames[i])
      return static_cast<NodeType>(i);
  return std::nullopt;
}

const char* to_string(CollectiveType t)
{
  auto i = static_cast<size_t>(t);
  return i < kCollectiveNames.size() ? kCollectiveNames[i] : "UNKNOWN_COLLECTIVE";
}

std::optional<CollectiveType> collective_from_int(int64_t v)
{
  if (v < 0 || v >= kCollectiveTypeCount)
    return std::nullopt;
  return static_cast<CollectiveType>(v);
}

std::optional<CollectiveType> collective_from_string(std::string_view s)
{
  for (size_t i = 0; i < kCollectiveNames.size(); i++)
    if (s == kCollectiveNames[i])
      return static_cast<CollectiveType>(i);
  return std::nullopt;
}

const char* to_string(AttrKind k)
{
  auto i = static_cast<size_t>(k);
  return i < kKindNames.size() && kKindNames[i][0] != '\0' ? kKindNames[i] : "none";
}

std::optional<AttrKind> attr_kind_from_string(std::string_view s)
{
  for (size_t i = 3; i < kKindNames.size(); i++)
    if (s == kKindNames[i])
      return static_cast<AttrKind>(i);
  return std::nullopt;
}

bool is_list(AttrKind k)
{
  auto i = static_cast<unsigned>(k);
  return i >= 4 && i % 2 == 0;
}

// ------------------------------------------------------------------------------------- attributes

std::optional<int64_t> Attribute::as_int() const
{
  if (not is_integer_kind(kind))
    return std::nullopt;
  if (const auto* i = std::get_if<int64_t>(&value))
    return *i;
  if (const auto* u = std::get_if<uint64_t>(&value))
    if (*u <= static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
      return static_cast<int64_t>(*u);
  return std::nullopt;
}

std::optional<uint64_t> Attribute::as_uint() const
{
  if (not is_integer_kind(kind))
    return std::nullopt;
  if (const auto* u = std::get_if<uint64_t>(&value))
    return *u;
  if (const auto* i = std::get_if<int64_t>(&value))
    if (*i >= 0)
      return static_cast<uint64_t>(*i);
  return std::nullopt;
}

std::optional<double> Attribute::as_double() const
{
  if (kind == AttrKind::double_val || kind == AttrKind::float_val)
    if (const auto* d = std::get_if<double>(&value))
      return *d;
  if (is_integer_kind(kind) && kind != AttrKind::bool_val) {
    if (const auto* i = std::get_if<int64_t>(&value))
      return static_cast<double>(*i);
    if (const auto* u = std::get_if<uint64_t>(&value))
      return static_cast<double>(*u);
  }
  return std::nullopt;
}

std::optional<bool> Attribute::as_bool() const
{
  auto i = as_int();
  if (i && (*i == 0 || *i == 1))
    return *i == 1;
  return std::nullopt;
}

const std::string* Attribute::as_string() const
{
  if (kind != AttrKind::string_val && kind != AttrKind::bytes_val)
    return nullptr;
  return std::get_if<std::string>(&value);
}

std::optional<std::vector<int64_t>> Attribute::as_int_list() const
{
  if (const auto* l = std::get_if<std::vector<int64_t>>(&value))
    return *l;
  if (kind == AttrKind::bool_list)
    return std::nullopt;
  if (const auto* l = std::get_if<std::vector<uint64_t>>(&value)) {
    std::vector<int64_t> out;
    for (uint64_t u : *l) {
      if (u > static_cast<uint64_t>(std::numeric_limits<int64_t>::max()))
        return std::nullopt;
      out.push_back(static_cast<int64_t>(u));
    }
    return out;
  }
  return std::nullopt;
}

Attribute Attribute::of_int64(std::string name, int64_t v)
{
  return Attribute{std::move(name), {}, AttrKind::int64_val, v, {}};
}

Attribute Attribute::of_uint64(std::string name, uint64_t v)
{
  return Attribute{std::move(name), {}, AttrKind::uint64_val, v, {}};
}

Attribute Attribute::of_int32(std::string name, int32_t v)
{
  return Attribute{std::move(name), {}, AttrKind::int32_val, int64_t{v}, {}};
}

Attribute Attribute::of_bool(std::string name, bool v)
{
  return Attribute{std::move(name), {}, AttrKind::bool_val, uint64_t{v ? 1U : 0U}, {}};
}

Attribute Attribute::of_double(std::string name, double v)
{
  return Attribute{std::move(name), {}, AttrKind::double_val, v, {}};
}

Attribute Attribute::of_string(std::string name, std::string v)
{
  return Attribute{std::move(name), {}, AttrKind::string_val, std::move(v), {}};
}

Attribute Attribute::of_int64_list(std::string name, std::vector<int64_t> v)
{
  return Attribute{std::move(name), {}, AttrKind::int64_list, std::move(v), {}};
}

// ------------------------------------------------------------------------------------------ nodes

namespace {

const Attribute* find_attr(const std::vector<Attribute>& attrs, std::string_view name)
{
  for (const auto& a : attrs)
    if (a.name == name)
      return &a;
  return nullptr;
}

} // namespace

const Attribute* Node::attr(std::string_view n) const
{
  return find_attr(attrs, n);
}

std::optional<int64_t> Node::int_attr(std::string_view n) const
{
  const Attribute* a = attr(n);
  return a ? a->as_int() : std::nullopt;
}

std::optional<bool> Node::bool_attr(std::string_view n) const
{
  const Attribute* a = attr(n);
  return a ? a->as_bool() : std::nullopt;
}

std::optional<CollectiveType> Node::collective() const
{
  auto v = int_attr("comm_type");
  return v ? collective_from_int(*v) : std::nullopt;
}

std::optional<uint64_t> Node::comm_size() const
{
  const Attribute* a = attr("comm_size");
  return a ? a->as_uint() : std::nullopt;
}

std::optional<double> Node::num_ops() const
{
  const Attribute* a = attr("num_ops");
  return a ? a->as_double() : std::nullopt;
}

std::string Node::bad_values() const
{
  auto value_text = [](double v) {
    std::ostringstream o;
    o << v;
    return o.str();
  };
  for (const auto& a : attrs)
    if (a.kind == AttrKind::none)
      return "node " + std::to_string(id) + ": attribute '" + a.name + "' has no value";
  if (auto ops = num_ops(); ops && not(*ops >= 0 && std::isfinite(*ops)))
    return "node " + std::to_string(id) + ": num_ops " + value_text(*ops) +
           (*ops < 0 ? " is negative" : " is not a finite number") + ": expected operations >= 0";
  if (const Attribute* a = attr("comm_size"))
    if (auto v = a->as_int(); v && *v < 0)
      return "node " + std::to_string(id) + ": comm_size " + std::to_string(*v) + " is negative: expected bytes >= 0";
  return "";
}

std::vector<uint64_t> Node::parents() const
{
  std::vector<uint64_t> out = data_deps;
  for (uint64_t c : ctrl_deps)
    if (std::find(out.begin(), out.end(), c) == out.end())
      out.push_back(c);
  if (out.size() > 16) { // many parents: remove repeats in the data deps too
    std::unordered_set<uint64_t> seen;
    std::vector<uint64_t> unique;
    for (uint64_t p : out)
      if (seen.insert(p).second)
        unique.push_back(p);
    return unique;
  }
  std::vector<uint64_t> unique;
  for (uint64_t p : out)
    if (std::find(unique.begin(), unique.end(), p) == unique.end())
      unique.push_back(p);
  return unique;
}

const Attribute* GlobalMetadata::attr(std::string_view n) const
{
  return find_attr(attrs, n);
}

std::optional<uint32_t> rank_of_file(std::string_view filename)
{
  // "prefix.N.et": N is between the last two dots
  if (filename.size() < 5 || filename.substr(filename.size() - 3) != ".et")
    return std::nullopt;
  auto stem = filename.substr(0, filename.size() - 3);
  auto dot  = stem.rfind('.');
  if (dot == std::string_view::npos || dot + 1 == stem.size())
    return std::nullopt;
  auto digits    = stem.substr(dot + 1);
  uint32_t rank  = 0;
  auto [ptr, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), rank);
  if (ec != std::errc() || ptr != digits.data() + digits.size())
    return std::nullopt;
  return rank;
}

} // namespace sgai::chakra
