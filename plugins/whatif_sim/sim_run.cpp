#include "plugins/whatif_sim/sim_run.hpp"

#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/child.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "plugins/communicator/communicator.hpp"
#include "plugins/communicator/network.hpp"
#include "plugins/sim/clock.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>
#include <optional>

XBT_LOG_NEW_DEFAULT_CATEGORY(sgai_whatif, "sgai what-if graph on SimGrid");

namespace sgai::whatif_sim {

using namespace sgai::whatif;
namespace s4u = simgrid::s4u;

namespace {

constexpr double kGpuSpeed = 1e9; // flop/s: one flop per nanosecond of recorded duration

struct Run {
  const Graph* g = nullptr;
  SimResult result;
  std::vector<uint32_t> refs;
  std::vector<double> ready;                ///< seconds from the origin
  std::vector<std::vector<uint32_t>> order; ///< per thread (and one more for thread-less tasks)
  std::vector<s4u::ConditionVariablePtr> cv;
  s4u::MutexPtr mutex;
  std::vector<s4u::Host*> gpu_host; ///< per rank
  std::vector<s4u::Host*> cpu_host;
  int64_t origin           = 0;
  size_t done              = 0;
  size_t live              = 0;
  struct Collectives* coll = nullptr; ///< set: communication tasks run over the network
  uint32_t replica         = 0;       ///< this copy's rank in the collectives
  bool kernels_only        = false;   ///< copies and sets as time, not executions on the GPU
};

/** The collectives of copies of one graph: the k-th communication task of every copy is one
 *  collective over the copies' GPUs, created by the first copy that reaches it. */
struct Collectives {
  std::vector<s4u::Host*> hosts;
  std::vector<uint32_t> nodes;
  std::optional<collectives::nccl::System> system;
  communicator::UnsharedPaths paths;
  collectives::ScheduleCache cache;
  struct Entry {
    std::unique_ptr<communicator::CollectiveRun> run;
    std::unique_ptr<collectives::nccl::ProtocolCosts> costs;
  };
  std::map<uint32_t, std::unique_ptr<Entry>> runs;
  uint64_t started = 0;

  static std::optional<chakra::CollectiveType> type_of(const std::string& t)
  {
    if (t == "allreduce")
      return chakra::CollectiveType::all_reduce;
    if (t == "allgather" || t == "all_gather" || t == "_allgather_base")
      return chakra::CollectiveType::all_gather;
    if (t == "reduce_scatter" || t == "reducescatter" || t == "_reduce_scatter_base")
      return chakra::CollectiveType::reduce_scatter;
    if (t == "broadcast")
      return chakra::CollectiveType::broadcast;
    return std::nullopt;
  }

  /** The collective of task `u`, or null when it does not run over the network (no size, a type the
   *  network does not run). */
  communicator::CollectiveRun* get(const Graph& g, uint32_t u)
  {
    auto it = runs.find(u);
    if (it != runs.end())
      return it->second->run.get();
    const Task& t = g.tasks[u];
    if (t.collective < 0 || t.bytes == 0)
      return nullptr;
    auto type = type_of(g.collectives[size_t(t.collective)].type);
    if (not type)
      return nullptr;
    auto e    = std::make_unique<Entry>();
    auto plan = collectives::plan_collective(
        system ? &*system : nullptr, *type, t.bytes, nodes, std::nullopt, std::nullopt, cache,
        [this](uint32_t a, uint32_t b) { return paths.latency(hosts[a], hosts[b]); },
        [&](std::string&) {
          return std::make_shared<const collectives::Schedule>(
              collectives::make_schedule(*type, collectives::Algorithm::ring, uint32_t(hosts.size())));
        });
    auto schedule = plan.schedule;
    auto co       = communicator::options_for(plan);
    e->costs      = std::move(plan.costs);
    e->run        = std::make_unique<communicator::CollectiveRun>(schedule, hosts, double(t.bytes), co);
    ++started;
    return runs.emplace(u, std::move(e)).first->second->run.get();
  }
};

void run_thread(Run& r, size_t thread)
{
  const Graph& g = *r.g;
  for (uint32_t u : r.order[thread]) {
    double arrival = s4u::Engine::get_clock();
    {
      std::unique_lock<s4u::Mutex> lock(*r.mutex);
      while (r.refs[u] > 0)
        r.cv[thread]->wait(lock);
    }
    const Task& t = g.tasks[u];
    double now    = s4u::Engine::get_clock();
    if (r.ready[u] > now)
      sim::sleep_until(r.ready[u]);
    double start                              = s4u::Engine::get_clock();
    communicator::CollectiveRun* over_network = t.kind == TaskKind::comm && r.coll ? r.coll->get(g, u) : nullptr;
    if (over_network) {
      over_network->run_rank(r.replica);
    } else if (r.kernels_only && t.kind != TaskKind::kernel && t.dur_ns > 0) {
      sim::sleep_for(double(t.dur_ns) * 1e-9);
    } else if (on_gpu(t.kind) && t.dur_ns > 0) {
      s4u::Host* gpu = r.gpu_host[size_t(std::max(0, t.rank))];
      s4u::ExecPtr e = s4u::Exec::init()->set_flops_amount(double(t.dur_ns) * 1e-9 * gpu->get_speed())->set_host(gpu);
      e->start();
      e->wait();
    } else if (t.dur_ns > 0) {
      sim::sleep_for(double(t.dur_ns) * 1e-9);
    }
    double end               = s4u::Engine::get_clock();
    r.result.walk.start[u]   = r.origin + int64_t(std::llround(start * 1e9));
    r.result.walk.end[u]     = r.origin + int64_t(std::llround(end * 1e9));
    r.result.walk.arrival[u] = r.origin + int64_t(std::llround(std::min(arrival, start) * 1e9));
    ++r.done;
    {
      std::unique_lock<s4u::Mutex> lock(*r.mutex);
      for (uint32_t e : g.out[u]) {
        const Edge& x = g.edges[e];
        if (x.removed || g.tasks[x.to].removed)
          continue;
        r.ready[x.to] = std::max(r.ready[x.to], end + double(x.lag_ns) * 1e-9);
        if (--r.refs[x.to] == 0) {
          uint32_t th = g.tasks[x.to].thread;
          r.cv[th == kNone ? r.order.size() - 1 : th]->notify_all();
        }
      }
    }
    if (t.gap_ns > 0 && t.thread != kNone)
      sim::sleep_for(double(t.gap_ns) * 1e-9);
  }
}

/** The run's state for its graph; `w` (the graph's walk) gives each thread's order: a topological
 *  order with the same timing. */
void prepare(Run& r, const WalkResult& w)
{
  const Graph& g = *r.g;
  r.origin       = w.origin;
  size_t n       = g.tasks.size();
  r.result.walk.start.assign(n, 0);
  r.result.walk.end.assign(n, 0);
  r.result.walk.arrival.assign(n, 0);
  r.result.walk.binding.assign(n, kNone);
  r.result.walk.origin = w.origin;
  r.refs.assign(n, 0);
  r.ready.assign(n, 0);
  r.order.assign(g.threads.size() + 1, {});
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.tasks[i].removed)
      continue;
    ids.push_back(i);
    for (uint32_t e : g.in[i])
      if (not g.edges[e].removed && not g.tasks[g.edges[e].from].removed)
        r.refs[i]++;
    if (r.refs[i] == 0)
      r.ready[i] = double(std::max(g.tasks[i].start_ns, w.origin) - w.origin) * 1e-9;
  }
  std::sort(ids.begin(), ids.end(),
            [&w](uint32_t a, uint32_t b) { return w.start[a] != w.start[b] ? w.start[a] < w.start[b] : a < b; });
  for (uint32_t i : ids) {
    uint32_t th = g.tasks[i].thread;
    r.order[th == kNone ? g.threads.size() : th].push_back(i);
  }
  r.live  = ids.size();
  r.mutex = s4u::Mutex::create();
  r.cv.clear();
  for (size_t t = 0; t <= g.threads.size(); ++t)
    r.cv.push_back(s4u::ConditionVariable::create());
}

/** One actor per thread of the run that has tasks. */
void start_actors(Run* r)
{
  for (size_t t = 0; t < r->order.size(); ++t) {
    if (r->order[t].empty())
      continue;
    bool gpu_side   = t < r->g->threads.size() && r->g->threads[t].kind != ThreadKind::cpu;
    int rank        = t < r->g->threads.size() ? std::max(0, r->g->threads[t].rank) : 0;
    s4u::Host* host = gpu_side ? r->gpu_host[size_t(rank)] : r->cpu_host[size_t(rank)];
    s4u::Actor::create("thread" + std::to_string(t), host, [r, t]() { run_thread(*r, t); });
  }
}

/** The finish and last task of a run, after it; RunError when it did not complete. */
void conclude(Run& r)
{
  if (r.done != r.live)
    throw RunError("the what-if graph deadlocked on SimGrid: " + std::to_string(r.live - r.done) + " tasks never ran");
  int64_t finish = INT64_MIN;
  for (uint32_t i = 0; i < r.g->tasks.size(); ++i)
    if (not r.g->tasks[i].removed && r.result.walk.end[i] > finish) {
      finish             = r.result.walk.end[i];
      r.result.walk.last = i;
    }
  r.result.walk.finish = finish;
}

void write_walk(std::string& buf, const WalkResult& w)
{
  uint64_t n = w.start.size();
  append_bytes(buf, &n, sizeof n);
  append_bytes(buf, w.start.data(), n * sizeof(int64_t));
  append_bytes(buf, w.end.data(), n * sizeof(int64_t));
  append_bytes(buf, w.arrival.data(), n * sizeof(int64_t));
  append_bytes(buf, &w.origin, sizeof w.origin);
  append_bytes(buf, &w.finish, sizeof w.finish);
  append_bytes(buf, &w.last, sizeof w.last);
}

bool read_walk(ByteReader& in, WalkResult& w)
{
  uint64_t n = 0;
  if (not in.read(&n, sizeof n) || n > (uint64_t(1) << 32))
    return false;
  w.start.resize(n);
  w.end.resize(n);
  w.arrival.resize(n);
  w.binding.assign(n, kNone);
  return in.read(w.start.data(), n * sizeof(int64_t)) && in.read(w.end.data(), n * sizeof(int64_t)) &&
         in.read(w.arrival.data(), n * sizeof(int64_t)) && in.read(&w.origin, sizeof w.origin) &&
         in.read(&w.finish, sizeof w.finish) && in.read(&w.last, sizeof w.last);
}

/** Runs `produce` in a forked child: what it appends to its buffer comes back and is read by `read`
 *  in the parent. An exception in the child comes back as a RunError with its message. */
template <typename Produce, typename Read>
void in_child(Produce produce, Read read)
{
  ChildOptions options;
  options.what  = "the SimGrid run";
  ChildResult r = run_in_child(
      [&produce]() {
        std::string buf;
        produce(buf);
        return buf;
      },
      options);
  if (r.threw())
    throw RunError(r.error_what());
  ByteReader in(r.data);
  if (not r.exited_ok() || not read(in))
    throw RunError("the SimGrid run of the what-if graph failed");
}

} // namespace

std::vector<SimResult> run_on_simgrid(const std::vector<const Graph*>& graphs)
{
  int argc     = 1;
  char name[]  = "sgai-whatif";
  char* argv[] = {name, nullptr};
  xbt_log_control_set("root.thresh:warning");
  xbt_log_control_set("xbt_cfg.thres:warning");
  s4u::Engine engine(&argc, argv);
  sg_host_energy_plugin_init();
  auto* zone = s4u::create_full_zone("whatif");

  std::vector<std::unique_ptr<Run>> runs;
  for (size_t gi = 0; gi < graphs.size(); ++gi) {
    auto r         = std::make_unique<Run>();
    r->g           = graphs[gi];
    const Graph& g = *r->g;
    prepare(*r, walk(g));
    int ranks = 1;
    for (const ExecThread& t : g.threads)
      ranks = std::max(ranks, t.rank + 1);
    std::vector<int> streams(size_t(ranks), 0);
    for (const ExecThread& t : g.threads)
      if (t.kind != ThreadKind::cpu)
        streams[size_t(t.rank)]++;
    // idle : one core busy : all cores busy: the busy power whenever any stream runs
    std::string busy  = std::to_string(g.power.busy_w);
    std::string watts = std::to_string(g.power.idle_w) + ":" + busy + ":" + busy;
    for (int k = 0; k < ranks; ++k) {
      std::string prefix = "g" + std::to_string(gi) + "r" + std::to_string(k);
      s4u::Host* gpu     = zone->create_host(prefix + "-gpu", kGpuSpeed);
      gpu->set_core_count(std::max(1, streams[size_t(k)]));
      gpu->set_property("wattage_per_state", watts);
      gpu->seal();
      s4u::Host* cpu = zone->create_host(prefix + "-cpu", 1e9);
      cpu->set_property("wattage_per_state", "0:0:0"); // the CPU's energy is not modelled
      cpu->seal();
      r->gpu_host.push_back(gpu);
      r->cpu_host.push_back(cpu);
    }
    runs.push_back(std::move(r));
  }
  zone->seal();
  for (auto& rp : runs)
    start_actors(rp.get());
  engine.run();
  std::vector<SimResult> out;
  for (auto& r : runs) {
    conclude(*r);
    for (s4u::Host* h : r->gpu_host)
      r->result.gpu_energy_j += sg_host_get_consumed_energy(h);
    out.push_back(std::move(r->result));
  }
  return out;
}

SimResult run_on_simgrid_forked(const Graph& graph)
{
  SimResult r;
  in_child(
      [&graph](std::string& buf) {
        auto results = run_on_simgrid({&graph});
        write_walk(buf, results.front().walk);
        append_bytes(buf, &results.front().gpu_energy_j, sizeof(double));
      },
      [&r](ByteReader& in) { return read_walk(in, r.walk) && in.read(&r.gpu_energy_j, sizeof(double)); });
  return r;
}

PlatformResult run_on_platform(const Graph& g, const PlatformOptions& o)
{
  for (const ExecThread& t : g.threads)
    if (t.rank > 0)
      throw InputError(o.platform.string(), "--platform",
                       "the graph holds several ranks: a platform runs one rank's trace as --ranks copies");
  if (o.ranks < 1)
    throw InputError(o.platform.string(), "--ranks", "at least one rank");
  sim::SimulationOptions so;
  so.simgrid_args = o.simgrid_args;
  so.link_energy  = false;
  xbt_log_control_set("xbt_cfg.thres:warning");
  sim::Simulation simulation(so);
  auto platform = simulation.load_platform(o.platform);
  if (not platform || platform->gpus.empty())
    throw InputError(o.platform.string(), "", "no GPU in the platform's hierarchy (an sgai JSON platform with GPUs)");
  if (o.ranks > platform->gpus.size())
    throw InputError(o.platform.string(), "--ranks",
                     std::to_string(o.ranks) + " ranks but the platform has " + std::to_string(platform->gpus.size()) +
                         " GPUs");
  Collectives coll;
  std::vector<s4u::Host*> cpus;
  for (uint32_t k = 0; k < o.ranks; ++k) {
    const auto& gd = platform->gpus[k];
    coll.hosts.push_back(s4u::Host::by_name(platform->hosts[gd.host].name));
    const auto& node = platform->nodes[gd.node];
    cpus.push_back(node.cpu_host_count > 0 ? s4u::Host::by_name(platform->hosts[node.first_cpu_host].name)
                                           : coll.hosts.back());
    coll.nodes.push_back(gd.node);
  }
  if (o.nccl)
    coll.system = collectives::nccl_system(*platform);
  WalkResult w = walk(g);
  std::vector<std::unique_ptr<Run>> runs;
  for (uint32_t k = 0; k < o.ranks; ++k) {
    auto r = std::make_unique<Run>();
    r->g   = &g;
    prepare(*r, w);
    r->gpu_host     = {coll.hosts[k]};
    r->cpu_host     = {cpus[k]};
    r->coll         = &coll;
    r->replica      = k;
    r->kernels_only = true;
    runs.push_back(std::move(r));
  }
  for (auto& r : runs)
    start_actors(r.get());
  simulation.run();
  PlatformResult out;
  for (auto& r : runs) {
    conclude(*r);
    out.ranks.push_back(std::move(r->result.walk));
  }
  for (s4u::Host* h : coll.hosts)
    out.gpu_energy_j += sg_host_get_consumed_energy(h);
  out.collectives = coll.started;
  return out;
}

PlatformResult run_on_platform_forked(const Graph& graph, const PlatformOptions& options)
{
  PlatformResult r;
  in_child(
      [&](std::string& buf) {
        PlatformResult p = run_on_platform(graph, options);
        uint64_t n       = p.ranks.size();
        append_bytes(buf, &n, sizeof n);
        for (const WalkResult& w : p.ranks)
          write_walk(buf, w);
        append_bytes(buf, &p.gpu_energy_j, sizeof(double));
        append_bytes(buf, &p.collectives, sizeof(uint64_t));
      },
      [&r](ByteReader& in) {
        uint64_t n = 0;
        if (not in.read(&n, sizeof n) || n > 1'000'000)
          return false;
        r.ranks.resize(n);
        for (WalkResult& w : r.ranks)
          if (not read_walk(in, w))
            return false;
        return in.read(&r.gpu_energy_j, sizeof(double)) && in.read(&r.collectives, sizeof(uint64_t));
      });
  return r;
}

} // namespace sgai::whatif_sim
