/* Platform descriptions from JSON: HDeepRM's format read unchanged (no version key) and sgai's
 * version 1, which adds catalogues, GPUs, topologies, energy settings and granularity. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "generators/platform/catalogue_json.hpp"
#include "generators/platform/platform.hpp"

#include <set>

namespace sgai::platform {

namespace {

using json::Object;
using json::Value;
using units::Quantity;

unsigned positive_unsigned(const Value& v)
{
  return static_cast<unsigned>(v.integer(1, 1 << 24));
}

/** {"type": ..., "bandwidth": ..., "latency": ..., "idle_power": ..., "busy_power": ...} */
LinkSpec parse_link(Object o, const Catalogue& cat)
{
  LinkSpec l;
  l.origin              = origin_of(o);
  const NetworkType* nt = nullptr;
  if (auto t = o.optional("type")) {
    l.type  = t->string();
    auto it = cat.networks.find(l.type);
    if (it == cat.networks.end())
      t->fail("unknown network type " + t->shown() + " (known: " + json::list_names(catalogue_names(cat, "network")) +
              ")");
    nt              = &it->second;
    l.bandwidth_Bps = nt->bandwidth_Bps;
    l.idle_w        = nt->idle_w;
    l.busy_w        = nt->busy_w;
  }
  if (auto bw = o.optional("bandwidth")) {
    l.bandwidth_Bps = bw->quantity(Quantity::bandwidth);
    if (not(l.bandwidth_Bps > 0))
      bw->fail("bandwidth " + bw->shown() + " must be positive");
    check_upper_bound(*bw, l.bandwidth_Bps, Quantity::bandwidth);
  } else if (nt == nullptr) {
    o.fail("a link needs a network 'type' or a 'bandwidth'");
  }
  if (auto lat = o.optional("latency")) {
    l.latency_s = lat->quantity(Quantity::time);
    if (not(l.latency_s >= 0))
      lat->fail("latency " + lat->shown() + " must not be negative");
    check_upper_bound(*lat, l.latency_s, Quantity::time);
  } else if (nt && nt->latency_s) {
    l.latency_s = *nt->latency_s;
  } else {
    o.fail("missing field 'latency' (the network type gives no default latency)");
  }
  if (auto v = o.optional("idle_power"))
    l.idle_w = v->quantity(Quantity::power, 1.0);
  if (auto v = o.optional("busy_power"))
    l.busy_w = v->quantity(Quantity::power, 1.0);
  if (l.idle_w.has_value() != l.busy_w.has_value())
    o.fail("idle_power and busy_power go together (SimGrid's wattage_range \"idle:busy\")");
  o.finish({"type", "bandwidth", "latency", "idle_power", "busy_power"});
  return l;
}

Sharing parse_sharing(const Value& v)
{
  std::string s = v.choice({"shared", "splitduplex", "fatpipe"});
  return s == "shared" ? Sharing::shared : s == "fatpipe" ? Sharing::fatpipe : Sharing::splitduplex;
}

/** A level of switches: {"down", "up", "links", "link"} (a fat tree's, or a clos's above its leaves). */
FatTreeLevel parse_switch_level(Object lo, const Catalogue& cat)
{
  FatTreeLevel l;
  l.down = positive_unsigned(lo.required("down"));
  l.up   = positive_unsigned(lo.required("up"));
  if (auto n = lo.optional("links"))
    l.links = positive_unsigned(*n);
  l.link = parse_link(lo.required("link").object(), cat);
  lo.finish({"down", "up", "links", "link"});
  return l;
}

/** A clos of NIC leaves: level 1 {"down": NIC ports of a leaf}, then switch levels as a fat tree's. */
Topology parse_clos(Object& o, const Catalogue& cat, Topology t, bool rail_optimized)
{
  t.kind  = TopologyKind::clos;
  t.rails = rail_optimized;
  if (not rail_optimized)
    if (auto r = o.optional("rails"))
      t.rails = r->boolean();
  if (auto x = o.optional("pxn"))
    t.pxn = x->boolean();
  if (auto x = o.optional("sharp"))
    t.sharp = x->boolean();
  auto levels = o.required("levels");
  for (auto& item : levels.array()) {
    if (not t.levels.empty()) {
      t.levels.push_back(parse_switch_level(item.object(), cat));
      continue;
    }
    auto lo = item.object(); // the leaves: their links are the NICs' own (the node type's nics)
    FatTreeLevel l;
    l.down = positive_unsigned(lo.required("down"));
    lo.finish({"down"});
    t.levels.push_back(l);
  }
  if (t.levels.empty())
    levels.fail("a clos needs at least its leaves: [{\"down\": NIC ports per leaf}, ...]");
  if (rail_optimized)
    o.finish({"kind", "levels", "pxn", "sharp", "sharing_policy"});
  else
    o.finish({"kind", "levels", "rails", "pxn", "sharp", "sharing_policy"});
  return t;
}

Topology parse_topology(Object o, const Catalogue& cat)
{
  Topology t;
  t.origin = origin_of(o);
  std::string kind =
      o.required("kind").choice({"flat", "full", "fat_tree", "torus", "dragonfly", "clos", "rail_optimized"});
  if (auto s = o.optional("sharing_policy"))
    t.sharing = parse_sharing(*s);
  if (kind == "clos" || kind == "rail_optimized")
    return parse_clos(o, cat, t, kind == "rail_optimized");
  if (kind == "fat_tree") {
    t.kind      = TopologyKind::fat_tree;
    auto levels = o.required("levels");
    for (auto& item : levels.array())
      t.levels.push_back(parse_switch_level(item.object(), cat));
    if (t.levels.empty())
      levels.fail("a fat tree needs at least one level of switches");
    if (auto x = o.optional("sharp"))
      t.sharp = x->boolean();
    o.finish({"kind", "levels", "sharp", "sharing_policy"});
    return t;
  }
  t.link = parse_link(o.required("link").object(), cat);
  if (kind == "flat" || kind == "full") {
    t.kind = kind == "flat" ? TopologyKind::flat : TopologyKind::full;
    o.finish({"kind", "link", "sharing_policy"});
  } else if (kind == "torus") {
    t.kind    = TopologyKind::torus;
    auto dims = o.required("dimensions");
    for (auto& d : dims.array())
      t.dimensions.push_back(positive_unsigned(d));
    if (t.dimensions.empty())
      dims.fail("a torus needs at least one dimension");
    o.finish({"kind", "dimensions", "link", "sharing_policy"});
  } else {
    t.kind    = TopologyKind::dragonfly;
    auto pair = [&](const char* key, unsigned& count, unsigned& links) {
      auto po = o.required(key).object();
      count   = positive_unsigned(po.required("count"));
      links   = positive_unsigned(po.required("links"));
      po.finish({"count", "links"});
    };
    auto& d = t.dragonfly;
    pair("groups", d.groups, d.group_links);
    pair("chassis", d.chassis, d.chassis_links);
    pair("routers", d.routers, d.router_links);
    d.nodes_per_router = positive_unsigned(o.required("nodes_per_router"));
    o.finish({"kind", "groups", "chassis", "routers", "nodes_per_router", "link", "sharing_policy"});
  }
  return t;
}

ClusterSpec parse_cluster(Object o, const Catalogue& cat, bool versioned)
{
  ClusterSpec c;
  c.origin = origin_of(o);
  auto id  = o.required("id");
  c.id     = id.string();
  if (c.id.empty())
    id.fail("cluster id is empty");
  // The id starts every host, link and zone name of the cluster, written to SimGrid XML, whose
  // names end at a NUL and cannot hold other control characters.
  for (unsigned char ch : c.id)
    if (ch < 0x20 || ch == 0x7f)
      id.fail("cluster id " + id.shown() + " holds a control character (byte " + std::to_string(ch) + ")");
  auto nodes = o.required("nodes");
  for (auto& item : nodes.array()) {
    auto no = item.object();
    NodeGroup g;
    g.origin = origin_of(no);
    auto t   = no.required("type");
    g.type   = t.string();
    if (not cat.nodes.count(g.type))
      t.fail("unknown node type " + t.shown() + " (known: " + json::list_names(catalogue_names(cat, "node")) + ")");
    g.count = no.required("number").integer(1, 1 << 24);
    no.finish({"type", "number"});
    c.nodes.push_back(g);
  }
  if (c.nodes.empty())
    nodes.fail("a cluster needs at least one node group");

  std::optional<Value> local = o.optional("local_links");
  std::optional<Value> topo  = versioned ? o.optional("topology") : std::nullopt;
  if (topo && local)
    o.fail("give either 'local_links' (a flat cluster, HDeepRM style) or 'topology', not both");
  if (topo) {
    c.topology = parse_topology(topo->object(), cat);
  } else if (local) {
    c.topology.kind   = TopologyKind::flat;
    c.topology.origin = origin_of(local->object());
    c.topology.link   = parse_link(local->object(), cat);
  } else {
    o.fail(versioned ? "missing field 'local_links' or 'topology'" : "missing field 'local_links'");
  }
  if (versioned)
    o.finish({"id", "nodes", "local_links", "topology"});
  else
    o.finish({"id", "nodes", "local_links"});
  return c;
}

EnergySpec parse_energy(Object o)
{
  EnergySpec e = default_energy();
  if (auto ps = o.optional("cpu_pstates")) {
    e.cpu_pstates.clear();
    std::set<std::string> names;
    for (auto& item : ps->array()) {
      auto po = item.object();
      CpuPState s;
      auto name = po.required("name");
      s.name    = name.string();
      if (not names.insert(s.name).second)
        name.fail("duplicate P-state name " + name.shown());
      s.speed   = po.required("speed").positive();
      s.idle    = po.required("idle").non_negative();
      auto busy = po.required("busy");
      s.busy    = busy.non_negative();
      if (s.busy < s.idle)
        busy.fail("busy power factor " + busy.shown() + " is below the idle factor");
      po.finish({"name", "speed", "idle", "busy"});
      e.cpu_pstates.push_back(s);
    }
    if (e.cpu_pstates.empty())
      ps->fail("cpu_pstates is empty");
  }
  if (auto init = o.optional("initial_pstate")) {
    e.initial_pstate = init->string();
  } else if (o.has("cpu_pstates")) {
    e.initial_pstate = e.cpu_pstates.front().name;
  }
  bool found = false;
  std::vector<std::string> names;
  for (const auto& s : e.cpu_pstates) {
    found = found || s.name == e.initial_pstate;
    names.push_back(s.name);
  }
  if (not found)
    o.fail_at("initial_pstate",
              "unknown P-state " + quote(e.initial_pstate) + " (known: " + json::list_names(names) + ")");
  if (auto off = o.optional("off_fraction"))
    e.off_fraction = off->non_negative();
  o.finish({"cpu_pstates", "initial_pstate", "off_fraction"});
  return e;
}

std::vector<std::filesystem::path> hdeeprm_default_catalogues(const std::filesystem::path& base_dir)
{
  for (const auto& candidate : {base_dir / ".." / "hdeeprm" / "data", base_dir / "hdeeprm" / "data"}) {
    std::error_code ec;
    if (std::filesystem::exists(candidate / "node_types.json", ec))
      return {candidate};
  }
  return {};
}

} // namespace

const char* to_string(Granularity g)
{
  switch (g) {
  case Granularity::core:
    return "core";
  case Granularity::processor:
    return "processor";
  case Granularity::node:
    return "node";
  }
  return "core";
}

std::optional<Granularity> granularity_from_string(const std::string& s)
{
  if (s == "core")
    return Granularity::core;
  if (s == "processor")
    return Granularity::processor;
  if (s == "node")
    return Granularity::node;
  return std::nullopt;
}

const char* to_string(Sharing s)
{
  switch (s) {
  case Sharing::shared:
    return "SHARED";
  case Sharing::splitduplex:
    return "SPLITDUPLEX";
  case Sharing::fatpipe:
    return "FATPIPE";
  }
  return "SHARED";
}

const char* to_string(TopologyKind k)
{
  switch (k) {
  case TopologyKind::flat:
    return "flat";
  case TopologyKind::full:
    return "full";
  case TopologyKind::fat_tree:
    return "fat_tree";
  case TopologyKind::clos:
    return "clos";
  case TopologyKind::torus:
    return "torus";
  case TopologyKind::dragonfly:
    return "dragonfly";
  }
  return "flat";
}

EnergySpec default_energy()
{
  EnergySpec e;
  // HDeepRM: a busy core draws its TDP share at 100% or 75% speed (memory-bandwidth limited); an idle
  // core of an active processor 25% (the figure of sgai's specification; HDeepRM's released code uses
  // 15%); a core of an idle processor 5%.
  e.cpu_pstates    = {{"idle", 1.0, 0.05, 1.0}, {"active", 1.0, 0.25, 1.0}, {"membw_limited", 0.75, 0.25, 1.0}};
  e.initial_pstate = "idle";
  e.off_fraction   = 0;
  return e;
}

PlatformSpec parse_spec(const std::string& text, const std::string& file_name, const std::filesystem::path& base_dir,
                        const LoadOptions& options)
{
  auto doc = json::parse(text, file_name);
  auto o   = doc.object();

  PlatformSpec spec;
  spec.source_file = file_name;
  spec.energy      = default_energy();
  spec.name        = std::filesystem::path(file_name).stem().string();
  bool versioned   = o.has("sgai_platform");

  // Catalogues first: the clusters refer to their types.
  std::vector<std::filesystem::path> catalogue_paths;
  std::vector<std::string> listed_at; // where the platform lists each catalogue (its own ones come first)
  if (versioned) {
    auto ver = o.required("sgai_platform");
    if (ver.integer() != 1)
      ver.fail("unsupported platform version " + ver.shown() + " (this sgai reads version 1)");
    spec.format = "sgai-1";
    if (auto cats = o.optional("catalogues"))
      for (auto& c : cats->array()) {
        std::filesystem::path p = c.string();
        if (p.is_relative())
          p = base_dir / p;
        std::error_code ec;
        if (not std::filesystem::exists(p, ec))
          c.fail("catalogue " + c.shown() + " not found (looked for " + p.string() + ")");
        catalogue_paths.push_back(p);
        listed_at.push_back(file_name + " at " + c.pointer());
      }
  } else {
    spec.format = "hdeeprm";
    if (options.catalogues.empty())
      catalogue_paths = hdeeprm_default_catalogues(base_dir);
  }
  for (const auto& p : options.catalogues)
    catalogue_paths.push_back(p);
  std::set<std::string> loaded;
  for (size_t i = 0; i < catalogue_paths.size(); i++) {
    try {
      merge_catalogue(spec.catalogue, load_catalogue(catalogue_paths[i], loaded));
    } catch (const InputError& e) {
      if (i >= listed_at.size() || e.file() == file_name)
        throw;
      // The catalogue's own error, and where the platform names it (a path such as /etc/passwd).
      throw InputError(e.file(), e.place(), e.message() + " (a catalogue listed in " + listed_at[i] + ")");
    }
  }
  if (versioned) {
    if (auto types = o.optional("types")) {
      auto to = types->object();
      Catalogue inline_types;
      parse_catalogue_sections(to, inline_types);
      to.finish(catalogue_section_keys());
      merge_catalogue(spec.catalogue, inline_types);
    }
  }
  if (spec.catalogue.nodes.empty())
    o.fail(versioned ? "no node types: list catalogues in 'catalogues' or define 'types'"
                     : "HDeepRM platform without type catalogues: pass the folder holding node_types.json, "
                       "processor_types.json and network_types.json (sgai platform generate --types DIR)");
  check_catalogue_references(spec.catalogue);

  if (versioned) {
    if (auto name = o.optional("name")) {
      spec.name = name->string();
      // The name becomes the output files' names: never a path (check_plain_name).
      check_plain_name(spec.name, name->file(), "at " + name->pointer());
    }
    if (auto g = o.optional("granularity")) {
      spec.granularity = *granularity_from_string(g->choice({"core", "processor", "node"}));
    }
    if (auto e = o.optional("energy"))
      spec.energy = parse_energy(e->object());
  }
  if (options.granularity)
    spec.granularity = *options.granularity;

  auto clusters = o.required("clusters");
  std::set<std::string> ids;
  for (auto& item : clusters.array()) {
    auto c = parse_cluster(item.object(), spec.catalogue, versioned);
    if (not ids.insert(c.id).second)
      throw InputError(file_name, "at " + c.origin.pointer + "/id", "duplicate cluster id " + quote(c.id));
    spec.clusters.push_back(std::move(c));
  }
  if (spec.clusters.empty())
    clusters.fail("a platform needs at least one cluster");

  if (auto g = o.optional("global_links"))
    spec.global_link = parse_link(g->object(), spec.catalogue);
  else if (not versioned)
    o.fail("missing field 'global_links'");
  else if (spec.clusters.size() > 1)
    o.fail("several clusters need 'global_links' (the links joining each cluster to the central switch)");

  if (auto jl = o.optional("job_limits")) {
    jl->object(); // must be an object; kept verbatim for the resource hierarchy
    spec.job_limits_json = jl->dump();
  }

  if (versioned)
    o.finish({"sgai_platform", "name", "catalogues", "types", "granularity", "energy", "clusters", "global_links",
              "job_limits"});
  else
    o.finish({"clusters", "global_links", "job_limits"});
  return spec;
}

PlatformSpec load_spec(const std::filesystem::path& file, const LoadOptions& options)
{
  auto text = read_text_file(file);
  return parse_spec(text, file.string(), file.parent_path().empty() ? "." : file.parent_path(), options);
}

Platform generate(const std::filesystem::path& file, const LoadOptions& options)
{
  return resolve(load_spec(file, options));
}

} // namespace sgai::platform
