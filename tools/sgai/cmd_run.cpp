#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "plugins/batch/deployment.hpp"
#include "plugins/experiment/actors.hpp"
#include "plugins/experiment/experiment.hpp"
#include "plugins/sim/simulation.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/generated.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <cstdlib>
#include <iostream>

namespace sgai::cli {

namespace {

std::filesystem::path shipped_experiment(const char* name)
{
  return data_home() / "deploy" / "experiments" / name;
}

/** A platform and a SimGrid deployment file starting sgai's actors. */
int run_deployment(const std::string& platform, const std::string& deployment, const Globals& globals)
{
  sim::SimulationOptions so;
  so.simgrid_args = globals.simgrid_args;
  sim::Simulation simulation(so);
  experiment::register_actors(simulation.engine()); // before the platform: the GPU plugin checks its hosts
  simulation.load_platform(platform);
  simulation.load_deployment(deployment);
  double end = simulation.run();
  if (not sim::deployment_error().empty())
    throw RunError(sim::deployment_error());
  std::cout << "Simulated " << end << " s (" << platform << ", " << deployment << ").\n";
  for (const auto& [path, what] : sim::deployment_outputs())
    std::cout << "  " << path << "  (" << what << ")\n";
  return 0;
}

void print_result(const experiment::Result& result)
{
  std::cout << "Simulated " << result.simulated_time_s << " s. ";
  print_outputs(result);
}

} // namespace

void add_run_command(CLI::App& app, const Globals& globals, Action& action)
{
  struct Options {
    std::string file;
    std::string deployment;
    std::string out;
    std::string base_dir;
    int64_t seed   = -1;
    bool out_given = false;
  };
  auto opts = std::make_shared<Options>();
  auto* run = app.add_subcommand(
      "run", "Run an experiment file (default: the quick-start experiments, a batch run and a trace replay), or a "
             "platform with a SimGrid deployment file starting sgai's actors (sgai run PLATFORM DEPLOYMENT.xml)");
  add_path(run, "experiment", opts->file, "Experiment JSON (deploy/experiments/*.json), or a platform (XML or JSON)");
  add_path(run, "deployment", opts->deployment,
           "SimGrid deployment XML (with a platform): its actors run sgai's functions (sgai_workload_manager, "
           "docs/library.md) or none");
  add_path(run, "--out", opts->out, "Output folder (default: the file's 'output', or results/<name>)");
  add_seed(run, opts->seed, "Seed overriding the file's");
  add_path(run, "--base-dir", opts->base_dir,
           "Folder that relative paths in the experiment resolve against (default: the file's own; campaigns "
           "run derived copies of an experiment from their own folders)");
  run->callback([opts, run, &globals, &action]() {
    opts->out_given = run->count("--out") > 0;
    action          = [opts, &globals]() {
      experiment::Overrides o;
      if (opts->out_given)
        o.output = opts->out;
      if (opts->seed >= 0)
        o.seed = static_cast<uint64_t>(opts->seed);
      o.simgrid_args = globals.simgrid_args;
      if (not opts->deployment.empty()) {
        if (opts->out_given || opts->seed >= 0 || not opts->base_dir.empty())
          throw UsageError("--out, --seed and --base-dir are an experiment's: a deployment file's actors take theirs "
                                             "as arguments");
        return run_deployment(opts->file, opts->deployment, globals);
      }
      if (not opts->file.empty()) {
        if (not opts->base_dir.empty())
          print_result(experiment::run_experiment_text(read_text_file(opts->file), opts->file, opts->base_dir, o));
        else
          print_result(experiment::run_experiment(opts->file, o));
        return 0;
      }
      // The default: the batch quick-start here, then the replay quick-start in a child process
      // (one SimGrid engine per process), its results in the "replay" folder of the first.
      auto result = experiment::run_experiment(shipped_experiment("quickstart.json"), o);
      print_result(result);
      std::vector<std::string> argv = {"/proc/self/exe", "run", shipped_experiment("replay-hgx.json").string(), "--out",
                                       (result.output_dir / "replay").string()};
      if (opts->seed >= 0)
        argv.push_back("--seed=" + std::to_string(opts->seed));
      for (const auto& a : globals.simgrid_args)
        argv.push_back(a);
      std::cout.flush();
      auto status = run_process(argv);
      if (not status)
        throw RunError("cannot run the replay quick-start (deploy/experiments/replay-hgx.json)");
      return *status;
    };
  });
}

} // namespace sgai::cli
