/* The GPU-cluster manager's state and steps (private to plugins/gpu_cluster): gpu_manager.cpp holds
 * the jobs' ranks and the public class, calibration.cpp each job's time alone. */
#ifndef SGAI_PLUGINS_GPU_CLUSTER_MANAGER_IMPL_HPP
#define SGAI_PLUGINS_GPU_CLUSTER_MANAGER_IMPL_HPP

#include "plugins/gpu_cluster/gpu_manager.hpp"

#include "chakra/et_io.hpp"
#include "chakra/generate.hpp"
#include "chakra/training.hpp"
#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "core/training/chakra_out.hpp"
#include "core/training/memory.hpp"
#include "core/training/platform_inputs.hpp"
#include "plugins/communicator/communicator.hpp"
#include "plugins/communicator/network.hpp"
#include "plugins/gpu/gpu.hpp"
#include "plugins/replay/astra_inputs.hpp"
#include "plugins/replay/replay.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <sstream>
#include <tuple>
#include <unistd.h>

XBT_LOG_EXTERNAL_DEFAULT_CATEGORY(sgai_gpu_manager);

namespace sgai::gpu_cluster {

namespace s4u = simgrid::s4u;
using collectives::Schedule;
using communicator::CollectiveOptions;
using communicator::CollectiveRun;

inline constexpr uint64_t kNone = std::numeric_limits<uint64_t>::max();
/** Bounds of a generated iteration (as `sgai chakra generate training`): trace nodes built in
 *  memory, and a layer's forward FLOPs (num_ops stay integers). */
inline constexpr uint64_t kMaxGeneratedNodes = 2'000'000;
inline constexpr double kMaxLayerFlops       = 1e18;

class GpuManager::Impl {
public:
  struct Run;
  enum class EventKind { ended, stopped };
  struct Event {
    uint32_t job;
    EventKind kind;
  };

  const workload::Workload& w;
  const platform::Platform& plat;
  GpuManagerConfig cfg;
  scheduling::GpuScheduler sched;
  std::vector<s4u::Host*> gpu_host;              ///< per GPU index
  std::vector<unsigned long> default_pstate;     ///< per GPU: its P-state outside jobs with their own
  std::optional<collectives::nccl::System> nccl; ///< NCCL's view of the platform (none: sgai's ring)
  std::vector<GpuJobRecord> rec;
  std::vector<int32_t> type_of_job;
  /** A job's all-reduce alone: its GPU count, gradient bytes and GPU type (-1: any). */
  using CalibrationKey = std::tuple<uint32_t, double, int32_t>;
  std::map<CalibrationKey, double> alone_allreduce; ///< -> seconds
  std::vector<std::unique_ptr<Run>> runs;           ///< per job: its current run
  std::vector<std::unique_ptr<Run>> finished_runs;
  std::vector<double> attained, attained_at;
  std::map<std::string, std::shared_ptr<const Schedule>> schedules;
  std::deque<Event> events;
  std::map<const s4u::Link*, double> link_bytes; ///< links.csv
  s4u::SemaphorePtr wake;
  std::string error;
  uint32_t done_count = 0;
  /** A profile replaying Chakra traces: its ranks' ETs (a generated iteration's in generated_dir)
   *  and their communicator groups. */
  struct TraceSet {
    std::vector<std::filesystem::path> files;
    std::map<std::string, std::vector<uint32_t>> groups;
  };
  std::map<uint32_t, TraceSet> trace_sets; ///< by profile index
  std::filesystem::path generated_dir;     ///< generated iterations' ETs, removed with the manager
  pid_t owner = ::getpid();                ///< (the calibration's child leaves them)
  /** A traced job alone: its profile, GPU count and GPU type (-1: any) -> its iteration time, then
   *  each rank's compute time in it (calibration). */
  using TraceKey = std::tuple<uint32_t, uint32_t, int32_t>;
  std::map<TraceKey, std::vector<double>> alone_trace;

  Impl(const workload::Workload& wl, const platform::Platform& p, GpuManagerConfig c)
      : w(wl)
      , plat(p)
      , cfg(std::move(c))
      , sched(scheduling::GpuTopology::of(p), cfg.scheduler)
  {
    const auto& topo = sched.topology();
    rec.resize(w.jobs.size());
    type_of_job.assign(w.jobs.size(), -1);
    runs.resize(w.jobs.size());
    attained.assign(w.jobs.size(), 0);
    attained_at.assign(w.jobs.size(), 0);
    std::map<std::string, uint32_t> per_type;
    for (uint32_t t : topo.type_of)
      per_type[topo.types[t]]++;
    for (size_t i = 0; i < w.jobs.size(); i++) {
      const auto& j     = w.jobs[i];
      const auto& pr    = w.profile_of(j);
      std::string place = "job " + quote(j.id);
      if (pr.type != workload::ProfileType::training)
        throw InputError(cfg.workload_file, place,
                         "profile type " + std::string(workload::to_string(pr.type)) +
                             " is not a training profile: the GPU-cluster manager runs training jobs only");
      if (j.resources > topo.gpu_count())
        throw InputError(cfg.workload_file, place,
                         "asks for " + std::to_string(j.resources) + " GPUs; the platform has " +
                             std::to_string(topo.gpu_count()));
      if (not pr.gpu_type.empty()) {
        auto it = std::find(topo.types.begin(), topo.types.end(), pr.gpu_type);
        if (it == topo.types.end()) {
          std::string have;
          for (const auto& [t, n] : per_type)
            have += (have.empty() ? "" : ", ") + std::to_string(n) + " " + t;
          throw InputError(cfg.workload_file, place,
                           "asks for GPUs of type " + quote(pr.gpu_type) + "; the platform has " + have);
        }
        type_of_job[i] = static_cast<int32_t>(it - topo.types.begin());
        if (j.resources > per_type[pr.gpu_type])
          throw InputError(cfg.workload_file, place,
                           "asks for " + std::to_string(j.resources) + " GPUs of type " + quote(pr.gpu_type) +
                               "; the platform has " + std::to_string(per_type[pr.gpu_type]));
      }
      if (pr.replays_traces()) {
        uint64_t ranks = pr.generated              ? pr.generated->ranks()
                         : not pr.megatron.empty() ? pr.megatron_gpus
                                                   : trace_set(j.profile).files.size();
        if (ranks != j.resources)
          throw InputError(cfg.workload_file, place,
                           "its profile " + quote(pr.name) + " has " + std::to_string(ranks) +
                               " ranks (one per GPU) but the job asks for " + std::to_string(j.resources) + " GPUs");
        trace_set(j.profile);
      }
      rec[i].compute_s = pr.compute_s.value_or(pr.iteration_s.value_or(0));
    }
    for (const auto& [id, gpus] : cfg.pinned) {
      size_t j = 0;
      while (j < w.jobs.size() && w.jobs[j].id != id)
        j++;
      if (j == w.jobs.size())
        throw InputError(cfg.options_source, "pinned", "no job " + quote(id) + " in " + cfg.workload_file);
      std::vector<uint32_t> sorted = gpus;
      std::sort(sorted.begin(), sorted.end());
      if (sorted.size() != w.jobs[j].resources || std::adjacent_find(sorted.begin(), sorted.end()) != sorted.end() ||
          (not sorted.empty() && sorted.back() >= topo.gpu_count()))
        throw InputError(cfg.options_source, "pinned",
                         "job " + quote(id) + " asks for " + std::to_string(w.jobs[j].resources) +
                             " GPUs: give as many distinct GPU indexes below " + std::to_string(topo.gpu_count()));
      for (uint32_t g : sorted)
        if (type_of_job[j] >= 0 && topo.type_of[g] != static_cast<uint32_t>(type_of_job[j]))
          throw InputError(cfg.options_source, "pinned",
                           "job " + quote(id) + " must run on GPUs of type " + w.profile_of(w.jobs[j]).gpu_type +
                               "; GPU " + std::to_string(g) + " is a " + topo.types[topo.type_of[g]]);
      sched.pin(static_cast<uint32_t>(j), sorted);
    }
    if (cfg.nccl)
      nccl = collectives::nccl_system(plat);
    for (const auto& g : plat.gpus) {
      auto* h = s4u::Host::by_name_or_null(plat.hosts[g.host].name);
      if (h == nullptr)
        throw RunError("GPU host " + plat.hosts[g.host].name + " is not in the loaded platform");
      gpu_host.push_back(h);
    }
    // P-states: a job's, else its node's, else the cluster's, else the platform's
    auto check_pstate = [&](uint32_t ps, const std::string& file, const std::string& place, s4u::Host* h) {
      if (ps >= h->get_pstate_count())
        throw InputError(file, place,
                         "P-state " + std::to_string(ps) + " of GPU " + h->get_name() + ", which has " +
                             std::to_string(h->get_pstate_count()) + " (0 to " +
                             std::to_string(h->get_pstate_count() - 1) + ")");
    };
    for (const auto& entry : cfg.node_pstates) {
      const std::string& node = entry.first;
      if (std::none_of(plat.nodes.begin(), plat.nodes.end(), [&](const auto& n) { return n.name == node; }))
        throw InputError(cfg.options_source, "node_pstates", "no node " + quote(node) + " in the platform");
    }
    for (size_t g = 0; g < plat.gpus.size(); g++) {
      const auto& node           = plat.nodes[plat.gpus[g].node];
      auto it                    = cfg.node_pstates.find(node.name);
      std::optional<uint32_t> ps = it != cfg.node_pstates.end() ? std::optional<uint32_t>(it->second) : cfg.pstate;
      if (ps) {
        check_pstate(*ps, cfg.options_source, it != cfg.node_pstates.end() ? "node_pstates" : "pstate", gpu_host[g]);
        gpu_host[g]->set_pstate(*ps);
      }
      default_pstate.push_back(gpu_host[g]->get_pstate());
    }
    for (size_t j = 0; j < w.jobs.size(); j++)
      if (auto ps = w.profile_of(w.jobs[j]).pstate)
        for (auto* h : gpu_host)
          check_pstate(*ps, cfg.workload_file, "job " + quote(w.jobs[j].id), h);
  }

  ~Impl()
  {
    if (not generated_dir.empty() && ::getpid() == owner) {
      std::error_code ec;
      std::filesystem::remove_all(generated_dir, ec);
    }
  }
  Impl(const Impl&)            = delete;
  Impl& operator=(const Impl&) = delete;

  bool communicates(size_t j) const { return w.jobs[j].resources > 1 && w.profile_of(w.jobs[j]).gradient_bytes > 0; }
  bool traced(size_t j) const { return w.profile_of(w.jobs[j]).replays_traces(); }

  /** The traces of profile `pi`: its ETs found (InputError naming the workload and the profile when
   *  none), or its iteration generated (bounded as `sgai chakra generate training`). */
  const TraceSet& trace_set(uint32_t pi)
  {
    if (auto it = trace_sets.find(pi); it != trace_sets.end())
      return it->second;
    const auto& pr          = w.profiles[pi];
    const std::string place = "profile " + quote(pr.name);
    TraceSet ts;
    if (not pr.traces.empty()) {
      try {
        ts.files = chakra::workload_files(pr.traces_path.string());
      } catch (const InputError& e) {
        throw InputError(cfg.workload_file, place, "traces " + quote(pr.traces) + ": " + e.message());
      }
      if (not pr.comm_groups.empty())
        ts.groups = replay::read_comm_groups(pr.comm_groups_path);
    } else if (not pr.megatron.empty()) {
      megatron_traces(pi, ts);
    } else {
      const auto& g = *pr.generated;
      chakra::Parallelism par;
      par.data         = g.data;
      par.tensor       = g.tensor;
      par.pipeline     = g.pipeline;
      par.microbatches = g.microbatches;
      par.bucket_bytes = g.bucket_bytes;
      double h = static_cast<double>(g.hidden), sq = static_cast<double>(g.sequence), b = static_cast<double>(g.batch);
      double flops = 24 * b * sq * h * h + 4 * b * sq * sq * h;
      if (flops > kMaxLayerFlops)
        throw InputError(cfg.workload_file, place,
                         "hidden " + std::to_string(g.hidden) + ", sequence " + std::to_string(g.sequence) +
                             " and batch " + std::to_string(g.batch) + " make " + format_number(flops) +
                             " forward FLOPs per layer, above 1e18, the most sgai generates");
      uint64_t nodes = chakra::training_node_bound(g.layers, par);
      if (nodes > kMaxGeneratedNodes)
        throw InputError(cfg.workload_file, place,
                         std::to_string(g.layers) + " layers, " + std::to_string(g.microbatches) + " microbatches on " +
                             std::to_string(g.ranks()) + " ranks make up to " + std::to_string(nodes) +
                             " trace nodes, above 2000000, the most sgai builds in memory");
      auto model = chakra::transformer(g.layers, g.hidden, g.sequence, g.batch, g.bytes_per_element);
      std::vector<chakra::Trace> traces;
      try {
        traces = chakra::training_iteration(model, par);
      } catch (const std::invalid_argument& e) {
        throw InputError(cfg.workload_file, place, e.what());
      }
      ts.files  = chakra::write_workload(generated_folder(), "profile" + std::to_string(pi), traces);
      ts.groups = chakra::training_groups(par);
    }
    return trace_sets.emplace(pi, std::move(ts)).first->second;
  }

  /** A folder for generated traces, removed with the manager. */
  const std::filesystem::path& generated_folder()
  {
    if (generated_dir.empty()) {
      std::string tmpl = (std::filesystem::temp_directory_path() / "sgai-gpu-traces-XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr)
        throw RunError("cannot create a folder for the generated traces in " +
                       std::filesystem::temp_directory_path().string());
      generated_dir = tmpl;
    }
    return generated_dir;
  }

  /** Profile `pi`'s training description as sgai train chakra writes it: its iteration predicted on
   *  the cluster's GPUs (of the profile's type), one trace per rank. */
  void megatron_traces(uint32_t pi, TraceSet& ts)
  {
    const auto& pr          = w.profiles[pi];
    const std::string place = "profile " + quote(pr.name);
    try {
      training::TrainingConfig c = training::make_config(training::read_settings(pr.megatron_path), 0);
      training::PlatformInputs in =
          training::platform_inputs(plat, c.precision, pr.megatron_path.string(), pr.gpu_type);
      for (const auto& st : training::memory_per_stage(c))
        if (st.total_bytes > in.type->memory_bytes)
          throw InputError(pr.megatron_path.string(), "",
                           "stage " + std::to_string(st.stage) + " needs " + format_number(st.total_bytes / 1e9) +
                               " GB per GPU, more than the " + format_number(in.type->memory_bytes / 1e9) +
                               " GB of a " + in.type->name);
      const training::Prediction p = training::predict_iteration(c, in.gpu, in.fabric);
      const std::string prefix     = "profile" + std::to_string(pi);
      for (uint32_t rank = 0; rank < c.gpus(); ++rank) {
        auto path = generated_folder() / (prefix + "." + std::to_string(rank) + ".et");
        chakra::write_trace(path, training::iteration_trace(c, p, rank));
        ts.files.push_back(path);
      }
      ts.groups = training::iteration_groups(c);
    } catch (const InputError& e) {
      throw InputError(cfg.workload_file, place, "megatron " + quote(pr.megatron) + ": " + e.what());
    }
  }

  /** How the manager replays traced jobs: NCCL's collectives when it models them, the bytes each
   *  transfer puts on links counted in `traffic`, no per-collective records. */
  replay::ReplayOptions replay_options(communicator::LinkTraffic* traffic) const
  {
    replay::ReplayOptions o;
    o.nccl             = nccl;
    o.traffic          = traffic;
    o.keep_collectives = false;
    return o;
  }

  /** A traced job's ranks on `gpus` for one iteration named `name`: CPU operators on the first CPU
   *  host of each GPU's node (else the GPU), NCCL's nodes. */
  replay::JobSpec trace_spec(uint32_t j, const std::vector<uint32_t>& gpus, std::string name) const
  {
    const auto& ts = trace_sets.at(w.jobs[j].profile);
    replay::JobSpec spec;
    spec.name   = std::move(name);
    spec.files  = ts.files;
    spec.groups = ts.groups;
    for (uint32_t g : gpus) {
      const auto& node = plat.nodes[plat.gpus[g].node];
      spec.gpus.push_back(gpu_host[g]);
      spec.cpus.push_back(node.cpu_host_count > 0 ? s4u::Host::by_name(plat.hosts[node.first_cpu_host].name)
                                                  : gpu_host[g]);
      spec.nodes.push_back(plat.gpus[g].node);
    }
    return spec;
  }

  /** Every link on a route between two of `gpus` (the links a traced job may use). */
  std::vector<const s4u::Link*> links_between(const std::vector<uint32_t>& gpus) const
  {
    std::vector<const s4u::Link*> out;
    for (uint32_t a : gpus)
      for (uint32_t b : gpus)
        if (a != b) {
          std::vector<s4u::Link*> route;
          gpu_host[a]->route_to(gpu_host[b], route, nullptr);
          out.insert(out.end(), route.begin(), route.end());
        }
    std::sort(out.begin(), out.end());
    out.erase(std::unique(out.begin(), out.end()), out.end());
    return out;
  }

  std::shared_ptr<const Schedule> ring(uint32_t n)
  {
    auto& s = schedules["ring/" + std::to_string(n)];
    if (not s)
      s = std::make_shared<const Schedule>(
          collectives::make_schedule(chakra::CollectiveType::all_reduce, collectives::Algorithm::ring, n));
    return s;
  }

  std::vector<s4u::Host*> hosts_of(const std::vector<uint32_t>& gpus) const
  {
    std::vector<s4u::Host*> h;
    for (uint32_t g : gpus)
      h.push_back(gpu_host[g]);
    return h;
  }

  /** How a job's gradient all-reduce runs on its GPUs: as NCCL would on the platform (its tuning
   *  model's algorithm and protocol: rings over rails, trees, NVLS) when the GPUs name their
   *  architecture, else sgai's ring; what it puts on each path per iteration. */
  struct Collective {
    std::shared_ptr<const Schedule> schedule;
    std::shared_ptr<collectives::nccl::ProtocolCosts> costs;
    CollectiveOptions options;
    std::string algorithm;
    /** Per (sender, receiver) of the schedule: the route and its bytes per iteration. */
    std::vector<std::pair<std::vector<s4u::Link*>, double>> paths;
    double bytes_per_iteration = 0;
  };

  Collective collective_for(const std::vector<uint32_t>& gpus, double bytes)
  {
    Collective c;
    auto hosts = hosts_of(gpus);
    auto n     = static_cast<uint32_t>(gpus.size());
    std::vector<uint32_t> node;
    if (nccl)
      for (uint32_t g : gpus)
        node.push_back(plat.gpus[g].node);
    auto plan = collectives::plan_collective(
        nccl ? &*nccl : nullptr, chakra::CollectiveType::all_reduce, static_cast<uint64_t>(bytes), node, std::nullopt,
        std::nullopt, schedules,
        [&](uint32_t a, uint32_t b) {
          std::vector<s4u::Link*> links;
          double lat = 0;
          hosts[a]->route_to(hosts[b], links, &lat);
          return lat;
        },
        [&](std::string& name) {
          name = "ring";
          return ring(n);
        });
    const uint32_t lanes = plan.lanes;
    c.options            = communicator::options_for(plan);
    c.schedule           = plan.schedule;
    c.costs              = std::move(plan.costs);
    c.algorithm          = plan.algorithm;
    // the bytes each transfer puts on its route per iteration (lane-bound transfers carry one chunk)
    const double wire = c.costs ? c.costs->wire_factor : 1.0;
    std::map<std::pair<uint32_t, uint32_t>, double> per_pair;
    for (const auto& step : c.schedule->steps)
      for (const auto& t : step)
        per_pair[{t.src, t.dst}] += bytes * t.fraction * wire /
                                    (t.lane == collectives::Transfer::kEveryLane ? 1.0 : static_cast<double>(lanes));
    for (const auto& [pair, b] : per_pair) {
      std::vector<s4u::Link*> route;
      hosts[pair.first]->route_to(hosts[pair.second], route, nullptr);
      c.paths.emplace_back(std::move(route), b);
      c.bytes_per_iteration += b;
    }
    return c;
  }

  // --- calibration (calibration.cpp) ---------------------------------------------------------

  /** Each job's time alone (its all-reduce, or one iteration of its traces), measured once per
   *  distinct job shape by run_calibration before the manager starts. */
  void calibrate();
  /** Simulates, in a forked child, each all-reduce of `wanted` and one iteration of each traced job
   *  of `traced_wanted` alone, on the placements pack gives on the empty cluster; an error there
   *  (a bad trace) comes back as it was raised. */
  void run_calibration(const std::vector<CalibrationKey>& wanted, const std::vector<TraceKey>& traced_wanted);
  /** One all-reduce of `bytes` over `hosts`, alone (calibration child). */
  void run_allreduce(const std::vector<uint32_t>& gpus, double bytes);

  // --- running jobs ---------------------------------------------------------------------------

  struct Run {
    Impl* m          = nullptr;
    uint32_t job     = 0;
    uint32_t n       = 0;
    double bytes     = 0; ///< gradient
    double compute_s = 0;
    std::vector<s4u::Host*> hosts;
    std::shared_ptr<const Schedule> schedule;
    double bytes_per_iteration = 0;
    uint64_t first = 0, total = 0, stop_at = 0, started_upto = 0, completed = 0;
    struct Coll {
      std::unique_ptr<CollectiveRun> run;
      uint32_t done = 0;
    };
    std::map<uint64_t, Coll> colls;
    std::map<uint64_t, uint32_t> finished;
    // advancing
    bool exact             = false;
    uint32_t k             = 3;
    uint32_t sim_left      = 3;
    bool fresh             = false;
    double last_completion = 0;
    std::vector<double> durations;
    uint64_t advance_from = kNone;
    bool advance_cancel   = false;
    bool advancing        = false;
    bool ready            = false; ///< measured since the last change, waiting for the jobs sharing its links
    double t_iter = 0, adv_t0 = 0, adv_end = 0;
    uint64_t adv_count        = 0;
    uint32_t at_barrier       = 0;
    s4u::SemaphorePtr barrier = s4u::Semaphore::create(0);
    s4u::SemaphorePtr leader  = s4u::Semaphore::create(0);
    s4u::SemaphorePtr resume  = s4u::Semaphore::create(0);
    uint32_t exited           = 0;
    bool stopping             = false;
    double start_s            = 0;
    std::vector<double> energy0;
    std::vector<const s4u::Link*> links;                     ///< sorted: the links its all-reduce crosses
    std::shared_ptr<collectives::nccl::ProtocolCosts> costs; ///< NCCL's protocol (options.protocol)
    CollectiveOptions options;
    std::vector<std::pair<std::vector<s4u::Link*>, double>> paths; ///< routes and bytes per iteration
    // a job replaying Chakra traces: each iteration a job of its Replay, once all its ranks are there
    bool traced = false;
    std::unique_ptr<communicator::LinkTraffic> traffic; ///< the bytes its iterations put on each link
    std::unique_ptr<replay::Replay> replay;
    std::vector<double> busy; ///< per rank: its compute time in the last iteration replayed
    uint64_t replayed = 0;    ///< iterations replayed in this run
    struct TraceIteration {
      uint32_t arrived       = 0;
      s4u::SemaphorePtr done = s4u::Semaphore::create(0);
    };
    std::map<uint64_t, TraceIteration> trace_iterations;

    void rank(uint32_t r);
    void replay_iteration(uint32_t r, uint64_t i);
    void iteration_done(uint64_t i);
    /** The first of `durations` the estimate uses: the last k of up to 2 k, then the last half.
     *  After a change, the ranks (each computing, then joining the all-reduce) take a few
     *  iterations to settle into their common pace; those first iterations are left out. */
    size_t measure_window() const
    {
      size_t d = durations.size();
      return d >= 4 * size_t{k} ? d / 4 : (d > k ? std::min(d - k, size_t{k}) : 0);
    }
    uint64_t advance(uint32_t r, uint64_t a);
    void change();
    void stop();
    void begin_advance();
  };

  void start_job(uint32_t j, const std::vector<uint32_t>& gpus)
  {
    const auto& job   = w.jobs[j];
    const auto& pr    = w.profile_of(job);
    auto run          = std::make_unique<Run>();
    Run& r            = *run;
    r.m               = this;
    r.job             = j;
    r.n               = job.resources;
    r.bytes           = communicates(j) ? pr.gradient_bytes : 0;
    r.compute_s       = rec[j].compute_s;
    r.hosts           = hosts_of(gpus);
    r.first           = rec[j].iterations;
    r.total           = pr.iterations;
    r.stop_at         = r.total;
    r.started_upto    = r.first;
    r.completed       = r.first;
    r.exact           = cfg.exact;
    r.k               = std::max<uint32_t>(1, cfg.simulated_iterations);
    r.sim_left        = r.k;
    double now        = s4u::Engine::get_clock();
    r.start_s         = now;
    r.last_completion = now + (rec[j].preemptions > 0 ? cfg.restart_s : 0);
    if (traced(j)) {
      r.traced          = true;
      r.traffic         = std::make_unique<communicator::LinkTraffic>();
      r.replay          = std::make_unique<replay::Replay>(replay_options(r.traffic.get()));
      r.links           = links_between(gpus);
      const auto& alone = alone_trace.at({job.profile, job.resources, type_of_job[j]});
      r.busy.assign(alone.begin() + 1, alone.end());
      if (rec[j].algorithm.empty())
        rec[j].algorithm = "trace";
    } else if (r.bytes > 0) {
      auto c                = collective_for(gpus, r.bytes);
      r.schedule            = c.schedule;
      r.costs               = c.costs;
      r.options             = c.options;
      r.bytes_per_iteration = c.bytes_per_iteration;
      for (const auto& [route, b] : c.paths)
        r.links.insert(r.links.end(), route.begin(), route.end());
      r.paths = std::move(c.paths);
      if (rec[j].algorithm.empty())
        rec[j].algorithm = c.algorithm + (c.costs ? "/" + c.costs->name : std::string());
      std::sort(r.links.begin(), r.links.end());
      r.links.erase(std::unique(r.links.begin(), r.links.end()), r.links.end());
    }
    if (pr.pstate)
      for (auto* h : r.hosts)
        h->set_pstate(*pr.pstate);
    for (auto* h : r.hosts)
      r.energy0.push_back(sg_host_get_consumed_energy(h));
    if (rec[j].start_s < 0)
      rec[j].start_s = now;
    rec[j].gpus    = gpus;
    attained_at[j] = now;
    runs[j]        = std::move(run);
    for (uint32_t q = 0; q < r.n; q++)
      s4u::Actor::create(job.id + ":" + std::to_string(q), r.hosts[q], [&r, q]() { r.rank(q); });
  }

  void rank_exited(Run& r)
  {
    if (++r.exited < r.n)
      return;
    uint32_t j = r.job;
    for (size_t q = 0; q < r.hosts.size(); q++)
      rec[j].gpu_energy_j += sg_host_get_consumed_energy(r.hosts[q]) - r.energy0[q];
    if (w.profile_of(w.jobs[j]).pstate)
      for (uint32_t g : rec[j].gpus)
        gpu_host[g]->set_pstate(default_pstate[g]);
    rec[j].run_s += s4u::Engine::get_clock() - r.start_s;
    rec[j].tenures.push_back({r.start_s, s4u::Engine::get_clock(), rec[j].gpus, r.completed < r.total});
    // the bytes its ring put on each link (a ring sends the same on every edge at every iteration);
    // a traced job's iterations each put the same bytes on the same links
    auto iterations = static_cast<double>(r.completed - r.first);
    for (const auto& [route, b] : r.paths)
      for (auto* l : route) {
        link_bytes[l] += b * iterations;
        rec[j].link_energy_j += dynamic_joules_per_byte(l) * b * iterations;
      }
    if (r.traced && r.replayed > 0)
      for (const auto& [l, b] : r.traffic->links()) {
        double bytes = b * iterations / static_cast<double>(r.replayed);
        link_bytes[l] += bytes;
        rec[j].link_energy_j += dynamic_joules_per_byte(l) * bytes;
      }
    if (r.completed < r.total)
      rec[j].preemptions++;
    events.push_back({j, r.completed >= r.total ? EventKind::ended : EventKind::stopped});
    wake->release();
  }

  /** The link_energy plugin's power above idle per byte carried: (busy - idle) / bandwidth, from the
   *  link's wattage_range (0 without one). Its power is idle + (busy - idle) x usage / bandwidth, so
   *  the bytes a job puts on the link cost it this much each. */
  std::map<const s4u::Link*, double> joules_per_byte;
  double dynamic_joules_per_byte(const s4u::Link* l)
  {
    auto [it, fresh] = joules_per_byte.emplace(l, 0.0);
    if (fresh) {
      const char* range = l->get_property("wattage_range");
      double idle = 0, busy = 0;
      if (range != nullptr && std::sscanf(range, "%lf:%lf", &idle, &busy) == 2 && l->get_bandwidth() > 0)
        it->second = (busy - idle) / l->get_bandwidth();
    }
    return it->second;
  }

  /** `j` and the running jobs whose all-reduces share a link with its, and theirs, and so on. */
  std::vector<uint32_t> component(uint32_t j) const
  {
    std::vector<uint32_t> out = {j};
    const Run* from           = runs[j].get();
    if (from == nullptr || from->links.empty())
      return out;
    std::vector<bool> seen(runs.size(), false);
    seen[j] = true;
    for (size_t next = 0; next < out.size(); next++) {
      const Run* x = runs[out[next]].get();
      for (size_t o = 0; o < runs.size(); o++) {
        const Run* y = runs[o].get();
        if (seen[o] || y == nullptr || y->links.empty())
          continue;
        std::vector<const s4u::Link*> common;
        std::set_intersection(x->links.begin(), x->links.end(), y->links.begin(), y->links.end(),
                              std::back_inserter(common));
        if (common.empty())
          continue;
        seen[o] = true;
        out.push_back(static_cast<uint32_t>(o));
      }
    }
    return out;
  }

  /** A change of the traffic on `j`'s links (it started, ended or stopped): the jobs sharing them
   *  measure their iterations again. */
  void notify_change(uint32_t j)
  {
    for (uint32_t o : component(j))
      if (o != j && runs[o]) // (a change may yield, and the manager may retire a job meanwhile)
        runs[o]->change();
  }

  /** `j` has measured its iterations since the last change: when every job sharing links with it
   *  has too, they all advance (each from its next iteration), so that none measures while another
   *  one's traffic is missing. */
  void try_advance(uint32_t j)
  {
    auto group = component(j);
    for (uint32_t o : group)
      if (not runs[o]->ready && not runs[o]->advancing && runs[o]->advance_from == kNone)
        return;
    for (uint32_t o : group)
      runs[o]->begin_advance();
  }

  /** After the run: a traced job's replay error (a bad trace, a deadlock in one), first those an
   *  actor raised; else jobs left unfinished. */
  void collect_errors()
  {
    for (bool raised : {true, false})
      for (const auto* list : {&runs, &finished_runs})
        for (const auto& r : *list)
          if (error.empty() && r && r->replay && (r->replay->failed() || not raised))
            try {
              r->replay->check();
            } catch (const std::exception& e) {
              error = "job " + w.jobs[r->job].id + ": " + e.what();
            }
    if (error.empty() && done_count < w.jobs.size())
      error = std::to_string(w.jobs.size() - done_count) + " of the " + std::to_string(w.jobs.size()) +
              " jobs did not finish: the simulation ended with them waiting";
  }

  // --- the manager's actor --------------------------------------------------------------------

  void update_attained(double now)
  {
    for (size_t j = 0; j < runs.size(); j++)
      if (runs[j]) {
        attained[j] += w.jobs[j].resources * (now - attained_at[j]);
        attained_at[j] = now;
        sched.set_attained(static_cast<uint32_t>(j), attained[j], now);
      }
  }

  void manage()
  {
    size_t next = 0; // next job to submit (jobs are in submission order)
    while (done_count < w.jobs.size()) {
      double now   = s4u::Engine::get_clock();
      double until = next < w.jobs.size() ? w.jobs[next].submit_s : std::numeric_limits<double>::infinity();
      until        = std::min(until, sched.next_demotion(now));
      if (events.empty() && until > now) {
        if (std::isinf(until))
          wake->acquire();
        else
          wake->acquire_timeout(until - now);
      }
      now = s4u::Engine::get_clock();
      update_attained(now);
      std::vector<uint32_t> changed;
      while (not events.empty()) {
        Event e = events.front();
        events.pop_front();
        changed.push_back(e.job);
        notify_change(e.job); // the links it leaves
        finished_runs.push_back(std::move(runs[e.job]));
        if (e.kind == EventKind::ended) {
          rec[e.job].done  = true;
          rec[e.job].end_s = now;
          sched.finished(e.job);
          done_count++;
        } else
          sched.stopped(e.job);
      }
      while (next < w.jobs.size() && w.jobs[next].submit_s <= now) {
        auto j = static_cast<uint32_t>(next++);
        sched.submit(j, w.jobs[j].resources, w.jobs[j].submit_s,
                     static_cast<double>(w.profile_of(w.jobs[j]).iterations) * rec[j].alone_iteration_s,
                     type_of_job[j]);
      }
      auto d = sched.step(now);
      for (uint32_t j : d.preempt)
        if (runs[j])
          runs[j]->stop();
      for (const auto& s : d.starts) {
        start_job(s.job, s.gpus);
        notify_change(s.job);
      }
    }
  }
};

} // namespace sgai::gpu_cluster

#endif
