#include "chakra/convert.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"

#include <algorithm>
#include <functional>
#include <map>
#include <set>
#include <unordered_map>
#include <unordered_set>

namespace sgai::chakra {

namespace {

// -------------------------------------------------------------------------------- host trace

struct HostOp {
  explicit HostOp(json::Value n)
      : node(std::move(n))
  {
  }

  json::Value node; ///< its node in the trace: inputs and outputs are read from it when needed
  uint64_t id     = 0;
  uint64_t parent = 0;
  int64_t rf_id   = 0;
  int64_t tid     = 0;
  std::string name;
  std::string op_schema;
  std::vector<uint64_t> children; ///< in rf_id order

  /** A field of the node kept as it is (inputs, input_shapes, ...), none when absent. */
  std::optional<json::Value> field(const char* key) const { return node.object().optional(key); }
};

bool is_thread_root(const std::string& name)
{
  return name.rfind("[pytorch|profiler|execution_graph|", 0) == 0;
}

/** Operators are namespaced (aten::, c10d::, autograd::..., torch::...) or NCCL record functions;
 *  other entries (## annotations ##, Module.forward, Optimizer.step#...) are regions. */
bool is_operator(const std::string& name)
{
  return name.find("::") != std::string::npos || name.rfind("nccl:", 0) == 0 || name == "record_param_comms";
}

[[noreturn]] void fail(const std::filesystem::path& file, const std::string& pointer, const std::string& what)
{
  throw InputError(file.string(), "at " + pointer, what);
}

/** A JSON trace, gzipped or not. */
json::Document load_trace(const std::filesystem::path& file)
{
  return json::parse(read_maybe_gzip(file, "a JSON trace"), file.string());
}

/** The host operators; their nodes keep many more keys (PyTorch's), which are left alone. */
std::vector<HostOp> read_host_ops(const json::Document& doc)
{
  if (not doc.value().is_object())
    doc.value().fail("a PyTorch execution trace is an object with 'nodes'");
  auto nodes = doc.object().required("nodes");
  if (not nodes.is_array())
    nodes.fail("expected an array of nodes");
  auto list = nodes.array();
  std::vector<HostOp> ops;
  ops.reserve(list.size());
  for (auto& n : list) {
    if (not n.is_object())
      n.fail("expected a node object");
    auto o = n.object();
    HostOp op(n);
    // whole numbers as C++ converts them (a negative id wraps, as it always did)
    op.id     = static_cast<uint64_t>(o.required("id").integer());
    op.parent = static_cast<uint64_t>(o.required("parent").integer());
    auto rf   = o.optional("rf_id");
    op.rf_id  = rf ? rf->integer() : static_cast<int64_t>(op.id);
    if (auto tid = o.optional("tid"))
      op.tid = tid->integer();
    op.name = o.required("name").string();
    if (auto s = o.optional("op_schema"); s && s->is_string())
      op.op_schema = s->string();
    ops.push_back(std::move(op));
  }
  return ops;
}

/** Bytes of the tensors among an operator's inputs: entries [tensor_id, storage_id, offset,
 *  elements, element_bytes, device]. */
uint64_t tensor_bytes(const std::optional<json::Value>& inputs)
{
  uint64_t bytes = 0;
  if (not inputs || not inputs->is_array())
    return 0;
  for (const auto& v : inputs->array()) {
    if (not v.is_array())
      continue;
    auto e = v.array();
    if (e.size() == 6 && e[3].is_integer() && e[4].is_integer() && e[5].is_string())
      bytes += static_cast<uint64_t>(e[3].integer()) * static_cast<uint64_t>(e[4].integer());
  }
  return bytes;
}

// ------------------------------------------------------------------------------------ kineto

struct KinetoEvent {
  std::string name;
  int64_t tid    = 0;
  double ts      = 0;
  double dur     = 0;
  int64_t ev_idx = -1;
  int64_t stream = -1;
  int64_t corr   = -1;
  std::string cat;
};

/** A text field, "" when absent. */
std::string text_of(json::Object& e, const char* key)
{
  auto v = e.optional(key);
  if (not v)
    return "";
  if (not v->is_string())
    v->fail("expected text, got " + v->shown());
  return v->string();
}

/** A whole-number field into `to`, left as it is when absent or not a whole number. */
void whole_into(json::Object& e, const char* key, int64_t& to)
{
  if (auto v = e.optional(key); v && v->is_integer())
    to = v->integer();
}

/** Kineto's complete events of the kinds the converter links; the others are left alone. */
std::vector<KinetoEvent> read_kineto(const json::Document& doc)
{
  if (not doc.value().is_object())
    doc.value().fail("a Kineto trace is an object with 'traceEvents'");
  auto events = doc.object().required("traceEvents");
  if (not events.is_array())
    events.fail("expected an array");
  std::vector<KinetoEvent> out;
  for (const auto& ev : events.array()) {
    if (not ev.is_object())
      continue;
    auto e = ev.object();
    if (text_of(e, "ph") != "X")
      continue;
    KinetoEvent k;
    k.cat = text_of(e, "cat");
    if (k.cat != "cpu_op" && k.cat != "user_annotation" && k.cat != "cuda_runtime" && k.cat != "kernel" &&
        k.cat != "gpu_memcpy" && k.cat != "gpu_memset")
      continue;
    k.name = text_of(e, "name");
    k.ts   = e.required("ts").number();
    k.dur  = e.required("dur").number();
    whole_into(e, "tid", k.tid);
    if (auto a = e.optional("args"); a && a->is_object()) {
      auto args = a->object();
      whole_into(args, "Ev Idx", k.ev_idx);
      whole_into(args, "stream", k.stream);
      whole_into(args, "correlation", k.corr);
    }
    out.push_back(std::move(k));
  }
  return out;
}

/** Matches host operators with Kineto host events: threads paired by how many names align, then
 *  within a pair, in order, each operator with the next event of its name (a few may be absent
 *  on either side). Returns host op index -> Kineto event index. */
std::unordered_map<size_t, size_t> link_host(const std::vector<HostOp>& ops, const std::vector<KinetoEvent>& ev)
{
  std::map<int64_t, std::vector<size_t>> et_threads, k_threads;
  for (size_t i = 0; i < ops.size(); i++)
    if (not is_thread_root(ops[i].name))
      et_threads[ops[i].tid].push_back(i);
  for (auto& [tid, list] : et_threads)
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) { return ops[a].rf_id < ops[b].rf_id; });
  for (size_t i = 0; i < ev.size(); i++)
    if (ev[i].cat == "cpu_op" || ev[i].cat == "user_annotation")
      k_threads[ev[i].tid].push_back(i);
  for (auto& [tid, list] : k_threads)
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) {
      return ev[a].ev_idx != ev[b].ev_idx ? ev[a].ev_idx < ev[b].ev_idx : ev[a].ts < ev[b].ts;
    });
  auto align = [&](const std::vector<size_t>& a, const std::vector<size_t>& b, auto on_match) {
    size_t j = 0, matched = 0;
    for (size_t i = 0; i < a.size() && j < b.size(); i++) {
      for (size_t k = j; k < b.size() && k < j + 64; k++)
        if (ev[b[k]].name == ops[a[i]].name) {
          on_match(a[i], b[k]);
          matched++;
          j = k + 1;
          break;
        }
    }
    return matched;
  };
  std::unordered_map<size_t, size_t> link;
  std::set<int64_t> taken;
  for (const auto& [et_tid, a] : et_threads) {
    int64_t best = 0;
    size_t most  = 0;
    for (const auto& [k_tid, b] : k_threads) {
      if (taken.count(k_tid))
        continue;
      size_t m = align(a, b, [](size_t, size_t) {});
      if (m > most) {
        most = m;
        best = k_tid;
      }
    }
    if (most == 0)
      continue;
    taken.insert(best);
    align(a, k_threads[best], [&](size_t op, size_t k) { link[op] = k; });
  }
  return link;
}

} // namespace

std::optional<CollectiveType> collective_of_name(const std::string& raw)
{
  std::string n;
  for (char c : raw)
    if (c != '_')
      n.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  // most specific first
  const std::pair<const char*, CollectiveType> table[] = {{"reducescatter", CollectiveType::reduce_scatter},
                                                          {"allreduce", CollectiveType::all_reduce},
                                                          {"allgather", CollectiveType::all_gather},
                                                          {"alltoall", CollectiveType::all_to_all},
                                                          {"sendrecv", CollectiveType::all_to_all},
                                                          {"broadcast", CollectiveType::broadcast},
                                                          {"reduce", CollectiveType::reduce},
                                                          {"gather", CollectiveType::gather},
                                                          {"scatter", CollectiveType::scatter},
                                                          {"barrier", CollectiveType::barrier}};
  if (n.rfind("nccl", 0) != 0 && n.find("c10d") == std::string::npos)
    return std::nullopt;
  for (auto [key, type] : table)
    if (n.find(key) != std::string::npos)
      return type;
  return std::nullopt;
}

namespace {

/** Host op ids to their index in the trace's nodes (a duplicate id is an error). */
std::unordered_map<uint64_t, size_t> index_by_id(const std::filesystem::path& host_et, const std::vector<HostOp>& ops)
{
  std::unordered_map<uint64_t, size_t> by_id;
  for (size_t i = 0; i < ops.size(); i++)
    if (not by_id.emplace(ops[i].id, i).second)
      fail(host_et, "/nodes/" + std::to_string(i) + "/id", "duplicate node id " + std::to_string(ops[i].id));
  return by_id;
}

/** The ops in rf_id order, each added to its parent's children in that order. */
std::vector<size_t> link_children(std::vector<HostOp>& ops, const std::unordered_map<uint64_t, size_t>& by_id)
{
  std::vector<size_t> order(ops.size());
  for (size_t i = 0; i < ops.size(); i++)
    order[i] = i;
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) { return ops[a].rf_id < ops[b].rf_id; });
  for (size_t i : order)
    if (ops[i].parent != ops[i].id)
      if (auto p = by_id.find(ops[i].parent); p != by_id.end())
        ops[p->second].children.push_back(ops[i].id);
  return order;
}

/** Parent links that loop back (a node its own ancestor) would be descended forever: an error. */
void check_no_cycle(const std::filesystem::path& host_et, const std::vector<HostOp>& ops,
                    const std::unordered_map<uint64_t, size_t>& by_id)
{
  std::vector<uint8_t> state(ops.size(), 0); // 0 unseen, 1 on the chain being followed, 2 checked
  for (size_t i = 0; i < ops.size(); i++) {
    std::vector<size_t> chain;
    size_t k = i;
    while (state[k] == 0) {
      state[k] = 1;
      chain.push_back(k);
      auto p = by_id.find(ops[k].parent);
      if (ops[k].parent == ops[k].id || p == by_id.end())
        break;
      k = p->second;
    }
    if (state[k] == 1 && ops[k].parent != ops[k].id && by_id.count(ops[k].parent) != 0)
      fail(host_et, "/nodes/" + std::to_string(k) + "/parent",
           "node " + std::to_string(ops[k].id) + " is its own ancestor (the parent links make a cycle)");
    for (size_t c : chain)
      state[c] = 2;
  }
}

/** The top-level entries of the host trace's threads. */
struct TopLevel {
  std::unordered_map<uint64_t, uint64_t> top_of; ///< every host op id -> its top-level entry
  std::vector<size_t> tops;
  std::unordered_set<uint64_t> ids; ///< the tops' op ids
};

/** The top-level entries of each thread: operators directly under the thread or under regions,
 *  and regions without any operator below (unknown work: INVALID nodes). */
TopLevel top_level(const std::filesystem::path& host_et, const std::vector<HostOp>& ops,
                   std::unordered_map<uint64_t, size_t>& by_id, const std::vector<size_t>& order)
{
  TopLevel out;
  auto& top_of                             = out.top_of;
  auto& tops                               = out.tops;
  std::function<bool(size_t)> has_operator = [&](size_t i) {
    for (uint64_t c : ops[i].children)
      if (is_operator(ops[by_id[c]].name) || has_operator(by_id[c]))
        return true;
    return false;
  };
  std::function<void(size_t, uint64_t)> mark = [&](size_t i, uint64_t top) {
    top_of[ops[i].id] = top;
    for (uint64_t c : ops[i].children)
      mark(by_id[c], top);
  };
  std::function<void(size_t)> descend = [&](size_t i) {
    for (uint64_t c : ops[i].children) {
      size_t k = by_id[c];
      if (is_operator(ops[k].name) || not has_operator(k)) {
        tops.push_back(k);
        mark(k, ops[k].id);
      } else {
        top_of[ops[k].id] = ops[k].id; // a region: its operators are tops of their own
        descend(k);
      }
    }
  };
  std::vector<size_t> roots;
  for (size_t i : order)
    if (ops[i].name == "[pytorch|profiler|execution_graph|thread]")
      roots.push_back(i);
  if (roots.empty())
    fail(host_et, "/nodes", "no '[pytorch|profiler|execution_graph|thread]' node: not a PyTorch execution trace");
  for (size_t root : roots)
    descend(root);
  for (size_t i : tops)
    out.ids.insert(ops[i].id);
  return out;
}

/** Kineto's events and what they are to the host trace. */
struct KinetoLinks {
  std::vector<KinetoEvent> ev;
  std::unordered_map<size_t, size_t> link;            // host op index -> kineto event
  std::map<uint64_t, std::vector<size_t>> gpu_of_top; // top-level op id -> GPU events, launch order
  std::unordered_map<size_t, size_t> launcher_of;     // GPU event -> host op index that launched it
};

/** Kineto: host events linked to operators, GPU events attached to the host op launching them. */
KinetoLinks link_kineto(const std::filesystem::path& kineto, const std::vector<HostOp>& ops, TopLevel& top,
                        ConversionReport& r)
{
  KinetoLinks links;
  auto& ev     = links.ev;
  ev           = read_kineto(load_trace(kineto));
  links.link   = link_host(ops, ev);
  auto& top_of = top.top_of;
  std::unordered_map<size_t, size_t> op_of_event;
  for (const auto& [op, e] : links.link)
    op_of_event[e] = op;
  // host events per thread by start, for the innermost one enclosing a launch
  std::map<int64_t, std::vector<size_t>> host_by_tid;
  std::unordered_map<int64_t, size_t> runtime_by_corr;
  for (size_t i = 0; i < ev.size(); i++) {
    if (ev[i].cat == "cpu_op" || ev[i].cat == "user_annotation")
      host_by_tid[ev[i].tid].push_back(i);
    if (ev[i].cat == "cuda_runtime" && ev[i].corr >= 0)
      runtime_by_corr[ev[i].corr] = i;
  }
  for (auto& [tid, list] : host_by_tid)
    std::sort(list.begin(), list.end(), [&](size_t a, size_t b) { return ev[a].ts < ev[b].ts; });
  std::vector<size_t> gpu;
  for (size_t i = 0; i < ev.size(); i++)
    if (ev[i].cat == "kernel" || ev[i].cat == "gpu_memcpy" || ev[i].cat == "gpu_memset")
      gpu.push_back(i);
  std::sort(gpu.begin(), gpu.end(), [&](size_t a, size_t b) { return ev[a].ts < ev[b].ts; });
  for (size_t g : gpu) {
    auto rt = runtime_by_corr.find(ev[g].corr);
    if (rt == runtime_by_corr.end()) {
      r.kernels_unlinked++;
      continue;
    }
    const KinetoEvent& launch = ev[rt->second];
    // innermost linked host event on the launching thread that encloses the launch
    std::optional<size_t> inner;
    const auto& list = host_by_tid[launch.tid];
    auto it = std::upper_bound(list.begin(), list.end(), launch.ts, [&](double t, size_t e) { return t < ev[e].ts; });
    for (auto k = it; k != list.begin();) {
      --k;
      const KinetoEvent& h = ev[*k];
      if (h.ts <= launch.ts && launch.ts <= h.ts + h.dur && op_of_event.count(*k)) {
        inner = op_of_event[*k];
        break;
      }
      if (launch.ts - h.ts > 60e6) // nothing encloses it within a minute
        break;
    }
    if (not inner || not top_of.count(ops[*inner].id) || not top.ids.count(top_of[ops[*inner].id])) {
      r.kernels_unlinked++;
      continue;
    }
    links.launcher_of[g] = *inner;
    links.gpu_of_top[top_of[ops[*inner].id]].push_back(g);
  }
  return links;
}

/** An empty trace with its metadata: the schema, the converter and the input files. */
Trace empty_trace(const json::Document& host, const std::filesystem::path& host_et, const std::filesystem::path& kineto)
{
  Trace t;
  t.metadata.version = "0.0.4";
  if (auto s = host.object().optional("schema"); s && s->is_string())
    t.metadata.attrs.push_back(Attribute::of_string("schema", s->string()));
  t.metadata.attrs.push_back(Attribute::of_string("converter", "sgai chakra convert"));
  t.metadata.attrs.push_back(Attribute::of_string("host_trace", host_et.filename().string()));
  if (not kineto.empty())
    t.metadata.attrs.push_back(Attribute::of_string("kineto_trace", kineto.filename().string()));
  return t;
}

/** A host op's inputs or outputs (values, shapes, types as JSON text), none when it gives none. */
std::optional<IOInfo> io_of(const HostOp& op, const char* values_key, const char* shapes_key, const char* types_key)
{
  auto values = op.field(values_key);
  auto shapes = op.field(shapes_key);
  auto types  = op.field(types_key);
  if (not values && not shapes && not types)
    return std::nullopt;
  return IOInfo{values ? values->dump() : "", shapes ? shapes->dump() : "", types ? types->dump() : "", {}};
}

/** A top-level host op as a node, after the previous one of its thread; returns its id. */
uint64_t add_host_node(Trace& t, const HostOp& op, size_t i, const KinetoLinks& links,
                       std::map<int64_t, uint64_t>& last_on_thread, ConversionReport& r)
{
  Node n;
  n.id       = op.id;
  n.name     = op.name;
  bool known = is_operator(op.name);
  n.type     = known ? NodeType::comp : NodeType::invalid;
  (known ? r.host_ops : r.unknown_ops)++;
  if (auto prev = last_on_thread.find(op.tid); prev != last_on_thread.end())
    n.data_deps.push_back(prev->second);
  last_on_thread[op.tid] = n.id;
  if (auto l = links.link.find(i); l != links.link.end()) {
    r.host_ops_linked++;
    n.start_time_micros = static_cast<uint64_t>(links.ev[l->second].ts);
    n.duration_micros   = static_cast<uint64_t>(links.ev[l->second].dur);
  }
  n.inputs  = io_of(op, "inputs", "input_shapes", "input_types");
  n.outputs = io_of(op, "outputs", "output_shapes", "output_types");
  n.attrs.push_back(Attribute::of_bool("is_cpu_op", true));
  n.attrs.push_back(Attribute::of_int64("rf_id", op.rf_id));
  n.attrs.push_back(Attribute::of_int64("tid", op.tid));
  if (not op.op_schema.empty())
    n.attrs.push_back(Attribute::of_string("op_schema", op.op_schema));
  uint64_t host_node = n.id;
  t.nodes.push_back(std::move(n));
  return host_node;
}

/** Collectives straight from the host trace: one per nccl:* operator below op `i`, after its node. */
void add_host_collectives(Trace& t, const std::vector<HostOp>& ops, std::unordered_map<uint64_t, size_t>& by_id,
                          size_t i, uint64_t host_node, uint64_t& next_id, ConversionReport& r)
{
  std::function<void(size_t)> collect = [&](size_t k) {
    if (ops[k].name.rfind("nccl:", 0) == 0) {
      Node c;
      c.id        = next_id++;
      c.name      = ops[k].name;
      c.data_deps = {host_node};
      auto type   = collective_of_name(ops[k].name);
      bool p2p    = ops[k].name == "nccl:send" || ops[k].name == "nccl:recv";
      c.type = p2p ? (ops[k].name == "nccl:send" ? NodeType::comm_send : NodeType::comm_recv) : NodeType::comm_coll;
      c.attrs.push_back(Attribute::of_bool("is_cpu_op", false));
      if (not p2p && type) {
        c.attrs.push_back(Attribute::of_int64("comm_type", static_cast<int64_t>(*type)));
        r.collectives[*type]++;
      } else if (p2p) {
        r.point_to_point++;
      }
      c.attrs.push_back(Attribute::of_int64("comm_size", static_cast<int64_t>(tensor_bytes(ops[k].field("inputs")))));
      t.nodes.push_back(std::move(c));
    }
    for (uint64_t ch : ops[k].children)
      collect(by_id[ch]);
  };
  collect(i);
}

/** The GPU events a top-level op launched, as nodes after its node and after the previous one of
 *  their stream; a NCCL kernel is the collective of its nearest nccl:* ancestor, else of its name. */
void add_gpu_nodes(Trace& t, const std::vector<HostOp>& ops, const std::unordered_map<uint64_t, size_t>& by_id,
                   KinetoLinks& links, uint64_t top_id, uint64_t host_node, uint64_t& next_id,
                   std::map<int64_t, uint64_t>& last_on_stream, ConversionReport& r)
{
  // The collective of a GPU event: the nearest nccl:* ancestor of its launching op, else its name.
  auto nccl_ancestor = [&](size_t op) -> std::optional<size_t> {
    for (size_t i = op;;) {
      if (ops[i].name.rfind("nccl:", 0) == 0)
        return i;
      auto p = by_id.find(ops[i].parent);
      if (p == by_id.end() || p->second == i)
        return std::nullopt;
      i = p->second;
    }
  };
  for (size_t g : links.gpu_of_top[top_id]) {
    const KinetoEvent& k = links.ev[g];
    Node gn;
    gn.id                = next_id++;
    gn.name              = k.name;
    gn.start_time_micros = static_cast<uint64_t>(k.ts);
    gn.duration_micros   = static_cast<uint64_t>(k.dur);
    gn.data_deps         = {host_node};
    if (auto prev = last_on_stream.find(k.stream); prev != last_on_stream.end())
      gn.data_deps.push_back(prev->second);
    last_on_stream[k.stream] = gn.id;
    gn.attrs.push_back(Attribute::of_bool("is_cpu_op", false));
    gn.attrs.push_back(Attribute::of_int64("stream", k.stream));
    bool nccl = k.name.rfind("nccl", 0) == 0;
    if (nccl) {
      auto anc  = nccl_ancestor(links.launcher_of[g]);
      auto type = anc ? collective_of_name(ops[*anc].name) : std::nullopt;
      if (not type)
        type = collective_of_name(k.name);
      gn.type = NodeType::comm_coll;
      if (type) {
        gn.attrs.push_back(Attribute::of_int64("comm_type", static_cast<int64_t>(*type)));
        r.collectives[*type]++;
      }
      gn.attrs.push_back(
          Attribute::of_int64("comm_size", static_cast<int64_t>(anc ? tensor_bytes(ops[*anc].field("inputs")) : 0)));
    } else {
      gn.type = NodeType::comp;
    }
    r.gpu_ops++;
    t.nodes.push_back(std::move(gn));
  }
}

} // namespace

Trace convert_pytorch(const std::filesystem::path& host_et, const std::filesystem::path& kineto,
                      ConversionReport* report)
{
  ConversionReport local;
  ConversionReport& r       = report ? *report : local;
  json::Document host       = load_trace(host_et);
  auto ops                  = read_host_ops(host);
  auto by_id                = index_by_id(host_et, ops);
  std::vector<size_t> order = link_children(ops, by_id);
  check_no_cycle(host_et, ops, by_id);
  TopLevel top = top_level(host_et, ops, by_id, order);
  KinetoLinks links;
  if (not kineto.empty())
    links = link_kineto(kineto, ops, top, r);

  Trace t          = empty_trace(host, host_et, kineto);
  uint64_t next_id = 0;
  for (const auto& op : ops)
    next_id = std::max(next_id, op.id + 1);
  std::vector<size_t>& tops = top.tops;
  std::sort(tops.begin(), tops.end(), [&](size_t a, size_t b) { return ops[a].rf_id < ops[b].rf_id; });
  std::map<int64_t, uint64_t> last_on_thread; // previous top-level node of a thread
  std::map<int64_t, uint64_t> last_on_stream; // previous GPU node of a stream
  for (size_t i : tops) {
    uint64_t host_node = add_host_node(t, ops[i], i, links, last_on_thread, r);
    if (kineto.empty()) {
      // collectives straight from the host trace: one per nccl:* operator below this one
      add_host_collectives(t, ops, by_id, i, host_node, next_id, r);
      continue;
    }
    add_gpu_nodes(t, ops, by_id, links, ops[i].id, host_node, next_id, last_on_stream, r);
  }
  if (t.nodes.empty()) // an ET holds at least one node (readers reject an empty one)
    fail(host_et, "/nodes", "no operator below the thread nodes: nothing to convert");
  return t;
}

} // namespace sgai::chakra
