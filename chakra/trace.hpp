/* Chakra execution traces as plain C++ types: what the rest of sgai sees of an ET (protobuf types
 * stay inside chakra/). Every field of the format is kept, including the integer encoding each
 * attribute was written with, so that a trace read and written back is byte-identical. */
#ifndef SGAI_CHAKRA_TRACE_HPP
#define SGAI_CHAKRA_TRACE_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

namespace sgai::chakra {

/** Node types (values of the format's NodeType enum, a few to a line). */
// clang-format off
enum class NodeType : int32_t {
  invalid = 0, metadata = 1, mem_load = 2, mem_store = 3, comp = 4, comm_send = 5,
  comm_recv = 6, comm_coll = 7, storage = 8, batch = 9, checkpoint = 10,
};
// clang-format on
constexpr int32_t kNodeTypeCount = 11;
/** "COMP_NODE", ... (the format's names). */
const char* to_string(NodeType t);
std::optional<NodeType> node_type_from_int(int64_t v);
std::optional<NodeType> node_type_from_string(std::string_view s);

/** Collective types: the comm_type attribute of COMM_COLL_NODE nodes (a few to a line). */
// clang-format off
enum class CollectiveType : int32_t {
  all_reduce = 0, reduce = 1, all_gather = 2, gather = 3, scatter = 4,
  broadcast = 5, all_to_all = 6, reduce_scatter = 7, reduce_scatter_block = 8, barrier = 9,
};
// clang-format on
constexpr int32_t kCollectiveTypeCount = 10;
/** "ALL_REDUCE", ... */
const char* to_string(CollectiveType t);
std::optional<CollectiveType> collective_from_int(int64_t v);
std::optional<CollectiveType> collective_from_string(std::string_view s);

/** Which member of the attribute's oneof holds the value; the enumerator is its field number. */
enum class AttrKind : uint8_t {
  none          = 0,
  double_val    = 3,
  double_list   = 4,
  float_val     = 5,
  float_list    = 6,
  int32_val     = 7,
  int32_list    = 8,
  int64_val     = 9,
  int64_list    = 10,
  uint32_val    = 11,
  uint32_list   = 12,
  uint64_val    = 13,
  uint64_list   = 14,
  sint32_val    = 15,
  sint32_list   = 16,
  sint64_val    = 17,
  sint64_list   = 18,
  fixed32_val   = 19,
  fixed32_list  = 20,
  fixed64_val   = 21,
  fixed64_list  = 22,
  sfixed32_val  = 23,
  sfixed32_list = 24,
  sfixed64_val  = 25,
  sfixed64_list = 26,
  bool_val      = 27,
  bool_list     = 28,
  string_val    = 29,
  string_list   = 30,
  bytes_val     = 31,
  bytes_list    = 32,
};
/** "int64_val", ... (the format's member names). */
const char* to_string(AttrKind k);
std::optional<AttrKind> attr_kind_from_string(std::string_view s);
bool is_list(AttrKind k);

/** One attribute. The value is stored by class: every signed integer encoding as int64_t, every
 *  unsigned one and bool as uint64_t, float and double as double, string and bytes as string;
 *  `kind` says which encoding the producer used (and which one writing reproduces). */
struct Attribute {
  using Value = std::variant<std::monostate, int64_t, uint64_t, double, std::string, std::vector<int64_t>,
                             std::vector<uint64_t>, std::vector<double>, std::vector<std::string>>;
  std::string name;
  std::string doc_string;
  AttrKind kind = AttrKind::none;
  Value value;
  std::string unknown_fields; ///< fields this schema does not know, in wire format, kept verbatim

  /** Any integer encoding (int32/int64/uint32/uint64/sint/fixed/sfixed) or bool; nothing for
   *  other kinds, lists, or an unsigned value above INT64_MAX. */
  std::optional<int64_t> as_int() const;
  /** Any integer encoding or bool with a value >= 0. */
  std::optional<uint64_t> as_uint() const;
  /** double, float, or any integer encoding. */
  std::optional<double> as_double() const;
  /** bool, or an integer 0 or 1. */
  std::optional<bool> as_bool() const;
  /** string or bytes. */
  const std::string* as_string() const;
  /** Integer lists of any encoding. */
  std::optional<std::vector<int64_t>> as_int_list() const;

  static Attribute of_int64(std::string name, int64_t v);
  static Attribute of_uint64(std::string name, uint64_t v);
  static Attribute of_int32(std::string name, int32_t v);
  static Attribute of_bool(std::string name, bool v);
  static Attribute of_double(std::string name, double v);
  static Attribute of_string(std::string name, std::string v);
  static Attribute of_int64_list(std::string name, std::vector<int64_t> v);
};

/** Tensor descriptions as the producer printed them (Python-literal strings). */
struct IOInfo {
  std::string values;
  std::string shapes;
  std::string types;
  std::string unknown_fields;
};

struct Node {
  uint64_t id = 0;
  std::string name;
  NodeType type = NodeType::invalid;
  std::vector<uint64_t> ctrl_deps;
  std::vector<uint64_t> data_deps;
  uint64_t start_time_micros = 0;
  uint64_t duration_micros   = 0;
  std::optional<IOInfo> inputs;
  std::optional<IOInfo> outputs;
  std::vector<Attribute> attrs;
  std::string unknown_fields;

  const Attribute* attr(std::string_view name) const;
  /** The attribute as an integer of any encoding; nothing when absent or not an integer. */
  std::optional<int64_t> int_attr(std::string_view name) const;
  std::optional<bool> bool_attr(std::string_view name) const;
  /** comm_type of a collective node, checked against the known types. */
  std::optional<CollectiveType> collective() const;
  /** comm_size in bytes (any integer encoding). */
  std::optional<uint64_t> comm_size() const;
  /** num_ops: operations (FLOPs) of a compute node (any integer or floating encoding). */
  std::optional<double> num_ops() const;
  /** Every parent: data dependencies then control dependencies, without repetition. */
  std::vector<uint64_t> parents() const;
  /** What is wrong with the values simulators read, or "": an attribute without a value, a
   *  num_ops that is negative or not finite, a comm_size that is negative. The readers (EtReader, dejsonize) reject
   * such nodes. */
  std::string bad_values() const;
};

struct GlobalMetadata {
  /** Chakra's schema version; never empty in what sgai writes: an empty GlobalMetadata would be a
   *  record of length 0, which readers reject (NUL bytes are no ET). */
  std::string version = "0.0.4";
  std::vector<Attribute> attrs;
  std::string unknown_fields;
  const Attribute* attr(std::string_view name) const;
};

/** A whole trace in memory (small traces, tools, tests); large ones are streamed (EtReader). */
struct Trace {
  GlobalMetadata metadata;
  std::vector<Node> nodes;
};

/** The rank of a workload file "prefix.N.et" (N), if its name has that form. */
std::optional<uint32_t> rank_of_file(std::string_view filename);

} // namespace sgai::chakra

#endif
