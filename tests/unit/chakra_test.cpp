/* Chakra ET reading and writing: real traces round-trip byte for byte, attributes of every
 * encoding, and every kind of bad input gives its error. */
#include "chakra/builder.hpp"
#include "chakra/convert.hpp"
#include "chakra/et_io.hpp"
#include "chakra/et_json.hpp"
#include "chakra/feeder.hpp"
#include "chakra/generate.hpp"
#include "chakra/stats.hpp"
#include "chakra/synth.hpp"
#include "chakra/training.hpp"
#include "chakra/visualize.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "dlrm_fixture.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <deque>
#include <fstream>
#include <limits>
#include <map>
#include <nlohmann/json.hpp>
#include <random>
#include <set>
#include <sstream>
#include <tuple>

using namespace sgai::chakra;
using sgai::test::dlrm_dir;
using sgai::test::dlrm_kineto;
using sgai::test::error_of;

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
  // NUL bytes: an empty GlobalMetadata, then empty node records; a GlobalMetadata and no node
  msg = error_of(read_all(std::string(40, '\0')));
  EXPECT_NE(msg.find("bad.et: byte 0: the first message is empty"), std::string::npos) << msg;
  std::string meta = encode_metadata(small_trace().metadata);
  msg              = error_of(read_all(meta + std::string(3, '\0')));
  EXPECT_NE(msg.find("bad.et: byte " + std::to_string(meta.size()) + ": node record #1 is empty"), std::string::npos)
      << msg;
  msg = error_of(read_all(meta));
  EXPECT_NE(msg.find("no node after the GlobalMetadata"), std::string::npos) << msg;
  EXPECT_FALSE(encode_metadata(GlobalMetadata{}).empty()); // sgai never writes an empty one
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

TEST(ChakraEt, NegativeOpsAndSizesNameTheirNode)
{
  Trace t = small_trace();
  Node n  = t.nodes[0];
  n.id    = 9;
  n.attrs = {Attribute::of_int64("num_ops", -5)};
  EtReader r(encode_metadata(t.metadata) + encode_node(n), "neg.et");
  Node read;
  auto msg = error_of([&]() { r.next(read); });
  EXPECT_NE(msg.find("neg.et: byte "), std::string::npos) << msg;
  EXPECT_NE(msg.find("node 9: num_ops -5 is negative"), std::string::npos) << msg;
  n.attrs = {Attribute::of_double("num_ops", std::nan(""))};
  EXPECT_NE(n.bad_values().find("num_ops nan is not a finite number"), std::string::npos) << n.bad_values();
  n.attrs = {Attribute::of_int64("comm_size", -4096)};
  EXPECT_EQ(n.bad_values(), "node 9: comm_size -4096 is negative: expected bytes >= 0");
  n.attrs = {Attribute::of_int64("num_ops", 0), Attribute::of_int64("comm_size", 0)};
  EXPECT_EQ(n.bad_values(), "");
}

TEST(ChakraFeeder, OnlyPytorchConvertedTracesFollowDataDependenciesByDefault)
{
  GlobalMetadata m;
  EXPECT_FALSE(pytorch_converted(m));
  EXPECT_TRUE(follow_control(Deps::automatic, m));
  m.attrs.push_back(Attribute::of_string("schema", "1.0.1")); // Chakra's other converters write one too
  EXPECT_FALSE(pytorch_converted(m));
  for (const char* k : {"pid", "start_ts", "finish_ts"})
    m.attrs.push_back(Attribute::of_uint64(k, 114598));
  EXPECT_TRUE(pytorch_converted(m));
  EXPECT_FALSE(follow_control(Deps::automatic, m));
  EXPECT_TRUE(follow_control(Deps::all, m));
  EXPECT_FALSE(follow_control(Deps::data, GlobalMetadata{}));
  EXPECT_EQ(deps_from_string("auto"), Deps::automatic);
  EXPECT_FALSE(deps_from_string("none"));
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

// ------------------------------------------------------------------------------------- feeder

namespace {

/** Replays a trace through a Feeder, completing issued nodes in issue order; returns the order. */
std::vector<uint64_t> replay(const Trace& t, Feeder::Options o = {}, size_t concurrency = 4)
{
  Feeder f(EtReader(encode(t), "t.et"), o);
  std::vector<uint64_t> order;
  std::deque<uint64_t> running;
  for (;;) {
    while (running.size() < concurrency)
      if (const Node* n = f.next_issuable()) {
        // every parent completed before
        for (uint64_t p : n->data_deps)
          EXPECT_NE(std::find(order.begin(), order.end(), p), order.end()) << n->id << " before " << p;
        running.push_back(n->id);
        EXPECT_EQ(f.lookup(n->id), n);
      } else {
        break;
      }
    if (running.empty())
      break;
    order.push_back(running.front());
    f.complete(running.front());
    running.pop_front();
  }
  EXPECT_TRUE(f.finished());
  return order;
}

Trace chain_with_forward_refs()
{
  // file order 0, 3, 1, 2: node 3 depends on 2, read before it; 1 and 2 depend on 0
  Trace t;
  t.metadata.version = "0.0.4";
  auto node          = [](uint64_t id, std::vector<uint64_t> deps) {
    Node n;
    n.id        = id;
    n.type      = NodeType::comp;
    n.data_deps = std::move(deps);
    return n;
  };
  t.nodes = {node(0, {}), node(3, {2}), node(1, {0}), node(2, {0, 1})};
  return t;
}

} // namespace

TEST(ChakraFeeder, IssuesNodesOnlyAfterTheirParents)
{
  auto order = replay(chain_with_forward_refs());
  EXPECT_EQ(order, (std::vector<uint64_t>{0, 1, 2, 3}));
  TraceBuilder b;
  uint64_t a = b.compute("a", 10);
  uint64_t c = b.collective("c", CollectiveType::all_reduce, 100, {a});
  uint64_t d = b.compute("d", 10);
  b.control_dep(d, c); // d waits on c by control only
  order = replay(b.trace());
  EXPECT_EQ(order, (std::vector<uint64_t>{a, c, d}));
  Feeder::Options data_only;
  data_only.control = false;
  order             = replay(b.trace(), data_only);
  EXPECT_EQ(order, (std::vector<uint64_t>{a, d, c})); // d no longer waits
}

TEST(ChakraFeeder, WindowStaysBoundedOnALongTrace)
{
  auto dir  = sgai::test::temp_dir();
  auto file = dir / "dag.0.et";
  GlobalMetadata m;
  {
    EtWriter w(file, m);
    random_dag(w, 200000, 32, 5);
    w.commit();
  }
  Feeder::Options o;
  o.window = 4096;
  Feeder f(EtReader(file), o);
  std::deque<uint64_t> running;
  uint64_t done = 0;
  size_t most   = 0;
  for (;;) {
    while (running.size() < 8)
      if (const Node* n = f.next_issuable())
        running.push_back(n->id);
      else
        break;
    most = std::max(most, f.nodes_in_window());
    if (running.empty())
      break;
    f.complete(running.front());
    running.pop_front();
    done++;
  }
  EXPECT_EQ(done, 200000U);
  EXPECT_EQ(f.nodes_completed(), 200000U);
  EXPECT_LE(most, o.lookahead + 8 + 1);
  EXPECT_EQ(f.completed_intervals(), 1U); // ids 0..199999 collapse into one interval
}

TEST(ChakraFeeder, ReportsCyclesDanglingParentsAndDuplicates)
{
  auto node = [](uint64_t id, std::vector<uint64_t> data, std::vector<uint64_t> ctrl = {}) {
    Node n;
    n.id        = id;
    n.type      = NodeType::comp;
    n.data_deps = std::move(data);
    n.ctrl_deps = std::move(ctrl);
    return n;
  };
  auto run = [&](std::vector<Node> nodes, Feeder::Options o = {}) {
    Trace t;
    t.nodes = std::move(nodes);
    return error_of([&]() { replay(t, o); });
  };
  auto msg = run({node(0, {}), node(1, {2}), node(2, {1})});
  EXPECT_NE(msg.find("t.et: node 1: dependency cycle: 1 -> 2 -> 1"), std::string::npos) << msg;
  msg = run({node(0, {}), node(1, {7})});
  EXPECT_NE(msg.find("node 1 depends on node 7, which is not in the trace"), std::string::npos) << msg;
  msg = run({node(0, {}), node(0, {})});
  EXPECT_NE(msg.find("duplicate node id 0"), std::string::npos) << msg;
  msg = run({node(0, {0})});
  EXPECT_NE(msg.find("has itself as a data dependency"), std::string::npos) << msg;
  // a cycle through a control dependency says how to replay such a trace
  msg = run({node(0, {}, {1}), node(1, {0})});
  EXPECT_NE(msg.find("through control dependencies"), std::string::npos) << msg;
  // window too small for a parent far ahead
  std::vector<Node> far;
  for (uint64_t i = 0; i < 10; i++)
    far.push_back(node(i, {50}));
  for (uint64_t i = 10; i <= 50; i++)
    far.push_back(node(i, {}));
  Feeder::Options tiny;
  tiny.window = 10;
  msg         = run(far, tiny);
  EXPECT_NE(msg.find("t.et: byte "), std::string::npos) << msg;
  EXPECT_NE(msg.find("no node is issuable among the 10 read ahead"), std::string::npos) << msg;
  tiny.window = 64; // the same trace replays with a larger window
  EXPECT_EQ(run(far, tiny), "no error");
}

TEST(ChakraFeeder, MissingOrSelfControlParentsAreDroppedAndCounted)
{
  // converted PyTorch traces: control parents on host ops that are not in the trace, or on itself
  Trace t;
  Node a;
  a.id        = 10;
  a.type      = NodeType::comp;
  a.ctrl_deps = {3, 10};
  Node b;
  b.id        = 11;
  b.type      = NodeType::comp;
  b.data_deps = {10};
  b.ctrl_deps = {3};
  t.nodes     = {a, b};
  Feeder f(EtReader(encode(t), "t.et"));
  const Node* n = f.next_issuable();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->id, 10U);
  f.complete(10);
  n = f.next_issuable();
  ASSERT_NE(n, nullptr);
  EXPECT_EQ(n->id, 11U);
  f.complete(11);
  EXPECT_TRUE(f.finished());
  EXPECT_EQ(f.control_deps_ignored(), 3U);
}

TEST(ChakraStats, CountsAndCriticalPath)
{
  TraceBuilder b;
  uint64_t x                = b.compute("x", 1000, 0, {}, 10);
  uint64_t y                = b.compute("y", 500, 0, {}, 3);
  uint64_t r                = b.collective("ar", CollectiveType::all_reduce, 4096, {x, y}, "dp");
  b.node(r).duration_micros = 7;
  b.send("s", 1, 256, 0, {r});
  auto file = sgai::test::temp_dir() / "s.3.et";
  write_trace(file, b.trace());
  auto s = trace_stats(file);
  EXPECT_EQ(s.rank, 3U);
  EXPECT_EQ(s.nodes, 4U);
  EXPECT_EQ(s.by_type[NodeType::comp], 2U);
  EXPECT_EQ(s.collectives[CollectiveType::all_reduce].count, 1U);
  EXPECT_EQ(s.collectives[CollectiveType::all_reduce].bytes, 4096U);
  EXPECT_EQ(s.sends.bytes, 256U);
  EXPECT_DOUBLE_EQ(s.compute_ops, 1500);
  EXPECT_EQ(s.total_duration_us, 20U);
  EXPECT_EQ(s.critical_path_us, 17U); // x (10) then the all-reduce (7)
  EXPECT_EQ(s.process_groups["dp"], 1U);
}

TEST(ChakraGenerate, MicrobenchmarksAreAstraSims)
{
  SGAI_REQUIRE_SHARED_DATA();
  // the generated files are byte for byte those ASTRA-sim ships
  size_t compared = 0;
  for (auto [name, type] :
       {std::pair{"all_reduce", CollectiveType::all_reduce}, std::pair{"all_gather", CollectiveType::all_gather},
        std::pair{"reduce_scatter", CollectiveType::reduce_scatter},
        std::pair{"all_to_all", CollectiveType::all_to_all}})
    for (uint32_t npus : {4U, 8U, 16U}) {
      auto ours = microbenchmark(type, npus, 1 << 20);
      ASSERT_EQ(ours.size(), npus);
      for (uint32_t r = 0; r < npus; r++) {
        auto theirs =
            sgai::test::shared_data("astra-sim/examples/workload/microbenchmarks/" + std::string(name) + "/" +
                                    std::to_string(npus) + "npus_1MB/" + name + "." + std::to_string(r) + ".et");
        EXPECT_TRUE(encode(ours[r]) == sgai::read_text_file(theirs)) << theirs;
        compared++;
      }
    }
  EXPECT_EQ(compared, 4U * (4 + 8 + 16));
  EXPECT_EQ(size_label(1 << 20), "1MB");
  EXPECT_EQ(size_label(3 << 10), "3KB");
  EXPECT_EQ(size_label(1000), "1000B");
}

TEST(ChakraVisualize, DotDrawsFilteredNodesAndTheirEdges)
{
  TraceBuilder b;
  uint64_t x = b.compute("x", 1000);
  uint64_t y = b.compute("y \"quoted\"", 10, 0, {x});
  uint64_t r = b.collective("ar", CollectiveType::all_reduce, 1 << 20, {y});
  b.control_dep(r, x);
  auto file = sgai::test::temp_dir() / "v.0.et";
  write_trace(file, b.trace());
  std::ostringstream all;
  auto s = write_dot(file, DotOptions{}, all);
  EXPECT_EQ(s.nodes_drawn, 3U);
  EXPECT_EQ(s.edges_drawn, 3U); // x->y, y->ar, x->ar (control, dashed)
  EXPECT_NE(all.str().find("n0 -> n1;"), std::string::npos);
  EXPECT_NE(all.str().find("n0 -> n2 [style=dashed"), std::string::npos);
  EXPECT_NE(all.str().find("y \\\"quoted\\\""), std::string::npos);
  EXPECT_NE(all.str().find("ALL_REDUCE 1.000 MiB"), std::string::npos);
  DotOptions only_comp;
  only_comp.types = {NodeType::comp};
  std::ostringstream some;
  s = write_dot(file, only_comp, some);
  EXPECT_EQ(s.nodes_drawn, 2U);
  EXPECT_EQ(s.edges_drawn, 1U);
  DotOptions two;
  two.max_nodes = 2;
  std::ostringstream cut;
  s = write_dot(file, two, cut);
  EXPECT_TRUE(s.truncated);
  EXPECT_EQ(s.nodes_drawn, 2U);
}

TEST(ChakraVisualize, ReplayLogBecomesAChromeTrace)
{
  TraceBuilder b;
  uint64_t x                = b.compute("x", 1000, 0, {}, 10);
  uint64_t c                = b.collective("c, with comma", CollectiveType::all_gather, 64, {x});
  b.node(c).duration_micros = 5;
  auto file                 = sgai::test::temp_dir() / "r.2.et";
  write_trace(file, b.trace());
  std::vector<ReplayEvent> log;
  trace_stats(file, 64, Deps::all, &log);
  ASSERT_EQ(log.size(), 4U);
  std::ostringstream csv;
  write_replay_log(log, csv);
  auto path = sgai::test::temp_dir() / "r.csv";
  sgai::write_file_atomically(path, csv.str());
  auto back = read_replay_log(path);
  ASSERT_EQ(back.size(), 4U);
  EXPECT_EQ(back[2].name, "c, with comma");
  EXPECT_EQ(back[2].rank, 2U);
  std::ostringstream trace;
  EXPECT_EQ(write_chrome_trace(back, trace), 2U);
  auto j     = nlohmann::json::parse(trace.str());
  bool found = false;
  for (const auto& e : j.at("traceEvents"))
    if (e.at("ph") == "X" && e.at("name") == "c, with comma") {
      EXPECT_EQ(e.at("ts").get<double>(), 10);
      EXPECT_EQ(e.at("dur").get<double>(), 5);
      EXPECT_EQ(e.at("tid").get<int>(), 3); // communication track
      EXPECT_EQ(e.at("pid").get<int>(), 2);
      found = true;
    }
  EXPECT_TRUE(found);
  // a callback without its issue
  sgai::write_file_atomically(path, "rank,node_id,event,time_us,type,name\n0,1,callback,3,COMP_NODE,x\n");
  EXPECT_NE(error_of([&]() {
              std::ostringstream o;
              write_chrome_trace(read_replay_log(path), o);
            }).find("callback of node 1 without an issue"),
            std::string::npos);
  sgai::write_file_atomically(path, "rank,node_id,event,time_us,type,name\n0,1,issue,soon,COMP_NODE,x\n");
  EXPECT_NE(error_of([&]() { read_replay_log(path); }).find("line 2: time_us 'soon'"), std::string::npos);
}

// ------------------------------------------------------------------------------- conversion

TEST(ChakraConvert, DlrmCollectivesMatchTheNcclKernelsOfEveryRank)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto dir = dlrm_dir();
  for (int r = 0; r < 8; r++) {
    std::filesystem::path kineto = dlrm_kineto(r);
    ASSERT_FALSE(kineto.empty()) << r;
    ConversionReport report;
    Trace t = convert_pytorch(dir / "dlrm_pytorch_et" / ("dlrm_eg_" + std::to_string(r) + ".json"), kineto, &report);
    // NCCL kernels in the Kineto trace, by the collective their name denotes
    std::map<CollectiveType, int> kernels;
    auto k = nlohmann::json::parse(sgai::read_text_file(kineto));
    for (const auto& e : k.at("traceEvents"))
      if (e.value("cat", "") == "kernel" && e.value("name", "").rfind("nccl", 0) == 0)
        kernels[*collective_of_name(e.at("name").get<std::string>())]++;
    std::map<CollectiveType, int> ours;
    for (const auto& n : t.nodes)
      if (n.type == NodeType::comm_coll) {
        ASSERT_EQ(n.bool_attr("is_cpu_op"), false);
        ours[*n.collective()]++;
        EXPECT_GT(*n.comm_size(), 0U);
      }
    EXPECT_EQ(ours, kernels) << "rank " << r;
    EXPECT_EQ(kernels[CollectiveType::all_to_all], 5) << "rank " << r; // 5 SendRecv kernels of nccl:all_to_all
    EXPECT_EQ(kernels[CollectiveType::all_reduce], 3) << "rank " << r;
    EXPECT_EQ(report.host_ops, 496U);
    EXPECT_EQ(report.unknown_ops, 3U); // "## NoWait wait() ##" regions holding no operator
    EXPECT_GT(report.gpu_ops, 250U);
    // every GPU node follows its host operator
    std::set<uint64_t> seen;
    for (const auto& n : t.nodes) {
      for (uint64_t p : n.data_deps)
        EXPECT_TRUE(seen.count(p)) << n.id << " depends on a later node " << p;
      seen.insert(n.id);
    }
    // and the trace round-trips
    auto file = dir / ("dlrm." + std::to_string(r) + ".et");
    write_trace(file, t);
    EXPECT_EQ(read_trace(file).nodes.size(), t.nodes.size());
  }
}

TEST(ChakraConvert, HostTraceAloneGivesCollectivesFromNcclOperators)
{
  auto dir  = sgai::test::temp_dir();
  auto file = dir / "host.json";
  sgai::write_file_atomically(file, R"({"schema": "1.0.1", "nodes": [
    {"id": 1, "name": "[pytorch|profiler|execution_graph|process]", "parent": 1, "rf_id": 0, "tid": 0},
    {"id": 2, "name": "[pytorch|profiler|execution_graph|thread]", "parent": 1, "rf_id": 1, "tid": 1},
    {"id": 3, "name": "## forward ##", "parent": 2, "rf_id": 2, "tid": 1},
    {"id": 4, "name": "aten::mm", "parent": 3, "rf_id": 3, "tid": 1, "inputs": [[10, 11, 0, 64, 4, "cuda:0"]]},
    {"id": 5, "name": "c10d::allreduce_", "parent": 3, "rf_id": 4, "tid": 1},
    {"id": 6, "name": "nccl:all_reduce", "parent": 5, "rf_id": 5, "tid": 1, "inputs": [[12, 13, 0, 1024, 4, "cuda:0"]]},
    {"id": 7, "name": "my_custom_region", "parent": 2, "rf_id": 6, "tid": 1}
  ]})");
  ConversionReport r;
  Trace t = convert_pytorch(file, {}, &r);
  EXPECT_EQ(r.host_ops, 2U);    // aten::mm, c10d::allreduce_
  EXPECT_EQ(r.unknown_ops, 1U); // my_custom_region: kept as INVALID
  ASSERT_EQ(t.nodes.size(), 4U);
  EXPECT_EQ(t.nodes[0].name, "aten::mm");
  EXPECT_EQ(t.nodes[1].name, "c10d::allreduce_");
  EXPECT_EQ(t.nodes[1].data_deps, (std::vector<uint64_t>{4}));
  EXPECT_EQ(t.nodes[2].type, NodeType::comm_coll);
  EXPECT_EQ(t.nodes[2].collective(), CollectiveType::all_reduce);
  EXPECT_EQ(t.nodes[2].comm_size(), 4096U);
  EXPECT_EQ(t.nodes[3].type, NodeType::invalid);
  EXPECT_EQ(collective_of_name("ncclDevKernel_ReduceScatter_Sum_f32_RING_LL(ncclDevComm*)"),
            CollectiveType::reduce_scatter);
  EXPECT_EQ(collective_of_name("nccl:_all_gather_base"), CollectiveType::all_gather);
  EXPECT_FALSE(collective_of_name("aten::mm"));
  sgai::write_file_atomically(file, R"({"nodes": [{"id": 1, "name": 3, "parent": 1}]})");
  EXPECT_NE(error_of([&]() { convert_pytorch(file, {}); }).find("at /nodes/0/name: expected a string"),
            std::string::npos);
  // a key written twice is refused with its place (the strict reader), not read as its last value
  sgai::write_file_atomically(file, R"({"nodes": [{"id": 1, "name": "a", "name": "b", "parent": 1}]})");
  auto twice = error_of([&]() { convert_pytorch(file, {}); });
  EXPECT_NE(twice.find("duplicate key 'name'"), std::string::npos) << twice;
}

// ------------------------------------------------------------------------------- training

TEST(ChakraTraining, HybridParallelIterationIsConsistentAcrossRanks)
{
  auto model = transformer(6, 256, 128, 4); // 6 layers over 2 stages
  Parallelism p;
  p.data         = 2;
  p.tensor       = 2;
  p.pipeline     = 2;
  p.microbatches = 3;
  p.bucket_bytes = 600000; // a few layers per bucket
  auto ranks     = training_iteration(model, p);
  ASSERT_EQ(ranks.size(), 8U);
  // point to point: every send has its receive (peer, tag, size)
  std::multiset<std::tuple<int64_t, int64_t, int64_t, uint64_t>> sends, recvs; // from, to, tag, bytes
  // collectives: every member of a group issues the same ones in the same order
  std::map<std::string, std::map<int, std::vector<std::pair<CollectiveType, uint64_t>>>> groups;
  double flops = 0;
  for (size_t r = 0; r < ranks.size(); r++) {
    for (const auto& n : ranks[r].nodes) {
      if (n.type == NodeType::comm_send)
        sends.insert({static_cast<int64_t>(r), *n.int_attr("comm_dst"), *n.int_attr("comm_tag"), *n.comm_size()});
      if (n.type == NodeType::comm_recv)
        recvs.insert({*n.int_attr("comm_src"), static_cast<int64_t>(r), *n.int_attr("comm_tag"), *n.comm_size()});
      if (n.type == NodeType::comm_coll)
        groups[*n.attr("pg_name")->as_string()][static_cast<int>(r)].push_back({*n.collective(), *n.comm_size()});
      if (n.type == NodeType::comp)
        flops += *n.num_ops();
    }
    // each rank replays: parents before children, no cycle
    auto order = replay(ranks[r]);
    EXPECT_EQ(order.size(), ranks[r].nodes.size());
  }
  EXPECT_EQ(sends, recvs);
  EXPECT_EQ(sends.size(), 2U * 2 * 2 * 3); // 2 boundaries x ... : (dp x tp) pairs x fwd+bwd x 3 microbatches
  ASSERT_EQ(groups.size(), 8U);            // 4 data-parallel and 4 tensor-parallel groups
  for (const auto& [name, members] : groups) {
    ASSERT_EQ(members.size(), 2U) << name;
    EXPECT_EQ(members.begin()->second, std::next(members.begin())->second) << name;
  }
  // gradients all-reduced once per stage: the stage's parameters over the tensor shards
  uint64_t stage_params = 3 * model.layers[0].param_bytes / 2;
  uint64_t synced       = 0;
  // groups numbered as ASTRA-sim reads them: tensor-parallel 1-4 (stage, replica), then
  // data-parallel 5-8 (stage, shard); the file's groups are the ones the traces name
  auto file_groups = training_groups(p);
  ASSERT_EQ(file_groups.size(), 8U);
  EXPECT_EQ(file_groups["2"], (std::vector<uint32_t>{2, 3})); // stage 0, replica 1
  EXPECT_EQ(file_groups["5"], (std::vector<uint32_t>{0, 2})); // stage 0, shard 0
  EXPECT_EQ(file_groups["8"], (std::vector<uint32_t>{5, 7})); // stage 1, shard 1
  for (const auto& [name, members] : groups)
    EXPECT_EQ(file_groups.count(name), 1U) << name;
  for (const auto& [type, bytes] : groups["5"][0])
    synced += bytes;
  EXPECT_NEAR(static_cast<double>(synced), static_cast<double>(stage_params), 8.0);
  EXPECT_GT(groups["5"][0].size(), 1U); // more than one bucket
  // compute: forward + backward of every layer, once per data-parallel replica, plus the optimizer
  double expected = 0;
  for (const auto& l : model.layers)
    expected += l.forward_flops + l.backward_flops;
  expected *= p.data;
  EXPECT_GT(flops, expected * (1 - 1e-6));
  EXPECT_LT(flops, expected * 1.01);
  EXPECT_THROW(training_iteration(model, Parallelism{1, 1, 7, 1, 1}), std::invalid_argument);
}

TEST(ChakraTraining, DataParallelAloneIsComputeThenBuckets)
{
  auto model = transformer(4, 128, 64, 2);
  Parallelism p;
  p.data     = 4;
  auto ranks = training_iteration(model, p);
  ASSERT_EQ(ranks.size(), 4U);
  size_t colls = 0;
  for (const auto& n : ranks[0].nodes) {
    EXPECT_NE(n.type, NodeType::comm_send);
    if (n.type == NodeType::comm_coll) {
      colls++;
      EXPECT_EQ(*n.attr("pg_name")->as_string(), "5"); // after the 4 one-rank tensor-parallel groups
    }
  }
  EXPECT_EQ(colls, 1U); // 4 small layers fit one 25 MiB bucket
}

// ------------------------------------------------------------------------------- synthesis

TEST(ChakraSynth, MixtureRecoversKnownComponents)
{
  std::mt19937_64 rng(7);
  std::normal_distribution<double> a(10, 0.5), b(20, 1.0);
  std::uniform_real_distribution<double> u(0, 1);
  std::vector<double> data;
  for (int i = 0; i < 4000; i++)
    data.push_back(u(rng) < 0.3 ? a(rng) : b(rng));
  Mixture m = Mixture::fit(data, 4);
  ASSERT_EQ(m.components.size(), 2U); // BIC does not pay for more
  EXPECT_NEAR(m.components[0].weight, 0.3, 0.03);
  EXPECT_NEAR(m.components[0].mean, 10, 0.1);
  EXPECT_NEAR(m.components[0].stddev, 0.5, 0.05);
  EXPECT_NEAR(m.components[1].mean, 20, 0.1);
  EXPECT_NEAR(m.components[1].stddev, 1.0, 0.08);
  EXPECT_GT(m.log_likelihood(data), Mixture::fit(data, 1).log_likelihood(data));
}

TEST(ChakraSynth, RepeatedValuesArePointMassesSampledExactly)
{
  // sizes of 1 MiB and 4 KiB (as log2(1 + bytes)), repeated
  double big = std::log2(1.0 + 1048576), small = std::log2(1.0 + 4096);
  Mixture m = Mixture::fit({big, big, big, small, big, small}, 4);
  ASSERT_EQ(m.components.size(), 2U);
  EXPECT_LT(m.components[0].stddev, Mixture::kPointMass);
  EXPECT_NEAR(m.components[0].weight, 2.0 / 6, 1e-9);
  EXPECT_EQ(std::round(std::exp2(m.sample(0.1, 0.5, 0.5)) - 1), 4096);
  EXPECT_EQ(std::round(std::exp2(m.sample(0.9, 0.5, 0.5)) - 1), 1048576);
}

TEST(ChakraSynth, KolmogorovSmirnovStatistic)
{
  EXPECT_EQ(ks_statistic({1, 2, 3}, {3, 2, 1}), 0);
  EXPECT_EQ(ks_statistic({1, 2}, {3, 4}), 1);
  EXPECT_DOUBLE_EQ(ks_statistic({1, 2, 3, 4}, {3, 4, 5, 6}), 0.5);
  EXPECT_DOUBLE_EQ(ks_statistic({5, 5, 5, 5}, {5, 5, 9, 9}), 0.5);
}

namespace {

/** Rank traces whose collectives are known: every rank all-reduce 1 MiB, all-gather 64 KiB,
 *  all-reduce 1 MiB, compute of 100 us before each; rank 3 adds a collective without comm_type. */
std::vector<std::filesystem::path> synth_inputs()
{
  auto dir = sgai::test::temp_dir() / "synth_in";
  std::vector<Trace> ranks;
  for (int r = 0; r < 4; r++) {
    TraceBuilder b;
    uint64_t c1 = b.compute("c1", 1000000, 0, {}, 100);
    uint64_t a1 = b.collective("ar1", CollectiveType::all_reduce, 1 << 20, {c1});
    uint64_t c2 = b.compute("c2", 1000000, 0, {a1}, 100);
    uint64_t g  = b.collective("ag", CollectiveType::all_gather, 64 << 10, {c2});
    uint64_t c3 = b.compute("c3", 1000000, 0, {g}, 100);
    uint64_t a2 = b.collective("ar2", CollectiveType::all_reduce, 1 << 20, {c3});
    if (r == 3)
      b.add(NodeType::comm_coll, "untyped", {a2});
    ranks.push_back(b.take());
  }
  return write_workload(dir, "in", ranks);
}

} // namespace

TEST(ChakraSynth, FitsCompositionOrderLengthsAndSizes)
{
  SynthModel m = fit_synth_model(synth_inputs());
  EXPECT_EQ(m.input_ranks, 4U);
  EXPECT_EQ(m.skipped_collectives, 1U);
  EXPECT_DOUBLE_EQ(m.length_mean, 3);
  EXPECT_DOUBLE_EQ(m.length_stddev, 0);
  EXPECT_NEAR(m.composition.at(CollectiveType::all_reduce), 2.0 / 3, 1e-12);
  EXPECT_NEAR(m.composition.at(CollectiveType::all_gather), 1.0 / 3, 1e-12);
  EXPECT_EQ(m.first.at(CollectiveType::all_reduce), 4U);
  EXPECT_EQ(m.transitions.at(CollectiveType::all_reduce).at(CollectiveType::all_gather), 4U);
  EXPECT_EQ(m.transitions.at(CollectiveType::all_gather).at(CollectiveType::all_reduce), 4U);
  ASSERT_EQ(m.sizes.at(CollectiveType::all_reduce).components.size(), 1U);
  EXPECT_NEAR(m.sizes.at(CollectiveType::all_reduce).components[0].mean, std::log2(1.0 + (1 << 20)), 1e-9);
  ASSERT_EQ(m.compute_gap.components.size(), 1U);
  EXPECT_NEAR(m.compute_gap.components[0].mean, std::log2(101.0), 1e-9);
  EXPECT_DOUBLE_EQ(m.ops_per_micro, 10000);

  // Order 1 reproduces the sequence exactly: AR 1 MiB, AG 64 KiB, AR 1 MiB, 100 us before each.
  SynthSampleOptions o;
  o.ranks         = 6;
  o.group_size    = 3;
  SynthOutput out = sample_synth(m, o);
  ASSERT_EQ(out.ranks.size(), 6U);
  EXPECT_EQ(out.groups.at("1"), (std::vector<uint32_t>{3, 4, 5}));
  for (uint32_t r = 0; r < 6; r++) {
    std::vector<std::tuple<CollectiveType, uint64_t, std::string>> seq;
    for (const auto& n : out.ranks[r].nodes) {
      if (n.type == NodeType::comp) {
        EXPECT_EQ(n.duration_micros, 100U);
        EXPECT_EQ(n.num_ops(), 1e6);
      } else
        seq.emplace_back(*n.collective(), *n.comm_size(), *n.attr("pg_name")->as_string());
    }
    std::string g = std::to_string(r / 3);
    EXPECT_EQ(seq, (decltype(seq){{CollectiveType::all_reduce, 1 << 20, g},
                                  {CollectiveType::all_gather, 64 << 10, g},
                                  {CollectiveType::all_reduce, 1 << 20, g}}))
        << "rank " << r;
  }
  EXPECT_THROW(sample_synth(m, {.ranks = 6, .group_size = 4}), std::invalid_argument);
  EXPECT_THROW(sample_synth(m, {.ranks = 0}), std::invalid_argument);
  EXPECT_THROW(fit_synth_model({}), sgai::InputError);
}

TEST(ChakraSynth, ModelFileRoundTripsAndBadModelsAreNamed)
{
  SynthModel m     = fit_synth_model(synth_inputs());
  auto file        = sgai::test::temp_dir() / "model.json";
  std::string text = synth_model_json(m);
  sgai::write_file_atomically(file, text);
  SynthModel back     = read_synth_model(file);
  back.observed_sizes = m.observed_sizes;
  EXPECT_EQ(synth_model_json(back), text);
  // sampling from the file gives the same traces as from the fit
  auto a = sample_synth(m, {.ranks = 4, .seed = 3});
  auto b = sample_synth(back, {.ranks = 4, .seed = 3});
  EXPECT_EQ(encode(a.ranks[2]), encode(b.ranks[2]));

  auto bad = [&](const std::string& from, const std::string& to) {
    auto pos = text.find(from);
    EXPECT_NE(pos, std::string::npos) << from;
    std::string t = text;
    t.replace(pos, from.size(), to);
    sgai::write_file_atomically(file, t);
    return error_of([&]() { read_synth_model(file); });
  };
  EXPECT_NE(bad("\"composition\": {\"ALL_REDUCE\"", "\"composition\": {\"ALL_REDUCER\"")
                .find("at /composition/ALL_REDUCER: unknown collective type 'ALL_REDUCER'"),
            std::string::npos);
  EXPECT_NE(bad("\"ops_per_micro\"", "\"ops_per_mirco\": 1, \"ops_per_micro\"").find("unknown key 'ops_per_mirco'"),
            std::string::npos);
  EXPECT_NE(bad("\"weight\": 1,", "\"weight\": 0.5,").find("weights add up to 1"), std::string::npos);
}

TEST(ChakraSynth, DlrmSizesAreReproducedAtAnyRankCount)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto files   = sgai::test::dlrm_converted("synth_dlrm");
  SynthModel m = fit_synth_model(files);
  EXPECT_DOUBLE_EQ(m.composition.at(CollectiveType::all_reduce), 24.0 / 64);
  EXPECT_DOUBLE_EQ(m.composition.at(CollectiveType::all_to_all), 40.0 / 64);
  EXPECT_DOUBLE_EQ(m.length_mean, 8);
  EXPECT_FALSE(m.compute_gap.components.empty()); // Kineto gives the kernels' durations

  SynthOutput out = sample_synth(m, {.ranks = 1024, .group_size = 8, .seed = 11});
  EXPECT_EQ(out.groups.size(), 128U);
  EXPECT_EQ(out.sampled_collectives, 128U * 8);
  for (CollectiveType t : {CollectiveType::all_reduce, CollectiveType::all_to_all})
    EXPECT_LT(ks_statistic(m.observed_sizes.at(t), out.sampled_sizes.at(t)), 0.06) << to_string(t);
  // every member of a group issues the same collectives in the same order
  for (uint32_t g = 0; g < 128; g += 37) {
    auto collectives = [&](uint32_t r) {
      std::vector<std::pair<int, uint64_t>> s;
      for (const auto& n : out.ranks[r].nodes)
        if (n.type == NodeType::comm_coll)
          s.emplace_back(static_cast<int>(*n.collective()), *n.comm_size());
      return s;
    };
    for (uint32_t r = 1; r < 8; r++)
      EXPECT_EQ(collectives(g * 8 + r), collectives(g * 8));
  }
  // same seed, same traces
  EXPECT_EQ(encode(sample_synth(m, {.ranks = 16, .seed = 4}).ranks[5]),
            encode(sample_synth(m, {.ranks = 16, .seed = 4}).ranks[5]));
}
