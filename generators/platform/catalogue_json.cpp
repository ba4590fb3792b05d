/* Type catalogues from JSON: HDeepRM's data folder (node_types.json, processor_types.json,
 * network_types.json, memory_types.json, read unchanged) and sgai catalogue files, which add GPU
 * and interconnect types. */
#include "generators/platform/catalogue_json.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "generators/platform/platform.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace sgai::platform {

namespace {

using json::Object;
using json::Value;
using units::Quantity;

constexpr double kGiga = 1e9;
constexpr double kMega = 1e6;

std::string optional_string(Object& o, std::string_view key)
{
  auto v = o.optional(key);
  return v ? v->string() : std::string();
}

int positive_count(const Value& v)
{
  return static_cast<int>(v.integer(1, 1 << 24));
}

/** A value in (0, 1]: `key` X must be a fraction of `of` otherwise. */
double unit_fraction(const Value& v, const std::string& key, const std::string& of)
{
  double x = v.positive();
  if (x > 1)
    v.fail(key + " " + v.shown() + " must be a fraction of " + of + " (0 < " + key + " <= 1)");
  return x;
}

double positive_quantity(const Value& v, Quantity q, std::optional<double> bare)
{
  double d = v.quantity(q, bare);
  if (not(d > 0))
    v.fail("value " + v.shown() + " must be positive: expected " + units::expected(q));
  check_upper_bound(v, d, q);
  return d;
}

double non_negative_quantity(const Value& v, Quantity q, std::optional<double> bare)
{
  double d = v.quantity(q, bare);
  if (not(d >= 0))
    v.fail("value " + v.shown() + " must not be negative: expected " + units::expected(q));
  check_upper_bound(v, d, q);
  return d;
}

ProcessorType parse_processor(Object o, const std::string& name)
{
  ProcessorType p;
  p.name  = name;
  p.id    = optional_string(o, "id");
  p.uarch = optional_string(o, "uarch");
  if (auto kind = o.optional("type"))
    kind->choice({"CPU"}); // HDeepRM: "For now, only CPU type is supported"; GPUs have their own catalogue
  p.cores           = positive_count(o.required("cores"));
  p.clock_hz        = positive_quantity(o.required("clock_rate"), Quantity::frequency, kGiga);
  auto fpc          = o.required("dpflops_per_cycle");
  p.flops_per_cycle = fpc.positive();
  if (p.flops_per_cycle > 1e6)
    fpc.fail("dpflops_per_cycle " + fpc.shown() + " is above 1e6, past any processor");
  p.mem_bw_Bps = positive_quantity(o.required("mem_bw"), Quantity::bandwidth, kGiga);
  if (auto llc = o.optional("llc_size"))
    p.llc_bytes = non_negative_quantity(*llc, Quantity::size, kMega);
  p.tdp_w  = positive_quantity(o.required("power"), Quantity::power, 1.0);
  p.origin = origin_of(o);
  o.finish({"uarch", "id", "type", "cores", "clock_rate", "mem_bw", "llc_size", "power", "dpflops_per_cycle"});
  return p;
}

MemoryType parse_memory(Object o, const std::string& name)
{
  MemoryType m;
  m.name      = name;
  m.latency_s = non_negative_quantity(o.required("latency"), Quantity::time, std::nullopt);
  m.origin    = origin_of(o);
  o.finish({"latency"});
  return m;
}

void parse_power_pair(Object& o, std::optional<double>& idle, std::optional<double>& busy)
{
  if (auto v = o.optional("idle_power"))
    idle = non_negative_quantity(*v, Quantity::power, 1.0);
  if (auto v = o.optional("busy_power"))
    busy = non_negative_quantity(*v, Quantity::power, 1.0);
  if (idle.has_value() != busy.has_value())
    o.fail("idle_power and busy_power go together (link power is SimGrid's wattage_range \"idle:busy\")");
  if (idle && *busy < *idle)
    o.fail_at("busy_power",
              "busy_power " + std::to_string(*busy) + " W is below idle_power " + std::to_string(*idle) + " W");
}

NetworkType parse_network(Object o, const std::string& name)
{
  NetworkType n;
  n.name          = name;
  n.bandwidth_Bps = positive_quantity(o.required("bandwidth"), Quantity::bandwidth, std::nullopt);
  if (auto lat = o.optional("latency"))
    n.latency_s = non_negative_quantity(*lat, Quantity::time, std::nullopt);
  n.transport = optional_string(o, "transport");
  parse_power_pair(o, n.idle_w, n.busy_w);
  n.origin = origin_of(o);
  o.finish({"bandwidth", "latency", "transport", "idle_power", "busy_power"});
  return n;
}

std::string block_source(Object& o, const std::string& what);

/** A transport: {"kind", "latency", "protocols": [...], "nvls", "buffer", "min_channels", "gpu_direct",
 *  "source"}. */
TransportType parse_transport(Object o, const std::string& name)
{
  TransportType t;
  t.name      = name;
  t.kind      = o.required("kind").choice({"ib_verbs", "roce", "efa", "tcp_gpudirect"});
  t.latency_s = non_negative_quantity(o.required("latency"), Quantity::time, std::nullopt);
  if (t.latency_s > 1e-3)
    o.required("latency").fail("a network step's latency of " + o.required("latency").shown() +
                               " is above 1 ms: no published transport is that slow");
  if (auto protos = o.optional("protocols")) {
    t.ll = t.ll128 = t.simple = false;
    for (auto& p : protos->array()) {
      std::string v                                          = p.choice({"LL", "LL128", "Simple"});
      (v == "LL" ? t.ll : v == "LL128" ? t.ll128 : t.simple) = true;
    }
    if (not t.simple)
      protos->fail("NCCL needs Simple on every transport (its point-to-point and large collectives)");
  }
  if (auto n = o.optional("nvls"))
    t.nvls = n->boolean();
  if (auto b = o.optional("buffer")) {
    t.buffer_bytes = positive_quantity(*b, Quantity::size, std::nullopt);
    if (t.buffer_bytes < 65536 || t.buffer_bytes > 1073741824.0)
      b->fail("NCCL_BUFFSIZE " + b->shown() + " is outside 64KiB to 1GiB");
  }
  if (auto c = o.optional("min_channels")) {
    auto v = c->integer();
    if (v < 1 || v > 64)
      c->fail("min_channels " + c->shown() + " is not a channel count from 1 to 64");
    t.min_channels = static_cast<uint32_t>(v);
  }
  if (auto g = o.optional("gpu_direct"))
    t.gpu_direct = g->boolean();
  t.source = block_source(o, "transport");
  t.origin = origin_of(o);
  o.finish({"kind", "latency", "protocols", "nvls", "buffer", "min_channels", "gpu_direct", "source"});
  return t;
}

/** A figure block's "source" (required, not empty): what the `what` figures come from. */
std::string block_source(Object& o, const std::string& what)
{
  auto src          = o.required("source");
  std::string where = src.string();
  if (where.empty())
    src.fail("source is empty: name the measurement the " + what + " figures come from");
  return where;
}

/** `each(precision, its object)` for every precision of a figure block, each one the GPU has a
 *  peak for ("source" and matmul's "overheads" are no precision). */
template <class Each>
void for_each_precision(Object& o, const GpuType& g, Each each)
{
  for (const std::string& prec : o.take_all_keys()) {
    if (prec == "source" || prec == "overheads" || prec == "sustained")
      continue;
    std::optional<Value> given = o.optional(prec);
    if (not given)
      o.fail_at(prec, "precision " + quote(prec) + " is null: give its figures or leave it out");
    Value& v = *given;
    if (not g.peak_flops.count(prec))
      v.fail("precision " + quote(prec) + " has no peak_flops here");
    each(prec, v.object());
  }
}

/** "matmul": {"source": "...", "bf16": {"fraction": 0.803, "shape": [M, N, K]}, ...}: per precision
 *  of the GPU's peak_flops, the measured best GEMM; the SMs must be given (the model spreads tiles
 *  over them). */
void parse_matmul(Object o, GpuType& g)
{
  g.matmul_source = block_source(o, "matmul");
  if (g.multiprocessors <= 0)
    o.fail("matmul needs the GPU's multiprocessors (the model spreads output tiles over them)");
  if (auto ov = o.optional("overheads")) {
    // the GEMM model's fixed costs, per kernel and per wave of tiles (tools/validate/gemm_overheads.py)
    auto oo                   = ov->object();
    g.matmul_overheads_source = block_source(oo, "overheads");
    for (auto [key, to] : {std::pair{"kernel", &g.matmul_kernel_s}, std::pair{"wave", &g.matmul_wave_s}}) {
      auto v = oo.required(key);
      *to    = v.quantity(units::Quantity::time);
      if (not(*to >= 0) || *to > 1e-3)
        v.fail(std::string(key) + " overhead " + v.shown() + " must lie between 0 and 1 ms");
    }
    oo.finish({"kernel", "wave", "source"});
  }
  for_each_precision(o, g, [&](const std::string& prec, Object mo) {
    MatmulMeasure m;
    m.fraction = unit_fraction(mo.required("fraction"), "fraction", "the peak");
    auto shape = mo.required("shape");
    auto dims  = shape.array();
    if (dims.size() != 3)
      shape.fail("shape must be [M, N, K], got " + shape.shown());
    m.m = uint64_t(dims[0].integer(1, 1 << 30));
    m.n = uint64_t(dims[1].integer(1, 1 << 30));
    m.k = uint64_t(dims[2].integer(1, 1 << 30));
    if (auto sv = mo.optional("sustained"))
      m.sustained = unit_fraction(*sv, "sustained", "the burst figure");
    mo.finish({"fraction", "shape", "sustained"});
    g.matmul[prec] = m;
  });
}

/** A list of positive numbers of `size` (0: any), increasing when asked. */
std::vector<double> positive_list(const Value& v, size_t size, bool increasing)
{
  std::vector<double> out;
  for (const auto& e : v.array())
    out.push_back(e.positive());
  if (out.empty() || (size > 0 && out.size() != size))
    v.fail("expected " + (size > 0 ? std::to_string(size) : std::string("one or more")) + " positive numbers, got " +
           v.dump());
  if (increasing && not std::is_sorted(out.begin(), out.end(), std::less_equal<>()))
    v.fail("the values must increase, got " + v.dump());
  return out;
}

/** "attention": {"source": "...", "bf16": {"kernel": "cuDNN", "head_dim": 128, "seq": [...],
 *  "forward": [...], "forward_causal": [...], "backward": [...]}}: TFLOP/s by sequence length. */
void parse_attention(Object o, GpuType& g)
{
  g.attention_source = block_source(o, "attention");
  if (auto sv = o.optional("sustained")) {
    // the burst figures at the clock a step's sustained load holds (a measured ratio, with its source)
    auto so                      = sv->object();
    g.attention_sustained_source = block_source(so, "sustained");
    g.attention_sustained        = unit_fraction(so.required("fraction"), "fraction", "the measured rate");
    so.finish({"fraction", "source"});
  }
  for_each_precision(o, g, [&](const std::string& prec, Object ao) {
    AttentionMeasure a;
    a.kernel   = ao.required("kernel").string();
    a.head_dim = uint32_t(ao.required("head_dim").integer(1, 1024));
    a.seq      = positive_list(ao.required("seq"), 0, true);
    for (auto [key, out] : {std::pair{"forward", &a.forward}, std::pair{"forward_causal", &a.forward_causal},
                            std::pair{"backward", &a.backward}}) {
      *out = positive_list(ao.required(key), a.seq.size(), false);
      for (double& x : *out)
        x *= 1e12; // TFLOP/s
    }
    ao.finish({"kernel", "head_dim", "seq", "forward", "forward_causal", "backward"});
    g.attention[prec] = a;
  });
}

GpuType parse_gpu(Object o, const std::string& name)
{
  GpuType g;
  g.name = name;
  g.id   = optional_string(o, "id");
  {
    auto peaks = o.required("peak_flops").object();
    for (const auto& prec : peaks.take_all_keys()) {
      bool known = false;
      for (const auto& k : known_precisions())
        known = known || k == prec;
      if (not known)
        peaks.fail_at(prec,
                      "unknown precision " + quote(prec) + " (known: " + json::list_names(known_precisions()) + ")");
      g.peak_flops[prec] = positive_quantity(peaks.required(prec), Quantity::speed, std::nullopt);
    }
    if (g.peak_flops.empty())
      peaks.fail("peak_flops lists no precision (known: " + json::list_names(known_precisions()) + ")");
  }
  auto prec           = o.required("default_precision");
  g.default_precision = prec.string();
  if (not g.peak_flops.count(g.default_precision)) {
    std::vector<std::string> listed;
    for (const auto& [k, v] : g.peak_flops)
      listed.push_back(k);
    prec.fail("default_precision " + prec.shown() + " has no entry in peak_flops (listed: " + json::list_names(listed) +
              ")");
  }
  g.memory_bytes = positive_quantity(o.required("memory_capacity"), Quantity::size, std::nullopt);
  g.mem_bw_Bps   = positive_quantity(o.required("memory_bandwidth"), Quantity::bandwidth, std::nullopt);
  g.idle_w       = non_negative_quantity(o.required("idle_power"), Quantity::power, 1.0);
  auto max       = o.required("max_power");
  g.max_w        = positive_quantity(max, Quantity::power, 1.0);
  if (g.max_w < g.idle_w)
    max.fail("max_power " + max.shown() + " is below idle_power");
  if (auto ps = o.optional("pstates")) {
    for (auto& item : ps->array()) {
      auto po = item.object();
      GpuPState s;
      s.speed_factor = unit_fraction(po.required("speed"), "speed", "the peak");
      auto pmax      = po.required("max_power");
      s.max_w        = positive_quantity(pmax, Quantity::power, 1.0);
      if (s.max_w < g.idle_w)
        pmax.fail("max_power " + pmax.shown() + " is below the GPU's idle_power");
      if (auto mem = po.optional("memory_speed"))
        s.memory_factor = unit_fraction(*mem, "memory_speed", "the memory bandwidth");
      po.finish({"speed", "max_power", "memory_speed"});
      g.pstates.push_back(s);
    }
    if (g.pstates.empty())
      ps->fail("pstates is empty: omit it for a single full-speed P-state");
  }
  g.origin = origin_of(o);
  if (auto a = o.optional("architecture"))
    g.architecture = a->choice({"volta", "ampere", "hopper", "blackwell"});
  if (auto src = o.optional("source")) {
    g.source = src->string();
    if (g.source.empty())
      src->fail("source is empty: name the datasheet the figures come from, or omit the key");
  }
  if (auto names = o.optional("device_names")) {
    if (not names->is_array())
      names->fail("device_names must be a list of strings (the names CUDA or ROCm report for the GPU, such as "
                  "'NVIDIA H100 80GB HBM3'), got " +
                  names->shown());
    for (const auto& item : names->array()) {
      if (not item.is_string())
        item.fail("device_names must be a list of strings (the names CUDA or ROCm report for the GPU), got " +
                  item.shown());
      std::string n = item.string();
      if (n.find_first_not_of(" \t") == std::string::npos)
        item.fail("device name " + item.shown() + " is blank");
      g.device_names.push_back(n);
    }
  }
  if (auto mp = o.optional("multiprocessors"))
    g.multiprocessors = positive_count(*mp);
  if (auto mm = o.optional("matmul"))
    parse_matmul(mm->object(), g);
  if (auto at = o.optional("attention"))
    parse_attention(at->object(), g);
  if (auto st = o.optional("stream")) {
    auto so           = st->object();
    g.stream_fraction = unit_fraction(so.required("fraction"), "fraction", "the memory bandwidth");
    auto src          = so.required("source");
    g.stream_source   = src.string();
    if (g.stream_source.empty())
      src.fail("source is empty: name where the streaming fraction comes from");
    so.finish({"fraction", "source"});
  }
  o.finish({"id", "peak_flops", "default_precision", "memory_capacity", "memory_bandwidth", "idle_power", "max_power",
            "pstates", "architecture", "source", "device_names", "multiprocessors", "matmul", "attention", "stream"});
  return g;
}

InterconnectType parse_interconnect(Object o, const std::string& name)
{
  InterconnectType t;
  t.name           = name;
  std::string kind = o.required("kind").choice({"pcie", "nvlink", "nvswitch"});
  t.kind           = kind == "pcie"     ? InterconnectType::Kind::pcie
                     : kind == "nvlink" ? InterconnectType::Kind::nvlink
                                        : InterconnectType::Kind::nvswitch;
  t.bandwidth_Bps  = positive_quantity(o.required("bandwidth"), Quantity::bandwidth, std::nullopt);
  t.latency_s      = non_negative_quantity(o.required("latency"), Quantity::time, std::nullopt);
  if (auto e = o.optional("effective_bandwidth")) {
    t.effective_bandwidth_Bps = positive_quantity(*e, Quantity::bandwidth, std::nullopt);
    if (*t.effective_bandwidth_Bps > t.bandwidth_Bps)
      e->fail("effective_bandwidth " + e->shown() + " exceeds the bandwidth: it is the part of it payload reaches");
  }
  if (auto n = o.optional("nvls_efficiency")) {
    if (t.kind != InterconnectType::Kind::nvswitch)
      n->fail("nvls_efficiency is in-switch reduction: only an nvswitch has it");
    t.nvls_efficiency = n->number();
    if (not(t.nvls_efficiency > 0 && t.nvls_efficiency <= 1))
      n->fail("nvls_efficiency " + n->shown() + " is not a fraction in (0, 1]");
  }
  parse_power_pair(o, t.idle_w, t.busy_w);
  t.origin = origin_of(o);
  o.finish({"kind", "bandwidth", "effective_bandwidth", "nvls_efficiency", "latency", "idle_power", "busy_power"});
  return t;
}

std::vector<TypeCount> parse_type_counts(const Value& v)
{
  std::vector<TypeCount> out;
  for (auto& item : v.array()) {
    auto o = item.object();
    TypeCount tc;
    tc.type   = o.required("type").string();
    tc.count  = positive_count(o.required("number"));
    tc.origin = origin_of(o);
    o.finish({"type", "number"});
    out.push_back(tc);
  }
  return out;
}

/** A node type's NICs: {"type": network type, "number": N, "near_gpus": [GPU of each NIC]}. */
NodeType::Nics parse_nics(Object o, int gpus)
{
  NodeType::Nics n;
  n.origin = origin_of(o);
  n.type   = o.required("type").string();
  n.count  = static_cast<uint32_t>(positive_count(o.required("number")));
  if (n.count > 1024) // (a NIC per GPU of an NVLink domain: GB200 NVL72's 72)
    o.required("number").fail("a node has at most 1024 NICs, not " + std::to_string(n.count));
  if (auto near = o.optional("near_gpus")) {
    if (gpus == 0)
      near->fail("near_gpus names GPUs, and this node type has none");
    for (auto& g : near->array()) {
      auto v = g.integer();
      if (v < 0 || v >= gpus)
        g.fail("GPU " + g.shown() + " is not one of the node's GPUs 0 to " + std::to_string(gpus - 1));
      n.near_gpus.push_back(static_cast<uint32_t>(v));
    }
    if (n.near_gpus.size() != n.count)
      near->fail("near_gpus names " + std::to_string(n.near_gpus.size()) + " GPUs for " + std::to_string(n.count) +
                 " NICs: one per NIC");
  } else
    for (uint32_t i = 0; i < n.count && gpus > 0; i++)
      n.near_gpus.push_back(static_cast<uint32_t>(static_cast<uint64_t>(i) * static_cast<uint32_t>(gpus) / n.count));
  o.finish({"type", "number", "near_gpus"});
  return n;
}

NodeType parse_node(Object o, const std::string& name)
{
  NodeType n;
  n.name = name;
  n.id   = optional_string(o, "id");
  if (auto procs = o.optional("processors"))
    n.processors = parse_type_counts(*procs);
  if (auto mem = o.optional("memory")) {
    auto mo        = mem->object();
    n.memory_type  = optional_string(mo, "type");
    n.memory_bytes = positive_quantity(mo.required("capacity"), Quantity::size, kGiga);
    mo.finish({"type", "capacity"});
  }
  if (auto gpus = o.optional("gpus"))
    n.gpus = parse_type_counts(*gpus);
  n.gpu_interconnect  = optional_string(o, "gpu_interconnect");
  n.host_interconnect = optional_string(o, "host_interconnect");
  n.origin            = origin_of(o);
  int gpu_total       = 0;
  for (const auto& g : n.gpus)
    gpu_total += g.count;
  if (auto nics = o.optional("nics"))
    n.nics = parse_nics(nics->object(), gpu_total);
  if (n.processors.empty() && n.gpus.empty())
    o.fail("node type " + quote(name) + " has neither processors nor gpus");
  int gpu_count = 0;
  for (const auto& g : n.gpus)
    gpu_count += g.count;
  if (n.host_interconnect.empty() && (gpu_count > 1 || (gpu_count > 0 && not n.processors.empty())))
    o.fail("node type " + quote(name) +
           " has GPUs but no host_interconnect (the PCIe type linking GPUs to CPUs and NICs)");
  o.finish({"id", "processors", "memory", "gpus", "gpu_interconnect", "host_interconnect", "nics"});
  return n;
}

template <typename T, typename F>
void parse_section(Object& section, std::map<std::string, T>& into, F parse_one)
{
  for (const auto& key : section.take_all_keys()) {
    auto v = section.required(key);
    into.emplace(key, parse_one(v.object(), key));
  }
}

} // namespace

void check_upper_bound(const json::Value& v, double value, units::Quantity q)
{
  // Past any machine, and low enough that what is derived (a host's speed = cores x clock x
  // flops per cycle, energy = power x time, a route's latency) stays finite.
  double max      = 0;
  const char* why = "";
  switch (q) {
  case Quantity::bandwidth:
    max = 1e18, why = "1e18 B/s (8 Ebps)";
    break;
  case Quantity::time:
    max = 1e6, why = "1e6 s (11.6 days)";
    break;
  case Quantity::speed:
    max = 1e21, why = "1e21 flop/s (1 Zf)";
    break;
  case Quantity::size:
    max = 1e21, why = "1e21 B (1 ZB)";
    break;
  case Quantity::power:
    max = 1e9, why = "1e9 W (1 GW)";
    break;
  case Quantity::frequency:
    max = 1e12, why = "1e12 Hz (1 THz)";
    break;
  }
  if (value > max)
    v.fail("value " + v.shown() + " is above " + why + ", past any machine");
}

const std::vector<std::string>& known_precisions()
{
  static const std::vector<std::string> k = {"fp64", "fp64_tensor", "fp32", "tf32", "fp16", "bf16", "fp8", "int8"};
  return k;
}

namespace {

/** Lower case, surrounding blanks removed: device names compare on this. */
std::string normalised_device_name(std::string_view name)
{
  size_t b = name.find_first_not_of(" \t");
  if (b == std::string_view::npos)
    return "";
  size_t e = name.find_last_not_of(" \t");
  std::string out(name.substr(b, e - b + 1));
  for (auto& c : out)
    c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

bool memory_fits(const GpuType& g, double memory_bytes)
{
  return std::abs(g.memory_bytes - memory_bytes) <= 0.1 * g.memory_bytes;
}

} // namespace

const GpuType* find_gpu_by_device_name(const Catalogue& cat, std::string_view name, int multiprocessors,
                                       double memory_bytes)
{
  std::string wanted = normalised_device_name(name);
  // Types listing the name, unless a figure given contradicts theirs.
  std::vector<const GpuType*> named;
  for (const auto& [key, g] : cat.gpus) {
    bool listed = std::any_of(g.device_names.begin(), g.device_names.end(),
                              [&wanted](const std::string& n) { return normalised_device_name(n) == wanted; });
    if (listed && (multiprocessors <= 0 || g.multiprocessors <= 0 || multiprocessors == g.multiprocessors) &&
        (memory_bytes <= 0 || memory_fits(g, memory_bytes)))
      named.push_back(&g);
  }
  if (not named.empty())
    return named.size() == 1 ? named.front() : nullptr;
  // A generic name (no model number in it) leaves the figures to choose.
  bool generic = std::none_of(wanted.begin(), wanted.end(), [](char c) { return c >= '0' && c <= '9'; });
  if (not generic || multiprocessors <= 0 || memory_bytes <= 0)
    return nullptr;
  const GpuType* found = nullptr;
  for (const auto& [key, g] : cat.gpus)
    if (g.multiprocessors > 0 && g.multiprocessors == multiprocessors && memory_fits(g, memory_bytes)) {
      if (found)
        return nullptr; // ambiguous
      found = &g;
    }
  return found;
}

const GpuType& named_gpu(const Catalogue& cat, const std::string& name, const std::string& option,
                         const std::string& file)
{
  auto it = cat.gpus.find(name);
  if (it != cat.gpus.end())
    return it->second;
  std::string known;
  for (const auto& [n, t] : cat.gpus)
    known += (known.empty() ? "" : ", ") + n;
  throw InputError(file, option, "unknown GPU type " + quote(name) + " (the catalogue has: " + known + ")");
}

void parse_catalogue_sections(json::Object& o, Catalogue& cat)
{
  auto section = [&o](const char* key, auto& into, auto parse_one) {
    if (auto s = o.optional(key)) {
      auto so = s->object();
      parse_section(so, into, parse_one);
    }
  };
  section("processor_types", cat.processors, parse_processor);
  section("node_types", cat.nodes, parse_node);
  section("network_types", cat.networks, parse_network);
  section("memory_types", cat.memories, parse_memory);
  section("gpu_types", cat.gpus, parse_gpu);
  section("interconnect_types", cat.interconnects, parse_interconnect);
  section("transport_types", cat.transports, parse_transport);
}

const std::vector<std::string>& catalogue_section_keys()
{
  static const std::vector<std::string> k = {"processor_types", "node_types",         "network_types",  "memory_types",
                                             "gpu_types",       "interconnect_types", "transport_types"};
  return k;
}

namespace {

Catalogue load_hdeeprm_folder(const std::filesystem::path& dir)
{
  Catalogue cat;
  struct Part {
    const char* file;
    bool required;
  };
  auto read = [&](const char* file, bool required, auto&& fill) {
    auto path = dir / file;
    if (not std::filesystem::exists(path)) {
      if (required)
        throw InputError(dir.string(), "",
                         std::string("not an HDeepRM type catalogue folder: ") + file + " is missing");
      return;
    }
    auto doc = json::load(path);
    auto o   = doc.object();
    fill(o);
  };
  read("processor_types.json", true, [&](Object& o) { parse_section(o, cat.processors, parse_processor); });
  read("node_types.json", true, [&](Object& o) { parse_section(o, cat.nodes, parse_node); });
  read("network_types.json", true, [&](Object& o) { parse_section(o, cat.networks, parse_network); });
  read("memory_types.json", false, [&](Object& o) { parse_section(o, cat.memories, parse_memory); });
  return cat;
}

template <typename T>
void merge_map(std::map<std::string, T>& into, const std::map<std::string, T>& from, const char* what)
{
  for (const auto& [name, t] : from) {
    auto [it, inserted] = into.emplace(name, t);
    if (not inserted)
      throw InputError(t.origin.file, "at " + t.origin.pointer,
                       std::string("duplicate ") + what + " type " + quote(name) + ": already defined in " +
                           it->second.origin.file + " at " + it->second.origin.pointer);
  }
}

} // namespace

Catalogue load_catalogue(const std::filesystem::path& path)
{
  std::set<std::string> loaded;
  return load_catalogue(path, loaded);
}

Catalogue load_catalogue(const std::filesystem::path& path, std::set<std::string>& loaded)
{
  std::error_code ec;
  auto canonical = std::filesystem::weakly_canonical(path, ec).string();
  if (not loaded.insert(ec ? path.string() : canonical).second)
    return {}; // already read (included twice, or listed beside a catalogue that includes it)
  if (std::filesystem::is_directory(path, ec))
    return load_hdeeprm_folder(path);
  auto doc = json::load(path);
  auto o   = doc.object();
  auto ver = o.required("sgai_catalogue");
  if (ver.integer() != 1)
    ver.fail("unsupported catalogue version " + ver.shown() + " (this sgai reads version 1)");
  Catalogue cat;
  if (auto inc = o.optional("include"))
    for (auto& item : inc->array()) {
      std::filesystem::path p = item.string();
      if (p.is_relative())
        p = path.parent_path() / p;
      if (not std::filesystem::exists(p, ec))
        item.fail("catalogue " + item.shown() + " not found (looked for " + p.string() + ")");
      if (loaded.size() > 64)
        item.fail("more than 64 catalogues included");
      merge_catalogue(cat, load_catalogue(p, loaded));
    }
  Catalogue own;
  parse_catalogue_sections(o, own);
  merge_catalogue(cat, own);
  std::vector<std::string> accepted = catalogue_section_keys();
  accepted.insert(accepted.begin(), {"sgai_catalogue", "include"});
  o.finish(accepted);
  return cat;
}

void merge_catalogue(Catalogue& into, const Catalogue& from)
{
  merge_map(into.processors, from.processors, "processor");
  merge_map(into.nodes, from.nodes, "node");
  merge_map(into.networks, from.networks, "network");
  merge_map(into.memories, from.memories, "memory");
  merge_map(into.gpus, from.gpus, "GPU");
  merge_map(into.interconnects, from.interconnects, "interconnect");
  merge_map(into.transports, from.transports, "transport");
}

namespace {
template <typename T>
std::vector<std::string> names_of(const std::map<std::string, T>& m)
{
  std::vector<std::string> out;
  for (const auto& [k, v] : m)
    out.push_back(k);
  return out;
}
} // namespace

void check_catalogue_references(const Catalogue& cat)
{
  for (const auto& [name, net] : cat.networks)
    if (not net.transport.empty() && not cat.transports.count(net.transport))
      throw InputError(net.origin.file, "at " + net.origin.pointer + "/transport",
                       "unknown transport type " + quote(net.transport) +
                           " (known: " + json::list_names(names_of(cat.transports)) + ")");
  for (const auto& [name, node] : cat.nodes) {
    for (size_t i = 0; i < node.processors.size(); i++) {
      const auto& tc = node.processors[i];
      if (not cat.processors.count(tc.type))
        throw InputError(tc.origin.file, "at " + tc.origin.pointer + "/type",
                         "unknown processor type " + quote(tc.type) +
                             " (known: " + json::list_names(names_of(cat.processors)) + ")");
    }
    for (const auto& tc : node.gpus)
      if (not cat.gpus.count(tc.type))
        throw InputError(tc.origin.file, "at " + tc.origin.pointer + "/type",
                         "unknown GPU type " + quote(tc.type) + " (known: " + json::list_names(names_of(cat.gpus)) +
                             ")");
    if (node.nics && not cat.networks.count(node.nics->type))
      throw InputError(node.nics->origin.file, "at " + node.nics->origin.pointer + "/type",
                       "unknown network type " + quote(node.nics->type) +
                           " (known: " + json::list_names(names_of(cat.networks)) + ")");
    if (not node.memory_type.empty() && not cat.memories.empty() && not cat.memories.count(node.memory_type))
      throw InputError(node.origin.file, "at " + node.origin.pointer + "/memory/type",
                       "unknown memory type " + quote(node.memory_type) +
                           " (known: " + json::list_names(names_of(cat.memories)) + ")");
    for (const auto& [key, ic] :
         {std::pair<const char*, const std::string*>{"gpu_interconnect", &node.gpu_interconnect},
          {"host_interconnect", &node.host_interconnect}}) {
      if (ic->empty())
        continue;
      auto it = cat.interconnects.find(*ic);
      if (it == cat.interconnects.end())
        throw InputError(node.origin.file, "at " + node.origin.pointer + "/" + key,
                         "unknown interconnect type " + quote(*ic) +
                             " (known: " + json::list_names(names_of(cat.interconnects)) + ")");
      // (a host link: PCIe, or a Grace CPU's coherent NVLink-C2C to its GPUs)
      if (std::string(key) == "host_interconnect" && it->second.kind == InterconnectType::Kind::nvswitch)
        throw InputError(node.origin.file, "at " + node.origin.pointer + "/" + key,
                         "host_interconnect " + quote(*ic) + " must be of kind 'pcie' or 'nvlink'");
    }
  }
}

std::vector<std::string> catalogue_names(const Catalogue& cat, const char* kind)
{
  std::string k = kind;
  if (k == "node")
    return names_of(cat.nodes);
  if (k == "network")
    return names_of(cat.networks);
  if (k == "processor")
    return names_of(cat.processors);
  if (k == "gpu")
    return names_of(cat.gpus);
  if (k == "interconnect")
    return names_of(cat.interconnects);
  return names_of(cat.memories);
}

Origin origin_of(const json::Object& o)
{
  return Origin{o.file(), o.pointer()};
}

} // namespace sgai::platform
