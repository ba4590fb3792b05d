/* Experiment files: a JSON naming the platform, the SimGrid options, the seed, the output folder
 * and the components with their options. `sgai run` executes them. */
#ifndef SGAI_PLUGINS_EXPERIMENT_EXPERIMENT_HPP
#define SGAI_PLUGINS_EXPERIMENT_EXPERIMENT_HPP

#include "generators/platform/platform.hpp"
#include "plugins/experiment/component.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
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
  /** Write power.csv: the platform's power, averaged over each period of simulated time. */
  std::optional<double> power_period_s;
};

struct Result {
  std::filesystem::path output_dir;
  std::vector<OutputFile> outputs;
  double simulated_time_s = 0;
  /** Why energy figures are missing or 0, one line each: hosts that run jobs without
   *  wattage_per_state, links without wattage_range (sim::EnergyReport::notes). */
  std::vector<std::string> energy_notes;
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

/** An experiment built in code rather than read from a file: what a file's header says. */
struct Spec {
  std::string name = "experiment"; ///< "experiment" in the summary; the default output folder is results/<name>
  std::string description;
  uint64_t seed = 1;
  std::filesystem::path output;        ///< empty: results/<name>
  std::filesystem::path platform_file; ///< SimGrid XML or sgai JSON (relative: to base_dir)
  platform::LoadOptions platform_options;
  std::vector<std::string> simgrid_args; ///< as the file's "simgrid" (--cfg=..., --log=...)
  bool link_energy               = true;
  double power_period_s          = 0;            ///< > 0: power.csv at this period (the file's simgrid/power_series)
  std::filesystem::path base_dir = ".";          ///< the components' relative paths resolve against it
  std::string source             = "experiment"; ///< labels it in messages and as config.json's experiment_file
  std::string input; ///< JSON text that config.json records as the experiment's "input" (empty: null)
};

/** A component of a Spec, configured by its maker (make_batch_component, ...). */
struct SpecComponent {
  std::string type; ///< as in a file: names the component when `name` is empty
  std::string name; ///< key in the summary, subfolder of its outputs when there are several; empty: from `type`
  std::unique_ptr<Component> component;
};

/** Runs an experiment built in code, as run_experiment runs a file: the platform, the components'
 *  set-up, the simulation, the outputs written only when it succeeded. InputError (at the Spec's
 *  `source`) for a name that is not a plain one, two components of one name or of one host, no
 *  component; the platform's and the components' own errors; RunError. */
Result run_experiment(Spec spec, std::vector<SpecComponent> components, const Overrides& overrides);

} // namespace sgai::experiment

#endif
