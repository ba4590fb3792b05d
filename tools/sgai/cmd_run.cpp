#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "plugins/experiment/experiment.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <cstdlib>
#include <iostream>

namespace sgai::cli {

namespace {

std::filesystem::path shipped_experiment(const char* name)
{
  if (const char* home = std::getenv("SGAI_HOME"))
    return std::filesystem::path(home) / "deploy" / "experiments" / name;
  return std::filesystem::path(SGAI_SOURCE_DIR) / "deploy" / "experiments" / name;
}

void print_result(const experiment::Result& result)
{
  std::cout << "Simulated " << result.simulated_time_s << " s. Results in " << result.output_dir.string() << ":\n";
  for (const auto& f : result.outputs)
    std::cout << "  " << f.path << "  (" << f.what << ")\n";
  if (not result.energy_note.empty())
    std::cout << "Note: " << result.energy_note << ".\n";
}

} // namespace

void add_run_command(CLI::App& app, const Globals& globals, Action& action)
{
  struct Options {
    std::string file;
    std::string out;
    std::string base_dir;
    int64_t seed   = -1;
    bool out_given = false;
  };
  auto opts = std::make_shared<Options>();
  auto* run = app.add_subcommand(
      "run", "Run an experiment file (default: the quick-start experiments, a batch run and a trace replay)");
  add_path(run, "experiment", opts->file, "Experiment JSON (deploy/experiments/*.json)");
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
