#include "plugins/replay/astra_inputs.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/yaml_document.hpp"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cmath>
#include <set>
#include <sstream>
#include <string_view>

namespace sgai::replay {

namespace {

std::string line_of(const YAML::Node& n)
{
  const auto& m = n.Mark();
  return m.is_null() ? std::string("") : "line " + std::to_string(m.line + 1);
}

/** The text of a scalar node; InputError at its line when it is a list or a mapping. */
std::string scalar_text(const std::string& file, const YAML::Node& n, const std::string& what)
{
  if (not n.IsScalar())
    throw InputError(file, line_of(n), what + " must be a single value, not a list or a mapping");
  return n.Scalar();
}

/** A number in (min, max] or [min, max] (min_ok); the error names the value and the range. */
double bounded(const json::Value& v, double min, bool min_ok, double max, const std::string& unit)
{
  auto range = [&]() {
    auto num = [](double d) {
      std::ostringstream s;
      s << d;
      return s.str();
    };
    return std::string(min_ok ? "a number >= " : "a number > ") + num(min) + " and <= " + num(max) + " (" + unit + ")";
  };
  if (not v.is_number())
    v.fail("expected " + range() + ", got " + v.shown());
  double d = v.number();
  if (not std::isfinite(d) || d < min || (d == min && not min_ok) || d > max)
    v.fail("value " + v.shown() + " out of range: expected " + range());
  return d;
}

/** A communicator group id as astra_inputs.hpp describes it; the error names the key. */
void check_group_id(const json::Object& o, const std::string& key)
{
  auto digit = [](char ch) { return ch >= '0' && ch <= '9'; };
  auto alnum = [&](char ch) { return digit(ch) || (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z'); };
  auto shown = quote(key.size() > 60 ? key.substr(0, 57) + "..." : key);
  if (not key.empty() && std::all_of(key.begin(), key.end(), digit)) {
    if ((key.size() > 1 && key[0] == '0') || key.size() > 10 || std::stoll(key) > INT32_MAX)
      o.fail_at(key, "group id " + shown + " is not a whole number from 0 to 2147483647 without leading zero");
    return;
  }
  if (key.empty() || not alnum(key[0]) || not std::all_of(key.begin(), key.end(), [&](char ch) {
        return alnum(ch) || ch == '_' || ch == '-' || ch == '.' || ch == ':';
      }))
    o.fail_at(key, "group id " + shown +
                       " is neither a whole number >= 0 (ASTRA-sim's ids) nor a name of letters, digits and '_-.:' "
                       "starting with a letter or digit");
}

/** One of ASTRA-sim's strings for a key; the error names the value and lists them. */
void one_of(const json::Value& v, const std::vector<std::string>& allowed)
{
  if (not v.is_string())
    v.fail("expected one of " + json::list_names(allowed) + " (as ASTRA-sim reads it), got " + v.shown());
  v.choice(allowed);
}

} // namespace

std::vector<communicator::Dimension> read_network_yaml(const std::filesystem::path& path)
{
  const std::string file = path.string();
  const std::string text = read_text_file(path);
  YAML::Node root        = load_yaml(file, text);
  if (not root.IsMap())
    throw InputError(file, "", "expected a mapping with topology, npus_count, bandwidth and latency");
  static const std::set<std::string> known = {"topology", "npus_count", "bandwidth", "latency"};
  std::map<std::string, std::string> seen; // key -> its line; yaml-cpp keeps both, root[key] finds one
  for (const auto& kv : root) {
    auto key = scalar_text(file, kv.first, "a key");
    if (not known.count(key))
      throw InputError(file, line_of(kv.first),
                       "unknown key " + quote(key) + " (known: topology, npus_count, bandwidth, latency)");
    if (auto [it, fresh] = seen.emplace(key, line_of(kv.first)); not fresh)
      throw InputError(file, line_of(kv.first), "duplicate key " + quote(key) + " (first at " + it->second + ")");
  }
  auto list = [&](const char* key) {
    YAML::Node n = root[key];
    if (not n)
      throw InputError(file, "", std::string("missing key '") + key + "'");
    if (not n.IsSequence() || n.size() == 0)
      throw InputError(file, line_of(n),
                       std::string("'") + key + "' must be a non-empty list, one entry per dimension");
    return n;
  };
  YAML::Node topology = list("topology"), npus = list("npus_count"), bandwidth = list("bandwidth"),
             latency = list("latency");
  size_t dims        = topology.size();
  for (auto [key, n] :
       {std::pair{"npus_count", npus}, std::pair{"bandwidth", bandwidth}, std::pair{"latency", latency}})
    if (n.size() != dims)
      throw InputError(file, line_of(n),
                       std::string("'") + key + "' has " + std::to_string(n.size()) + " entries for " +
                           std::to_string(dims) + " dimensions in 'topology'");
  auto number = [&](const YAML::Node& n, const char* key, size_t i) {
    std::string value = scalar_text(file, n, std::string(key) + "[" + std::to_string(i) + "]");
    try {
      size_t used = 0;
      double v    = std::stod(value, &used);
      if (used == value.size() && std::isfinite(v))
        return v;
    } catch (const std::exception&) {
    }
    throw InputError(file, line_of(n),
                     std::string(key) + "[" + std::to_string(i) + "] " + quote(value) + " is not a number");
  };
  std::vector<communicator::Dimension> out;
  for (size_t i = 0; i < dims; i++) {
    communicator::Dimension d;
    auto kind = scalar_text(file, topology[i], "topology[" + std::to_string(i) + "]");
    if (kind == "Ring")
      d.kind = communicator::Dimension::Kind::ring;
    else if (kind == "Switch")
      d.kind = communicator::Dimension::Kind::switch_;
    else if (kind == "FullyConnected")
      d.kind = communicator::Dimension::Kind::fully_connected;
    else
      throw InputError(file, line_of(topology[i]),
                       "topology[" + std::to_string(i) + "] " + quote(kind) + " is not Ring, Switch or FullyConnected");
    double n = number(npus[i], "npus_count", i);
    if (n < 1 || n != std::floor(n) || n > 1e7)
      throw InputError(file, line_of(npus[i]),
                       "npus_count[" + std::to_string(i) + "] " + quote(npus[i].as<std::string>()) +
                           " is not a whole number of NPUs >= 1");
    d.npus    = static_cast<uint32_t>(n);
    double bw = number(bandwidth[i], "bandwidth", i);
    if (not(bw > 0) || not std::isfinite(bw * kNetworkGBps))
      throw InputError(file, line_of(bandwidth[i]),
                       "bandwidth[" + std::to_string(i) + "] " + quote(bandwidth[i].as<std::string>()) +
                           " must be positive (GB/s), and finite in bytes per second");
    d.bandwidth_Bps = bw * kNetworkGBps;
    double lat      = number(latency[i], "latency", i);
    if (lat < 0)
      throw InputError(file, line_of(latency[i]),
                       "latency[" + std::to_string(i) + "] " + quote(latency[i].as<std::string>()) +
                           " must be >= 0 (ns)");
    d.latency_s = lat * 1e-9;
    out.push_back(d);
  }
  uint64_t total = 1;
  for (const auto& d : out) { // checked at each step: 1e7 NPUs per dimension would overflow
    total *= d.npus;
    if (total > (1U << 24))
      throw InputError(file, "",
                       "the dimensions make more than " + std::to_string(1U << 24) + " NPUs, more than sgai replays");
  }
  return out;
}

SystemConfig read_system_json(const std::filesystem::path& path)
{
  auto doc = json::load(path);
  auto o   = doc.object();
  SystemConfig c;
  const std::vector<std::pair<const char*, chakra::CollectiveType>> impl_keys = {
      {"all-reduce-implementation", chakra::CollectiveType::all_reduce},
      {"all-gather-implementation", chakra::CollectiveType::all_gather},
      {"reduce-scatter-implementation", chakra::CollectiveType::reduce_scatter},
      {"all-to-all-implementation", chakra::CollectiveType::all_to_all}};
  for (const auto& [key, type] : impl_keys)
    if (auto v = o.optional(key)) {
      auto items = v->array();
      if (items.empty())
        v->fail("expected a list of implementations, one per dimension");
      for (auto& item : items) {
        std::string name = item.string();
        collectives::Algorithm a;
        if (not collectives::algorithm_from_string(name, a))
          item.fail("unknown implementation " + quote(name) +
                    " (known: ring, direct, halvingDoubling, doubleBinaryTree)");
        c.implementations[type].push_back(a);
      }
    }
  if (auto v = o.optional("preferred-dataset-splits"))
    c.chunks = static_cast<uint32_t>(v->integer(1, 1 << 20));
  if (auto v = o.optional("active-chunks-per-dimension"))
    c.active_chunks = static_cast<uint32_t>(v->integer(1, 1 << 20));
  // bounds past any hardware, so that a typo (1e308) is not read as a figure
  if (auto v = o.optional("endpoint-delay"))
    c.endpoint_delay_s = bounded(*v, 0, true, kMaxEndpointDelay_ns, "ns") * 1e-9;
  if (auto v = o.optional("local-mem-bw"))
    c.local_mem_bw_Bps = bounded(*v, 0, false, kMaxLocalMemBw_GBps, "GB/s") * kMemoryGBps;
  if (auto v = o.optional("peak-perf"))
    c.peak_flops = bounded(*v, 0, false, kMaxPeakPerf_TFLOPs, "TFLOP/s") * 1e12;
  if (auto v = o.optional("roofline-enabled"))
    c.roofline = v->integer(0, 1) == 1;
  // accepted, not modelled (docs/replay.md says why), but their values are ASTRA-sim's
  if (auto v = o.optional("scheduling-policy")) {
    one_of(*v, {"LIFO", "FIFO", "EXPLICIT"});
    c.ignored.emplace_back("scheduling-policy");
  }
  c.all_reduce_composition = collectives::AllReduceComposition::baseline; // (ASTRA-sim's when the key is absent)
  if (auto v = o.optional("collective-optimization")) {
    one_of(*v, {"baseline", "localBWAware"});
    if (v->string() == "localBWAware")
      c.all_reduce_composition = collectives::AllReduceComposition::local_bw_aware;
  }
  for (const char* key : {"boost-mode", "track-local-mem"})
    if (auto v = o.optional(key)) {
      if (not v->is_number())
        v->fail("expected 0 or 1, got " + v->shown());
      v->integer(0, 1);
      c.ignored.emplace_back(key);
    }
  if (auto v = o.optional("local-mem-trace-filename")) {
    if (v->string().empty())
      v->fail("expected a file name, got an empty string");
    c.ignored.emplace_back("local-mem-trace-filename");
  }
  for (const char* key : {"intra-dimension-scheduling", "inter-dimension-scheduling"})
    if (o.optional(key))
      c.ignored.emplace_back(key);
  if (auto v = o.optional("all-reduce-implementation-custom"))
    v->fail("custom collective implementations (ETs per rank) are not supported yet");
  o.finish();
  return c;
}

std::map<std::string, std::vector<uint32_t>> read_comm_groups(const std::filesystem::path& path)
{
  auto doc = json::load(path);
  auto o   = doc.object();
  std::map<std::string, std::vector<uint32_t>> groups;
  if (o.contains("")) // keys() leaves the empty key out, as a comment
    check_group_id(o, "");
  for (const auto& key : o.take_all_keys()) {
    auto v = o.required(key);
    check_group_id(o, key);
    std::set<uint32_t> seen;
    for (auto& r : v.array()) {
      auto rank = static_cast<uint32_t>(r.integer(0, UINT32_MAX - 1));
      if (not seen.insert(rank).second)
        r.fail("rank " + std::to_string(rank) + " appears twice in group " + quote(key));
      groups[key].push_back(rank);
    }
    if (groups[key].empty())
      v.fail("group " + quote(key) + " has no rank");
  }
  return groups;
}

} // namespace sgai::replay
