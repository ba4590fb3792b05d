#include "generators/util/error.hpp"
#include "plugins/experiment/experiment.hpp"
#include "tools/sgai/commands.hpp"

#include <cstdlib>
#include <iostream>

namespace sgai::cli {

namespace {

std::filesystem::path default_experiment()
{
  if (const char* home = std::getenv("SGAI_HOME"))
    return std::filesystem::path(home) / "deploy" / "experiments" / "quickstart.json";
  return std::filesystem::path(SGAI_SOURCE_DIR) / "deploy" / "experiments" / "quickstart.json";
}

} // namespace

void add_run_command(CLI::App& app, const Globals& globals, Action& action)
{
  struct Options {
    std::string file;
    std::string out;
    int64_t seed = -1;
  };
  auto opts = std::make_shared<Options>();
  auto* run = app.add_subcommand("run", "Run an experiment file (default: the quick-start experiment)");
  run->add_option("experiment", opts->file, "Experiment JSON (deploy/experiments/*.json)");
  run->add_option("--out", opts->out, "Output folder (default: the file's 'output', or results/<name>)");
  run->add_option("--seed", opts->seed, "Seed overriding the file's")->check(CLI::NonNegativeNumber);
  run->callback([opts, &globals, &action]() {
    action = [opts, &globals]() {
      experiment::Overrides o;
      if (not opts->out.empty())
        o.output = opts->out;
      if (opts->seed >= 0)
        o.seed = static_cast<uint64_t>(opts->seed);
      o.simgrid_args             = globals.simgrid_args;
      std::filesystem::path file = opts->file.empty() ? default_experiment() : std::filesystem::path(opts->file);
      auto result                = experiment::run_experiment(file, o);
      std::cout << "Simulated " << result.simulated_time_s << " s. Results in " << result.output_dir.string() << ":\n";
      for (const auto& f : result.outputs)
        std::cout << "  " << f.path << "  (" << f.what << ")\n";
      return 0;
    };
  });
}

} // namespace sgai::cli
