#include "plugins/replay/run.hpp"

#include "chakra/et_io.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/gpu/gpu.hpp"
#include "plugins/sim/energy.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <xbt/log.h>

#include <chrono>
#include <cmath>
#include <fstream>

namespace sgai::replay {

double CollectiveRecord::bus_factor(chakra::CollectiveType t, uint32_t n)
{
  if (n <= 1)
    return 1;
  double f = static_cast<double>(n - 1) / n;
  switch (t) {
  case chakra::CollectiveType::all_reduce:
    return 2 * f;
  case chakra::CollectiveType::all_gather: // comm_size is one rank's part: n x f of the gathered bytes
    return n * f;
  case chakra::CollectiveType::reduce_scatter:
  case chakra::CollectiveType::reduce_scatter_block:
  case chakra::CollectiveType::all_to_all:
    return f;
  default:
    return 1;
  }
}

/** Each workload's NPUs: `--npus` lists ("0-7", "0,2,4", "0-3 8-11") or consecutive NPUs. */
std::vector<std::vector<uint32_t>>
npu_mapping(const AstraRunOptions& o, const std::vector<std::vector<std::filesystem::path>>& jobs, uint32_t npus)
{
  std::vector<std::vector<uint32_t>> out(jobs.size());
  if (o.npus.empty()) {
    uint32_t next = 0;
    for (size_t j = 0; j < jobs.size(); j++)
      for (size_t r = 0; r < jobs[j].size(); r++)
        out[j].push_back(next++);
    return out;
  }
  if (o.npus.size() != jobs.size())
    throw InputError("command line", "--npus",
                     std::to_string(o.npus.size()) + " NPU lists for " + std::to_string(jobs.size()) +
                         " workloads: give one per workload, in order");
  std::vector<bool> used(npus, false);
  for (size_t j = 0; j < jobs.size(); j++) {
    const std::string& text = o.npus[j];
    std::string item;
    auto bad = [&](const std::string& why) { throw InputError("command line", "--npus " + quote(text), why); };
    auto add = [&](uint64_t n) {
      if (n >= npus)
        bad("NPU " + std::to_string(n) + " does not exist (the network has " + std::to_string(npus) + ")");
      if (used[n])
        bad("NPU " + std::to_string(n) + " serves two ranks");
      used[n] = true;
      out[j].push_back(static_cast<uint32_t>(n));
    };
    for (char& c : std::string(text + ","))
      if (c == ',' || c == ' ') {
        if (item.empty())
          continue;
        size_t dash = item.find('-');
        try {
          size_t used_a = 0, used_b = 0;
          uint64_t a = std::stoull(item.substr(0, dash), &used_a);
          uint64_t b = dash == std::string::npos ? a : std::stoull(item.substr(dash + 1), &used_b);
          if (used_a != item.substr(0, dash).size() ||
              (dash != std::string::npos && used_b != item.substr(dash + 1).size()) || b < a || b - a > npus)
            throw std::invalid_argument(item);
          for (uint64_t n = a; n <= b; n++)
            add(n);
        } catch (const std::logic_error&) {
          bad("bad NPU range " + quote(item) + ": expected numbers and ranges such as 0-7 or 0,2,4");
        }
        item.clear();
      } else
        item += c;
    if (out[j].size() != jobs[j].size())
      bad(std::to_string(out[j].size()) + " NPUs for the " + std::to_string(jobs[j].size()) + " ranks of " +
          quote(o.workloads[j]));
  }
  return out;
}

namespace {

/** run_astra's inputs, read and checked before anything runs. */
struct AstraInputs {
  std::vector<communicator::Dimension> dims;
  SystemConfig system;
  std::map<std::string, std::vector<uint32_t>> groups;
  std::vector<std::vector<std::filesystem::path>> jobs; ///< each workload's rank files
  uint64_t ranks = 0;                                   ///< of all the workloads
  uint32_t npus  = 0;
};

AstraInputs read_inputs(const AstraRunOptions& o)
{
  AstraInputs in;
  in.dims   = read_network_yaml(o.network);
  in.system = read_system_json(o.system);
  if (not o.comm_groups.empty())
    in.groups = read_comm_groups(o.comm_groups);
  for (const auto& w : o.workloads) {
    in.jobs.push_back(chakra::workload_files(w));
    in.ranks += in.jobs.back().size();
  }
  in.npus = communicator::npu_count(in.dims);
  std::string shape;
  for (const auto& d : in.dims)
    shape += (shape.empty() ? "" : " x ") + std::to_string(d.npus);
  if (in.jobs.size() == 1 && o.npus.empty() && in.ranks != in.npus)
    throw InputError(o.network.string(), "npus_count",
                     "the dimensions (" + shape + ") make " + std::to_string(in.npus) + " NPUs but the workload " +
                         quote(o.workloads[0]) + " has " + std::to_string(in.ranks) + " ranks");
  if (in.ranks > in.npus)
    throw InputError(o.network.string(), "npus_count",
                     "the dimensions (" + shape + ") make " + std::to_string(in.npus) + " NPUs but the " +
                         std::to_string(in.jobs.size()) + " workloads have " + std::to_string(in.ranks) +
                         " ranks together");
  if (not in.groups.empty() && in.jobs.size() > 1)
    throw InputError(o.comm_groups.string(), "", "communicator groups apply to a single workload");
  for (const auto& [id, members] : in.groups) // named here by the groups file, before anything runs
    for (uint32_t m : members)
      if (m >= in.ranks)
        throw InputError(o.comm_groups.string(), "group " + quote(id),
                         "rank " + std::to_string(m) + " does not exist (the job has " + std::to_string(in.ranks) +
                             " ranks)");
  return in;
}

/** The NPU's lower P-states (compute clock fraction, busy watts): the H100's power caps, 500 W and
 *  300 W of its 700 W, scaled to the NPU's busy power. */
std::vector<std::pair<double, double>> power_caps(const AstraRunOptions& o)
{
  if (o.pstate > 2)
    throw InputError("command line", "--pstate", "the NPUs have P-states 0, 1 and 2, not " + std::to_string(o.pstate));
  std::vector<std::pair<double, double>> caps;
  for (double cap : {500.0, 300.0}) {
    double w = o.gpu_busy_w * cap / 700.0;
    if (o.pstate > 0 && not(w > o.gpu_idle_w))
      throw InputError("command line", "--gpu-idle-w",
                       "the power caps of P-states 1 and 2 (5/7 and 3/7 of --gpu-busy-w: " + format_number(w) +
                           " W) must lie above the idle power (" + format_number(o.gpu_idle_w) + " W)");
    caps.emplace_back(w > o.gpu_idle_w ? kernels::capped_clock_fraction(w, o.gpu_idle_w, o.gpu_busy_w) : 1.0, w);
  }
  return caps;
}

/** links.csv: each link's bytes, busy time and energy over a run of `makespan_s`. */
void write_links_csv(const std::filesystem::path& file, const communicator::LinkTraffic& traffic,
                     const sim::EnergyReport& energy, double makespan_s)
{
  // split-duplex links are accounted per direction (their _UP and _DOWN halves)
  std::map<std::string, double> link_energy;
  for (const auto& l : energy.links)
    link_energy[l.name] = l.joules;
  AtomicFile f(file);
  // busy_s: the time the link would take to carry its bytes at full bandwidth
  f.stream() << "link,bandwidth_Bps,bytes,busy_s,utilization,joules\n";
  const double T = makespan_s;
  for (const simgrid::s4u::Link* l : simgrid::s4u::Engine::get_instance()->get_all_links()) {
    if (l->get_sharing_policy() == simgrid::s4u::Link::SharingPolicy::SPLITDUPLEX)
      continue; // its halves carry the traffic
    double bw = l->get_bandwidth(), bytes = traffic.bytes(l), busy = bw > 0 ? bytes / bw : 0;
    f.stream() << l->get_name() << ',' << format_number(bw) << ',' << format_number(bytes) << ',' << format_number(busy)
               << ',' << format_fixed(T > 0 ? busy / T : 0, 6) << ','
               << format_number(link_energy.count(l->get_name()) ? link_energy[l->get_name()] : 0) << '\n';
  }
  f.commit();
}

void write_energy_csv(const std::filesystem::path& file, const sim::EnergyReport& energy)
{
  AtomicFile f(file);
  f.stream() << "kind,name,joules\n";
  for (const auto& h : energy.hosts)
    f.stream() << "host," << h.name << ',' << format_number(h.joules) << '\n';
  for (const auto& l : energy.links)
    f.stream() << "link," << l.name << ',' << format_number(l.joules) << '\n';
  f.commit();
}

void write_summary_json(const std::filesystem::path& file, const AstraRunOptions& o, const AstraRunResult& result,
                        const AstraInputs& in, const Replay& replay, double npu_flops)
{
  AtomicFile f(file);
  json::Writer w(f.stream());
  w.begin_object();
  w.field("makespan_ns", result.makespan_s * 1e9).field("nodes", result.nodes);
  w.field("ranks", static_cast<uint64_t>(result.ranks.size()))
      .field("collectives", static_cast<uint64_t>(result.collectives.size()));
  w.field("collectives_worked_out_at_once", replay.worked_out_at_once().collectives); // docs/replay.md
  w.field("transfers_worked_out_sharing_links", replay.worked_out_at_once().transfers_sharing_links);
  w.field("npu_energy_j", result.gpu_energy_j).field("link_energy_j", result.link_energy_j);
  w.key("inputs").begin_object();
  w.field("network", o.network.string()).field("system", o.system.string());
  if (not o.comm_groups.empty())
    w.field("comm_groups", o.comm_groups.string());
  w.key("workloads").begin_array(true);
  for (const auto& x : o.workloads)
    w.value(x);
  w.end_array();
  w.end_object();
  w.key("system_keys_not_modelled").begin_array(true);
  for (const auto& k : in.system.ignored)
    w.value(k);
  w.end_array();
  w.field("npu_flops", npu_flops).field("pstate", o.pstate);
  w.end_object();
  f.stream() << "\n";
  f.commit();
}

} // namespace

AstraRunResult run_astra(const AstraRunOptions& o)
{
  auto wall0 = std::chrono::steady_clock::now();
  if (o.workloads.empty())
    throw InputError("command line", "--workload", "at least one workload is needed");
  if (not o.out.empty()) // before any work (StagingDir refuses an empty one)
    check_output_dir(o.out);
  const AstraInputs in = read_inputs(o);
  const auto caps      = power_caps(o);
  const auto& dims     = in.dims;
  const auto& system   = in.system;
  const auto& groups   = in.groups;
  const auto& jobs     = in.jobs;
  const uint32_t npus  = in.npus;

  auto mapping = npu_mapping(o, jobs, npus); // checked before anything runs

  StagingDir staging(o.out);
  std::ofstream log(staging.path() / "replay_log.csv");
  log << "rank,node_id,event,time_us,type,name\n";

  sim::SimulationOptions so;
  // ASTRA-sim's analytical network is alpha-beta: CM02 without cross traffic is SimGrid's model of
  // that; --cfg options given by the user come after and win (e.g. network/model:LV08).
  xbt_log_control_set("xbt_cfg.thres:warning"); // these defaults are not news to the user
  // a deadlock is reported by Replay::check() with the trace's blocked nodes, not SimGrid's list
  xbt_log_control_set("ker_engine.thres:critical");
  so.simgrid_args = {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"};
  so.simgrid_args.insert(so.simgrid_args.end(), o.simgrid_args.begin(), o.simgrid_args.end());
  // SimGrid's link-energy plugin looks up each communication's route when it starts and when it
  // ends (a fifth of a replay's time): only when some link draws power
  so.link_energy = o.link_idle_w > 0 || o.link_busy_w > 0;
  sim::Simulation simulation(so);
  communicator::NpuOptions npu;
  npu.speed_flops = (o.peak_tflops > 0 ? o.peak_tflops * 1e12 : (system.peak_flops > 0 ? system.peak_flops : 1e15));
  npu.idle_w      = o.gpu_idle_w;
  npu.busy_w      = o.gpu_busy_w;
  // the H100's power caps (the P-state model of plugins/gpu/gpu.hpp, as in the accelerator
  // catalogue): compute clock fraction, busy watts
  npu.lower_pstates = caps;
  npu.link_idle_w   = o.link_idle_w;
  npu.link_busy_w   = o.link_busy_w;
  auto network      = communicator::build_npu_network("", dims, npu);
  const auto& hosts = network.npus;
  for (auto* h : hosts)
    h->set_pstate(static_cast<int>(o.pstate));
  communicator::LinkTraffic traffic; // links.csv

  ReplayOptions ro;
  ro.system         = system;
  ro.gpu_peak_flops = npu.speed_flops;
  if (o.data_deps_only)
    ro.control_deps = not *o.data_deps_only;
  ro.recorded_durations   = o.recorded_durations;
  ro.congestion_aware     = o.congestion_aware;
  ro.sends_on_comm_stream = o.sends_on_comm_stream;
  if (not o.congestion_aware) { // ASTRA-sim's congestion-unaware backend: its rule across dimensions
    ro.unaware_npus = hosts;
    for (const auto& d : dims)
      ro.unaware_dims.push_back(d.npus);
  }
  ro.traffic           = &traffic;
  ro.log               = &log;
  ro.network_to_itself = not o.step_by_step; // the replay is all that runs
  if (jobs.size() == 1)
    for (const auto& d : dims)
      ro.dims.push_back(d.npus);
  Replay replay(ro);
  for (size_t j = 0; j < jobs.size(); j++) {
    JobSpec spec;
    spec.name  = jobs.size() == 1 ? o.workloads[j] : "job" + std::to_string(j);
    spec.files = jobs[j];
    for (uint32_t n : mapping[j]) {
      spec.gpus.push_back(hosts[n]);
      spec.cpus.push_back(network.cpus[n]);
    }
    spec.groups = groups;
    replay.add_job(std::move(spec));
  }
  try {
    simulation.run();
  } catch (const RunError&) {
    replay.check(); // the trace's own deadlock or error, named
    throw;
  }
  replay.check();
  log.close();

  AstraRunResult result;
  result.ranks       = replay.ranks();
  result.collectives = replay.collectives();
  result.nodes       = replay.nodes_replayed();
  result.makespan_s  = simgrid::s4u::Engine::get_clock();
  {
    AtomicFile f(staging.path() / "ranks.csv");
    write_ranks_csv(f.stream(), result.ranks);
    f.commit();
  }
  {
    AtomicFile f(staging.path() / "collectives.csv");
    write_collectives_csv(f.stream(), result.collectives);
    f.commit();
  }
  auto energy = sim::collect_energy(so.link_energy);
  write_links_csv(staging.path() / "links.csv", traffic, energy, result.makespan_s);
  write_energy_csv(staging.path() / "energy.csv", energy);
  result.gpu_energy_j  = energy.hosts_total_j;
  result.link_energy_j = energy.links_total_j;
  result.energy_notes  = energy.notes();
  result.wall_s        = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  write_summary_json(staging.path() / "summary.json", o, result, in, replay, npu.speed_flops);
  staging.publish();
  result.files = {"ranks.csv", "collectives.csv", "energy.csv", "links.csv", "replay_log.csv", "summary.json"};
  return result;
}

} // namespace sgai::replay
