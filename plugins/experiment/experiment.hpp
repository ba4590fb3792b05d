/* Experiment files: a JSON naming the platform, the SimGrid options, the seed, the output folder
 * and the components with their options. `sgai run` executes them. */
#ifndef SGAI_PLUGINS_EXPERIMENT_EXPERIMENT_HPP
#define SGAI_PLUGINS_EXPERIMENT_EXPERIMENT_HPP

#include "plugins/experiment/component.hpp"

#include <cstdint>
#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sgai::experiment {

struct Overrides {
  std::optional<std::filesystem::path> output;
  std::optional<uint64_t> seed;
  std::vector<std::string> simgrid_args; ///< from the command line, after the file's own
  /** The experiment was built from a command's options (sgai batch run): errors in the files it
   *  names do not point into it. */
  bool generated = false;
};

struct Result {
  std::filesystem::path output_dir;
  std::vector<OutputFile> outputs;
  double simulated_time_s = 0;
  /** "" or why there are no energy figures (hosts that run jobs without wattage_per_state). */
  std::string energy_note;
};

/** Parses and runs an experiment file. Inputs are all checked before the simulation starts;
 *  outputs are written only when it succeeded. InputError / RunError otherwise. */
Result run_experiment(const std::filesystem::path& file, const Overrides& overrides);
/** Same, for an experiment given as JSON text; relative paths resolve against `base_dir`, and
 *  `name` labels it in messages and in config.json. */
Result run_experiment_text(const std::string& text, const std::string& name, const std::filesystem::path& base_dir,
                           const Overrides& overrides);
/** Only the checks done before the simulation: parses the experiment text and configures its
 *  components (their options and input files), then stops: no output folder, no SimGrid Engine.
 *  InputError on bad input. For tests and the experiment fuzz target. */
void check_experiment_text(const std::string& text, const std::string& name, const std::filesystem::path& base_dir);

} // namespace sgai::experiment

#endif
