#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/scheduling/gpu_scheduler.hpp"
#include "core/scheduling/policies.hpp"
#include "core/scheduling/power.hpp"
#include "core/scheduling/scheduler.hpp"
#include "generators/platform/spec.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/history.hpp"
#include "plugins/experiment/batch_component.hpp"
#include "plugins/experiment/experiment.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/generated.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <nlohmann/json.hpp>

#include <cstdlib>
#include <iostream>

namespace sgai::cli {

namespace {

struct BatchArgs {
  std::string platform;
  std::vector<std::string> types;
  std::string granularity;
  std::string workload;
  std::string jobs      = "first";
  std::string resources = "first";
  std::string backfill  = "none";
  std::string out;
  int64_t seed          = 1;
  int64_t max_resources = 0;
  bool no_interference  = false;
  std::string energy_policy;
  std::string energy_options;
  std::string series = "none";
  std::string socket_endpoint;
  double socket_timeout_s = 60;
  std::string sched_config;
  std::string slurm_conf, slurm_associations;
  bool dynamic_jobs             = false;
  bool acknowledge_dynamic_jobs = false;
};

/** Unknown policy names are bad input (exit 1), reported with the known names. */
void check_policies(const BatchArgs& a)
{
  try {
    scheduling::make_job_policy(a.jobs);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--jobs", e.what());
  }
  try {
    scheduling::make_resource_policy(a.resources);
  } catch (const std::invalid_argument& e) {
    throw InputError("command line", "--resources", e.what());
  }
  if (not a.socket_endpoint.empty() &&
      (a.jobs != "first" || a.resources != "first" || a.backfill != "none" || not a.energy_policy.empty()))
    throw UsageError("--socket-endpoint: the external scheduler decides alone; --jobs, --resources, --backfill and "
                     "--energy-policy cannot be given with it");
  if (not scheduling::backfill_from_string(a.backfill))
    throw InputError("command line", "--backfill",
                     "unknown backfilling " + quote(a.backfill) + " (known: none, easy, conservative, slurm)");
  if (a.backfill == "slurm" && a.slurm_conf.empty())
    throw UsageError("--backfill slurm needs --slurm-conf (the site's slurm.conf)");
  if (a.backfill != "slurm" && (not a.slurm_conf.empty() || not a.slurm_associations.empty()))
    throw UsageError("--slurm-conf and --slurm-associations go with --backfill slurm");
}

constexpr const char* kSource = "sgai batch run";

/** The experiment as JSON, recorded in config.json as its input: what an experiment file saying
 *  the same would hold. UsageError when --energy-policy and --energy-options come apart. */
std::string record_of(const BatchArgs& a)
{
  nlohmann::ordered_json e;
  e["sgai_experiment"]            = 1;
  e["name"]                       = "batch";
  e["seed"]                       = a.seed;
  nlohmann::ordered_json platform = {{"file", absolute_path(a.platform)}};
  if (not a.types.empty()) {
    nlohmann::ordered_json cats = nlohmann::ordered_json::array();
    for (const auto& t : a.types)
      cats.push_back(absolute_path(t));
    platform["catalogues"] = cats;
  }
  if (not a.granularity.empty())
    platform["granularity"] = a.granularity;
  e["platform"]                  = platform;
  nlohmann::ordered_json options = {{"workload", absolute_path(a.workload)},
                                    {"jobs", a.jobs},
                                    {"resources", a.resources},
                                    {"backfill", a.backfill},
                                    {"interference", not a.no_interference},
                                    {"max_resources", a.max_resources},
                                    {"series", a.series}};
  if (not a.slurm_conf.empty())
    options["slurm_conf"] = absolute_path(a.slurm_conf);
  if (not a.slurm_associations.empty())
    options["slurm_associations"] = absolute_path(a.slurm_associations);
  if (not a.socket_endpoint.empty()) {
    options.erase("jobs");
    options.erase("resources");
    options.erase("backfill");
    options["socket_endpoint"] = a.socket_endpoint;
    options["socket_timeout"]  = a.socket_timeout_s;
    if (not a.sched_config.empty())
      options["sched_config"] = a.sched_config;
    if (a.dynamic_jobs)
      options["dynamic_jobs"] = true;
    if (a.acknowledge_dynamic_jobs)
      options["acknowledge_dynamic_jobs"] = true;
  }
  if (not a.energy_policy.empty() || not a.energy_options.empty()) {
    if (a.energy_policy.empty() || a.energy_options.empty())
      throw UsageError("--energy-policy and --energy-options go together (batsched's variant and its options file)");
    options["energy_policy"] = {{"variant", a.energy_policy}, {"options", absolute_path(a.energy_options)}};
  }
  e["components"] = nlohmann::ordered_json::array({{{"type", "batch"}, {"options", options}}});
  return e.dump(2);
}

/** The file `path` (absolute) that `option` names as `what`: InputError at the option when it does
 *  not exist, worded as the experiment reader words it (the name shown up to 60 characters). */
std::filesystem::path existing(const std::string& path, const std::string& option, const std::string& what)
{
  std::error_code ec;
  if (not std::filesystem::exists(path, ec))
    throw InputError("command line", option,
                     what + " " + quote(path.size() > 60 ? path.substr(0, 57) + "..." : path) +
                         " not found (looked for " + path + ")");
  return path;
}

/** The batch component on the options: its workload read, its energy policy's options read. */
experiment::BatchSetup batch_setup(const BatchArgs& a)
{
  experiment::BatchSetup s;
  s.workload = workload::read_workload(existing(absolute_path(a.workload), "--workload", "workload file"));
  s.config.scheduler.job_policy      = a.jobs;
  s.config.scheduler.resource_policy = a.resources;
  s.config.scheduler.backfill        = *scheduling::backfill_from_string(a.backfill);
  if (not a.slurm_conf.empty()) {
    s.config.scheduler.slurm_conf = std::make_shared<const scheduling::SlurmConf>(
        scheduling::read_slurm_conf(existing(absolute_path(a.slurm_conf), "--slurm-conf", "slurm.conf")));
    if (not a.slurm_associations.empty())
      s.config.scheduler.slurm_associations =
          std::make_shared<const scheduling::SlurmAssociations>(scheduling::read_slurm_associations(
              existing(absolute_path(a.slurm_associations), "--slurm-associations", "association file")));
    experiment::warn_slurm(*s.config.scheduler.slurm_conf, s.config.scheduler.slurm_associations.get(), s.workload);
  }
  s.config.interference  = not a.no_interference;
  s.config.max_resources = static_cast<uint32_t>(a.max_resources);
  s.max_resources_file   = "command line";
  s.max_resources_place  = "--max-resources";
  if (not a.energy_policy.empty()) {
    auto f                = existing(absolute_path(a.energy_options), "--energy-options", "energy policy options");
    s.config.power        = scheduling::read_power_options(f, a.energy_policy);
    s.config.power_source = f.string();
  }
  s.config.series           = batch::parse_series(a.series);
  s.config.socket_endpoint  = a.socket_endpoint;
  s.config.socket_timeout_s = a.socket_timeout_s;
  s.config.sched_config     = a.sched_config;
  if ((a.dynamic_jobs || a.acknowledge_dynamic_jobs) && a.socket_endpoint.empty())
    throw UsageError("--enable-dynamic-jobs and --acknowledge-dynamic-jobs need --socket-endpoint");
  if (a.acknowledge_dynamic_jobs && not a.dynamic_jobs)
    throw UsageError("--acknowledge-dynamic-jobs needs --enable-dynamic-jobs");
  s.config.dynamic_jobs             = a.dynamic_jobs;
  s.config.acknowledge_dynamic_jobs = a.acknowledge_dynamic_jobs;
  if (a.dynamic_jobs)
    s.config.submitters = 1; // the scheduler's registrations, ended by its NOTIFY registration_finished
  return s;
}

int batch_run(const BatchArgs& a, const Globals& globals)
{
  check_policies(a);
  experiment::Spec spec;
  spec.input         = record_of(a);
  spec.name          = "batch";
  spec.seed          = static_cast<uint64_t>(a.seed);
  spec.source        = kSource;
  spec.platform_file = existing(absolute_path(a.platform), "--platform", "platform file");
  for (const auto& t : a.types)
    spec.platform_options.catalogues.push_back(absolute_path(t));
  if (not a.granularity.empty())
    spec.platform_options.granularity = platform::granularity_from_string(a.granularity);
  std::vector<experiment::SpecComponent> components;
  components.push_back({"batch", "", experiment::make_batch_component(batch_setup(a))});
  experiment::Overrides o;
  o.output       = a.out;
  o.simgrid_args = globals.simgrid_args;
  o.generated    = true;
  auto result    = experiment::run_experiment(std::move(spec), std::move(components), o);
  std::cout << "Simulated " << result.simulated_time_s << " s. ";
  print_outputs(result);
  return 0;
}

struct GpuArgs {
  std::string platform;
  std::string workload;
  std::string order     = "fifo";
  std::string placement = "pack";
  bool backfill         = false;
  bool exact            = false;
  int64_t simulated     = 3;
  double measure_error  = 0.01;
  std::optional<int64_t> pstate;
  bool no_nccl         = false;
  double restart_s     = 0;
  double las_threshold = 3250;
  std::string out;
};

/** sgai batch gpu: the GPU-cluster component on the options. Unknown policy names are bad input
 *  (exit 1), reported with the known ones. */
int batch_gpu(const GpuArgs& a, const Globals& globals)
{
  scheduling::GpuOrder order;
  scheduling::GpuPlacement placement;
  if (not scheduling::order_from_string(a.order, order))
    throw InputError("command line", "--order",
                     "unknown order " + quote(a.order) + " (known: " + json::list_names(scheduling::order_names()) +
                         ")");
  if (not scheduling::placement_from_string(a.placement, placement))
    throw InputError("command line", "--placement",
                     "unknown placement " + quote(a.placement) +
                         " (known: " + json::list_names(scheduling::placement_names()) + ")");
  nlohmann::ordered_json e;
  e["sgai_experiment"]           = 1;
  e["name"]                      = "gpu-cluster";
  e["seed"]                      = 1;
  e["platform"]                  = {{"file", absolute_path(a.platform)}};
  nlohmann::ordered_json options = {{"workload", absolute_path(a.workload)},
                                    {"order", a.order},
                                    {"placement", a.placement},
                                    {"backfill", a.backfill},
                                    {"las_threshold", a.las_threshold},
                                    {"exact", a.exact},
                                    {"simulated_iterations", a.simulated},
                                    {"measure_error", a.measure_error},
                                    {"restart_cost", a.restart_s},
                                    {"nccl", not a.no_nccl}};
  if (a.pstate)
    options["pstate"] = *a.pstate;
  e["components"] = nlohmann::ordered_json::array({{{"type", "gpu_cluster"}, {"options", options}}});
  auto result     = run_generated_experiment(e.dump(2), "sgai batch gpu", a.out, globals,
                                             {{"at /platform/file", "--platform"},
                                              {"at /platform", "--platform"},
                                              {"at /components/0/options/workload", "--workload"},
                                              {"pstate", "--pstate"}});
  std::cout << "Simulated " << result.simulated_time_s << " s. ";
  print_outputs(result);
  return 0;
}

int batch_plot(const std::string& dir)
{
  std::error_code ec;
  if (not std::filesystem::is_regular_file(std::filesystem::path(dir) / "jobs.csv", ec))
    throw InputError(dir, "", "no jobs.csv here: expected the output folder of sgai batch run");
  return run_plot_script("batch_plot.py", dir);
}

std::string names(const std::vector<scheduling::PolicyInfo>& infos)
{
  std::string out;
  for (const auto& i : infos)
    out += (out.empty() ? "" : ", ") + i.name;
  return out;
}

} // namespace

void add_batch_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* batch = app.add_subcommand("batch", "Run the workload manager on a platform and a workload, plot its results");
  {
    auto a    = std::make_shared<BatchArgs>();
    auto* cmd = batch->add_subcommand("run", "Simulate a batch workload (Batsim JSON or SWF) on a platform");
    add_path(cmd, "--platform", a->platform, "Platform: JSON hierarchy or SimGrid XML")->required();
    cmd->add_option("--types", a->types, "Type catalogues of an HDeepRM platform (repeatable)");
    cmd->add_option("--granularity", a->granularity, "core, processor or node (JSON platforms)")
        ->check(CLI::IsMember({"core", "processor", "node"}));
    add_path(cmd, "--workload", a->workload, "Workload: Batsim JSON or SWF (.swf, .swf.gz)")->required();
    cmd->add_option("--jobs", a->jobs, "Job selection policy: " + names(scheduling::job_policies()));
    cmd->add_option("--resources", a->resources,
                    "Resource selection policy: " + names(scheduling::resource_policies()));
    cmd->add_option("--backfill", a->backfill,
                    "none, easy or conservative (first-arrived queue), or slurm (Slurm's main scheduler and backfill "
                    "pass as --slurm-conf configures them)");
    add_path(cmd, "--slurm-conf", a->slurm_conf,
             "--backfill slurm: the site's slurm.conf (scheduler, priority, SchedulerParameters, partitions)");
    add_path(cmd, "--slurm-associations", a->slurm_associations,
             "--backfill slurm: accounts and users with their shares, as `sacctmgr dump` writes them (fair-share)");
    add_path(cmd, "--out", a->out, "Output folder")->required();
    add_seed(cmd, a->seed, "Seed of the random policies");
    add_count(cmd, "--max-resources", a->max_resources,
              "Use only the first N cores (Batsim's --mmax; 0: all; at most the platform's cores)", 0, UINT32_MAX);
    cmd->add_flag("--no-interference", a->no_interference, "No memory-bandwidth interference (no P-state changes)");
    cmd->add_option("--energy-policy", a->energy_policy,
                    "Switch machines off and on as batsched's energy variant does: energy_bf_monitoring_inertial or "
                    "energy_bf_subpart_sleeper (needs --backfill easy and hosts with sleep_pstates)")
        ->check(CLI::IsMember(scheduling::power_variants()));
    cmd->add_option(
        "--energy-options", a->energy_options,
        "batsched's options file of the energy variant (JSON: monitoring_period, power_*, time_switch_*, ...)");
    cmd->add_option("--series", a->series,
                    "Time series to write besides jobs.csv and the schedule: none (default), all, or a list of "
                    "machine_states, energy, pstate_changes, overutilization")
        ->check([](const std::string& v) {
          try {
            batch::parse_series(v);
            return std::string();
          } catch (const std::invalid_argument& e) {
            return std::string(e.what());
          }
        });
    cmd->add_option("--socket-endpoint", a->socket_endpoint,
                    "Let a scheduler process speaking Batsim's protocol decide (Batsim's option): the ZeroMQ "
                    "endpoint it binds, e.g. tcp://localhost:28000 for batsched -s 'tcp://*:28000'");
    cmd->add_option("--socket-timeout", a->socket_timeout_s,
                    "Seconds a reply of the external scheduler may take before the run stops (default 60)")
        ->check(CLI::PositiveNumber);
    cmd->add_option("--sched-cfg", a->sched_config,
                    "Text forwarded to the external scheduler as config[\"sched-config\"] (Batsim's option)");
    cmd->add_flag("--enable-dynamic-jobs", a->dynamic_jobs,
                  "The external scheduler may register jobs and profiles (Batsim's option); the run ends after its "
                  "NOTIFY registration_finished");
    cmd->add_flag("--acknowledge-dynamic-jobs", a->acknowledge_dynamic_jobs,
                  "Acknowledge each registered job with a JOB_SUBMITTED (Batsim's option)");
    cmd->callback([a, &globals, &action]() { action = [a, &globals]() { return batch_run(*a, globals); }; });
  }
  {
    auto a    = std::make_shared<GpuArgs>();
    auto* cmd = batch->add_subcommand(
        "gpu", "Schedule training jobs (profiles of type training) on a JSON platform's GPUs, sharing its links");
    add_path(cmd, "--platform", a->platform, "Platform: sgai JSON with GPUs")->required();
    add_path(cmd, "--workload", a->workload,
             "Workload of training jobs (sgai workload tiresias, gavel or alibaba make them)")
        ->required();
    cmd->add_option("--order", a->order, "Job order: fifo (strict unless --backfill), sjf, smallest or las (2D-LAS)");
    cmd->add_option("--placement", a->placement, "GPU placement: first, pack, spread or topology");
    cmd->add_flag("--backfill", a->backfill, "fifo: jobs that fit start past one that does not (first fit)");
    cmd->add_flag("--exact", a->exact, "Simulate every iteration instead of advancing at the measured iteration time");
    add_count(cmd, "--simulated-iterations", a->simulated,
              "Iterations simulated after each change before advancing (default 3)", 1, 1000000);
    add_real(cmd, "--measure-error", a->measure_error,
             "... and until the standard error of their mean is within this fraction of it (default 0.01; at most 64 "
             "times as many)",
             0, 1);
    add_real(cmd, "--restart-cost", a->restart_s, "Seconds a preempted job takes to start again (default 0)", 0, 1e9);
    add_real(cmd, "--las-threshold", a->las_threshold,
             "2D-LAS: GPU-seconds of service after which a job leaves the first queue (default 3250)", 1e-9, 1e15);
    add_count(cmd, "--pstate", a->pstate,
              "P-state (power cap) of every GPU, unless a job's profile names its own (default: the platform's)", 0,
              1000);
    cmd->add_flag(
        "--no-nccl", a->no_nccl,
        "All-reduces as sgai's ring, not as NCCL's model would run them on GPUs that name their architecture");
    add_path(cmd, "--out", a->out, "Output folder")->required();
    cmd->callback([a, &globals, &action]() { action = [a, &globals]() { return batch_gpu(*a, globals); }; });
  }
  {
    auto dir = std::make_shared<std::string>();
    auto* cmd =
        batch->add_subcommand("plot", "Gantt chart, utilization, queue, job life cycles and over-utilization as PNG");
    add_path(cmd, "outdir", *dir, "Output folder of sgai batch run")->required();
    cmd->callback([dir, &action]() { action = [dir]() { return batch_plot(*dir); }; });
  }
}

} // namespace sgai::cli
