#include "plugins/whatif/sim_run.hpp"

#include "generators/util/error.hpp"
#include "generators/util/files.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>
#include <xbt/log.h>

#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <memory>

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
  int64_t origin = 0;
  size_t done    = 0;
  size_t live    = 0;
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
      s4u::this_actor::sleep_until(r.ready[u]);
    double start = s4u::Engine::get_clock();
    if (on_gpu(t.kind) && t.dur_ns > 0) {
      s4u::Host* gpu = r.gpu_host[size_t(std::max(0, t.rank))];
      s4u::ExecPtr e = s4u::Exec::init()->set_flops_amount(double(t.dur_ns) * 1e-9 * kGpuSpeed)->set_host(gpu);
      e->start();
      e->wait();
    } else if (t.dur_ns > 0) {
      s4u::this_actor::sleep_for(double(t.dur_ns) * 1e-9);
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
      s4u::this_actor::sleep_for(double(t.gap_ns) * 1e-9);
  }
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
    // the walk gives each thread's order (a topological order with the same timing)
    WalkResult w = walk(g);
    r->origin    = w.origin;
    size_t n     = g.tasks.size();
    r->result.walk.start.assign(n, 0);
    r->result.walk.end.assign(n, 0);
    r->result.walk.arrival.assign(n, 0);
    r->result.walk.binding.assign(n, kNone);
    r->result.walk.origin = w.origin;
    r->refs.assign(n, 0);
    r->ready.assign(n, 0);
    r->order.assign(g.threads.size() + 1, {});
    std::vector<uint32_t> ids;
    for (uint32_t i = 0; i < n; ++i) {
      if (g.tasks[i].removed)
        continue;
      ids.push_back(i);
      for (uint32_t e : g.in[i])
        if (not g.edges[e].removed && not g.tasks[g.edges[e].from].removed)
          r->refs[i]++;
      if (r->refs[i] == 0)
        r->ready[i] = double(std::max(g.tasks[i].start_ns, w.origin) - w.origin) * 1e-9;
    }
    std::sort(ids.begin(), ids.end(),
              [&w](uint32_t a, uint32_t b) { return w.start[a] != w.start[b] ? w.start[a] < w.start[b] : a < b; });
    for (uint32_t i : ids) {
      uint32_t th = g.tasks[i].thread;
      r->order[th == kNone ? g.threads.size() : th].push_back(i);
    }
    r->live  = ids.size();
    r->mutex = s4u::Mutex::create();
    for (size_t t = 0; t <= g.threads.size(); ++t)
      r->cv.push_back(s4u::ConditionVariable::create());
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
  for (auto& rp : runs) {
    Run* r = rp.get();
    for (size_t t = 0; t < r->order.size(); ++t) {
      if (r->order[t].empty())
        continue;
      bool gpu_side   = t < r->g->threads.size() && r->g->threads[t].kind != ThreadKind::cpu;
      int rank        = t < r->g->threads.size() ? std::max(0, r->g->threads[t].rank) : 0;
      s4u::Host* host = gpu_side ? r->gpu_host[size_t(rank)] : r->cpu_host[size_t(rank)];
      s4u::Actor::create("thread" + std::to_string(t), host, [r, t]() { run_thread(*r, t); });
    }
  }
  engine.run();
  std::vector<SimResult> out;
  for (auto& r : runs) {
    if (r->done != r->live)
      throw RunError("the what-if graph deadlocked on SimGrid: " + std::to_string(r->live - r->done) +
                     " tasks never ran");
    int64_t finish = INT64_MIN;
    for (uint32_t i = 0; i < r->g->tasks.size(); ++i)
      if (not r->g->tasks[i].removed && r->result.walk.end[i] > finish) {
        finish              = r->result.walk.end[i];
        r->result.walk.last = i;
      }
    r->result.walk.finish = finish;
    for (s4u::Host* h : r->gpu_host)
      r->result.gpu_energy_j += sg_host_get_consumed_energy(h);
    out.push_back(std::move(r->result));
  }
  return out;
}

SimResult run_on_simgrid_forked(const Graph& graph)
{
  int fds[2];
  if (pipe(fds) != 0)
    throw RunError("cannot create a pipe for the SimGrid run");
  pid_t pid = fork();
  if (pid < 0)
    throw RunError("cannot fork for the SimGrid run");
  if (pid == 0) {
    close(fds[0]);
    int status = 0;
    try {
      auto results  = run_on_simgrid({&graph});
      const auto& w = results.front().walk;
      uint64_t n    = w.start.size();
      double energy = results.front().gpu_energy_j;
      bool ok       = write_fd(fds[1], &n, sizeof n) && write_fd(fds[1], w.start.data(), n * sizeof(int64_t)) &&
                write_fd(fds[1], w.end.data(), n * sizeof(int64_t)) && write_fd(fds[1], &energy, sizeof energy) &&
                write_fd(fds[1], &w.finish, sizeof w.finish) && write_fd(fds[1], &w.last, sizeof w.last) &&
                write_fd(fds[1], &w.origin, sizeof w.origin) && write_fd(fds[1], w.arrival.data(), n * sizeof(int64_t));
      status = ok ? 0 : 3;
    } catch (const std::exception& e) {
      std::string m = e.what();
      uint64_t bad  = UINT64_MAX;
      write_fd(fds[1], &bad, sizeof bad);
      uint64_t len = m.size();
      write_fd(fds[1], &len, sizeof len);
      write_fd(fds[1], m.data(), m.size());
      status = 2;
    }
    close(fds[1]);
    _exit(status);
  }
  close(fds[1]);
  SimResult r;
  uint64_t n = 0;
  bool ok    = read_fd(fds[0], &n, sizeof n);
  std::string error;
  if (ok && n == UINT64_MAX) {
    uint64_t len = 0;
    if (read_fd(fds[0], &len, sizeof len) && len < (1u << 20)) {
      error.resize(len);
      read_fd(fds[0], error.data(), len);
    }
    ok = false;
  } else if (ok) {
    r.walk.start.resize(n);
    r.walk.end.resize(n);
    ok = read_fd(fds[0], r.walk.start.data(), n * sizeof(int64_t)) &&
         read_fd(fds[0], r.walk.end.data(), n * sizeof(int64_t)) &&
         read_fd(fds[0], &r.gpu_energy_j, sizeof r.gpu_energy_j) &&
         read_fd(fds[0], &r.walk.finish, sizeof r.walk.finish) && read_fd(fds[0], &r.walk.last, sizeof r.walk.last) &&
         read_fd(fds[0], &r.walk.origin, sizeof r.walk.origin) &&
         (r.walk.arrival.resize(n), read_fd(fds[0], r.walk.arrival.data(), n * sizeof(int64_t)));
  }
  close(fds[0]);
  int status = 0;
  waitpid(pid, &status, 0);
  if (not ok || not WIFEXITED(status) || WEXITSTATUS(status) != 0)
    throw RunError(error.empty() ? "the SimGrid run of the what-if graph failed" : error);
  r.walk.binding.assign(n, kNone);
  return r;
}

} // namespace sgai::whatif_sim
