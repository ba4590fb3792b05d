#include "plugins/rl_server/server.hpp"

#include "core/foundation/child.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/rl/protocol.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <limits>
#include <sys/wait.h>
#include <unistd.h>

namespace sgai::rl_server {

namespace {

using rl::protocol::Kind;
using rl::protocol::Message;

/** The q-quantile (numpy's linear interpolation) of `v`, whose order it changes; O(n), no sort. */
double quantile(std::vector<double>& v, double q)
{
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo    = static_cast<size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size() || pos == std::floor(pos))
    return a;
  double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * (pos - std::floor(pos));
}

struct Server {
  int in = -1, out = -1;
  rl::EnvironmentOptions o;
  std::unique_ptr<sim::Simulation> sim;
  std::optional<platform::Platform> plat;
  workload::Workload w;
  scheduling::Resources res;
  size_t obs_size = 0;
  /** The queue's upper limits (HDeepRM's job_limits, else the workload's largest requests):
   *  requested time, cores, memory, memory bandwidth. */
  double limit[4]   = {0, 0, 0, 0};
  size_t last_queue = 0;

  void load()
  {
    xbt_log_control_set("xbt_cfg.thres:warning"); // the server's own settings are not news to the user
    w = workload::read_workload(o.workload);
    sim::SimulationOptions so;
    so.simgrid_args = {"--cfg=contexts/stack-size:256"};
    if (batch::WorkloadManager::needs_ptask_model(w))
      so.simgrid_args.emplace_back("--cfg=host/model:ptask_L07");
    so.simgrid_args.insert(so.simgrid_args.end(), o.simgrid_args.begin(), o.simgrid_args.end());
    sim  = std::make_unique<sim::Simulation>(so);
    plat = sim->load_platform(o.platform);
    if (o.max_resources == 0)
      if (auto made_for = workload::resources_made_for(w))
        o.max_resources = static_cast<uint32_t>(*made_for);
    res = plat ? batch::resources_from_platform(*plat, o.max_resources) : batch::resources_from_engine(o.max_resources);
    if (res.cores.empty())
      throw InputError(o.platform.string(), "", "no host here can run jobs: the environment has no core to use");
    obs_size = 21;
    if (o.observation != rl::ObservationKind::minimal)
      obs_size += res.nodes.size() + res.processors.size();
    if (o.observation == rl::ObservationKind::normal)
      obs_size += 3 * res.cores.size();
    // the queue's limits: HDeepRM's job_limits, else the largest request of the workload
    for (const auto& j : w.jobs) {
      const auto& pr = w.profile_of(j);
      if (auto t = workload::requested_time(w, j))
        limit[0] = std::max(limit[0], *t);
      limit[1] = std::max(limit[1], static_cast<double>(j.resources));
      limit[2] = std::max(limit[2], pr.mem_mb.value_or(0));
      limit[3] = std::max(limit[3], pr.mem_bw_gbps.value_or(0));
    }
    if (not w.job_limits_json.empty()) {
      auto doc            = json::parse(w.job_limits_json, w.source + " (job_limits)");
      auto lo             = doc.object();
      const char* keys[4] = {"max_time", "max_core", "max_mem", "max_mem_bw"};
      lo.optional("reference_machine"); // (HDeepRM's: the speed requested times were made at)
      for (int k = 0; k < 4; k++)
        if (auto v = lo.optional(keys[k]))
          limit[k] = v->non_negative(); // (0: the workload asks for none: the statistics read 0)
      lo.finish({"max_time", "max_core", "max_mem", "max_mem_bw", "reference_machine"});
    }
  }

  std::vector<double> observe(const batch::DecisionPoint& p)
  {
    std::vector<double> obs;
    obs.reserve(obs_size);
    const auto& cl = *p.cluster;
    if (o.observation != rl::ObservationKind::minimal) {
      for (size_t n = 0; n < res.nodes.size(); n++) {
        const auto& node = res.nodes[n];
        obs.push_back(std::isfinite(node.memory_mb) && node.memory_mb > 0
                          ? std::clamp(cl.node_free_memory_mb(static_cast<uint32_t>(n)) / node.memory_mb, 0.0, 1.0)
                          : 1.0);
      }
      for (size_t q = 0; q < res.processors.size(); q++) {
        const auto& pr = res.processors[q];
        obs.push_back(std::isfinite(pr.mem_bw_gbps) && pr.mem_bw_gbps > 0
                          ? std::clamp(cl.processor_free_bw_gbps(static_cast<uint32_t>(q)) / pr.mem_bw_gbps, 0.0, 1.0)
                          : 1.0);
      }
    }
    if (o.observation == rl::ObservationKind::normal) {
      for (size_t c = 0; c < res.cores.size(); c++) {
        auto core = static_cast<uint32_t>(c);
        if (cl.is_free(core) || cl.owner(core) >= p.jobs->size()) {
          obs.insert(obs.end(), {0.0, 0.0, 0.0});
          continue;
        }
        const auto& pr  = res.processors[res.cores[c].processor];
        auto* host      = (*p.hosts)[res.cores[c].host];
        double per_host = std::max(1, host->get_core_count());
        double flops    = pr.flops_per_core > 0 ? host->get_speed() / pr.flops_per_core : 0;
        double max_w    = sg_host_get_wattmax_at(host, 0) / per_host;
        double watts    = max_w > 0 ? sg_host_get_current_consumption(host) / per_host / max_w : 0;
        uint32_t job    = cl.owner(core);
        auto req        = workload::requested_time(w, w.jobs[job]);
        double left     = 0;
        if (req && *req > 0)
          left = 1 - (p.now - (*p.jobs)[job].start_s) / *req;
        obs.insert(obs.end(), {std::clamp(flops, 0.0, 1.0), std::clamp(watts, 0.0, 1.0), std::clamp(left, 0.0, 1.0)});
      }
    }
    // the queue's requests: min, Q1, median, Q3, max of each, over its limit
    auto queue = p.scheduler->queue();
    std::vector<double> v(queue.size());
    for (int k = 0; k < 4; k++) {
      for (size_t i = 0; i < queue.size(); i++) {
        const auto& q = queue[i];
        double x      = k == 0   ? (std::isfinite(q.requested_time_s) ? q.requested_time_s : 0)
                        : k == 1 ? q.demand.cores
                        : k == 2 ? q.demand.mem_mb
                                 : q.demand.mem_bw_gbps;
        v[i]          = x;
      }
      for (double qq : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        double x = v.empty() ? 0 : quantile(v, qq);
        obs.push_back(limit[k] > 0 ? std::clamp(x / limit[k], 0.0, 1.0) : 0.0);
      }
    }
    // the queue size's variation since the last observation, at the queue sensitivity
    size_t now = queue.size();
    double ratio;
    if (last_queue == 0)
      ratio = now > 0 ? 1.0 : 0.5;
    else if (now == 0)
      ratio = 0.0;
    else {
      double variation =
          (static_cast<double>(now) - static_cast<double>(last_queue)) / static_cast<double>(std::min(now, last_queue));
      ratio = std::clamp((variation + o.queue_sensitivity) / (2 * o.queue_sensitivity), 0.0, 1.0);
    }
    obs.push_back(ratio);
    last_queue = now;
    return obs;
  }

  double reward(const batch::DecisionPoint& p) const
  {
    const auto& cl = *p.cluster;
    switch (o.reward) {
    case rl::RewardKind::slowdown: {
      double sum = 0;
      for (const auto& q : p.scheduler->queue())
        if (std::isfinite(q.requested_time_s) && q.requested_time_s > 0)
          sum += 1 / q.requested_time_s;
      std::vector<bool> seen(w.jobs.size(), false);
      for (size_t c = 0; c < res.cores.size(); c++) {
        uint32_t job = cl.owner(static_cast<uint32_t>(c));
        if (job < w.jobs.size() && not seen[job]) {
          seen[job] = true;
          auto req  = workload::requested_time(w, w.jobs[job]);
          if (req && *req > 0)
            sum += 1 / *req;
        }
      }
      return -sum;
    }
    case rl::RewardKind::completion: {
      // active jobs: submitted, not ended
      uint32_t submitted = 0;
      for (const auto& j : w.jobs)
        if (j.submit_s <= p.now)
          submitted++;
      return -static_cast<double>(submitted - std::min(submitted, p.done));
    }
    case rl::RewardKind::utilization:
      return static_cast<double>(res.core_count() - cl.free_cores());
    case rl::RewardKind::makespan:
      return p.flops_in_use / 1e9;
    case rl::RewardKind::energy: {
      double watts = 0;
      for (auto* h : *p.hosts)
        watts += sg_host_get_current_consumption(h);
      return -watts;
    }
    }
    return 0;
  }

  /** The episode, in a child of the server: the workload manager asks the client at each decision
   *  point. */
  [[noreturn]] void run_episode(uint64_t episode_seed)
  {
    double pending = 0; // reward of the last action, on the state it left
    uint32_t voids = 0;
    double void_at = -1;
    std::vector<double> obs;
    auto fail = [&](const std::exception& e) {
      rl::protocol::error_message(e).send(out);
      ::_exit(1);
    };
    try {
      batch::ManagerConfig cfg;
      cfg.scheduler.seed     = episode_seed;
      cfg.scheduler.backfill = scheduling::Backfill::none;
      cfg.interference       = o.interference;
      cfg.max_resources      = o.max_resources;
      cfg.platform_file      = o.platform.string();
      cfg.decide             = [&](const batch::DecisionPoint& p) -> batch::PolicyChoice {
        obs = observe(p);
        rl::protocol::Message m;
        m.kind    = Kind::observation;
        m.numbers = {p.now, pending, static_cast<double>(p.done), static_cast<double>(w.jobs.size())};
        m.numbers.insert(m.numbers.end(), obs.begin(), obs.end());
        if (not m.send(out))
          ::_exit(0); // the parent is gone
        uint32_t a = 0;
        if (not rl::protocol::receive_bytes(in, &a, sizeof a) || a >= o.actions.size())
          ::_exit(0); // the client is gone, or stops the episode (kStop)
        const rl::Action& act = o.actions[a];
        if (act.is_void()) {
          voids   = p.now == void_at ? voids + 1 : 1;
          void_at = p.now;
          if (voids > o.max_voids) {
            Message t;
            t.kind    = Kind::truncated;
            t.numbers = {p.now, 0, static_cast<double>(p.done), static_cast<double>(w.jobs.size())};
            t.numbers.insert(t.numbers.end(), obs.begin(), obs.end());
            for (size_t j = 0; j < w.jobs.size(); j++)
              if ((*p.jobs)[j].finish_s < 0)
                t.texts.push_back(w.jobs[j].id);
            t.send(out);
            ::_exit(0);
          }
          return {"", "", true};
        }
        voids = 0;
        return {act.job_policy, act.resource_policy, false};
      };
      cfg.decided = [&](const batch::DecisionPoint& p) { pending = reward(p); };
      batch::WorkloadManager m(w, res, plat ? &*plat : nullptr, cfg);
      m.start();
      sim->run();
      if (not m.error().empty())
        fail(RunError(m.error()));
      // the end: the objective figures, and the last reward
      double first = std::numeric_limits<double>::infinity(), last = 0, slow = 0, wait = 0, turn = 0;
      uint32_t n = 0;
      for (size_t j = 0; j < w.jobs.size(); j++) {
        const auto& r = m.jobs()[j];
        if (r.start_s < 0)
          continue;
        n++;
        first      = std::min(first, w.jobs[j].submit_s);
        last       = std::max(last, r.finish_s);
        double run = r.finish_s - r.start_s, t = r.finish_s - w.jobs[j].submit_s;
        slow += std::max(1.0, t / std::max(run, 10.0));
        wait += r.start_s - w.jobs[j].submit_s;
        turn += t;
      }
      double energy = 0;
      for (const auto& [k, v] : m.figures())
        if (k == "energy_j")
          energy = v;
      rl::protocol::Message d;
      d.kind    = Kind::done;
      double nn = std::max<double>(1, n);
      d.numbers = {simgrid::s4u::Engine::get_clock(),
                   pending,
                   static_cast<double>(w.jobs.size()),
                   n > 0 ? last - first : 0,
                   slow / nn,
                   wait / nn,
                   turn / nn,
                   energy};
      d.send(out);
      ::_exit(0);
    } catch (const std::exception& e) {
      fail(e);
    }
    ::_exit(1);
  }
};

} // namespace

int serve(int in, int out)
{
  Server s;
  s.in  = in;
  s.out = out;
  rl::protocol::Message m;
  if (not m.receive(in))
    return 1;
  try {
    s.o = rl::protocol::decode(m);
    s.load();
  } catch (const std::exception& e) {
    rl::protocol::error_message(e).send(out);
    return 1;
  }
  Message hello;
  hello.kind    = Kind::hello;
  hello.numbers = {static_cast<double>(s.obs_size), static_cast<double>(s.o.actions.size())};
  if (not hello.send(out))
    return 1;
  while (true) {
    uint32_t command = 0;
    if (not rl::protocol::receive_bytes(in, &command, sizeof command))
      return 0; // the client is gone
    if (command != rl::protocol::kReset)
      continue; // (an episode's stop that came after its end)
    uint64_t seed = 0;
    if (not rl::protocol::receive_bytes(in, &seed, sizeof seed))
      return 0;
    ChildOptions child; // the episode talks to the client itself; its end is all that is awaited
    child.what = "the episode's simulation";
    try {
      run_in_child(
          [&s, seed]() {
            s.run_episode(seed);
            return std::string();
          },
          child);
    } catch (const RunError& e) {
      rl::protocol::error_message(e).send(out);
    }
  }
}

} // namespace sgai::rl_server
