#include "plugins/batch/deployment.hpp"

#include "core/foundation/error.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/sim/clock.hpp"
#include "plugins/sim/deployment.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <filesystem>
#include <map>
#include <memory>

namespace sgai::batch {

namespace {

/** A manager started by a deployment file, kept until the end of the simulation. */
struct Deployed {
  workload::Workload workload;
  std::unique_ptr<WorkloadManager> manager;
  std::filesystem::path out;
};

/** The managers deployed and running, by name (until the end of the simulation). */
std::map<std::string, WorkloadManager*>& deployed()
{
  static std::map<std::string, WorkloadManager*> managers;
  return managers;
}

} // namespace

WorkloadManager* deployed_workload_manager(const std::string& name)
{
  auto it = deployed().find(name);
  return it == deployed().end() ? nullptr : it->second;
}

void workload_manager_actor(std::vector<std::string> args)
{
  const std::string actor = simgrid::s4u::Actor::self()->get_name();
  try {
    sim::DeploymentArgs a(args, {"name", "workload", "submitters", "out", "backfill", "job_policy", "resource_policy",
                                 "max_resources", "seed"});
    const std::string name = a.text("name", "workload_manager");
    if (deployed().count(name) > 0)
      throw UsageError("a workload manager named " + quote(name) + " is deployed already (give each a name=)");
    ManagerConfig config;
    auto backfill = scheduling::backfill_from_string(a.text("backfill", "easy"));
    if (not backfill)
      throw UsageError("backfill=" + quote(a.text("backfill", "")) + " is none of none, easy, conservative");
    config.scheduler.backfill        = *backfill;
    config.scheduler.job_policy      = a.text("job_policy", "first");
    config.scheduler.resource_policy = a.text("resource_policy", "first");
    try {
      scheduling::make_job_policy(config.scheduler.job_policy);
      scheduling::make_resource_policy(config.scheduler.resource_policy);
    } catch (const std::invalid_argument& e) {
      throw UsageError(e.what());
    }
    config.scheduler.seed = a.whole("seed", 1, UINT64_MAX);
    config.max_resources  = static_cast<uint32_t>(a.whole("max_resources", 0, UINT32_MAX));
    config.interference   = false; // an XML platform has no processors' P-states to drive
    config.submitters     = static_cast<unsigned>(a.whole("submitters", 0, 1U << 20));

    auto d = std::make_shared<Deployed>();
    d->out = a.text("out", "results/workload_manager");
    if (config.submitters == 0 || a.has("workload")) {
      d->workload = workload::read_workload(a.required("workload"));
    } else { // every job comes from the submitters
      d->workload.name   = name;
      d->workload.source = "name=" + name;
    }
    if (config.max_resources == 0)
      if (auto made_for = workload::resources_made_for(d->workload))
        config.max_resources = static_cast<uint32_t>(*made_for);
    auto resources = resources_from_engine(0);
    if (resources.cores.empty())
      throw UsageError("no host of the platform can run jobs");
    if (config.max_resources > resources.core_count())
      throw UsageError("the workload " + d->workload.source + " or max_resources asks for " +
                       std::to_string(config.max_resources) + " cores; the platform has " +
                       std::to_string(resources.core_count()));
    if (config.max_resources > 0)
      resources = resources_from_engine(config.max_resources);
    d->manager       = std::make_unique<WorkloadManager>(d->workload, std::move(resources), nullptr, config);
    deployed()[name] = d->manager.get(); // (before start: its first simcall lets submitters run)
    sim::before_deployment_stop([d]() { d->manager->stop(); });
    d->manager->start();
    sim::at_deployment_end(actor, [d, name]() {
      deployed().erase(name);
      if (not d->manager->error().empty())
        throw RunError(d->manager->error());
      if (not d->manager->finished())
        throw RunError("the workload manager " + quote(name) +
                       " did not finish: " + "a submitter did not end its submissions, or the simulation was stopped");
      for (auto& [path, what] : d->manager->write_outputs(d->out))
        sim::record_deployment_output(path, what);
    });
  } catch (const std::exception& e) {
    sim::fail_deployment(actor, e.what());
  }
}

void job_submitter_actor(std::vector<std::string> args)
{
  const std::string actor = simgrid::s4u::Actor::self()->get_name();
  try {
    sim::DeploymentArgs a(args, {"workload", "manager"});
    auto w = std::make_shared<const workload::Workload>(workload::read_workload(a.required("workload")));
    const std::string name   = a.text("manager", "workload_manager");
    WorkloadManager* manager = nullptr;
    auto find                = [&]() {
      manager = deployed_workload_manager(name);
      if (manager == nullptr) { // its actor may come later in the deployment file, at the same instant
        simgrid::s4u::this_actor::yield();
        manager = deployed_workload_manager(name);
      }
      if (manager == nullptr)
        throw UsageError("no workload manager named " + quote(name) + " runs (deploy one with name=" + name +
                                        " and submitters=, starting no later than its submitters)");
    };
    for (size_t i = 0; i < w->jobs.size(); i++) {
      if (w->jobs[i].submit_s > simgrid::s4u::Engine::get_clock())
        sim::sleep_until(w->jobs[i].submit_s);
      if (manager == nullptr)
        find();
      manager->submit(w, i);
    }
    if (manager == nullptr)
      find();
    manager->end_submissions();
  } catch (const std::exception& e) {
    sim::fail_deployment(actor, e.what());
  }
}

} // namespace sgai::batch

extern "C" void sgai_batch_register_actors(void)
{
  sg_host_energy_plugin_init(); // the manager's energy accounting reads it (it does nothing the second time)
  simgrid::s4u::Engine::get_instance()->register_function("sgai_workload_manager",
                                                          &sgai::batch::workload_manager_actor);
  simgrid::s4u::Engine::get_instance()->register_function("sgai_job_submitter", &sgai::batch::job_submitter_actor);
}
