#include "chakra/et_json.hpp"

#include "chakra/et_io.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_writer.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_set>

namespace sgai::chakra {

namespace {

constexpr const char* kB64 = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

std::string base64(const std::string& in)
{
  std::string out;
  size_t i = 0;
  for (; i + 2 < in.size(); i += 3) {
    uint32_t v = (uint32_t{static_cast<unsigned char>(in[i])} << 16) |
                 (uint32_t{static_cast<unsigned char>(in[i + 1])} << 8) | static_cast<unsigned char>(in[i + 2]);
    for (int s = 18; s >= 0; s -= 6)
      out.push_back(kB64[(v >> s) & 63]);
  }
  if (size_t rest = in.size() - i; rest > 0) {
    uint32_t v = uint32_t{static_cast<unsigned char>(in[i])} << 16;
    if (rest == 2)
      v |= uint32_t{static_cast<unsigned char>(in[i + 1])} << 8;
    out.push_back(kB64[(v >> 18) & 63]);
    out.push_back(kB64[(v >> 12) & 63]);
    out.push_back(rest == 2 ? kB64[(v >> 6) & 63] : '=');
    out.push_back('=');
  }
  return out;
}

std::optional<std::string> unbase64(const std::string& in)
{
  if (in.size() % 4 != 0)
    return std::nullopt;
  std::string out;
  for (size_t i = 0; i < in.size(); i += 4) {
    uint32_t v = 0;
    int pad    = 0;
    for (size_t k = 0; k < 4; k++) {
      char c = in[i + k];
      if (c == '=' && i + 4 == in.size() && k >= 2) {
        pad++;
        v <<= 6;
        continue;
      }
      const char* p = std::char_traits<char>::find(kB64, 64, c);
      if (p == nullptr || pad > 0)
        return std::nullopt;
      v = (v << 6) | static_cast<uint32_t>(p - kB64);
    }
    out.push_back(static_cast<char>((v >> 16) & 0xFF));
    if (pad < 2)
      out.push_back(static_cast<char>((v >> 8) & 0xFF));
    if (pad < 1)
      out.push_back(static_cast<char>(v & 0xFF));
  }
  return out;
}

// ------------------------------------------------------------------------------------- writing

void write_float(json::Writer& w, double d)
{
  if (std::isnan(d))
    w.value("NaN");
  else if (std::isinf(d))
    w.value(d > 0 ? "Infinity" : "-Infinity");
  else
    w.value(d);
}

bool is_bytes(AttrKind k)
{
  return k == AttrKind::bytes_val || k == AttrKind::bytes_list;
}

void write_attr(json::Writer& w, const Attribute& a)
{
  w.begin_object(true);
  w.field("name", a.name);
  if (not a.doc_string.empty())
    w.field("doc_string", a.doc_string);
  if (a.kind != AttrKind::none) {
    w.key(to_string(a.kind));
    std::visit(
        [&](const auto& v) {
          using T = std::decay_t<decltype(v)>;
          if constexpr (std::is_same_v<T, std::monostate>) {
            w.null();
          } else if constexpr (std::is_same_v<T, int64_t>) {
            w.value(v);
          } else if constexpr (std::is_same_v<T, uint64_t>) {
            if (a.kind == AttrKind::bool_val)
              w.value(v != 0);
            else
              w.value(v);
          } else if constexpr (std::is_same_v<T, double>) {
            write_float(w, v);
          } else if constexpr (std::is_same_v<T, std::string>) {
            w.value(is_bytes(a.kind) ? base64(v) : v);
          } else {
            w.begin_array(true);
            for (const auto& x : v) {
              using E = std::decay_t<decltype(x)>;
              if constexpr (std::is_same_v<E, double>)
                write_float(w, x);
              else if constexpr (std::is_same_v<E, std::string>)
                w.value(is_bytes(a.kind) ? base64(x) : x);
              else if constexpr (std::is_same_v<E, uint64_t>)
                a.kind == AttrKind::bool_list ? w.value(x != 0) : w.value(x);
              else
                w.value(x);
            }
            w.end_array();
          }
        },
        a.value);
  }
  if (not a.unknown_fields.empty())
    w.field("unknown_fields", base64(a.unknown_fields));
  w.end_object();
}

void write_attrs(json::Writer& w, const std::vector<Attribute>& attrs)
{
  w.key("attr").begin_array(true);
  for (const auto& a : attrs)
    write_attr(w, a);
  w.end_array();
}

void write_ids(json::Writer& w, const char* key, const std::vector<uint64_t>& ids)
{
  w.key(key).begin_array(true);
  for (uint64_t id : ids)
    w.value(id);
  w.end_array();
}

void write_io(json::Writer& w, const char* key, const IOInfo& io)
{
  w.key(key).begin_object(true);
  w.field("values", io.values).field("shapes", io.shapes).field("types", io.types);
  if (not io.unknown_fields.empty())
    w.field("unknown_fields", base64(io.unknown_fields));
  w.end_object();
}

void write_node(json::Writer& w, const Node& n)
{
  w.begin_object(true);
  w.field("id", n.id).field("name", n.name).field("type", to_string(n.type));
  if (not n.ctrl_deps.empty())
    write_ids(w, "ctrl_deps", n.ctrl_deps);
  if (not n.data_deps.empty())
    write_ids(w, "data_deps", n.data_deps);
  if (n.start_time_micros != 0)
    w.field("start_time_micros", n.start_time_micros);
  if (n.duration_micros != 0)
    w.field("duration_micros", n.duration_micros);
  if (n.inputs)
    write_io(w, "inputs", *n.inputs);
  if (n.outputs)
    write_io(w, "outputs", *n.outputs);
  if (not n.attrs.empty())
    write_attrs(w, n.attrs);
  if (not n.unknown_fields.empty())
    w.field("unknown_fields", base64(n.unknown_fields));
  w.end_object();
}

// ------------------------------------------------------------------------------------- reading

/** An optional field: absent is fine, null is not (jsonize never writes null: leave the key out). */
std::optional<json::Value> given(json::Object& o, std::string_view key, const char* expected)
{
  if (o.contains(key) && not o.has(key))
    o.fail_at(std::string(key), "null: expected " + std::string(expected) + " (or no '" + std::string(key) + "' key)");
  return o.optional(key);
}

uint64_t read_uint(const json::Value& v)
{
  if (auto u = v.as_uint64())
    return *u;
  v.fail("expected a whole number >= 0, got " + v.shown());
}

int64_t read_int(const json::Value& v, int64_t min, int64_t max)
{
  if (auto i = v.as_int64(); i && *i >= min && *i <= max)
    return *i;
  v.fail("expected a whole number in [" + std::to_string(min) + ", " + std::to_string(max) + "], got " + v.shown());
}

double read_float(const json::Value& v)
{
  if (v.is_string()) {
    std::string s = v.string();
    if (s == "NaN")
      return std::numeric_limits<double>::quiet_NaN();
    if (s == "Infinity")
      return std::numeric_limits<double>::infinity();
    if (s == "-Infinity")
      return -std::numeric_limits<double>::infinity();
    v.fail("expected a number, \"NaN\", \"Infinity\" or \"-Infinity\", got " + v.shown());
  }
  return v.number();
}

std::string read_bytes(const json::Value& v)
{
  auto b = unbase64(v.string());
  if (not b)
    v.fail("expected base64 text, got " + v.shown());
  return *b;
}

/** Bounds of an integer encoding. */
std::pair<int64_t, uint64_t> range_of(AttrKind k)
{
  switch (k) {
  case AttrKind::int32_val:
  case AttrKind::int32_list:
  case AttrKind::sint32_val:
  case AttrKind::sint32_list:
  case AttrKind::sfixed32_val:
  case AttrKind::sfixed32_list:
    return {INT32_MIN, INT32_MAX};
  case AttrKind::uint32_val:
  case AttrKind::uint32_list:
  case AttrKind::fixed32_val:
  case AttrKind::fixed32_list:
    return {0, UINT32_MAX};
  case AttrKind::uint64_val:
  case AttrKind::uint64_list:
  case AttrKind::fixed64_val:
  case AttrKind::fixed64_list:
  case AttrKind::bool_val:
  case AttrKind::bool_list:
    return {0, UINT64_MAX};
  default:
    return {INT64_MIN, INT64_MAX};
  }
}

/** The class of value a kind stores (see Attribute). */
enum class Class { sint, uint, boolean, real, text, bytes };
Class class_of(AttrKind k)
{
  switch (k) {
  case AttrKind::double_val:
  case AttrKind::double_list:
  case AttrKind::float_val:
  case AttrKind::float_list:
    return Class::real;
  case AttrKind::uint32_val:
  case AttrKind::uint32_list:
  case AttrKind::uint64_val:
  case AttrKind::uint64_list:
  case AttrKind::fixed32_val:
  case AttrKind::fixed32_list:
  case AttrKind::fixed64_val:
  case AttrKind::fixed64_list:
    return Class::uint;
  case AttrKind::bool_val:
  case AttrKind::bool_list:
    return Class::boolean;
  case AttrKind::string_val:
  case AttrKind::string_list:
    return Class::text;
  case AttrKind::bytes_val:
  case AttrKind::bytes_list:
    return Class::bytes;
  default:
    return Class::sint;
  }
}

Attribute read_attr(json::Object o)
{
  Attribute a;
  a.name = o.required("name").string();
  if (auto d = given(o, "doc_string", "text"))
    a.doc_string = d->string();
  if (auto u = given(o, "unknown_fields", "base64 text"))
    a.unknown_fields = read_bytes(*u);
  std::vector<std::string> accepted = {"name", "doc_string", "unknown_fields"};
  for (const auto& key : o.keys()) {
    auto kind = attr_kind_from_string(key);
    if (not kind)
      continue; // finish() reports it
    if (a.kind != AttrKind::none)
      o.fail_at(key, "an attribute holds one value: '" + std::string(to_string(a.kind)) + "' and '" + key + "'");
    a.kind = *kind;
    accepted.push_back(key);
    json::Value v    = o.required(key);
    auto range       = range_of(*kind);
    int64_t lo       = range.first;
    uint64_t hi      = range.second;
    auto one_integer = [&](const json::Value& x) -> Attribute::Value {
      if (class_of(*kind) == Class::uint) {
        uint64_t u = read_uint(x);
        if (u > hi)
          x.fail("value " + x.shown() + " does not fit " + key);
        return u;
      }
      return read_int(x, lo, static_cast<int64_t>(std::min<uint64_t>(hi, INT64_MAX)));
    };
    switch (class_of(*kind)) {
    case Class::real:
      if (is_list(*kind)) {
        std::vector<double> l;
        for (const auto& x : v.array())
          l.push_back(read_float(x));
        a.value = l;
      } else {
        a.value = read_float(v);
      }
      break;
    case Class::boolean:
      if (is_list(*kind)) {
        std::vector<uint64_t> l;
        for (const auto& x : v.array())
          l.push_back(x.boolean() ? 1 : 0);
        a.value = l;
      } else {
        a.value = uint64_t{v.boolean() ? 1U : 0U};
      }
      break;
    case Class::text:
    case Class::bytes: {
      bool bytes = class_of(*kind) == Class::bytes;
      if (is_list(*kind)) {
        std::vector<std::string> l;
        for (const auto& x : v.array())
          l.push_back(bytes ? read_bytes(x) : x.string());
        a.value = l;
      } else {
        a.value = bytes ? read_bytes(v) : v.string();
      }
      break;
    }
    case Class::uint:
      if (is_list(*kind)) {
        std::vector<uint64_t> l;
        for (const auto& x : v.array())
          l.push_back(std::get<uint64_t>(one_integer(x)));
        a.value = l;
      } else {
        a.value = one_integer(v);
      }
      break;
    case Class::sint:
      if (is_list(*kind)) {
        std::vector<int64_t> l;
        for (const auto& x : v.array())
          l.push_back(std::get<int64_t>(one_integer(x)));
        a.value = l;
      } else {
        a.value = one_integer(v);
      }
      break;
    }
  }
  o.finish(accepted);
  if (a.kind == AttrKind::none)
    o.fail("attribute " + quote(a.name) + " has no value: expected one of int64_val, double_val, string_val, ...");
  return a;
}

std::vector<Attribute> read_attrs(const json::Value& v)
{
  std::vector<Attribute> out;
  for (const auto& a : v.array())
    out.push_back(read_attr(a.object()));
  return out;
}

std::vector<uint64_t> read_ids(const json::Value& v)
{
  std::vector<uint64_t> out;
  for (const auto& x : v.array())
    out.push_back(read_uint(x));
  return out;
}

IOInfo read_io(json::Object o)
{
  IOInfo io;
  if (auto v = given(o, "values", "text"))
    io.values = v->string();
  if (auto v = given(o, "shapes", "text"))
    io.shapes = v->string();
  if (auto v = given(o, "types", "text"))
    io.types = v->string();
  if (auto v = given(o, "unknown_fields", "base64 text"))
    io.unknown_fields = read_bytes(*v);
  o.finish({"values", "shapes", "types", "unknown_fields"});
  return io;
}

Node read_node(json::Object o)
{
  Node n;
  n.id                  = read_uint(o.required("id"));
  auto type_v           = o.required("type");
  std::string type_name = type_v.string();
  auto type             = node_type_from_string(type_name);
  if (not type)
    type_v.fail("unknown node type " + type_v.shown() + " (known: INVALID_NODE, COMP_NODE, COMM_COLL_NODE, ...)");
  n.type    = *type;
  auto name = given(o, "name", "the node's name as text"); // jsonize writes it always, "" included
  if (not name)
    o.fail("missing field 'name' (the node's name; \"\" when it has none)");
  n.name = name->string();
  if (auto v = given(o, "ctrl_deps", "an array of node ids"))
    n.ctrl_deps = read_ids(*v);
  if (auto v = given(o, "data_deps", "an array of node ids"))
    n.data_deps = read_ids(*v);
  if (auto v = given(o, "start_time_micros", "a whole number >= 0"))
    n.start_time_micros = read_uint(*v);
  if (auto v = given(o, "duration_micros", "a whole number >= 0"))
    n.duration_micros = read_uint(*v);
  if (auto v = given(o, "inputs", "an object"))
    n.inputs = read_io(v->object());
  if (auto v = given(o, "outputs", "an object"))
    n.outputs = read_io(v->object());
  if (auto v = given(o, "attr", "an array of attributes"))
    n.attrs = read_attrs(*v);
  if (auto v = given(o, "unknown_fields", "base64 text"))
    n.unknown_fields = read_bytes(*v);
  o.finish({"id", "name", "type", "ctrl_deps", "data_deps", "start_time_micros", "duration_micros", "inputs", "outputs",
            "attr", "unknown_fields"});
  if (auto why = n.bad_values(); not why.empty())
    o.fail_at("attr", why);
  return n;
}

} // namespace

uint64_t jsonize(const std::filesystem::path& et, std::ostream& out)
{
  EtReader reader(et);
  json::Writer w(out);
  w.begin_object();
  w.field("chakra_json", 1);
  w.key("metadata").begin_object();
  const auto& m = reader.metadata();
  w.field("version", m.version);
  write_attrs(w, m.attrs);
  if (not m.unknown_fields.empty())
    w.field("unknown_fields", base64(m.unknown_fields));
  w.end_object();
  w.key("nodes").begin_array();
  Node n;
  while (reader.next(n))
    write_node(w, n);
  w.end_array();
  w.end_object();
  out << "\n";
  return reader.nodes_read();
}

uint64_t jsonize_file(const std::filesystem::path& et, const std::filesystem::path& json_path)
{
  AtomicFile f(json_path);
  uint64_t nodes = jsonize(et, f.stream());
  f.commit();
  return nodes;
}

uint64_t dejsonize_file(const std::filesystem::path& json_path, const std::filesystem::path& et)
{
  auto doc     = json::load(json_path);
  auto root    = doc.object();
  auto version = root.required("chakra_json");
  if (version.integer() != 1)
    version.fail("unsupported chakra_json version " + version.shown() + " (this sgai reads 1)");
  GlobalMetadata m;
  {
    auto mo     = root.required("metadata").object();
    auto schema = given(mo, "version", "the schema version as text");
    if (not schema) // jsonize writes it always ("" in some of Chakra's traces)
      mo.fail("missing field 'version' (the schema version: \"0.0.4\", or \"\" as some of Chakra's traces have)");
    m.version = schema->string();
    if (auto v = given(mo, "attr", "an array of attributes"))
      m.attrs = read_attrs(*v);
    if (auto v = given(mo, "unknown_fields", "base64 text"))
      m.unknown_fields = read_bytes(*v);
    mo.finish({"version", "attr", "unknown_fields"});
    if (encode_metadata(m).empty())
      mo.fail("an empty version and nothing else make an empty GlobalMetadata, which no reader takes for an ET: "
              "give a version (\"0.0.4\")");
  }
  auto nodes_v = root.required("nodes");
  auto nodes   = nodes_v.array();
  root.finish({"chakra_json", "metadata", "nodes"});
  if (nodes.empty())
    nodes_v.fail("no node: an ET holds at least one node");
  // data dependencies must name nodes of the file (control dependencies may name host operators a
  // converter left out, as Chakra's PyTorch converter does: the feeder ignores those)
  std::unordered_set<uint64_t> ids;
  struct Dep {
    size_t node;
    size_t index;
    uint64_t id, dep;
  };
  std::vector<Dep> forward; // dependencies on nodes not read yet
  EtWriter w(et, m);
  for (size_t i = 0; i < nodes.size(); i++) {
    Node n = read_node(nodes[i].object());
    ids.insert(n.id);
    for (size_t k = 0; k < n.data_deps.size(); k++)
      if (not ids.count(n.data_deps[k]))
        forward.push_back({i, k, n.id, n.data_deps[k]});
    w.write(n);
  }
  for (const auto& d : forward)
    if (not ids.count(d.dep))
      throw InputError(
          json_path.string(),
          "at " + json::child_pointer(json::child_pointer(json::child_pointer("/nodes", d.node), "data_deps"), d.index),
          "node " + std::to_string(d.id) + " depends on node " + std::to_string(d.dep) +
              ", which is not in the file (a dangling data dependency)");
  w.commit();
  return nodes.size();
}

} // namespace sgai::chakra
