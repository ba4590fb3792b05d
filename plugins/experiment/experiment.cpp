#include "plugins/experiment/experiment.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/sim/energy.hpp"
#include "plugins/sim/power_series.hpp"
#include "plugins/sim/simulation.hpp"

#include <nlohmann/json.hpp>

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <cmath>
#include <map>
#include <sstream>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_experiment, sgai, "sgai experiment runner");

namespace sgai::experiment {

namespace {

/** The options of a component that gives none: an empty object, at `pointer` of `file`. */
json::Object empty_options(const std::string& pointer, std::shared_ptr<const std::string> file)
{
  static const json::Document empty = json::parse("{}", "no options");
  return json::Object(empty.root.get(), pointer, std::move(file));
}

std::filesystem::path resolve_path(const std::filesystem::path& base, const std::string& p)
{
  std::filesystem::path path(p);
  return path.is_relative() ? (base / path).lexically_normal() : path;
}

Spec parse_header(json::Object& o, const std::filesystem::path& base)
{
  Spec e;
  auto ver = o.required("sgai_experiment");
  if (ver.integer() != 1)
    ver.fail("unsupported experiment version " + ver.shown() + " (this sgai reads version 1)");
  auto name = o.required("name");
  e.name    = name.string();
  // The name chooses the default output folder results/<name>: a plain name, never a path.
  check_plain_name(e.name, name.file(), "at " + name.pointer());
  if (auto d = o.optional("description"))
    e.description = d->string();
  if (auto s = o.optional("seed"))
    e.seed = static_cast<uint64_t>(s->integer(0, INT64_MAX));
  if (auto out = o.optional("output")) {
    e.output = out->string();
    if (e.output.empty())
      out->fail("an empty output folder names nothing");
  } else
    e.output = std::filesystem::path("results") / e.name;

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
      for (auto& c : cfg->array()) {
        auto text  = c.string();
        auto colon = text.find(':');
        if (colon == std::string::npos || colon == 0 || colon + 1 == text.size())
          c.fail("SimGrid option " + c.shown() + " is not of the form name:value (sgai --cfg=help lists them)");
        e.simgrid_args.push_back("--cfg=" + text);
      }
    if (auto log = so.optional("log"))
      for (auto& l : log->array()) {
        try {
          sim::check_log_setting(l.string());
        } catch (const UsageError& bad) { // from the file: bad input at its place, not a usage error
          std::string what = bad.what();
          l.fail(what.substr(what.find("bad --log setting")));
        }
        e.simgrid_args.push_back("--log=" + l.string());
      }
    if (auto le = so.optional("link_energy"))
      e.link_energy = le->boolean();
    if (auto ps = so.optional("power_series")) {
      e.power_period_s = ps->quantity(units::Quantity::time, 1.0);
      if (not(e.power_period_s > 0))
        ps->fail("power_series is the period of the power time series: it must be positive");
    }
    so.finish({"cfg", "log", "link_energy", "power_series"});
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

namespace {

/** The experiment read and its components configured: everything checked before anything runs. */
struct Configured {
  Spec e;
  std::vector<SpecComponent> components;
  RunContext ctx;
  bool output_in_file = false; ///< the file names its output folder
};

/** `e` with the overrides applied, and the context its components see. */
RunContext apply_overrides(Spec& e, const Overrides& overrides)
{
  if (overrides.output)
    e.output = *overrides.output;
  if (overrides.seed)
    e.seed = *overrides.seed;
  for (const auto& a : overrides.simgrid_args)
    e.simgrid_args.push_back(a);
  if (overrides.power_period_s)
    e.power_period_s = *overrides.power_period_s;
  RunContext ctx;
  ctx.output_dir    = e.output;
  ctx.base_dir      = e.base_dir;
  ctx.seed          = e.seed;
  ctx.platform_file = e.platform_file;
  ctx.cite_places   = not overrides.generated;
  return ctx;
}

/** Unnamed components are named after their type, numbered when the type repeats (batch-1,
 *  batch-2); InputError at `file` when such a name is taken. */
void name_components(std::vector<SpecComponent>& components, const std::string& file)
{
  for (size_t i = 0; i < components.size(); i++) {
    auto& c = components[i];
    if (not c.name.empty())
      continue;
    size_t of_type = 0, index = 0;
    for (size_t j = 0; j < components.size(); j++)
      if (components[j].type == c.type) {
        of_type++;
        if (j <= i)
          index = of_type;
      }
    c.name = of_type == 1 ? c.type : c.type + "-" + std::to_string(index);
    for (size_t j = 0; j < components.size(); j++)
      if (j != i && components[j].name == c.name)
        throw InputError(file, "at /components/" + std::to_string(i),
                         "the component name " + quote(c.name) + " is taken by component " + std::to_string(j) +
                             ": name this one");
  }
}

Configured configure(const std::string& text, const std::string& file, const std::filesystem::path& base,
                     const Overrides& overrides)
{
  auto doc       = json::parse(text, file);
  auto o         = doc.object();
  Spec e         = parse_header(o, base);
  e.base_dir     = base;
  RunContext ctx = apply_overrides(e, overrides);

  // Components are configured before anything runs: a bad option fails without output.
  std::vector<SpecComponent> components;
  auto list = o.required("components");
  for (auto& item : list.array()) {
    auto co   = item.object();
    auto type = co.required("type");
    std::optional<json::Object> opts;
    if (auto ov = co.optional("options"))
      opts.emplace(ov->object());
    else
      opts.emplace(empty_options(json::child_pointer(co.pointer(), "options"), doc.file));
    std::string name;
    if (auto n = co.optional("name")) {
      name = n->string();
      check_plain_name(name, n->file(), "at " + n->pointer());
      for (const auto& c : components)
        if (c.name == name)
          n->fail("two components are named " + quote(name) + ": their outputs would overwrite each other");
    }
    co.finish({"type", "name", "options"});
    auto comp = builtin_components().create(type, *opts, ctx);
    opts->finish();
    components.push_back({type.string(), name, std::move(comp)});
  }
  if (components.empty())
    list.fail("an experiment needs at least one component");
  name_components(components, file);
  o.finish({"sgai_experiment", "name", "description", "seed", "output", "platform", "simgrid", "components"});
  return {std::move(e), std::move(components), std::move(ctx), o.has("output")};
}

/** Runs a configured experiment; `file` labels it, `text` is recorded as its input (empty: null). */
Result run_configured(Configured configured, const std::string& file, const std::string& text,
                      const Overrides& overrides);

} // namespace

void check_experiment_text(const std::string& text, const std::string& name, const std::filesystem::path& base_dir)
{
  (void)configure(text, name, base_dir, {});
}

Result run_experiment_text(const std::string& text, const std::string& file, const std::filesystem::path& base,
                           const Overrides& overrides)
{
  return run_configured(configure(text, file, base, overrides), file, text, overrides);
}

Result run_experiment(Spec spec, std::vector<SpecComponent> components, const Overrides& overrides)
{
  const std::string file = spec.source;
  check_plain_name(spec.name, file, "name");
  if (spec.platform_file.is_relative())
    spec.platform_file = (spec.base_dir / spec.platform_file).lexically_normal();
  for (auto& c : spec.platform_options.catalogues)
    if (c.is_relative())
      c = (spec.base_dir / c).lexically_normal();
  bool output_given = not spec.output.empty();
  if (not output_given)
    spec.output = std::filesystem::path("results") / spec.name;
  RunContext ctx = apply_overrides(spec, overrides);
  if (components.empty())
    throw InputError(file, "components", "an experiment needs at least one component");
  for (size_t i = 0; i < components.size(); i++)
    for (size_t j = 0; j < i; j++)
      if (not components[i].name.empty() && components[j].name == components[i].name)
        throw InputError(file, "components",
                         "two components are named " + quote(components[i].name) +
                             ": their outputs would overwrite each other");
  name_components(components, file);
  std::string input = spec.input;
  return run_configured({std::move(spec), std::move(components), std::move(ctx), output_given}, file, input, overrides);
}

namespace {

Result run_configured(Configured configured, const std::string& file, const std::string& text,
                      const Overrides& overrides)
{
  Spec& e          = configured.e;
  auto& components = configured.components;
  RunContext& ctx  = configured.ctx;

  // The output folder is checked, and its staging folder made, before anything runs.
  if (overrides.output)
    check_output_dir(e.output);
  else
    check_output_dir(e.output, configured.output_in_file ? "at /output" : "at /name", file);
  StagingDir staging(e.output);
  const auto& out = staging.path();

  sim::SimulationOptions so;
  so.simgrid_args = e.simgrid_args;
  so.file_args    = e.simgrid_args.size() - overrides.simgrid_args.size();
  so.args_file    = file;
  for (auto& c : components) // components' needs first: the user's own options still win
    for (const auto& a : c.component->simgrid_args())
      so.simgrid_args.insert(so.simgrid_args.begin(), a);
  so.link_energy = e.link_energy;
  sim::Simulation simulation(so);
  ctx.simulation = &simulation;
  std::optional<platform::Platform> platform;
  try {
    platform = simulation.load_platform(e.platform_file, e.platform_options);
  } catch (const InputError& bad) { // say which experiment named the file, when it is another file
    if (bad.file() == file || overrides.generated)
      throw;
    throw InputError(bad.file(), bad.place(), bad.message() + " (the platform of " + file + " at /platform/file)");
  }
  ctx.platform = platform ? &*platform : nullptr;
  std::map<std::string, size_t> manager_of; // host -> the component running jobs there
  for (size_t i = 0; i < components.size(); i++) {
    auto& c = components[i];
    // a component may write into its folder of the staging folder while it runs (nothing elsewhere)
    ctx.output_dir = components.size() == 1 ? out : out / c.name;
    ctx.alone      = components.size() == 1;
    if (components.size() > 1)
      ensure_directory(ctx.output_dir);
    c.component->setup(ctx);
    for (const auto& h : c.component->managed_hosts()) {
      auto [at, fresh] = manager_of.emplace(h, i);
      if (not fresh)
        throw InputError(file, "at /components/" + std::to_string(i),
                         "components " + quote(components[at->second].name) + " and " + quote(c.name) +
                             " both run jobs on host " + quote(h) +
                             ": one manager per host (each would count its cores and energy as its own)");
    }
  }

  XBT_INFO("Running experiment '%s' (seed %llu)", e.name.c_str(), static_cast<unsigned long long>(e.seed));
  std::optional<sim::PowerSeries> power;
  if (e.power_period_s > 0) {
    std::vector<const simgrid::s4u::Host*> jobs;
    for (auto& c : components)
      for (const auto& name : c.component->powered_hosts())
        if (const auto* h = simgrid::s4u::Host::by_name_or_null(name))
          jobs.push_back(h);
    power.emplace(e.power_period_s, e.link_energy, std::move(jobs));
    power->start();
  }
  Result result;
  result.simulated_time_s = simulation.run();
  result.output_dir       = e.output;

  // Outputs go to the staging folder beside the output folder and move in only when all are
  // written: a run that fails on the way leaves no half-written results. With several
  // components, each writes into its own subfolder (named as in the summary).
  nlohmann::ordered_json summary;
  summary["experiment"]        = e.name;
  summary["seed"]              = e.seed;
  summary["simulated_time_s"]  = result.simulated_time_s;
  summary["network_model"]     = simulation.network_model(); // CM02 for GPU fabrics unless configured
  nlohmann::ordered_json comps = nlohmann::ordered_json::object();
  for (auto& c : components) {
    ctx.output_dir                 = components.size() == 1 ? out : out / c.name;
    nlohmann::ordered_json figures = nlohmann::ordered_json::object();
    for (const auto& [k, v] : c.component->finish(ctx, result.outputs)) {
      if (std::isfinite(v) && v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        figures[k] = static_cast<int64_t>(v); // counts read as counts
      else
        figures[k] = v;
    }
    comps[c.name] = figures;
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
  if (power) {
    power->finish();
    power->write_csv(out / "power.csv");
    result.outputs.push_back({(out / "power.csv").string(), "the platform's power over time (host and link energy "
                                                            "plugins, averaged over each period)"});
    double peak = 0;
    for (const auto& r : power->rows())
      peak = std::max(peak, r.hosts_w + r.links_w);
    summary["energy"]["power_series"] = {
        {"period_s", e.power_period_s}, {"rows", power->rows().size()}, {"peak_w", peak}};
  }
  result.energy_notes = energy.notes();
  if (not energy.note().empty())
    summary["energy"]["note"] = energy.note();
  if (e.link_energy && not energy.links_note().empty())
    summary["energy"]["links_note"] = energy.links_note();

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
  config["network_model"]   = simulation.network_model();
  config["input"]           = text.empty() ? nlohmann::json(nullptr) : json::raw(json::parse(text, file));
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

} // namespace

} // namespace sgai::experiment
