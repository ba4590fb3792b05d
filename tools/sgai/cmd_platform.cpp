#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/platform/convert.hpp"
#include "generators/platform/fabrics.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/platform_sim/inspect.hpp"
#include "plugins/sim/simulation.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <iostream>
#include <sstream>
#include <stdexcept>

namespace sgai::cli {

namespace {

struct PlatformArgs {
  std::string file;
  std::vector<std::string> types;
  std::string granularity;
};

void add_platform_args(CLI::App* cmd, PlatformArgs& a, const char* what)
{
  add_path(cmd, "platform", a.file, what)->required();
  cmd->add_option("--types", a.types,
                  "Type catalogue: an HDeepRM data folder (node_types.json, processor_types.json, ...) or an sgai "
                  "catalogue file; repeatable");
  cmd->add_option("--granularity", a.granularity, "One SimGrid host per core, processor or node (overrides the file)")
      ->check(CLI::IsMember({"core", "processor", "node"}));
}

platform::LoadOptions load_options(const PlatformArgs& a)
{
  platform::LoadOptions o;
  for (const auto& t : a.types)
    o.catalogues.emplace_back(t);
  if (not a.granularity.empty())
    o.granularity = platform::granularity_from_string(a.granularity);
  return o;
}

std::string si(double v, const char* unit)
{
  const char* prefixes[] = {"", "k", "M", "G", "T", "P", "E"};
  int i                  = 0;
  while (v >= 1000 && i < 6) {
    v /= 1000;
    i++;
  }
  return format_fixed(v, 3) + " " + prefixes[i] + unit;
}

int generate(const PlatformArgs& a, const std::string& out_dir, const std::string& deploy_function,
             const std::vector<std::string>& deploy_args)
{
  if (not deploy_args.empty() && not platform::is_sgai_actor_function(deploy_function))
    throw UsageError("--deployment-arg is for sgai's actor functions (--deployment sgai_workload_manager, "
                     "sgai_collective or sgai_trace_replay)");
  std::filesystem::path dir =
      out_dir.empty() ? std::filesystem::path("results") / "platforms" : std::filesystem::path(out_dir);
  check_output_dir(dir);
  platform::Platform p = platform::generate(a.file, load_options(a));
  std::string why      = platform::xml_limitation(p);
  std::ostringstream deployment; // made first: a bad --deployment-arg leaves nothing written
  if (platform::is_sgai_actor_function(deploy_function)) {
    try {
      platform::write_sgai_deployment_xml(p, deploy_function, deploy_args, deployment);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--deployment ") + deploy_function + ": " + e.what());
    }
  } else if (not deploy_function.empty()) {
    platform::write_deployment_xml(p, deploy_function, deployment);
  }

  ensure_directory(dir);
  std::vector<std::string> written;
  if (why.empty()) {
    AtomicFile x(dir / (p.name + ".xml"));
    platform::write_xml(p, x.stream());
    x.commit();
    written.push_back(x.target().string());
  }
  AtomicFile h(dir / (p.name + ".hierarchy.json"));
  platform::write_hierarchy_json(p, h.stream());
  h.commit();
  written.push_back(h.target().string());
  if (not deploy_function.empty()) {
    AtomicFile d(dir / (p.name + ".deployment.xml"));
    d.stream() << deployment.str();
    d.commit();
    written.push_back(d.target().string());
  }
  std::cout << "Platform " << p.name << ": " << p.clusters.size() << " clusters, " << p.nodes.size() << " nodes, "
            << p.core_count() << " cores, " << p.gpus.size() << " GPUs, " << p.hosts.size() << " hosts ("
            << to_string(p.granularity) << " granularity), " << p.links.size() << " links\n";
  for (const auto& w : written)
    std::cout << "  wrote " << w << "\n";
  if (not why.empty())
    std::cout << "  no SimGrid XML: " << why << "\n";
  return 0;
}

int inspect(const PlatformArgs& a, const Globals& globals, const std::vector<std::string>& route)
{
  sim::SimulationOptions so;
  so.simgrid_args = globals.simgrid_args;
  sim::Simulation simulation(so);
  auto p = simulation.load_platform(a.file, load_options(a));
  auto s = platform_sim::summarize_engine();
  std::cout << "Platform " << a.file << "\n";
  if (p)
    std::cout << "  hierarchy: " << p->clusters.size() << " clusters, " << p->nodes.size() << " nodes, "
              << p->processors.size() << " processors, " << p->core_count() << " cores, " << p->gpus.size() << " GPUs ("
              << to_string(p->granularity) << " granularity)\n";
  std::cout << "  zones: " << s.zones << "\n"
            << "  hosts: " << s.hosts;
  if (s.gateway_hosts)
    std::cout << " (" << s.gateway_hosts << " of them gateways)";
  std::cout << "\n"
            << "  cores: " << s.cores << "\n"
            << "  links: " << s.links << "\n"
            << "  total speed: " << si(s.peak_flops, "flop/s") << " (" << format_number(s.peak_flops) << ")\n"
            << "  power range: " << format_fixed(s.idle_w, 3) << " W idle .. " << format_fixed(s.max_w, 3)
            << " W all busy";
  if (s.hosts_without_wattage)
    std::cout << " (" << s.hosts_without_wattage << " hosts without wattage_per_state)";
  std::cout << "\n";
  if (route.size() == 2) {
    auto r = platform_sim::route_between(route[0], route[1]);
    std::cout << "  route " << route[0] << " -> " << route[1] << ": " << r.hops.size() << " links, latency "
              << format_number(r.latency_s) << " s, bottleneck " << si(r.bottleneck_Bps, "B/s") << "\n";
    for (const auto& h : r.hops)
      std::cout << "    " << h.link << "  " << si(h.bandwidth_Bps, "B/s") << "  " << format_number(h.latency_s)
                << " s\n";
  }
  return 0;
}

} // namespace

void add_platform_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* platform = app.add_subcommand("platform", "Generate, inspect and convert platforms");
  platform->require_subcommand(0, 1);

  {
    auto a      = std::make_shared<PlatformArgs>();
    auto out    = std::make_shared<std::string>();
    auto deploy = std::make_shared<std::string>();
    auto* cmd   = platform->add_subcommand(
          "generate", "JSON hierarchy (HDeepRM or sgai format) -> SimGrid XML + resource hierarchy JSON");
    add_platform_args(cmd, *a, "Platform JSON");
    add_path(cmd, "--out", *out, "Output folder (default: results/platforms)");
    auto deploy_args = std::make_shared<std::vector<std::string>>();
    cmd->add_option("--deployment", *deploy,
                    "Also write a deployment: one actor running this function on every host, or one of sgai's "
                    "(sgai_workload_manager, sgai_collective, sgai_trace_replay) set up for this platform");
    cmd->add_option("--deployment-arg", *deploy_args,
                    "KEY=VALUE argument of sgai's actor (repeatable; docs/library.md), e.g. workload=jobs.json");
    cmd->callback([a, out, deploy, deploy_args, &action]() {
      action = [a, out, deploy, deploy_args]() { return generate(*a, *out, *deploy, *deploy_args); };
    });
  }
  {
    auto a     = std::make_shared<PlatformArgs>();
    auto route = std::make_shared<std::vector<std::string>>();
    auto* cmd  = platform->add_subcommand("inspect", "Load a platform (XML or JSON) in SimGrid and print its figures");
    add_platform_args(cmd, *a, "Platform file: SimGrid XML or JSON hierarchy");
    cmd->add_option("--route", *route, "Print the route between two hosts")->expected(2);
    cmd->callback(
        [a, route, &globals, &action]() { action = [a, route, &globals]() { return inspect(*a, globals, *route); }; });
  }
  {
    auto a    = std::make_shared<PlatformArgs>();
    auto out  = std::make_shared<std::string>();
    auto* cmd = platform->add_subcommand(
        "convert", "HDeepRM platform + its catalogues -> one self-contained sgai platform JSON (version 1)");
    add_platform_args(cmd, *a, "HDeepRM platform JSON");
    add_path(cmd, "--out", *out, "Output file")->required();
    cmd->callback([a, out, &action]() {
      action = [a, out]() {
        check_output_file(*out, {a->file});
        platform::convert_hdeeprm(a->file, load_options(*a).catalogues, *out);
        std::cout << "wrote " << *out << "\n";
        return 0;
      };
    });
  }
  {
    auto nodes     = std::make_shared<int64_t>(32);
    auto out       = std::make_shared<std::string>();
    auto catalogue = std::make_shared<std::string>();
    auto sharp     = std::make_shared<bool>(false);
    auto* cmd      = platform->add_subcommand(
             "superpod",
             "A DGX H100 SuperPOD of N nodes, rail-optimized (NVIDIA's reference architecture) -> platform JSON");
    add_count(cmd, "--nodes", *nodes, "DGX H100 nodes (default 32: one scalable unit)", 1, 8192);
    add_path(cmd, "--out", *out, "Output file")->required();
    cmd->add_option("--catalogue", *catalogue,
                    "The catalogue the file names, as written in it (default: sgai's accelerators.json, relative to "
                    "the output's folder)");
    cmd->add_flag("--sharp", *sharp,
                  "The switches reduce (NVIDIA SHARP on the QM9700s, NCCL's CollNet): NCCL's NVLS all-reduce runs "
                  "across nodes");
    cmd->callback([nodes, out, catalogue, sharp, &action]() {
      action = [nodes, out, catalogue, sharp]() {
        check_output_file(*out, {});
        std::string cat = *catalogue;
        if (cat.empty()) {
          auto dir = std::filesystem::absolute(*out).parent_path();
          cat      = std::filesystem::absolute(default_catalogue()).lexically_relative(dir).string();
        }
        write_file_atomically(*out, platform::superpod_json(static_cast<uint32_t>(*nodes), cat, *sharp));
        std::cout << "wrote " << *out << "\n";
        return 0;
      };
    });
  }
  {
    auto config = std::make_shared<std::string>();
    auto map    = std::make_shared<std::string>();
    auto out    = std::make_shared<std::string>();
    auto* cmd   = platform->add_subcommand("import-machines",
                                           "AccaSim machine description (.config) + processor map -> sgai platform JSON");
    add_path(cmd, "config", *config, "AccaSim system config (groups with cores and memory in KB)")->required();
    add_path(cmd, "--processors", *map, "JSON mapping each group to processor types, plus links")->required();
    add_path(cmd, "--out", *out, "Output file")->required();
    cmd->callback([config, map, out, &action]() {
      action = [config, map, out]() {
        check_output_file(*out, {*config, *map});
        platform::import_accasim(*config, *map, *out);
        std::cout << "wrote " << *out << "\n";
        return 0;
      };
    });
  }
}

} // namespace sgai::cli
