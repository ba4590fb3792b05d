/* The SimGrid Engine of an sgai run: created once per process with the pass-through SimGrid
 * options, energy plugins on, platform loaded from XML or built from a JSON hierarchy. */
#ifndef SGAI_PLUGINS_SIM_SIMULATION_HPP
#define SGAI_PLUGINS_SIM_SIMULATION_HPP

#include "generators/platform/platform.hpp"

#include <simgrid/forward.h>

#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::sim {

struct SimulationOptions {
  /** SimGrid options given on the command line, "--cfg=network/model:CM02", "--log=...". */
  std::vector<std::string> simgrid_args;
  /** The first file_args of simgrid_args come from args_file (an experiment): a bad one there is
   *  bad input (exit 1); the others come from the command line (a usage error, exit 2). */
  size_t file_args = 0;
  std::string args_file;
  bool host_energy = true;
  bool link_energy = true;
};

/** Prints SimGrid's configuration options (what --cfg=help asks for) on standard output. Uses
 *  the process's one Engine: call it instead of running anything. */
void print_simgrid_options();

/** Checks a --log= setting (without "--log="): category.option:value, a known category, a known
 *  option and priority. UsageError otherwise (SimGrid would abort or ignore it). */
void check_log_setting(const std::string& setting);

/** Whether a platform file is SimGrid XML (by extension, else by its first character). */
bool is_xml_platform(const std::filesystem::path& file);

class Simulation {
public:
  explicit Simulation(const SimulationOptions& options = {});
  Simulation(const Simulation&)            = delete;
  Simulation& operator=(const Simulation&) = delete;
  ~Simulation();

  simgrid::s4u::Engine& engine();

  /** Loads SimGrid XML as is (older Batsim/SimGrid XML translated first, its SMPI options ignored:
   *  platform::translate_legacy_xml), or generates a JSON hierarchy and builds it through S4U.
   *  Returns the expanded platform for JSON inputs, nothing for XML. InputError on bad input
   *  (SimGrid's own XML errors included: they are turned into one message instead of an abort; a
   *  wattage_per_state the energy plugin would abort on is reported first, with its line). */
  std::optional<platform::Platform> load_platform(const std::filesystem::path& file,
                                                  const platform::LoadOptions& options = {});
  /** Builds an already expanded platform. A platform with GPUs is a GPU fabric (NVLink or
   *  NVSwitch inside nodes, RDMA NICs between them): unless the options name a network/model, it is
   *  simulated with CM02 without cross traffic (links' own latency and bandwidth, no TCP factors),
   *  not SimGrid's default LV08, whose factors were fitted to TCP over Ethernet. */
  void build_platform(const platform::Platform& p);
  /** Loads a SimGrid deployment file (after the platform, with the functions it names registered:
   *  sgai::experiment::register_actors). InputError naming the file when SimGrid cannot load it (an unknown
   *  host or function included, which SimGrid itself aborts on). */
  void load_deployment(const std::filesystem::path& file);
  /** The network model the platform runs under (SimGrid's network/model). */
  std::string network_model() const;

  /** Runs the simulation to its end; RunError when actors are left blocked (deadlock). */
  double run();

private:
  std::vector<std::string> argv_storage_;
  std::vector<char*> argv_;
  int argc_ = 0;
  std::unique_ptr<simgrid::s4u::Engine> engine_;
  bool deadlock_    = false;
  bool broken_      = false;
  bool host_energy_ = true;
  bool user_sets(const std::string& key) const; ///< a --cfg of the options names this key
  /** Runs `load` (SimGrid loading `what`, a platform or deployment file) in a forked child, then
   *  here: SimGrid's abort or exception becomes one InputError naming the file and the place. */
  void load_checked(const std::string& file, const std::string& text, const char* what,
                    const std::function<void()>& load);
};

} // namespace sgai::sim

#endif
