#include "plugins/replay/astra_inputs.hpp"

#include "generators/util/error.hpp"
#include "generators/util/json.hpp"

#include <yaml-cpp/yaml.h>

#include <cmath>
#include <set>

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

} // namespace

std::vector<Dimension> read_network_yaml(const std::filesystem::path& path)
{
  const std::string file = path.string();
  YAML::Node root;
  try {
    root = YAML::LoadFile(file);
  } catch (const YAML::BadFile&) {
    throw InputError(file, "", "cannot read the network file");
  } catch (const YAML::Exception& e) {
    throw InputError(file, "line " + std::to_string(e.mark.line + 1), "not valid YAML: " + e.msg);
  }
  if (not root.IsMap())
    throw InputError(file, "", "expected a mapping with topology, npus_count, bandwidth and latency");
  static const std::set<std::string> known = {"topology", "npus_count", "bandwidth", "latency"};
  for (const auto& kv : root) {
    auto key = scalar_text(file, kv.first, "a key");
    if (not known.count(key))
      throw InputError(file, line_of(kv.first),
                       "unknown key " + quote(key) + " (known: topology, npus_count, bandwidth, latency)");
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
    std::string text = scalar_text(file, n, std::string(key) + "[" + std::to_string(i) + "]");
    try {
      size_t used = 0;
      double v    = std::stod(text, &used);
      if (used == text.size() && std::isfinite(v))
        return v;
    } catch (const std::exception&) {
    }
    throw InputError(file, line_of(n),
                     std::string(key) + "[" + std::to_string(i) + "] " + quote(text) + " is not a number");
  };
  std::vector<Dimension> out;
  for (size_t i = 0; i < dims; i++) {
    Dimension d;
    auto kind = scalar_text(file, topology[i], "topology[" + std::to_string(i) + "]");
    if (kind == "Ring")
      d.kind = Dimension::Kind::ring;
    else if (kind == "Switch")
      d.kind = Dimension::Kind::switch_;
    else if (kind == "FullyConnected")
      d.kind = Dimension::Kind::fully_connected;
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
  const std::vector<std::pair<const char*, CollectiveType>> impl_keys = {
      {"all-reduce-implementation", CollectiveType::all_reduce},
      {"all-gather-implementation", CollectiveType::all_gather},
      {"reduce-scatter-implementation", CollectiveType::reduce_scatter},
      {"all-to-all-implementation", CollectiveType::all_to_all}};
  for (const auto& [key, type] : impl_keys)
    if (auto v = o.optional(key)) {
      auto items = v->array();
      if (items.empty())
        v->fail("expected a list of implementations, one per dimension");
      for (auto& item : items) {
        std::string name = item.string();
        Algorithm a;
        if (not algorithm_from_string(name, a))
          item.fail("unknown implementation " + quote(name) +
                    " (known: ring, direct, halvingDoubling, doubleBinaryTree)");
        c.implementations[type].push_back(a);
      }
    }
  if (auto v = o.optional("preferred-dataset-splits"))
    c.chunks = static_cast<uint32_t>(v->integer(1, 1 << 20));
  if (auto v = o.optional("active-chunks-per-dimension"))
    c.active_chunks = static_cast<uint32_t>(v->integer(1, 1 << 20));
  if (auto v = o.optional("endpoint-delay"))
    c.endpoint_delay_s = v->non_negative() * 1e-9;
  if (auto v = o.optional("local-mem-bw"))
    c.local_mem_bw_Bps = v->positive() * kMemoryGBps;
  if (auto v = o.optional("peak-perf"))
    c.peak_flops = v->positive() * 1e12;
  if (auto v = o.optional("roofline-enabled"))
    c.roofline = v->integer(0, 1) == 1;
  // accepted, not modelled (docs/replay.md says why)
  for (const char* key : {"scheduling-policy", "collective-optimization", "boost-mode", "track-local-mem",
                          "local-mem-trace-filename", "intra-dimension-scheduling", "inter-dimension-scheduling"})
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
  for (const auto& key : o.take_all_keys()) {
    auto v = o.required(key);
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
