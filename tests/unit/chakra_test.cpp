/* Chakra ET reading and writing: real traces round-trip byte for byte, attributes of every
 * encoding, and every kind of bad input gives its error. */
#include "chakra/et_io.hpp"
#include "chakra/et_json.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>

using namespace sgai::chakra;

namespace {

std::vector<std::filesystem::path> shared_ets()
{
  std::vector<std::filesystem::path> out;
  if (not sgai::test::have_shared_data())
    return out;
  for (const auto& e : std::filesystem::recursive_directory_iterator(sgai::test::shared_data("")))
    if (e.is_regular_file() && e.path().extension() == ".et")
      out.push_back(e.path());
  std::sort(out.begin(), out.end());
  return out;
}

std::string error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const sgai::InputError& e) {
    return e.what();
  }
  return "no error";
}

std::string encode(const Trace& t)
{
  std::string out = encode_metadata(t.metadata);
  for (const auto& n : t.nodes)
    out += encode_node(n);
  return out;
}

Trace small_trace()
{
  Trace t;
  t.metadata.version = "0.0.4";
  Node a;
  a.id   = 1;
  a.name = "gemm";
  a.type = NodeType::comp;
  a.attrs.push_back(Attribute::of_int64("num_ops", 1000));
  a.duration_micros = 5;
  Node b;
  b.id        = 2;
  b.name      = "allreduce";
  b.type      = NodeType::comm_coll;
  b.data_deps = {1};
  b.attrs.push_back(Attribute::of_int64("comm_type", 0));
  b.attrs.push_back(Attribute::of_uint64("comm_size", 1 << 20));
  t.nodes = {a, b};
  return t;
}

} // namespace

TEST(ChakraEt, EverySharedTraceRoundTripsByteForByte)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto files = shared_ets();
  ASSERT_GE(files.size(), 100U) << "expected the ASTRA-sim and MLCommons traces";
  for (const auto& f : files) {
    Trace t            = read_trace(f);
    std::string bytes  = sgai::read_text_file(f);
    std::string copied = encode(t);
    EXPECT_EQ(copied.size(), bytes.size()) << f;
    EXPECT_TRUE(copied == bytes) << f << " differs after a round trip";
  }
}

TEST(ChakraEt, MlcommonsTraceHasItsPublishedCounts)
{
  SGAI_REQUIRE_SHARED_DATA();
  Trace t = read_trace(sgai::test::shared_data("chakra/mlcommons-chakra.0.et"));
  EXPECT_EQ(t.nodes.size(), 3664U);
  std::map<NodeType, size_t> by_type;
  for (const auto& n : t.nodes)
    by_type[n.type]++;
  EXPECT_EQ(by_type[NodeType::comm_coll], 21U);
  EXPECT_EQ(by_type[NodeType::comp], 3643U);
  ASSERT_NE(t.metadata.attr("schema"), nullptr);
  EXPECT_EQ(*t.metadata.attr("schema")->as_string(), "1.0.1");
  const Node& first = t.nodes.front();
  EXPECT_EQ(first.id, 216U);
  EXPECT_EQ(first.name, "aten::flatten_dense_tensors(0)");
  EXPECT_EQ(first.duration_micros, 318U);
  EXPECT_EQ(first.ctrl_deps, (std::vector<uint64_t>{3}));
  EXPECT_EQ(first.bool_attr("is_cpu_op"), true);
  EXPECT_EQ(first.int_attr("rf_id"), 2);
}

TEST(ChakraEt, MicrobenchmarkAttributes)
{
  SGAI_REQUIRE_SHARED_DATA();
  Trace t = read_trace(
      sgai::test::shared_data("astra-sim/examples/workload/microbenchmarks/all_reduce/4npus_1MB/all_reduce.0.et"));
  EXPECT_EQ(t.metadata.version, "0.0.4");
  ASSERT_EQ(t.nodes.size(), 1U);
  const Node& n = t.nodes[0];
  EXPECT_EQ(n.type, NodeType::comm_coll);
  EXPECT_EQ(n.collective(), CollectiveType::all_reduce);
  EXPECT_EQ(n.comm_size(), 1048576U);
  EXPECT_EQ(n.bool_attr("is_cpu_op"), false);
}

TEST(ChakraEt, IntegerAttributesReadTheSameInEveryEncoding)
{
  // comm_size written as int32, int64, uint32, uint64, sint, fixed and sfixed by different producers
  for (AttrKind k : {AttrKind::int32_val, AttrKind::int64_val, AttrKind::uint32_val, AttrKind::uint64_val,
                     AttrKind::sint32_val, AttrKind::sint64_val, AttrKind::fixed32_val, AttrKind::fixed64_val,
                     AttrKind::sfixed32_val, AttrKind::sfixed64_val}) {
    Trace t = small_trace();
    Attribute a;
    a.name             = "comm_size";
    a.kind             = k;
    bool unsigned_kind = k == AttrKind::uint32_val || k == AttrKind::uint64_val || k == AttrKind::fixed32_val ||
                         k == AttrKind::fixed64_val;
    a.value             = unsigned_kind ? Attribute::Value(uint64_t{65536}) : Attribute::Value(int64_t{65536});
    t.nodes[1].attrs[1] = a;
    EtReader r(encode(t), "mem");
    Node n;
    ASSERT_TRUE(r.next(n));
    ASSERT_TRUE(r.next(n));
    EXPECT_EQ(n.comm_size(), 65536U) << to_string(k);
    EXPECT_EQ(n.attr("comm_size")->kind, k);
    EXPECT_FALSE(r.next(n));
  }
}

TEST(ChakraEt, EveryAttributeKindRoundTrips)
{
  Trace t     = small_trace();
  auto& attrs = t.nodes[0].attrs;
  attrs.push_back({"d", "doc", AttrKind::double_val, 2.5, {}});
  attrs.push_back({"f", "", AttrKind::float_val, 0.25, {}});
  attrs.push_back({"dl", "", AttrKind::double_list, std::vector<double>{1.5, -2}, {}});
  attrs.push_back({"fl", "", AttrKind::float_list, std::vector<double>{0.5}, {}});
  attrs.push_back({"s32", "", AttrKind::sint32_list, std::vector<int64_t>{-3, 4}, {}});
  attrs.push_back({"u64", "", AttrKind::fixed64_list, std::vector<uint64_t>{~uint64_t{0}}, {}});
  attrs.push_back({"b", "", AttrKind::bool_list, std::vector<uint64_t>{1, 0, 1}, {}});
  attrs.push_back({"s", "", AttrKind::string_list, std::vector<std::string>{"x", ""}, {}});
  attrs.push_back({"y", "", AttrKind::bytes_val, std::string("\0\1\2", 3), {}});
  t.nodes[0].inputs = IOInfo{"[[1]]", "[[2]]", "['Tensor(float)']", {}};
  std::string bytes = encode(t);
  EtReader r(bytes, "mem");
  Trace back;
  back.metadata = r.metadata();
  Node n;
  while (r.next(n))
    back.nodes.push_back(n);
  EXPECT_EQ(encode(back), bytes);
  const Node& a = back.nodes[0];
  EXPECT_EQ(a.attr("d")->as_double(), 2.5);
  EXPECT_EQ(a.attr("d")->doc_string, "doc");
  EXPECT_EQ(a.attr("f")->as_double(), 0.25);
  EXPECT_EQ(a.attr("s32")->as_int_list(), (std::vector<int64_t>{-3, 4}));
  EXPECT_FALSE(a.attr("u64")->as_int_list()); // above INT64_MAX
  EXPECT_EQ(std::get<std::vector<std::string>>(a.attr("s")->value)[0], "x");
  EXPECT_EQ(a.inputs->shapes, "[[2]]");
  EXPECT_EQ(a.num_ops(), 1000);
}

TEST(ChakraEt, WriterProducesWhatTheReaderReads)
{
  auto dir  = sgai::test::temp_dir();
  auto file = dir / "w.0.et";
  write_trace(file, small_trace());
  Trace t = read_trace(file);
  ASSERT_EQ(t.nodes.size(), 2U);
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{1}));
  EXPECT_EQ(sgai::read_text_file(file), encode(small_trace()));
  EXPECT_EQ(rank_of_file("w.0.et"), 0U);
  EXPECT_EQ(rank_of_file("all_reduce.13.et"), 13U);
  EXPECT_FALSE(rank_of_file("trace.et"));
}

TEST(ChakraEt, BadInputNamesTheByteAndTheProblem)
{
  std::string good = encode(small_trace());
  auto read_all    = [](std::string bytes) {
    return [bytes]() {
      EtReader r(bytes, "bad.et");
      Node n;
      while (r.next(n)) {
      }
    };
  };
  EXPECT_NE(error_of(read_all("")).find("bad.et: byte 0: empty file"), std::string::npos);
  // truncated: the last message is cut
  EXPECT_NE(error_of(read_all(good.substr(0, good.size() - 3))).find("goes past the end of the file"),
            std::string::npos);
  // a length prefix larger than the rest
  std::string big = encode_metadata(small_trace().metadata) + std::string("\xff\xff\x03", 3) + "abc";
  auto msg        = error_of(read_all(big));
  EXPECT_NE(msg.find("message length 65535 goes past the end"), std::string::npos) << msg;
  // a length prefix that never ends
  msg = error_of(read_all(encode_metadata(small_trace().metadata) + std::string(8, '\xff')));
  EXPECT_NE(msg.find("not a varint32"), std::string::npos) << msg;
  // garbage bytes inside a node
  std::string garbage = encode_metadata(small_trace().metadata) + std::string("\x04\xff\xff\xff\xff", 5);
  msg                 = error_of(read_all(garbage));
  EXPECT_NE(msg.find("cannot parse node #1"), std::string::npos) << msg;
  // no GlobalMetadata: the file starts with a node
  msg = error_of(read_all(encode_node(small_trace().nodes[0])));
  EXPECT_NE(msg.find("GlobalMetadata is missing"), std::string::npos) << msg;
  // unknown node type
  Trace t                   = small_trace();
  std::string node          = encode_node(t.nodes[0]);
  std::string with_bad_type = encode_metadata(t.metadata);
  Node n                    = t.nodes[0];
  n.unknown_fields          = std::string("\x18\x2a", 2); // field 3 (type) = 42, as an unknown varint
  n.type                    = NodeType::invalid;
  with_bad_type += encode_node(n);
  msg = error_of(read_all(with_bad_type));
  EXPECT_NE(msg.find("node 1 has the unknown type 42"), std::string::npos) << msg;
  EXPECT_NE(msg.find("bad.et: byte "), std::string::npos) << msg;
  // duplicate ids
  auto file     = sgai::test::temp_dir() / "dup.0.et";
  Trace d       = small_trace();
  d.nodes[1].id = 1;
  write_trace(file, d);
  msg = error_of([&]() { read_trace(file); });
  EXPECT_NE(msg.find("duplicate node id 1"), std::string::npos) << msg;
  EXPECT_NE(error_of([]() { EtReader r("no/such.et"); }).find("no such ET file"), std::string::npos);
}

TEST(ChakraJson, JsonizeDejsonizeIsExact)
{
  SGAI_REQUIRE_SHARED_DATA();
  const auto& dir = sgai::test::temp_dir();
  for (const char* f :
       {"chakra/mlcommons-chakra.0.et",
        "astra-sim/examples/system/custom_collectives/custom_ring_allreduce_8npus_1MB/custom_allreduce.3.et",
        "astra-sim/examples/workload/microbenchmarks/all_to_all/16npus_1MB/all_to_all.15.et"}) {
    auto et = sgai::test::shared_data(f);
    EXPECT_GT(jsonize_file(et, dir / "t.json"), 0U);
    dejsonize_file(dir / "t.json", dir / "t.0.et");
    EXPECT_TRUE(sgai::read_text_file(dir / "t.0.et") == sgai::read_text_file(et)) << f;
  }
  // every attribute kind, non-finite floats, bytes and unknown fields survive the JSON form
  Trace t = small_trace();
  t.nodes[0].attrs.push_back(
      {"nan",
       "",
       AttrKind::double_list,
       std::vector<double>{std::numeric_limits<double>::quiet_NaN(), -std::numeric_limits<double>::infinity(), 1e-300},
       {}});
  t.nodes[0].attrs.push_back({"raw", "", AttrKind::bytes_list, std::vector<std::string>{std::string("\0\xff", 2)}, {}});
  t.nodes[0].attrs.push_back({"big", "", AttrKind::uint64_val, ~uint64_t{0}, {}});
  t.nodes[0].attrs.push_back({"neg", "", AttrKind::sfixed32_val, int64_t{-7}, {}});
  t.nodes[0].unknown_fields = std::string("\xa0\x06\x01", 3); // field 100, varint 1
  write_trace(dir / "k.0.et", t);
  jsonize_file(dir / "k.0.et", dir / "k.json");
  dejsonize_file(dir / "k.json", dir / "k2.0.et");
  EXPECT_TRUE(sgai::read_text_file(dir / "k2.0.et") == sgai::read_text_file(dir / "k.0.et"));
}

TEST(ChakraJson, MatchesThePublishedJsonTwinNodeForNode)
{
  SGAI_REQUIRE_SHARED_DATA();
  // mlcommons-chakra.0.json was written by Chakra's own tools from the same trace: Id, Name,
  // NodeType, data_deps, runtime (duration, absent when 0) and is_cpu_op per node. (Its text had
  // "id" and "name" replaced by "Id" and "Name" everywhere, node names included.)
  Trace t   = read_trace(sgai::test::shared_data("chakra/mlcommons-chakra.0.et"));
  auto twin = nlohmann::json::parse(sgai::read_text_file(sgai::test::shared_data("chakra/mlcommons-chakra.0.json")));
  const auto& graph = twin.at("workload_graph");
  ASSERT_EQ(graph.size(), t.nodes.size());
  std::map<uint64_t, const Node*> by_id;
  for (const auto& n : t.nodes)
    by_id[n.id] = &n;
  auto mangled = [](std::string s) {
    for (auto [from, to] : {std::pair{"id", "Id"}, std::pair{"name", "Name"}})
      for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + 2))
        s.replace(p, 2 + (std::string(from) == "name" ? 2 : 0), to);
    return s;
  };
  size_t checked = 0;
  for (const auto& j : graph) {
    auto it = by_id.find(j.at("Id").get<uint64_t>());
    ASSERT_NE(it, by_id.end()) << j.at("Id");
    const Node& n = *it->second;
    EXPECT_EQ(static_cast<int>(n.type), j.at("NodeType").get<int>()) << n.id;
    EXPECT_EQ(n.data_deps, j.at("data_deps").get<std::vector<uint64_t>>()) << n.id;
    EXPECT_EQ(n.duration_micros, j.value("runtime", uint64_t{0})) << n.id;
    EXPECT_EQ(n.bool_attr("is_cpu_op"), j.at("is_cpu_op").get<bool>()) << n.id;
    EXPECT_EQ(mangled(n.name), j.at("Name").get<std::string>()) << n.id;
    checked++;
  }
  EXPECT_EQ(checked, 3664U);
}
