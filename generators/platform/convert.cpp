/* Converters to self-contained sgai platform files (version 1):
 *  - an HDeepRM platform and its type catalogues, with the used type entries copied verbatim;
 *  - an AccaSim machine description (groups of nodes with cores and memory) plus a map giving
 *    each group its processors. */
#include "generators/platform/convert.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/platform/platform.hpp"

#include <nlohmann/json.hpp>

#include <map>
#include <set>

namespace sgai::platform {

namespace {

using nlohmann::ordered_json;

/** Raw catalogue entries by section, with the file each came from. */
struct RawCatalogue {
  std::map<std::string, std::map<std::string, std::pair<nlohmann::json, std::string>>> sections;

  void add(const std::string& section, const nlohmann::json& entries, const std::string& file)
  {
    for (auto it = entries.begin(); it != entries.end(); ++it) {
      if (it.key().empty() || it.key()[0] == '_')
        continue;
      sections[section][it.key()] = {it.value(), file};
    }
  }
  const nlohmann::json& get(const std::string& section, const std::string& name) const
  {
    return sections.at(section).at(name).first;
  }
};

RawCatalogue load_raw(const std::vector<std::filesystem::path>& paths)
{
  RawCatalogue raw;
  for (const auto& p : paths) {
    std::error_code ec;
    if (std::filesystem::is_directory(p, ec)) {
      for (const char* s : {"processor", "node", "network", "memory"}) {
        auto f = p / (std::string(s) + "_types.json");
        if (std::filesystem::exists(f, ec))
          raw.add(std::string(s) + "_types", json::raw(json::load(f)), f.string());
      }
    } else {
      auto doc = json::load(p);
      for (auto it = json::raw(doc).begin(); it != json::raw(doc).end(); ++it)
        if (it.key().size() > 6 && it.key().substr(it.key().size() - 6) == "_types")
          raw.add(it.key(), it.value(), p.string());
    }
  }
  return raw;
}

std::vector<std::filesystem::path> catalogues_of(const std::filesystem::path& file,
                                                 const std::vector<std::filesystem::path>& given)
{
  if (not given.empty())
    return given;
  auto base = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  for (const auto& c : {base / ".." / "hdeeprm" / "data", base / "hdeeprm" / "data"}) {
    std::error_code ec;
    if (std::filesystem::exists(c / "node_types.json", ec))
      return {c.lexically_normal()};
  }
  return {};
}

void validate_output(const std::string& text, const std::filesystem::path& out)
{
  // Whatever is written must read back: parse it as a platform before renaming it into place.
  auto base = out.parent_path().empty() ? std::filesystem::path(".") : out.parent_path();
  resolve(parse_spec(text, out.string(), base));
}

/** Where a place of an imported platform comes from: the machine map or the AccaSim config, and the
 *  place there. `groups` are the config's groups in cluster order. */
std::pair<std::string, std::string> import_origin(const std::string& place, const std::vector<std::string>& groups,
                                                  const std::filesystem::path& config, const std::filesystem::path& map)
{
  const std::string at = "at ";
  if (place.rfind(at, 0) != 0)
    return {map.string(), place};
  std::string ptr = place.substr(at.size());
  auto starts     = [&ptr](const std::string& prefix) { return ptr.rfind(prefix, 0) == 0; };
  auto rest_after = [&ptr](size_t parts) { // the pointer past its first `parts` components
    size_t pos = 0;
    for (size_t i = 0; i < parts && pos != std::string::npos; i++)
      pos = ptr.find('/', pos + 1);
    return pos == std::string::npos ? std::string() : ptr.substr(pos);
  };
  auto component = [&ptr](size_t index) { // the index-th component (0: the first)
    size_t pos = 0;
    for (size_t i = 0; i < index && pos != std::string::npos; i++)
      pos = ptr.find('/', pos + 1);
    if (pos == std::string::npos)
      return std::string();
    auto end = ptr.find('/', pos + 1);
    return ptr.substr(pos + 1, end == std::string::npos ? std::string::npos : end - pos - 1);
  };
  if (starts("/global_links") || starts("/name"))
    return {map.string(), place};
  if (starts("/clusters/")) {
    std::string rest = rest_after(2);
    size_t index     = 0;
    try {
      index = std::stoul(component(1));
    } catch (const std::exception&) {
      return {map.string(), place};
    }
    if (rest.rfind("/local_links", 0) == 0)
      return {map.string(), at + rest};
    if (index < groups.size())
      return {config.string(), at + "/resources/" + groups[index]};
    return {config.string(), at + "/resources"};
  }
  if (starts("/types/node_types/")) {
    std::string group = component(2);
    std::string rest  = rest_after(3);
    if (rest.rfind("/memory/type", 0) == 0)
      return {map.string(), at + "/memory_type"};
    if (rest.rfind("/memory", 0) == 0)
      return {config.string(), at + "/groups/" + group + "/mem"};
    return {map.string(), at + "/groups/" + group + rest};
  }
  return {map.string(), place};
}

/** The cores of a processor type of a machine map's types (0 when it gives none); an error at `po`'s
 *  type when the map does not define that type. The types are copied verbatim into the platform,
 *  whose check reads the rest. */
int64_t processor_cores(const json::Value& types, const std::string& type, const json::Object& po)
{
  std::optional<json::Value> entry;
  if (types.is_object())
    if (auto all = types.object().optional("processor_types"); all && all->is_object())
      entry = all->object().optional(type);
  if (not entry)
    po.fail_at("type", "unknown processor type " + quote(type) + " (define it in the map's types.processor_types)");
  auto cores = entry->object().optional("cores");
  return cores ? cores->integer(0, 1 << 24) : 0;
}

} // namespace

void convert_hdeeprm(const std::filesystem::path& file, const std::vector<std::filesystem::path>& catalogues,
                     const std::filesystem::path& out)
{
  LoadOptions options;
  options.catalogues = catalogues;
  PlatformSpec spec  = load_spec(file, options); // full check of the input first
  if (spec.format != "hdeeprm")
    throw InputError(file.string(), "", "already an sgai platform (has 'sgai_platform'): nothing to convert");

  auto doc         = json::load(file);
  RawCatalogue raw = load_raw(catalogues_of(file, catalogues));

  std::set<std::string> nodes, processors, memories, networks;
  for (const auto& c : spec.clusters) {
    for (const auto& g : c.nodes)
      nodes.insert(g.type);
    if (not c.topology.link.type.empty())
      networks.insert(c.topology.link.type);
  }
  if (spec.global_link && not spec.global_link->type.empty())
    networks.insert(spec.global_link->type);
  for (const auto& n : nodes) {
    const NodeType& nt = spec.catalogue.nodes.at(n);
    for (const auto& tc : nt.processors)
      processors.insert(tc.type);
    if (not nt.memory_type.empty() && spec.catalogue.memories.count(nt.memory_type))
      memories.insert(nt.memory_type);
  }

  ordered_json types;
  auto section = [&](const char* name, const std::set<std::string>& used) {
    ordered_json s = ordered_json::object();
    for (const auto& n : used)
      s[n] = raw.get(name, n);
    if (not used.empty())
      types[name] = s;
  };
  section("processor_types", processors);
  section("node_types", nodes);
  section("network_types", networks);
  section("memory_types", memories);

  ordered_json o;
  o["sgai_platform"] = 1;
  o["name"]          = spec.name;
  o["_source"]       = "converted by 'sgai platform convert' from HDeepRM's " + file.filename().string() +
                 " and its type catalogues (entries copied unchanged)";
  o["granularity"]  = "core";
  o["types"]        = types;
  o["clusters"]     = json::raw(doc)["clusters"];
  o["global_links"] = json::raw(doc)["global_links"];
  if (json::raw(doc).contains("job_limits"))
    o["job_limits"] = json::raw(doc)["job_limits"];

  std::string text = o.dump(2) + "\n";
  validate_output(text, out);
  write_file_atomically(out, text);
}

void import_accasim(const std::filesystem::path& config, const std::filesystem::path& map,
                    const std::filesystem::path& out)
{
  auto cdoc          = json::load(config);
  auto co            = cdoc.object();
  std::string system = co.has("system_name") ? co.required("system_name").string() : "";
  if (auto st = co.optional("start_time"))
    st->number();
  co.optional("equivalence");
  auto groups    = co.required("groups").object();
  auto resources = co.required("resources").object();
  co.finish({"system_name", "start_time", "equivalence", "groups", "resources"});

  auto mdoc = json::load(map);
  auto mo   = mdoc.object();
  auto ver  = mo.required("sgai_machine_map");
  if (ver.integer() != 1)
    ver.fail("unsupported machine map version " + ver.shown() + " (this sgai reads version 1)");
  auto name_value  = mo.required("name");
  std::string name = name_value.string();
  check_plain_name(name, name_value.file(), "at " + name_value.pointer());
  auto mgroups = mo.required("groups").object();
  auto local   = mo.required("local_links");
  auto global  = mo.required("global_links");
  auto mtypes  = mo.required("types");
  std::string memory_type;
  if (auto mt = mo.optional("memory_type"))
    memory_type = mt->string();
  mo.finish({"sgai_machine_map", "name", "groups", "local_links", "global_links", "types", "memory_type"});

  ordered_json node_types = ordered_json::object();
  ordered_json clusters   = ordered_json::array();
  std::set<std::string> used_processors;
  std::vector<std::string> cluster_groups; // the config's group of each cluster
  for (const auto& g : resources.take_all_keys()) {
    auto count_v  = resources.required(g);
    int64_t count = count_v.integer(1, 1 << 24);
    if (not groups.has(g))
      count_v.fail("group " + quote(g) + " has resources but no entry in 'groups'");
    auto go    = groups.required(g).object();
    auto cores = go.required("core").integer(1, 1 << 24);
    auto mem   = go.required("mem");
    double kb  = mem.positive();
    go.finish({"core", "mem"});
    if (not mgroups.has(g))
      mgroups.fail("no processor mapping for group " + quote(g) + " of " + config.string());
    auto entry         = mgroups.required(g).object();
    auto procs         = entry.required("processors");
    int64_t mapped     = 0;
    ordered_json plist = ordered_json::array();
    for (auto& pv : procs.array()) {
      auto po     = pv.object();
      auto type   = po.required("type").string();
      auto number = po.required("number").integer(1, 1 << 16);
      po.finish({"type", "number"});
      mapped += number * processor_cores(mtypes, type, po);
      used_processors.insert(type);
      plist.push_back({{"type", type}, {"number", number}});
    }
    entry.finish({"processors"});
    if (mapped != cores)
      procs.fail("processors of group " + quote(g) + " give " + std::to_string(mapped) + " cores but " +
                 config.string() + " says " + std::to_string(cores));
    ordered_json nt;
    nt["id"]         = g;
    nt["processors"] = plist;
    ordered_json memory;
    if (not memory_type.empty())
      memory["type"] = memory_type;
    memory["capacity"] = format_number(kb) + "KiB";
    nt["memory"]       = memory;
    node_types[g]      = nt;
    clusters.push_back({{"id", g},
                        {"nodes", ordered_json::array({{{"type", g}, {"number", count}}})},
                        {"local_links", json::raw(local)}});
    cluster_groups.push_back(g);
  }
  mgroups.take_all_keys();
  if (cluster_groups.empty())
    resources.fail("no groups: expected each group's node count, e.g. {\"g0\": 120}");

  ordered_json types;
  for (auto it = json::raw(mtypes).begin(); it != json::raw(mtypes).end(); ++it)
    types[it.key()] = it.value();
  types["node_types"] = node_types;

  ordered_json o;
  o["sgai_platform"] = 1;
  o["name"]          = name;
  o["_source"] = "imported by 'sgai platform import-machines' from " + config.filename().string() + " (" + system +
                 ") and " + map.filename().string();
  o["granularity"]  = "core";
  o["types"]        = types;
  o["clusters"]     = clusters;
  o["global_links"] = json::raw(global);

  std::string text = o.dump(2) + "\n";
  try {
    validate_output(text, out);
  } catch (const InputError& e) {
    // Nothing is written yet: name the input the bad piece came from, not the output file.
    if (e.file() != out.string())
      throw;
    auto [file, place] = import_origin(e.place(), cluster_groups, config, map);
    throw InputError(file, place, e.message());
  }
  write_file_atomically(out, text);
}

} // namespace sgai::platform
