#include "plugins/experiment/experiment.hpp"

#include "generators/platform/platform.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json.hpp"
#include "generators/util/numbers.hpp"
#include "plugins/sim/energy.hpp"
#include "plugins/sim/simulation.hpp"

#include <nlohmann/json.hpp>

#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <cmath>
#include <sstream>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_experiment, sgai, "sgai experiment runner");

namespace sgai::experiment {

namespace {

struct ComponentEntry {
  std::string type;
  std::unique_ptr<Component> component;
};

struct Experiment {
  std::string name;
  std::string description;
  uint64_t seed = 1;
  std::filesystem::path output;
  std::filesystem::path platform_file;
  platform::LoadOptions platform_options;
  std::vector<std::string> simgrid_args;
  bool link_energy = true;
};

const nlohmann::json& empty_options()
{
  static const nlohmann::json empty = nlohmann::json::object();
  return empty;
}

std::filesystem::path resolve_path(const std::filesystem::path& base, const std::string& p)
{
  std::filesystem::path path(p);
  return path.is_relative() ? (base / path).lexically_normal() : path;
}

Experiment parse_header(json::Object& o, const std::filesystem::path& base)
{
  Experiment e;
  auto ver = o.required("sgai_experiment");
  if (ver.integer() != 1)
    ver.fail("unsupported experiment version " + ver.shown() + " (this sgai reads version 1)");
  e.name = o.required("name").string();
  if (e.name.empty())
    o.fail_at("name", "experiment name is empty");
  if (auto d = o.optional("description"))
    e.description = d->string();
  if (auto s = o.optional("seed"))
    e.seed = static_cast<uint64_t>(s->integer(0, INT64_MAX));
  e.output = o.has("output") ? std::filesystem::path(o.required("output").string())
                             : std::filesystem::path("results") / e.name;

  auto po         = o.required("platform").object();
  auto file       = po.required("file");
  e.platform_file = resolve_path(base, file.string());
  std::error_code ec;
  if (not std::filesystem::exists(e.platform_file, ec))
    file.fail("platform file " + file.shown() + " not found (looked for " + e.platform_file.string() + ")");
  if (auto cats = po.optional("catalogues"))
    for (auto& c : cats->array())
      e.platform_options.catalogues.push_back(resolve_path(base, c.string()));
  if (auto g = po.optional("granularity"))
    e.platform_options.granularity = platform::granularity_from_string(g->choice({"core", "processor", "node"}));
  po.finish({"file", "catalogues", "granularity"});

  if (auto sg = o.optional("simgrid")) {
    auto so = sg->object();
    if (auto cfg = so.optional("cfg"))
      for (auto& c : cfg->array())
        e.simgrid_args.push_back("--cfg=" + c.string());
    if (auto log = so.optional("log"))
      for (auto& l : log->array())
        e.simgrid_args.push_back("--log=" + l.string());
    if (auto le = so.optional("link_energy"))
      e.link_energy = le->boolean();
    so.finish({"cfg", "log", "link_energy"});
  }
  return e;
}

void write_energy_csv(const std::filesystem::path& path, const std::vector<sim::EnergyRecord>& records,
                      const char* what)
{
  AtomicFile f(path);
  f.stream() << what << ",energy_j\n";
  for (const auto& r : records)
    f.stream() << r.name << "," << format_number(r.joules) << "\n";
  f.commit();
}

} // namespace

Result run_experiment(const std::filesystem::path& file, const Overrides& overrides)
{
  auto base = file.parent_path().empty() ? std::filesystem::path(".") : file.parent_path();
  return run_experiment_text(read_text_file(file), file.string(), base, overrides);
}

Result run_experiment_text(const std::string& text, const std::string& file, const std::filesystem::path& base,
                           const Overrides& overrides)
{
  auto doc     = json::parse(text, file);
  auto o       = doc.object();
  Experiment e = parse_header(o, base);
  if (overrides.output)
    e.output = *overrides.output;
  if (overrides.seed)
    e.seed = *overrides.seed;
  for (const auto& a : overrides.simgrid_args)
    e.simgrid_args.push_back(a);

  RunContext ctx;
  ctx.output_dir = e.output;
  ctx.base_dir   = base;
  ctx.seed       = e.seed;

  // Components are configured before anything runs: a bad option fails without output.
  std::vector<ComponentEntry> components;
  auto list = o.required("components");
  for (auto& item : list.array()) {
    auto co   = item.object();
    auto type = co.required("type");
    std::optional<json::Object> opts;
    if (auto ov = co.optional("options"))
      opts.emplace(ov->object());
    else
      opts.emplace(empty_options(), json::child_pointer(co.pointer(), "options"), doc.file);
    co.finish({"type", "options"});
    auto comp = builtin_components().create(type, *opts, ctx);
    opts->finish();
    components.push_back({type.string(), std::move(comp)});
  }
  if (components.empty())
    list.fail("an experiment needs at least one component");
  o.finish({"sgai_experiment", "name", "description", "seed", "output", "platform", "simgrid", "components"});

  sim::SimulationOptions so;
  so.simgrid_args = e.simgrid_args;
  for (auto& c : components) // components' needs first: the user's own options still win
    for (const auto& a : c.component->simgrid_args())
      so.simgrid_args.insert(so.simgrid_args.begin(), a);
  so.link_energy = e.link_energy;
  sim::Simulation simulation(so);
  ctx.simulation = &simulation;
  auto platform  = simulation.load_platform(e.platform_file, e.platform_options);
  ctx.platform   = platform ? &*platform : nullptr;
  for (auto& c : components)
    c.component->setup(ctx);

  XBT_INFO("Running experiment '%s' (seed %llu)", e.name.c_str(), static_cast<unsigned long long>(e.seed));
  Result result;
  result.simulated_time_s = simulation.run();
  result.output_dir       = e.output;

  // Outputs go to a staging folder beside the output folder and move in only when all are written:
  // a run that fails on the way leaves no half-written results.
  StagingDir staging(e.output);
  const auto& out = staging.path();
  ctx.output_dir  = out;
  nlohmann::ordered_json summary;
  summary["experiment"]        = e.name;
  summary["seed"]              = e.seed;
  summary["simulated_time_s"]  = result.simulated_time_s;
  nlohmann::ordered_json comps = nlohmann::ordered_json::object();
  for (auto& c : components) {
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [k, v] : c.component->finish(ctx, result.outputs)) {
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        figures[k] = static_cast<int64_t>(v); // counts read as counts
      else
        figures[k] = v;
    }
    comps[c.type] = figures;
  }
  summary["components"] = comps;

  auto energy = sim::collect_energy(e.link_energy);
  write_energy_csv(out / "energy_hosts.csv", energy.hosts, "host");
  result.outputs.push_back({(out / "energy_hosts.csv").string(), "energy per host (host_energy plugin)"});
  if (e.link_energy) {
    write_energy_csv(out / "energy_links.csv", energy.links, "link");
    result.outputs.push_back({(out / "energy_links.csv").string(), "energy per link (link_energy plugin)"});
  }
  summary["energy"] = {{"hosts_j", energy.hosts_total_j}, {"links_j", energy.links_total_j}};

  if (platform) {
    AtomicFile h(out / "hierarchy.json");
    platform::write_hierarchy_json(*platform, h.stream());
    h.commit();
    result.outputs.push_back({(out / "hierarchy.json").string(), "resource hierarchy of the platform"});
    if (platform::xml_limitation(*platform).empty()) {
      AtomicFile x(out / "platform.xml");
      platform::write_xml(*platform, x.stream());
      x.commit();
      result.outputs.push_back({(out / "platform.xml").string(), "the platform as SimGrid XML"});
    }
  }

  nlohmann::ordered_json config;
  config["experiment_file"] = file;
  config["name"]            = e.name;
  config["description"]     = e.description;
  config["seed"]            = e.seed;
  config["platform"]        = e.platform_file.string();
  config["simgrid_args"]    = e.simgrid_args;
  config["input"]           = nlohmann::json::parse(text);
  write_file_atomically(out / "config.json", config.dump(2) + "\n");
  result.outputs.push_back({(out / "config.json").string(), "the full configuration and seed"});

  result.outputs.push_back({(out / "summary.json").string(), "figures of the run"});
  for (auto& of : result.outputs) // the paths they will have once in place
    of.path = (e.output / std::filesystem::path(of.path).lexically_relative(out)).string();
  nlohmann::ordered_json outs = nlohmann::ordered_json::array();
  for (const auto& of : result.outputs)
    outs.push_back({{"path", of.path}, {"what", of.what}});
  summary["outputs"] = outs;
  write_file_atomically(out / "summary.json", summary.dump(2) + "\n");
  staging.publish();
  return result;
}

} // namespace sgai::experiment
