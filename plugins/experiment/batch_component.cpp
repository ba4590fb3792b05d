/* Component "batch": the workload manager on a workload (Batsim JSON or SWF), with a job policy,
 * a resource policy, optional backfilling, memory-bandwidth interference and energy. It uses the
 * platform's first max_resources cores when given, else the first nb_res of a Batsim workload
 * (Batsim's machines are one-core hosts: workload::resources_made_for), else all. */
#include "plugins/experiment/batch_component.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/units.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/history.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/experiment/component.hpp"

#include <xbt/log.h>

#include <iostream>
#include <set>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_batch_component, sgai, "sgai batch component (workload manager set-up)");

namespace sgai::experiment {

namespace {

class BatchComponent : public Component {
public:
  BatchComponent(workload::Workload w, batch::ManagerConfig config, std::string max_file, std::string max_place)
      : workload_(std::move(w))
      , config_(config)
      , max_resources_file_(std::move(max_file))
      , max_resources_place_(std::move(max_place))
  {
  }

  std::vector<std::string> simgrid_args() const override
  {
    // Each running job has a small actor that only starts and waits for its executions: 256 KiB
    // stacks instead of 8 MiB make their creation cheaper (thousands run at once).
    std::vector<std::string> args = {"--cfg=contexts/stack-size:256"};
    if (batch::WorkloadManager::needs_ptask_model(workload_))
      args.emplace_back("--cfg=host/model:ptask_L07");
    return args;
  }

  void setup(RunContext& ctx) override
  {
    config_.scheduler.seed = ctx.seed;
    config_.platform_file  = ctx.platform_file.string();
    auto resources = ctx.platform ? batch::resources_from_platform(*ctx.platform, 0) : batch::resources_from_engine(0);
    if (resources.cores.empty())
      throw InputError(ctx.platform_file.string(), "",
                       "no host here can run jobs (Batsim's master and storage hosts and sgai's gateways do not): "
                       "the workload manager has no core to use");
    // Asking for more than there is is bad input, said before anything runs.
    auto made_for = workload::resources_made_for(workload_);
    if (config_.max_resources > 0) {
      if (config_.max_resources > resources.core_count())
        throw InputError(max_resources_file_, max_resources_place_,
                         "max_resources " + std::to_string(config_.max_resources) + " is more than the " +
                             std::to_string(resources.core_count()) + " cores of the platform");
      if (made_for && *made_for != config_.max_resources)
        XBT_WARN("max_resources %u overrides the nb_res %llu of workload %s: the run uses the first %u cores",
                 config_.max_resources, static_cast<unsigned long long>(*made_for), workload_.source.c_str(),
                 config_.max_resources);
    } else if (made_for) {
      // a Batsim workload is made for its first nb_res machines (one core each)
      if (*made_for > resources.core_count())
        throw InputError(workload_.source, "at /nb_res",
                         "nb_res " + std::to_string(*made_for) + " is more than the " +
                             std::to_string(resources.core_count()) + " cores of the platform " +
                             ctx.platform_file.string() +
                             " (--max-resources, or max_resources in an experiment, sets another count)");
      config_.max_resources = static_cast<uint32_t>(*made_for);
    }
    if (config_.max_resources > 0)
      resources = ctx.platform ? batch::resources_from_platform(*ctx.platform, config_.max_resources)
                               : batch::resources_from_engine(config_.max_resources);
    // its compute hosts (storage hosts, shared by storage profiles, are nobody's)
    hosts_ = resources.host_names;
    hosts_.resize(hosts_.size() - resources.storage_hosts.size());
    config_.series_dir = ctx.output_dir; // the time series are streamed there as the run goes
    manager_ = std::make_unique<batch::WorkloadManager>(workload_, std::move(resources), ctx.platform, config_);
    manager_->start();
  }

  std::vector<std::string> managed_hosts() const override { return hosts_; }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    if (not manager_->error().empty())
      throw RunError(manager_->error());
    for (const auto& [path, what] : manager_->write_outputs(ctx.output_dir))
      outputs.push_back({path, what});
    return manager_->figures();
  }

private:
  workload::Workload workload_;
  batch::ManagerConfig config_;
  std::unique_ptr<batch::WorkloadManager> manager_;
  std::vector<std::string> hosts_;
  std::string max_resources_file_; ///< where max_resources was read, for the error
  std::string max_resources_place_;
};

std::string policy_name(const json::Value& v, bool job)
{
  std::string name = v.string();
  try {
    if (job)
      scheduling::make_job_policy(name);
    else
      scheduling::make_resource_policy(name);
  } catch (const std::invalid_argument& e) {
    v.fail(e.what());
  }
  return name;
}

/** slurm_conf and slurm_associations (with backfill "slurm" only), read. */
void slurm_files(json::Object& options, const RunContext& ctx, const workload::Workload& w,
                 scheduling::SchedulerConfig& c)
{
  auto conf  = options.optional("slurm_conf");
  auto assoc = options.optional("slurm_associations");
  if (c.backfill != scheduling::Backfill::slurm) {
    for (auto* v : {&conf, &assoc})
      if (*v)
        (*v)->fail("slurm_conf and slurm_associations go with backfill 'slurm'");
    return;
  }
  if (not conf)
    options.fail("backfill 'slurm' needs slurm_conf (the site's slurm.conf)");
  auto path = [&](const json::Value& v, const char* what) {
    std::filesystem::path f = v.string();
    if (f.is_relative())
      f = ctx.base_dir / f;
    std::error_code ec;
    if (not std::filesystem::exists(f, ec))
      v.fail(std::string(what) + " " + v.shown() + " not found (looked for " + f.string() + ")");
    return f;
  };
  auto cf      = path(*conf, "slurm.conf");
  c.slurm_conf = std::make_shared<const scheduling::SlurmConf>(
      read_named_file(*conf, ctx, "slurm.conf", [&]() { return scheduling::read_slurm_conf(cf); }));
  if (assoc) {
    auto af              = path(*assoc, "association file");
    c.slurm_associations = std::make_shared<const scheduling::SlurmAssociations>(
        read_named_file(*assoc, ctx, "association file", [&]() { return scheduling::read_slurm_associations(af); }));
  }
  warn_slurm(*c.slurm_conf, c.slurm_associations.get(), w);
}

std::unique_ptr<Component> make_batch(json::Object& options, const RunContext& ctx)
{
  batch::ManagerConfig config;
  auto wv                 = options.required("workload");
  std::filesystem::path p = wv.string();
  if (p.is_relative())
    p = ctx.base_dir / p;
  std::error_code ec;
  if (not std::filesystem::exists(p, ec))
    wv.fail("workload file " + wv.shown() + " not found (looked for " + p.string() + ")");
  auto w = read_named_file(wv, ctx, "workload", [&p]() { return workload::read_workload(p); });
  if (auto v = options.optional("jobs"))
    config.scheduler.job_policy = policy_name(*v, true);
  if (auto v = options.optional("resources"))
    config.scheduler.resource_policy = policy_name(*v, false);
  if (auto v = options.optional("backfill"))
    config.scheduler.backfill = *scheduling::backfill_from_string(v->choice({"none", "easy", "conservative", "slurm"}));
  slurm_files(options, ctx, w, config.scheduler);
  if (auto v = options.optional("interference"))
    config.interference = v->boolean();
  std::string max_file, max_place;
  if (auto v = options.optional("max_resources")) {
    config.max_resources = static_cast<uint32_t>(v->integer(0, UINT32_MAX));
    max_file             = v->file();
    max_place            = "at " + v->pointer();
  }
  if (auto v = options.optional("energy_period")) {
    config.energy_period_s = v->quantity(units::Quantity::time, 1.0);
    if (not(config.energy_period_s >= 0))
      v->fail("energy_period must not be negative");
  }
  if (auto v = options.optional("energy_policy")) {
    // batsched's energy variant and its options file, read as it is
    auto o                  = v->object();
    auto variant            = o.required("variant").choice(scheduling::power_variants());
    auto fv                 = o.required("options");
    std::filesystem::path f = fv.string();
    if (f.is_relative())
      f = ctx.base_dir / f;
    if (not std::filesystem::exists(f, ec))
      fv.fail("energy policy options " + fv.shown() + " not found (looked for " + f.string() + ")");
    config.power =
        read_named_file(fv, ctx, "energy policy options", [&]() { return scheduling::read_power_options(f, variant); });
    config.power_source = f.string();
    o.finish({"variant", "options"});
  }
  if (auto v = options.optional("switches")) {
    // machines switched off and on at given times: [{"t": 0, "host": "host0", "state": "off"}, ...]
    for (auto& item : v->array()) {
      auto o = item.object();
      batch::ManagerConfig::Switch sw;
      sw.t    = o.required("t").non_negative();
      sw.host = o.required("host").string();
      sw.on   = o.required("state").choice({"on", "off"}) == "on";
      o.finish({"t", "host", "state"});
      config.switches.push_back(sw);
    }
    if (config.power_source.empty())
      config.power_source = v->file();
  }
  if (auto v = options.optional("socket_endpoint")) {
    // a scheduler process speaking Batsim's protocol decides instead of the policies
    config.socket_endpoint = v->string();
    if (config.socket_endpoint.empty())
      v->fail("socket_endpoint must name a ZeroMQ endpoint (tcp://host:port)");
    for (const char* key : {"jobs", "resources", "backfill", "energy_policy", "switches"})
      if (options.has(key))
        options.fail_at(key, std::string("an external scheduler (socket_endpoint) decides alone: ") + key +
                                 " cannot be given with it");
  }
  if (auto v = options.optional("socket_timeout")) {
    config.socket_timeout_s = v->quantity(units::Quantity::time, 1.0);
    if (not(config.socket_timeout_s > 0))
      v->fail("socket_timeout must be positive");
  }
  if (auto v = options.optional("sched_config"))
    config.sched_config = v->string();
  for (const char* key : {"dynamic_jobs", "acknowledge_dynamic_jobs"})
    if (auto v = options.optional(key)) {
      bool on = v->boolean();
      if (on && config.socket_endpoint.empty())
        v->fail(std::string(key) + " needs an external scheduler (socket_endpoint)");
      (std::string(key) == "dynamic_jobs" ? config.dynamic_jobs : config.acknowledge_dynamic_jobs) = on;
    }
  if (config.acknowledge_dynamic_jobs && not config.dynamic_jobs)
    options.fail_at("acknowledge_dynamic_jobs", "acknowledge_dynamic_jobs needs dynamic_jobs");
  if (config.dynamic_jobs)
    config.submitters = 1; // the scheduler's registrations, ended by its NOTIFY registration_finished
  if (auto v = options.optional("series")) {
    try {
      config.series = batch::parse_series(v->string());
    } catch (const std::invalid_argument& e) {
      v->fail(e.what());
    }
  }
  options.finish({"workload", "jobs", "resources", "backfill", "interference", "max_resources", "energy_period",
                  "energy_policy", "switches", "series", "socket_endpoint", "socket_timeout", "sched_config",
                  "dynamic_jobs", "acknowledge_dynamic_jobs", "slurm_conf", "slurm_associations"});
  return std::make_unique<BatchComponent>(std::move(w), config, max_file, max_place);
}

} // namespace

void warn_slurm(const scheduling::SlurmConf& conf, const scheduling::SlurmAssociations* associations,
                const workload::Workload& w)
{
  auto list = [](const std::vector<std::string>& names) {
    std::string l;
    for (size_t i = 0; i < names.size() && i < 20; i++)
      l += (i ? ", " : "") + names[i];
    return names.size() > 20 ? l + " and " + std::to_string(names.size() - 20) + " more" : l;
  };
  if (not conf.ignored.empty())
    std::cerr << "sgai: warning: " << conf.file << ": not modelled, read and left: " << list(conf.ignored) << "\n";
  if (not associations)
    return;
  std::vector<std::string> missing;
  std::set<std::string> seen;
  for (const auto& j : w.jobs)
    if (seen.insert(j.user).second && (j.user.empty() || associations->user_association(j.user, j.group) < 0))
      missing.push_back(j.user.empty() ? "(jobs without a user)" : j.user);
  if (not missing.empty())
    std::cerr << "sgai: warning: " << associations->file << ": no association for " << list(missing)
              << " (fair-share factor 0)\n";
}

std::unique_ptr<Component> make_batch_component(BatchSetup setup)
{
  return std::make_unique<BatchComponent>(std::move(setup.workload), setup.config, std::move(setup.max_resources_file),
                                          std::move(setup.max_resources_place));
}

void register_batch_component(ComponentRegistry& registry)
{
  registry.add("batch",
               "workload manager: job x resource policy pairs, backfilling, memory-bandwidth interference, energy",
               make_batch);
}

} // namespace sgai::experiment
