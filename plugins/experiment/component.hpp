/* Components of an experiment: named, registered in a table, configured from the experiment
 * file before the simulation starts, given the Engine to add their actors, asked for their
 * outputs once it ends. */
#ifndef SGAI_PLUGINS_EXPERIMENT_COMPONENT_HPP
#define SGAI_PLUGINS_EXPERIMENT_COMPONENT_HPP

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "generators/platform/model.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::sim {
class Simulation;
}

namespace sgai::experiment {

/** A file a component produced, for the run's summary. */
struct OutputFile {
  std::string path;
  std::string what;
};

/** What every component sees of the run. */
struct RunContext {
  sim::Simulation* simulation        = nullptr;
  const platform::Platform* platform = nullptr; ///< set for JSON platforms, null for SimGrid XML
  std::filesystem::path output_dir;
  std::filesystem::path base_dir;      ///< relative input paths in the experiment resolve against it
  std::filesystem::path platform_file; ///< the platform file, for messages
  /** Whether errors in files the experiment names also name the experiment's place (not when the
   *  experiment was built from a command's own options, as `sgai batch run` does). */
  bool cite_places = true;
  uint64_t seed    = 0;
  /** The experiment's only component: no other component's actors share the platform. */
  bool alone = false;
};

/** One (key, number) figure of a component's summary. */
using Figures = std::vector<std::pair<std::string, double>>;

class Component {
public:
  virtual ~Component() = default;
  /** SimGrid options the component needs, set before the platform is built
   *  (e.g. --cfg=host/model:ptask_L07 for parallel tasks). */
  virtual std::vector<std::string> simgrid_args() const { return {}; }
  /** Creates the component's actors in the Engine (the platform is loaded). */
  virtual void setup(RunContext& ctx) = 0;
  /** After setup: the hosts on which the component runs jobs as their only manager (batch, jobs).
   *  Two components may not share one: each would count the host's cores and energy as its own. */
  virtual std::vector<std::string> managed_hosts() const { return {}; }
  /** After setup: the hosts the component's work runs on (power.csv's jobs column): by default
   *  those it manages. */
  virtual std::vector<std::string> powered_hosts() const { return managed_hosts(); }
  /** After the run: writes the component's files (atomically) and returns its figures. */
  virtual Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) = 0;
};

/** Reads a component's options (strictly: unknown keys are errors) and returns it, configured. */
using ComponentFactory = std::function<std::unique_ptr<Component>(json::Object& options, const RunContext& ctx)>;

class ComponentRegistry {
public:
  void add(const std::string& type, const std::string& description, ComponentFactory factory);
  /** InputError at `where` listing the known types when `type` is unknown. */
  std::unique_ptr<Component> create(const json::Value& type, json::Object& options, const RunContext& ctx) const;
  std::vector<std::pair<std::string, std::string>> describe() const;

private:
  struct Entry {
    std::string description;
    ComponentFactory factory;
  };
  std::map<std::string, Entry> entries_;
};

/** Runs `read`, a reader of the file the option `v` names: its InputError then also names the
 *  experiment and the option's place ("(the workload of exp.json at /components/0/options/workload)"). */
template <class F>
auto read_named_file(const json::Value& v, const RunContext& ctx, const char* what, F read) -> decltype(read())
{
  try {
    return read();
  } catch (const InputError& bad) {
    if (not ctx.cite_places || bad.file() == v.file())
      throw;
    throw InputError(bad.file(), bad.place(),
                     bad.message() + " (the " + what + " of " + v.file() + " at " + v.pointer() + ")");
  }
}

/** The registry with every component built into sgai. */
const ComponentRegistry& builtin_components();

/** Registration of the built-in components, one function per component file. */
void register_jobs_component(ComponentRegistry& registry);
void register_batch_component(ComponentRegistry& registry);
void register_replay_component(ComponentRegistry& registry);
void register_gpu_cluster_component(ComponentRegistry& registry);
void register_aiops_component(ComponentRegistry& registry);
void register_training_component(ComponentRegistry& registry);

} // namespace sgai::experiment

#endif
