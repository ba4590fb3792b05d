#include "core/collectives/nccl.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/replay/run.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/generated.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <filesystem>
#include <iostream>
#include <memory>

namespace sgai::cli {

namespace {

struct ReplayArgs {
  replay::AstraRunOptions o;
  std::string out, system, network, groups, platform;
  std::vector<std::string> gpus;
  std::vector<int64_t> dims;
  std::vector<std::string> npu_only; ///< options of ASTRA-sim's networks given with --platform
  std::string deps       = "auto";
  std::string congestion = "aware";
  std::string sends; ///< empty: the default of the inputs (ASTRA-sim's: comm-stream; a platform's: own-stream)
  bool no_durations     = false;
  bool step_by_step     = false;
  int64_t pstate        = 0;
  double power_period_s = 0;         ///< --power-series (with --platform)
  std::string nccl_algo, nccl_proto; ///< --nccl-algo, --nccl-proto (with --platform; empty: NCCL chooses)
};

/** Traces on a platform's GPUs: an experiment with the replay component (its links, routes and
 *  network model are those of sgai run). */
int run_on_platform(const ReplayArgs& a, const Globals& globals)
{
  if (not a.npu_only.empty())
    throw UsageError(a.npu_only.front() + " describes ASTRA-sim's NPUs: with --platform the platform's GPUs have "
                                          "their own figures (use --gpus to name the hosts)");
  constexpr const char* kReplaySource = "sgai replay";
  nlohmann::ordered_json options;
  nlohmann::ordered_json workloads = nlohmann::ordered_json::array();
  for (const auto& w : a.o.workloads)
    workloads.push_back(absolute_path(w));
  options["workloads"] = workloads;
  if (not a.system.empty())
    options["system"] = absolute_path(a.system);
  if (not a.groups.empty())
    options["comm_groups"] = absolute_path(a.groups);
  if (not a.gpus.empty())
    options["gpus"] = a.gpus;
  if (not a.dims.empty())
    options["dims"] = a.dims;
  options["deps"]       = a.deps;
  options["congestion"] = a.congestion;
  if (not a.sends.empty())
    options["sends"] = a.sends;
  if (a.no_durations)
    options["recorded_durations"] = false;
  if (a.step_by_step)
    options["step_by_step"] = true;
  // NCCL_ALGO / NCCL_PROTO: the replay component's names for every collective
  if (collectives::nccl::Algo x; not a.nccl_algo.empty() && collectives::nccl::algo_from_string(a.nccl_algo, x))
    options["algorithm"] = collectives::nccl::to_string(x);
  if (collectives::nccl::Proto x; not a.nccl_proto.empty() && collectives::nccl::proto_from_string(a.nccl_proto, x))
    options["protocol"] = collectives::nccl::to_string(x);
  nlohmann::ordered_json e;
  e["sgai_experiment"] = 1;
  e["name"]            = "replay";
  e["seed"]            = 1;
  e["platform"]        = {{"file", absolute_path(a.platform)}};
  if (a.power_period_s > 0)
    e["simgrid"] = {{"power_series", a.power_period_s}};
  e["components"] = nlohmann::ordered_json::array({{{"type", "replay"}, {"options", options}}});
  auto result     = run_generated_experiment(e.dump(2), kReplaySource, a.out, globals,
                                             {{"at /platform/file", "--platform"},
                                              {"at /components/0/options/workloads", "--workload"},
                                              {"at /components/0/options/system", "--system"},
                                              {"at /components/0/options/comm_groups", "--comm-group"},
                                              {"at /components/0/options/gpus", "--gpus"},
                                              {"at /components/0/options/dims", "--dims"}});
  std::cout << "Replayed on " << a.platform << ": simulated " << format_plain(std::round(result.simulated_time_s * 1e9))
            << " ns. ";
  print_outputs(result);
  return 0;
}

int run_replay(ReplayArgs a, const Globals& globals)
{
  if (a.step_by_step && a.congestion != "aware")
    throw UsageError("--step-by-step goes with --congestion aware (congestion-unaware collectives are always "
                     "worked out at once)");
  if (not a.platform.empty())
    return run_on_platform(a, globals);
  if (a.power_period_s > 0)
    throw UsageError("--power-series goes with --platform (the power of a platform's hosts and links)");
  if (not a.nccl_algo.empty() || not a.nccl_proto.empty())
    throw UsageError(std::string(a.nccl_algo.empty() ? "--nccl-proto" : "--nccl-algo") +
                     " goes with --platform (NCCL's model runs on a platform's GPUs; ASTRA-sim's system JSON names "
                     "its own collective implementations)");
  if (a.network.empty() || a.system.empty())
    throw UsageError("--network and --system are required (ASTRA-sim's inputs), or --platform (an sgai platform)");
  if (not a.gpus.empty() || not a.dims.empty())
    throw UsageError(std::string(a.gpus.empty() ? "--dims" : "--gpus") +
                     " goes with --platform (ASTRA-sim's network YAML gives the dimensions)");
  a.o.out          = a.out;
  a.o.system       = a.system;
  a.o.network      = a.network;
  a.o.comm_groups  = a.groups;
  a.o.simgrid_args = globals.simgrid_args;
  if (a.deps != "auto")
    a.o.data_deps_only = a.deps == "data";
  a.o.recorded_durations = not a.no_durations;
  a.o.congestion_aware   = a.congestion == "aware";
  a.o.step_by_step       = a.step_by_step;
  if (not a.sends.empty())
    a.o.sends_on_comm_stream = a.sends == "comm-stream";
  a.o.pstate       = static_cast<uint32_t>(a.pstate);
  auto r           = replay::run_astra(a.o);
  size_t auto_data = 0;
  for (const auto& x : r.ranks)
    auto_data += x.data_deps_auto ? 1 : 0;
  if (auto_data)
    std::cout << "Note: " << auto_data << " of " << r.ranks.size()
              << " ranks' traces were converted from PyTorch (GlobalMetadata pid, start_ts, finish_ts): followed "
                 "data dependencies only, as Chakra's feeder does (--deps all follows control dependencies too)\n";
  // ASTRA-sim's figures, per rank, in ns
  for (const auto& x : r.ranks) {
    std::cout << "sys[" << x.global << "], Wall time: " << format_plain(std::round(x.end_s * 1e9))
              << ", Compute time: " << format_plain(std::round(x.compute_s * 1e9))
              << ", Comm time: " << format_plain(std::round(x.comm_s * 1e9))
              << ", Exposed comm time: " << format_plain(std::round(std::max(0.0, x.end_s - x.compute_s) * 1e9))
              << "\n";
  }
  std::cout << "Replayed " << r.nodes << " nodes of " << r.ranks.size() << " ranks in " << format_fixed(r.wall_s, 2)
            << " s: simulated " << format_plain(std::round(r.makespan_s * 1e9)) << " ns, " << r.collectives.size()
            << " collectives, NPU energy " << format_fixed(r.gpu_energy_j, 3) << " J, link energy "
            << format_fixed(r.link_energy_j, 3) << " J. Results in " << a.out << ":";
  for (const auto& f : r.files)
    std::cout << " " << f;
  std::cout << "\n";
  for (const std::string& note : r.energy_notes)
    std::cout << "Note: " << note << ".\n";
  return 0;
}

} // namespace

void add_replay_command(CLI::App& app, const Globals& globals, Action& action)
{
  auto a    = std::make_shared<ReplayArgs>();
  auto* cmd = app.add_subcommand("replay", "Replay Chakra traces on SimGrid from ASTRA-sim's inputs (network YAML, "
                                           "system JSON, communicator groups)");
  cmd->add_option("--workload", a->o.workloads,
                  "ET prefix (dir/name for dir/name.N.et), file or folder; repeat for jobs sharing the network")
      ->required();
  auto* npus = cmd->add_option("--npus", a->o.npus,
                               "NPUs of each workload's ranks, one list per --workload (0-7, 0,2,4,6, 0-3 8-11; "
                               "default: consecutive)");
  add_path(cmd, "--system", a->system, "ASTRA-sim system JSON (optional with --platform)");
  add_path(cmd, "--network", a->network, "ASTRA-sim analytical network YAML");
  add_path(cmd, "--platform", a->platform,
           "sgai platform (JSON or SimGrid XML) instead of --network: ranks on its GPUs, in hierarchy order, or on "
           "the hosts --gpus names")
      ->excludes("--network");
  cmd->add_option("--gpus", a->gpus, "With --platform: the hosts of the ranks, in order");
  cmd->add_option("--dims", a->dims, "With --platform: GPUs per level of hierarchical collectives (8,4)")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{1} << 24));
  add_path(cmd, "--comm-group", a->groups, "ASTRA-sim communicator-group JSON");
  add_path(cmd, "--out", a->out, "Output folder")->required();
  // Bounds: a million TFLOP/s is 1,000 times today's largest accelerators; a megawatt per NPU or
  // link is far past any device; beyond them the figures only overflow.
  add_real(cmd, "--peak-tflops", a->o.peak_tflops, "NPU speed in TFLOP/s (default: peak-perf, else 1000; 0: default)",
           0, 1e6);
  add_real(cmd, "--gpu-idle-w", a->o.gpu_idle_w, "NPU idle power in W (default 70)", 0, 1e6);
  add_real(cmd, "--gpu-busy-w", a->o.gpu_busy_w, "NPU busy power in W (default 700)", 0, 1e6);
  add_real(cmd, "--link-idle-w", a->o.link_idle_w, "Idle power per link in W (default 0)", 0, 1e6);
  add_real(cmd, "--link-busy-w", a->o.link_busy_w, "Busy power per link in W (default 0)", 0, 1e6);
  add_count(cmd, "--pstate", a->pstate, "NPU P-state: 0 full speed, 1 and 2 power caps (500 W, 300 W)", 0, 2);
  cmd->add_option("--deps", a->deps,
                  "Dependencies to wait for: auto (default: data for traces converted from PyTorch by Chakra, all "
                  "otherwise), all (data and control) or data (Chakra's own feeder)")
      ->check(CLI::IsMember({"auto", "all", "data"}));
  cmd->add_option("--congestion", a->congestion,
                  "aware (default): transfers share the links they cross (SimGrid's max-min sharing); unaware: "
                  "each transfer has every link of its path to itself, as ASTRA-sim's congestion-unaware "
                  "analytical backend")
      ->check(CLI::IsMember({"aware", "unaware"}));
  cmd->add_option("--sends", a->sends,
                  "comm-stream (default with --network/--system): a send waits for the GPU's communication in "
                  "flight and holds it, receives never wait, as ASTRA-sim's hardware resource; own-stream (default "
                  "with --platform): every send and receive on a stream of its own, beside the collectives, as "
                  "NCCL's point-to-point operations")
      ->check(CLI::IsMember({"comm-stream", "own-stream"}));
  cmd->add_flag("--step-by-step", a->step_by_step,
                "Congestion-aware: run every collective's transfers on SimGrid, even a collective's that has the "
                "network to itself (by default worked out at once: the same times, docs/replay.md)");
  cmd->add_flag("--no-durations", a->no_durations,
                "Ignore recorded durations: compute time from num_ops (and the roofline when enabled)");
  add_nccl_algo(cmd, a->nccl_algo,
                "With --platform: the algorithm NCCL runs every collective with, as NCCL_ALGO forces it");
  add_nccl_proto(cmd, a->nccl_proto, "With --platform: the protocol, as NCCL_PROTO forces it");
  cmd->add_option("--power-series", a->power_period_s,
                  "With --platform: also write power.csv, the platform's power averaged over each period of this "
                  "many simulated seconds (SimGrid's energy plugins; sgai plot power DIR draws it)")
      ->check(CLI::PositiveNumber);
  cmd->callback([a, &globals, &action, cmd, npus]() {
    a->npu_only.clear();
    if (npus->count() > 0)
      a->npu_only.push_back("--npus");
    for (const char* name :
         {"--peak-tflops", "--gpu-idle-w", "--gpu-busy-w", "--link-idle-w", "--link-busy-w", "--pstate"})
      if (cmd->get_option(name)->count() > 0)
        a->npu_only.push_back(name);
    action = [a, &globals]() { return run_replay(*a, globals); };
  });

  auto* plot = app.add_subcommand("plot", "Charts of an output folder");
  plot->require_subcommand(1);
  auto dir = std::make_shared<std::string>();
  auto* power =
      plot->add_subcommand("power", "power.png from power.csv (--power-series): the platform's power over time");
  power->add_option("dir", *dir, "An output folder holding power.csv")->required();
  power->callback([dir, &action]() { action = [dir]() { return run_plot_script("power_plot.py", *dir); }; });
}

} // namespace sgai::cli
