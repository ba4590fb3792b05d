#include "chakra/et_io.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "sgai_chakra_et.pb.h"

#include <google/protobuf/unknown_field_set.h>

#include <algorithm>
#include <fstream>
#include <sstream>
#include <unordered_set>

namespace sgai::chakra {

namespace pb = sgai::chakra_et;

namespace {

// ------------------------------------------------------------------------ protobuf <-> plain types

std::string unknown_of(const google::protobuf::Message& m)
{
  const auto& set = m.GetReflection()->GetUnknownFields(m);
  if (set.empty())
    return {};
  std::string out;
  set.SerializeToString(&out);
  return out;
}

void set_unknown(google::protobuf::Message& m, const std::string& bytes)
{
  if (not bytes.empty())
    m.GetReflection()->MutableUnknownFields(&m)->ParseFromString(bytes);
}

template <typename Out, typename List>
std::vector<Out> list_of(const List& l)
{
  return std::vector<Out>(l.values().begin(), l.values().end());
}

/** Fills `out` from the protobuf attribute, reusing its strings' capacity. */
void read_attr(Attribute& out, const pb::AttributeProto& a)
{
  out.name       = a.name();
  out.doc_string = a.doc_string();
  if (a.GetReflection()->GetUnknownFields(a).empty())
    out.unknown_fields.clear();
  else
    out.unknown_fields = unknown_of(a);
  out.value = std::monostate{};
  using C   = pb::AttributeProto;
  switch (a.value_case()) {
  case C::VALUE_NOT_SET:
    break;
  case C::kDoubleVal:
    out.value = a.double_val();
    break;
  case C::kDoubleList:
    out.value = list_of<double>(a.double_list());
    break;
  case C::kFloatVal:
    out.value = static_cast<double>(a.float_val());
    break;
  case C::kFloatList:
    out.value = list_of<double>(a.float_list());
    break;
  case C::kInt32Val:
    out.value = int64_t{a.int32_val()};
    break;
  case C::kInt32List:
    out.value = list_of<int64_t>(a.int32_list());
    break;
  case C::kInt64Val:
    out.value = int64_t{a.int64_val()};
    break;
  case C::kInt64List:
    out.value = list_of<int64_t>(a.int64_list());
    break;
  case C::kUint32Val:
    out.value = uint64_t{a.uint32_val()};
    break;
  case C::kUint32List:
    out.value = list_of<uint64_t>(a.uint32_list());
    break;
  case C::kUint64Val:
    out.value = uint64_t{a.uint64_val()};
    break;
  case C::kUint64List:
    out.value = list_of<uint64_t>(a.uint64_list());
    break;
  case C::kSint32Val:
    out.value = int64_t{a.sint32_val()};
    break;
  case C::kSint32List:
    out.value = list_of<int64_t>(a.sint32_list());
    break;
  case C::kSint64Val:
    out.value = int64_t{a.sint64_val()};
    break;
  case C::kSint64List:
    out.value = list_of<int64_t>(a.sint64_list());
    break;
  case C::kFixed32Val:
    out.value = uint64_t{a.fixed32_val()};
    break;
  case C::kFixed32List:
    out.value = list_of<uint64_t>(a.fixed32_list());
    break;
  case C::kFixed64Val:
    out.value = uint64_t{a.fixed64_val()};
    break;
  case C::kFixed64List:
    out.value = list_of<uint64_t>(a.fixed64_list());
    break;
  case C::kSfixed32Val:
    out.value = int64_t{a.sfixed32_val()};
    break;
  case C::kSfixed32List:
    out.value = list_of<int64_t>(a.sfixed32_list());
    break;
  case C::kSfixed64Val:
    out.value = int64_t{a.sfixed64_val()};
    break;
  case C::kSfixed64List:
    out.value = list_of<int64_t>(a.sfixed64_list());
    break;
  case C::kBoolVal:
    out.value = uint64_t{a.bool_val() ? 1U : 0U};
    break;
  case C::kBoolList:
    out.value = list_of<uint64_t>(a.bool_list());
    break;
  case C::kStringVal:
    out.value = a.string_val();
    break;
  case C::kStringList:
    out.value = list_of<std::string>(a.string_list());
    break;
  case C::kBytesVal:
    out.value = a.bytes_val();
    break;
  case C::kBytesList:
    out.value = list_of<std::string>(a.bytes_list());
    break;
  }
  out.kind = static_cast<AttrKind>(a.value_case());
}

Attribute from_proto(const pb::AttributeProto& a)
{
  Attribute out;
  read_attr(out, a);
  return out;
}

/** The value as T, or a clear error when the plain attribute was built inconsistently. */
template <typename T>
const T& held(const Attribute& a)
{
  if (const T* v = std::get_if<T>(&a.value))
    return *v;
  throw std::invalid_argument("attribute '" + a.name + "' of kind " + to_string(a.kind) +
                              " holds a value of another class");
}

template <typename Narrow, typename Wide, typename ListProto>
void fill_list(ListProto* l, const std::vector<Wide>& values)
{
  for (Wide v : values)
    l->add_values(static_cast<Narrow>(v));
}

void to_proto(const Attribute& a, pb::AttributeProto* p)
{
  p->set_name(a.name);
  p->set_doc_string(a.doc_string);
  using K = AttrKind;
  switch (a.kind) {
  case K::none:
    break;
  case K::double_val:
    p->set_double_val(held<double>(a));
    break;
  case K::double_list:
    fill_list<double>(p->mutable_double_list(), held<std::vector<double>>(a));
    break;
  case K::float_val:
    p->set_float_val(static_cast<float>(held<double>(a)));
    break;
  case K::float_list:
    fill_list<float>(p->mutable_float_list(), held<std::vector<double>>(a));
    break;
  case K::int32_val:
    p->set_int32_val(static_cast<int32_t>(held<int64_t>(a)));
    break;
  case K::int32_list:
    fill_list<int32_t>(p->mutable_int32_list(), held<std::vector<int64_t>>(a));
    break;
  case K::int64_val:
    p->set_int64_val(held<int64_t>(a));
    break;
  case K::int64_list:
    fill_list<int64_t>(p->mutable_int64_list(), held<std::vector<int64_t>>(a));
    break;
  case K::uint32_val:
    p->set_uint32_val(static_cast<uint32_t>(held<uint64_t>(a)));
    break;
  case K::uint32_list:
    fill_list<uint32_t>(p->mutable_uint32_list(), held<std::vector<uint64_t>>(a));
    break;
  case K::uint64_val:
    p->set_uint64_val(held<uint64_t>(a));
    break;
  case K::uint64_list:
    fill_list<uint64_t>(p->mutable_uint64_list(), held<std::vector<uint64_t>>(a));
    break;
  case K::sint32_val:
    p->set_sint32_val(static_cast<int32_t>(held<int64_t>(a)));
    break;
  case K::sint32_list:
    fill_list<int32_t>(p->mutable_sint32_list(), held<std::vector<int64_t>>(a));
    break;
  case K::sint64_val:
    p->set_sint64_val(held<int64_t>(a));
    break;
  case K::sint64_list:
    fill_list<int64_t>(p->mutable_sint64_list(), held<std::vector<int64_t>>(a));
    break;
  case K::fixed32_val:
    p->set_fixed32_val(static_cast<uint32_t>(held<uint64_t>(a)));
    break;
  case K::fixed32_list:
    fill_list<uint32_t>(p->mutable_fixed32_list(), held<std::vector<uint64_t>>(a));
    break;
  case K::fixed64_val:
    p->set_fixed64_val(held<uint64_t>(a));
    break;
  case K::fixed64_list:
    fill_list<uint64_t>(p->mutable_fixed64_list(), held<std::vector<uint64_t>>(a));
    break;
  case K::sfixed32_val:
    p->set_sfixed32_val(static_cast<int32_t>(held<int64_t>(a)));
    break;
  case K::sfixed32_list:
    fill_list<int32_t>(p->mutable_sfixed32_list(), held<std::vector<int64_t>>(a));
    break;
  case K::sfixed64_val:
    p->set_sfixed64_val(held<int64_t>(a));
    break;
  case K::sfixed64_list:
    fill_list<int64_t>(p->mutable_sfixed64_list(), held<std::vector<int64_t>>(a));
    break;
  case K::bool_val:
    p->set_bool_val(held<uint64_t>(a) != 0);
    break;
  case K::bool_list:
    for (uint64_t v : held<std::vector<uint64_t>>(a))
      p->mutable_bool_list()->add_values(v != 0);
    break;
  case K::string_val:
    p->set_string_val(held<std::string>(a));
    break;
  case K::string_list:
    for (const auto& s : held<std::vector<std::string>>(a))
      p->mutable_string_list()->add_values(s);
    break;
  case K::bytes_val:
    p->set_bytes_val(held<std::string>(a));
    break;
  case K::bytes_list:
    for (const auto& s : held<std::vector<std::string>>(a))
      p->mutable_bytes_list()->add_values(s);
    break;
  }
  set_unknown(*p, a.unknown_fields);
}

IOInfo from_proto(const pb::IOInfo& io)
{
  return IOInfo{io.values(), io.shapes(), io.types(), unknown_of(io)};
}

void to_proto(const IOInfo& io, pb::IOInfo* p)
{
  p->set_values(io.values);
  p->set_shapes(io.shapes);
  p->set_types(io.types);
  set_unknown(*p, io.unknown_fields);
}

void to_proto(const Node& n, pb::Node& p)
{
  p.Clear();
  p.set_id(n.id);
  p.set_name(n.name);
  p.set_type(static_cast<pb::NodeType>(n.type));
  for (uint64_t d : n.ctrl_deps)
    p.add_ctrl_deps(d);
  for (uint64_t d : n.data_deps)
    p.add_data_deps(d);
  p.set_start_time_micros(n.start_time_micros);
  p.set_duration_micros(n.duration_micros);
  if (n.inputs)
    to_proto(*n.inputs, p.mutable_inputs());
  if (n.outputs)
    to_proto(*n.outputs, p.mutable_outputs());
  for (const auto& a : n.attrs)
    to_proto(a, p.add_attr());
  set_unknown(p, n.unknown_fields);
}

void to_proto(const GlobalMetadata& m, pb::GlobalMetadata& p)
{
  p.Clear();
  p.set_version(m.version);
  for (const auto& a : m.attrs)
    to_proto(a, p.add_attr());
  set_unknown(p, m.unknown_fields);
}

/** Writes the varint32 length prefix and the message. */
void append_message(std::string& out, const google::protobuf::Message& m)
{
  std::string body;
  m.SerializeToString(&body);
  auto n = static_cast<uint32_t>(body.size());
  while (n >= 0x80) {
    out.push_back(static_cast<char>((n & 0x7F) | 0x80));
    n >>= 7;
  }
  out.push_back(static_cast<char>(n));
  out += body;
}

/** Field numbers of a serialized unknown-field set, for messages. */
std::string field_numbers(const google::protobuf::Message& m)
{
  const auto& set = m.GetReflection()->GetUnknownFields(m);
  std::string out;
  for (int i = 0; i < set.field_count() && i < 5; i++)
    out += (out.empty() ? "" : ", ") + std::to_string(set.field(i).number());
  return out;
}

} // namespace

// ---------------------------------------------------------------------------------------- reader

struct EtReader::Impl {
  std::string name;
  std::ifstream file;
  std::istringstream memory;
  std::istream* in = nullptr;
  uint64_t size    = 0;
  uint64_t offset  = 0;
  uint64_t nodes   = 0;
  GlobalMetadata metadata;
  std::string buffer;
  pb::Node proto;
  char io_buffer[1 << 16];

  [[noreturn]] void fail(uint64_t at, const std::string& what) const
  {
    throw InputError(name, "byte " + std::to_string(at), what);
  }

  /** Reads the next message into `buffer`; false at a clean end of the file. */
  bool read_message()
  {
    uint64_t start  = offset;
    uint32_t length = 0;
    int shift       = 0;
    for (int i = 0;; i++) {
      int c = in->get();
      if (c == std::char_traits<char>::eof()) {
        if (i == 0)
          return false;
        fail(start, "truncated length prefix at the end of the file");
      }
      offset++;
      if (i == 4 && (c & 0xF0) != 0)
        fail(start, "length prefix is not a varint32 (more than 5 bytes or above 4 GiB): garbage bytes?");
      length |= static_cast<uint32_t>(c & 0x7F) << shift;
      shift += 7;
      if ((c & 0x80) == 0)
        break;
    }
    if (length > size - offset)
      fail(start, "message length " + std::to_string(length) + " goes past the end of the file (" +
                      std::to_string(size - offset) + " bytes left): truncated or garbage");
    buffer.resize(length);
    if (length > 0 && not in->read(buffer.data(), length))
      fail(start, "cannot read " + std::to_string(length) + " bytes");
    offset += length;
    return true;
  }

  void open()
  {
    if (not read_message())
      fail(0, "empty file: an ET starts with a GlobalMetadata message");
    // an empty record parses as a GlobalMetadata of nothing: NUL bytes would read as an ET
    if (buffer.empty())
      fail(0, "the first message is empty (length 0): an ET starts with a GlobalMetadata giving at least its "
              "version: not an ET file?");
    pb::GlobalMetadata m;
    bool parsed = m.ParseFromString(buffer);
    if (not parsed || not m.GetReflection()->GetUnknownFields(m).empty()) {
      pb::Node as_node;
      if (as_node.ParseFromString(buffer) && as_node.GetReflection()->GetUnknownFields(as_node).empty())
        fail(0, "the first message is a Node (id " + std::to_string(as_node.id()) +
                    "), not a GlobalMetadata: the GlobalMetadata is missing");
      fail(0, parsed ? "the first message is not a GlobalMetadata (unknown fields " + field_numbers(m) +
                           "): not an ET file?"
                     : "the first message is not a valid GlobalMetadata: garbage or not an ET file");
    }
    metadata.version = m.version();
    for (const auto& a : m.attr()) {
      metadata.attrs.push_back(from_proto(a));
      if (metadata.attrs.back().kind == AttrKind::none)
        fail(0, "GlobalMetadata attribute '" + a.name() + "' has no value");
    }
  }
};

EtReader::EtReader(const std::filesystem::path& path)
    : impl_(std::make_unique<Impl>())
{
  impl_->name = path.string();
  std::error_code ec;
  if (not std::filesystem::is_regular_file(path, ec))
    throw InputError(impl_->name, "", "no such ET file");
  impl_->size = std::filesystem::file_size(path, ec);
  impl_->file.rdbuf()->pubsetbuf(impl_->io_buffer, sizeof impl_->io_buffer);
  impl_->file.open(path, std::ios::binary);
  if (not impl_->file)
    throw InputError(impl_->name, "", "cannot open the file");
  impl_->in = &impl_->file;
  impl_->open();
}

EtReader::EtReader(std::string bytes, std::string name)
    : impl_(std::make_unique<Impl>())
{
  impl_->name = std::move(name);
  impl_->size = bytes.size();
  impl_->memory.str(std::move(bytes));
  impl_->in = &impl_->memory;
  impl_->open();
}

EtReader::~EtReader()                              = default;
EtReader::EtReader(EtReader&&) noexcept            = default;
EtReader& EtReader::operator=(EtReader&&) noexcept = default;

const GlobalMetadata& EtReader::metadata() const
{
  return impl_->metadata;
}

bool EtReader::next(Node& node)
{
  Impl& m        = *impl_;
  uint64_t start = m.offset;
  if (not m.read_message()) {
    if (m.nodes == 0)
      m.fail(start, "no node after the GlobalMetadata: an ET holds at least one node");
    return false;
  }
  // a record of length 0 parses as a node of nothing (id 0, no name, INVALID_NODE): not a node
  if (m.buffer.empty())
    m.fail(start, "node record #" + std::to_string(m.nodes + 1) + " is empty (length 0): not a node (NUL bytes?)");
  if (not m.proto.ParseFromString(m.buffer))
    m.fail(start, "cannot parse node #" + std::to_string(m.nodes + 1) + ": garbage or truncated bytes");
  const pb::Node& p = m.proto;
  auto type         = node_type_from_int(p.type());
  if (not type)
    m.fail(start, "node " + std::to_string(p.id()) + " has the unknown type " + std::to_string(p.type()) +
                      " (known: 0 to " + std::to_string(kNodeTypeCount - 1) + ")");
  node.id   = p.id();
  node.name = p.name();
  node.type = *type;
  node.ctrl_deps.assign(p.ctrl_deps().begin(), p.ctrl_deps().end());
  node.data_deps.assign(p.data_deps().begin(), p.data_deps().end());
  node.start_time_micros = p.start_time_micros();
  node.duration_micros   = p.duration_micros();
  node.inputs.reset();
  node.outputs.reset();
  if (p.has_inputs())
    node.inputs = from_proto(p.inputs());
  if (p.has_outputs())
    node.outputs = from_proto(p.outputs());
  node.attrs.resize(static_cast<size_t>(p.attr_size()));
  for (int i = 0; i < p.attr_size(); i++)
    read_attr(node.attrs[static_cast<size_t>(i)], p.attr(i));
  if (p.GetReflection()->GetUnknownFields(p).empty())
    node.unknown_fields.clear();
  else
    node.unknown_fields = unknown_of(p);
  if (auto why = node.bad_values(); not why.empty())
    m.fail(start, why);
  m.nodes++;
  return true;
}

uint64_t EtReader::offset() const
{
  return impl_->offset;
}

uint64_t EtReader::nodes_read() const
{
  return impl_->nodes;
}

uint64_t EtReader::size_bytes() const
{
  return impl_->size;
}

const std::string& EtReader::name() const
{
  return impl_->name;
}

// ---------------------------------------------------------------------------------------- writer

struct EtWriter::Impl {
  AtomicFile file;
  pb::Node proto;
  std::string chunk;
  uint64_t nodes = 0;

  explicit Impl(const std::filesystem::path& path)
      : file(path)
  {
  }
  void flush()
  {
    file.stream().write(chunk.data(), static_cast<std::streamsize>(chunk.size()));
    chunk.clear();
  }
};

EtWriter::EtWriter(const std::filesystem::path& file, const GlobalMetadata& metadata)
    : impl_(std::make_unique<Impl>(file))
{
  impl_->chunk = encode_metadata(metadata);
}

EtWriter::~EtWriter() = default;

void EtWriter::write(const Node& node)
{
  to_proto(node, impl_->proto);
  append_message(impl_->chunk, impl_->proto);
  impl_->nodes++;
  if (impl_->chunk.size() > (1 << 20))
    impl_->flush();
}

void EtWriter::commit()
{
  impl_->flush();
  impl_->file.commit();
}

uint64_t EtWriter::nodes_written() const
{
  return impl_->nodes;
}

std::string encode_metadata(const GlobalMetadata& m)
{
  pb::GlobalMetadata p;
  to_proto(m, p);
  std::string out;
  append_message(out, p);
  return out;
}

std::string encode_node(const Node& n)
{
  pb::Node p;
  to_proto(n, p);
  std::string out;
  append_message(out, p);
  return out;
}

std::vector<std::filesystem::path> workload_files(const std::string& arg)
{
  namespace fs = std::filesystem;
  std::error_code ec;
  std::vector<fs::path> out;
  if (fs::is_regular_file(arg, ec))
    return {fs::path(arg)};
  auto by_rank = [](const fs::path& a, const fs::path& b) {
    auto ra = rank_of_file(a.filename().string()), rb = rank_of_file(b.filename().string());
    if (ra && rb && *ra != *rb)
      return *ra < *rb;
    return a < b;
  };
  if (fs::is_directory(arg, ec)) {
    for (const auto& e : fs::directory_iterator(arg, ec))
      if (e.is_regular_file() && e.path().extension() == ".et")
        out.push_back(e.path());
    if (out.empty())
      throw InputError(arg, "", "no .et file in this folder");
  } else {
    fs::path prefix(arg);
    fs::path dir     = prefix.parent_path().empty() ? fs::path(".") : prefix.parent_path();
    std::string stem = prefix.filename().string() + ".";
    for (const auto& e : fs::directory_iterator(dir, ec)) {
      std::string name = e.path().filename().string();
      if (e.is_regular_file() && name.rfind(stem, 0) == 0 && rank_of_file(name) &&
          name.size() == stem.size() + std::to_string(*rank_of_file(name)).size() + 3)
        out.push_back(e.path());
    }
    if (out.empty())
      throw InputError(arg, "", "no such ET file, folder or workload prefix (expected " + arg + ".0.et, ...)");
  }
  std::sort(out.begin(), out.end(), by_rank);
  return out;
}

Trace read_trace(const std::filesystem::path& file)
{
  EtReader reader(file);
  Trace t;
  t.metadata = reader.metadata();
  std::unordered_set<uint64_t> ids;
  Node n;
  uint64_t at = reader.offset();
  while (reader.next(n)) {
    if (not ids.insert(n.id).second)
      throw InputError(reader.name(), "byte " + std::to_string(at), "duplicate node id " + std::to_string(n.id));
    t.nodes.push_back(std::move(n));
    n  = Node{};
    at = reader.offset();
  }
  return t;
}

void write_trace(const std::filesystem::path& file, const Trace& trace)
{
  EtWriter w(file, trace.metadata);
  for (const auto& n : trace.nodes)
    w.write(n);
  w.commit();
}

} // namespace sgai::chakra
