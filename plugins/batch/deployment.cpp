#include "sgai/batch/deployment.hpp"

#include "sgai/batch/manager.hpp"
#include "sgai/foundation/error.hpp"
#include "sgai/workload/batsim.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <charconv>
#include <filesystem>
#include <map>
#include <memory>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_batch_deployment, sgai, "sgai's workload manager started by a deployment file");

namespace sgai::batch {

namespace {

std::string first_error;
std::vector<std::pair<std::string, std::string>> outputs_written;

/** A manager started by a deployment file, kept until the end of the simulation. */
struct Deployed {
  std::string actor;
  workload::Workload workload;
  std::unique_ptr<WorkloadManager> manager;
  std::filesystem::path out;
};
std::vector<std::unique_ptr<Deployed>>& deployed()
{
  static std::vector<std::unique_ptr<Deployed>> v;
  return v;
}

void write_at_end()
{
  for (auto& d : deployed()) {
    try {
      if (not d->manager->error().empty())
        throw RunError(d->manager->error());
      for (auto& o : d->manager->write_outputs(d->out))
        outputs_written.push_back(std::move(o));
    } catch (const std::exception& e) {
      if (first_error.empty())
        first_error = "actor " + d->actor + ": " + e.what();
    }
  }
  deployed().clear();
}

uint64_t whole(const std::string& key, const std::string& value, uint64_t max)
{
  uint64_t v    = 0;
  auto [end, e] = std::from_chars(value.data(), value.data() + value.size(), v);
  if (e != std::errc() || end != value.data() + value.size() || v > max)
    throw UsageError("argument " + key + "=" + quote(value) + " is not a whole number from 0 to " +
                     std::to_string(max));
  return v;
}

} // namespace

const std::string& deployment_error()
{
  return first_error;
}

const std::vector<std::pair<std::string, std::string>>& deployment_outputs()
{
  return outputs_written;
}

void fail_deployment(const std::string& actor, const std::string& message)
{
  if (first_error.empty())
    first_error = "actor " + actor + ": " + message;
  XBT_DEBUG("%s: %s", actor.c_str(), message.c_str()); // the program reports deployment_error()
  simgrid::s4u::Actor::kill_all();
}

void workload_manager_actor(std::vector<std::string> args)
{
  const std::string actor = simgrid::s4u::Actor::self()->get_name();
  try {
    std::map<std::string, std::string> kv;
    for (size_t i = 1; i < args.size(); i++) {
      auto eq = args[i].find('=');
      if (eq == std::string::npos || eq == 0)
        throw UsageError("argument " + quote(args[i]) + " is not key=value");
      if (not kv.emplace(args[i].substr(0, eq), args[i].substr(eq + 1)).second)
        throw UsageError("argument " + args[i].substr(0, eq) + " is given twice");
    }
    const std::vector<std::string> known = {"workload",        "out",           "backfill", "job_policy",
                                            "resource_policy", "max_resources", "seed"};
    for (const auto& [k, v] : kv)
      if (std::find(known.begin(), known.end(), k) == known.end())
        throw UsageError("unknown argument " + quote(k) + " (known: workload, out, backfill, " +
                         "job_policy, resource_policy, max_resources, seed)");
    if (not kv.count("workload"))
      throw UsageError("the argument workload=FILE is missing");

    ManagerConfig config;
    auto get = [&kv](const char* key, const char* fallback) {
      auto it = kv.find(key);
      return it == kv.end() ? std::string(fallback) : it->second;
    };
    auto backfill = backfill_from_string(get("backfill", "easy"));
    if (not backfill)
      throw UsageError("backfill=" + quote(get("backfill", "")) + " is none of none, easy, conservative");
    config.scheduler.backfill        = *backfill;
    config.scheduler.job_policy      = get("job_policy", "first");
    config.scheduler.resource_policy = get("resource_policy", "first");
    try {
      make_job_policy(config.scheduler.job_policy);
      make_resource_policy(config.scheduler.resource_policy);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    config.scheduler.seed = whole("seed", get("seed", "1"), UINT64_MAX);
    config.max_resources  = static_cast<uint32_t>(whole("max_resources", get("max_resources", "0"), UINT32_MAX));
    config.interference   = false; // an XML platform has no processors' P-states to drive

    auto d      = std::make_unique<Deployed>();
    d->actor    = actor;
    d->out      = get("out", "results/workload_manager");
    d->workload = workload::read_workload(get("workload", ""));
    if (config.max_resources == 0)
      if (auto made_for = workload::resources_made_for(d->workload))
        config.max_resources = static_cast<uint32_t>(*made_for);
    auto resources = resources_from_engine(0);
    if (config.max_resources > resources.core_count())
      throw UsageError("the workload " + d->workload.source + " or max_resources asks for " +
                       std::to_string(config.max_resources) + " cores; the platform has " +
                       std::to_string(resources.core_count()));
    if (resources.cores.empty())
      throw UsageError("no host of the platform can run jobs");
    if (config.max_resources > 0)
      resources = resources_from_engine(config.max_resources);
    d->manager = std::make_unique<WorkloadManager>(d->workload, std::move(resources), nullptr, config);
    d->manager->start();
    static bool connected = false;
    if (not connected)
      simgrid::s4u::Engine::on_simulation_end_cb(write_at_end);
    connected = true;
    deployed().push_back(std::move(d));
  } catch (const std::exception& e) {
    fail_deployment(actor, e.what());
  }
}

} // namespace sgai::batch

extern "C" void sgai_batch_register_actors(void)
{
  sg_host_energy_plugin_init(); // the manager's energy accounting reads it (it does nothing the second time)
  simgrid::s4u::Engine::get_instance()->register_function("sgai_workload_manager",
                                                          &sgai::batch::workload_manager_actor);
}
