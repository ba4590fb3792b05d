#include "plugins/batch/manager.hpp"

#include "generators/platform/sim/inspect.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json_writer.hpp"
#include "generators/util/numbers.hpp"

#include <simgrid/kernel/Timer.hpp>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/simix.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <queue>
#include <set>
#include <sstream>
#include <unordered_map>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_batch, sgai, "sgai workload manager");

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

struct MachineSample {
  double t;
  double flops_in_use; ///< speed of the busy cores (HDeepRM's makespan reward)
  uint32_t busy_cores;
  uint32_t free_cores;
  size_t queued;
  size_t running;
};

struct EnergySample {
  double t;
  double joules;
};

struct PStateChange {
  double t;
  uint32_t host;
  int pstate;
};

struct Span {
  uint32_t processor;
  double start;
  double end;
  double peak_demand_gbps;
};

std::string csv_field(const std::string& s)
{
  if (s.find_first_of(",\"\n") == std::string::npos)
    return s;
  std::string out = "\"";
  for (char c : s)
    out += c == '"' ? std::string("\"\"") : std::string(1, c);
  return out + "\"";
}

} // namespace

const char* to_string(FinalState s)
{
  switch (s) {
  case FinalState::pending:
    return "PENDING";
  case FinalState::running:
    return "RUNNING";
  case FinalState::success:
    return "COMPLETED_SUCCESSFULLY";
  case FinalState::walltime_reached:
    return "COMPLETED_WALLTIME_REACHED";
  case FinalState::failed:
    return "COMPLETED_FAILED";
  case FinalState::rejected:
    return "REJECTED";
  }
  return "PENDING";
}

// ------------------------------------------------------------------------------------------ Resources

Resources resources_from_platform(const platform::Platform& p, uint32_t max_cores)
{
  Resources r;
  for (const auto& h : p.hosts)
    r.host_names.push_back(h.name);
  for (uint32_t ni = 0; ni < p.nodes.size(); ni++) {
    const auto& nd = p.nodes[ni];
    if (nd.processor_count == 0)
      continue;
    Node node;
    node.first_core      = r.core_count();
    node.first_processor = static_cast<uint32_t>(r.processors.size());
    node.memory_mb       = nd.memory_bytes > 0 ? nd.memory_bytes / 1e6 : kInf;
    for (uint32_t k = 0; k < nd.processor_count; k++) {
      const auto& pd = p.processors[nd.first_processor + k];
      Processor pr;
      pr.node             = static_cast<uint32_t>(r.nodes.size());
      pr.first_core       = r.core_count();
      pr.flops_per_core   = pd.flops_per_core;
      pr.mem_bw_gbps      = pd.mem_bw_Bps / 1e9;
      pr.power_per_core_w = pd.tdp_w / pd.cores;
      for (uint32_t c = 0; c < pd.cores; c++) {
        if (max_cores && r.core_count() >= max_cores)
          break;
        r.cores.push_back(Core{static_cast<uint32_t>(r.processors.size()), static_cast<uint32_t>(r.nodes.size()),
                               pd.host_of_core(c)});
        pr.cores++;
      }
      if (pr.cores == 0)
        break;
      r.processors.push_back(pr);
      node.processors++;
    }
    node.cores = r.core_count() - node.first_core;
    if (node.cores == 0)
      break;
    r.nodes.push_back(node);
  }
  return r;
}

Resources resources_from_engine(uint32_t max_cores)
{
  Resources r;
  for (sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts()) {
    const char* role = h->get_property("sgai_role");
    if ((role && std::string(role) == "gateway") || h->get_name() == "master_host")
      continue;
    if (max_cores && r.core_count() >= max_cores)
      break;
    auto host = static_cast<uint32_t>(r.host_names.size());
    r.host_names.push_back(h->get_name());
    Node node;
    node.first_core      = r.core_count();
    node.first_processor = static_cast<uint32_t>(r.processors.size());
    node.processors      = 1;
    Processor pr;
    pr.node           = static_cast<uint32_t>(r.nodes.size());
    pr.first_core     = r.core_count();
    pr.flops_per_core = h->get_speed();
    double idle = 0, full = 0;
    const char* w = h->get_property("wattage_per_state");
    if (w && platform::wattage_bounds(w, idle, full))
      pr.power_per_core_w = full / h->get_core_count();
    for (int c = 0; c < h->get_core_count(); c++) {
      if (max_cores && r.core_count() >= max_cores)
        break;
      r.cores.push_back(Core{static_cast<uint32_t>(r.processors.size()), static_cast<uint32_t>(r.nodes.size()), host});
      pr.cores++;
    }
    node.cores = pr.cores;
    r.processors.push_back(pr);
    r.nodes.push_back(node);
  }
  return r;
}

// -------------------------------------------------------------------------------------------- Impl

class WorkloadManager::Impl {
public:
  Impl(const workload::Workload& w, Resources resources, const platform::Platform* platform,
       const ManagerConfig& config)
      : w_(w)
      , r_(std::move(resources))
      , platform_(platform)
      , cfg_(config)
      , state_(r_)
      , sched_(state_, config.scheduler)
      , records_(w.jobs.size())
  {
    if (r_.cores.empty())
      throw InputError(w.source, "", "the platform has no CPU cores to run jobs on");
    host_cores_.resize(r_.host_names.size());
    host_processors_.resize(r_.host_names.size());
    processor_hosts_.resize(r_.processors.size());
    for (uint32_t c = 0; c < r_.core_count(); c++) {
      const Core& core = r_.cores[c];
      host_cores_[core.host].push_back(c);
      auto& hp = host_processors_[core.host];
      if (hp.empty() || hp.back() != core.processor)
        hp.push_back(core.processor);
      auto& ph = processor_hosts_[core.processor];
      if (ph.empty() || ph.back() != core.host)
        ph.push_back(core.host);
    }
    for (uint32_t h = 0; h < host_cores_.size(); h++)
      if (not host_cores_[h].empty())
        used_hosts_.push_back(h);
    if (platform_ && cfg_.interference) {
      const auto& names = platform_->cpu_pstate_names;
      auto find         = [&](const char* n) {
        auto it = std::find(names.begin(), names.end(), n);
        return it == names.end() ? -1 : static_cast<int>(it - names.begin());
      };
      ps_idle_      = find("idle");
      ps_active_    = find("active");
      ps_membw_     = find("membw_limited");
      interference_ = ps_idle_ >= 0 && ps_active_ >= 0 && ps_membw_ >= 0;
      if (not interference_)
        XBT_WARN("The platform's CPU P-states are not named idle, active and membw_limited: no interference model");
    }
    over_since_.assign(r_.processors.size(), -1);
    proc_flops_.assign(r_.processors.size(), 0);
    peak_demand_.assign(r_.processors.size(), 0);
  }

  const workload::Workload& w_;
  Resources r_;
  const platform::Platform* platform_;
  ManagerConfig cfg_;
  ClusterState state_;
  Scheduler sched_;
  std::vector<JobRecord> records_;

  std::vector<sg4::Host*> hosts_;
  std::vector<std::vector<uint32_t>> host_cores_;
  std::vector<std::vector<uint32_t>> host_processors_;
  std::vector<std::vector<uint32_t>> processor_hosts_;
  std::vector<uint32_t> used_hosts_;

  // running jobs and their executions
  struct Running {
    std::vector<sg4::ExecPtr> execs;
    uint32_t remaining = 0;
  };
  std::unordered_map<uint32_t, Running> running_;
  std::unordered_map<const sg4::Activity*, uint32_t> exec_job_;
  std::vector<std::pair<uint32_t, bool>> completed_; ///< (job, ok) reported by SimGrid, not handled yet
  // Executions canceled in maestro stay referenced until SimGrid has processed their failed action
  // (dropping the last reference at once frees the activity that the engine still walks to).
  std::vector<sg4::ExecPtr> canceled_;
  double canceled_at_ = -1;

  // Everything runs in SimGrid's maestro: activities started there report their completion through
  // Activity::on_completion (activities started by an actor do not, in 3.32), and kernel timers
  // bring the manager back at submission times, delay ends and walltimes. No actor at all.
  using Timer         = simgrid::kernel::timer::Timer;
  Timer* wakeup_      = nullptr;
  double wakeup_date_ = kInf;
  bool step_pending_  = false;
  size_t next_submit_ = 0;
  uint64_t arrivals_  = 0;
  size_t done_        = 0;
  std::string error_;

  struct Timed {
    double t;
    uint64_t seq;
    uint32_t job;
    bool walltime; ///< else: end of a delay job
    bool operator>(const Timed& o) const { return t > o.t || (t == o.t && seq > o.seq); }
  };
  std::priority_queue<Timed, std::vector<Timed>, std::greater<>> timed_;
  uint64_t seq_ = 0;

  // energy attribution
  bool energy_ = true;
  std::vector<double> energy_read_;
  std::vector<std::vector<std::pair<uint32_t, double>>> context_; ///< per host: (job, weight)
  double idle_energy_        = 0;
  double plugin_total_       = 0;
  double next_energy_sample_ = 0;

  // P-states and interference
  bool interference_ = false;
  int ps_idle_ = -1, ps_active_ = -1, ps_membw_ = -1;
  std::vector<int> host_pstate_;
  std::vector<double> over_since_;
  std::vector<double> peak_demand_;
  std::vector<double> proc_flops_; ///< speed of each processor's busy cores
  double flops_in_use_ = 0;

  // outputs
  std::vector<MachineSample> machine_;
  std::vector<EnergySample> energy_series_;
  std::vector<PStateChange> pstate_changes_;
  std::vector<Span> spans_;
  double first_submit_ = kInf;

  void bind_hosts()
  {
    for (const auto& name : r_.host_names)
      hosts_.push_back(sg4::Host::by_name_or_null(name));
    for (uint32_t h : used_hosts_) {
      if (hosts_[h] == nullptr)
        throw RunError("host " + r_.host_names[h] + " of the resource hierarchy is not in the simulation");
      if (hosts_[h]->get_property("wattage_per_state") == nullptr)
        energy_ = false;
    }
    if (not energy_)
      XBT_WARN("Some hosts have no wattage_per_state: no energy accounting");
    energy_read_.assign(hosts_.size(), 0);
    context_.resize(hosts_.size());
    host_pstate_.assign(hosts_.size(), 0);
    for (uint32_t h : used_hosts_)
      host_pstate_[h] = static_cast<int>(hosts_[h]->get_pstate());
  }

  // ------------------------------------------------------------------------------- energy sharing

  /** Reads the plugin's energy of these hosts now and gives what they consumed since the last read
   *  to the jobs of their current context. */
  void settle(const std::vector<uint32_t>& hosts)
  {
    if (not energy_ || hosts.empty())
      return;
    std::vector<double> now(hosts.size());
    simgrid::kernel::actor::simcall_answered([this, &hosts, &now]() {
      for (size_t i = 0; i < hosts.size(); i++)
        now[i] = sg_host_get_consumed_energy(hosts_[hosts[i]]);
    });
    for (size_t i = 0; i < hosts.size(); i++) {
      uint32_t h      = hosts[i];
      double delta    = now[i] - energy_read_[h];
      energy_read_[h] = now[i];
      const auto& ctx = context_[h];
      if (ctx.empty()) {
        idle_energy_ += delta;
        continue;
      }
      double total = 0;
      for (const auto& [job, weight] : ctx)
        total += weight;
      for (const auto& [job, weight] : ctx)
        records_[job].energy_j += delta * weight / total;
    }
  }

  /** Who shares a host's energy: the jobs on its cores, else the jobs on its processors' other cores. */
  void recompute_context(uint32_t h)
  {
    std::map<uint32_t, double> weights;
    for (uint32_t c : host_cores_[h])
      if (not state_.is_free(c))
        weights[state_.owner(c)] += 1;
    if (weights.empty())
      for (uint32_t p : host_processors_[h]) {
        const Processor& pr = r_.processors[p];
        for (uint32_t c = pr.first_core; c < pr.first_core + pr.cores; c++)
          if (not state_.is_free(c))
            weights[state_.owner(c)] += 1;
      }
    context_[h].assign(weights.begin(), weights.end());
  }

  /** Hosts whose sharing changes when these cores change hands. */
  std::vector<uint32_t> affected_hosts(const std::vector<uint32_t>& cores) const
  {
    std::set<uint32_t> hosts;
    for (uint32_t c : cores)
      for (uint32_t h : processor_hosts_[r_.cores[c].processor])
        hosts.insert(h);
    return {hosts.begin(), hosts.end()};
  }

  // ------------------------------------------------------------------------------ P-states

  int desired_pstate(uint32_t h) const
  {
    bool busy = false, over = false, active = false;
    for (uint32_t c : host_cores_[h])
      busy = busy || not state_.is_free(c);
    for (uint32_t p : host_processors_[h]) {
      over   = over || state_.processor_over_utilized(p);
      active = active || state_.processor_busy_cores(p) > 0;
    }
    if (busy)
      return over ? ps_membw_ : ps_active_;
    return active ? ps_active_ : ps_idle_;
  }

  void update_processors(const std::set<uint32_t>& processors, double now)
  {
    for (uint32_t p : processors) {
      bool over = state_.processor_over_utilized(p);
      if (over) {
        peak_demand_[p] = std::max(peak_demand_[p], state_.processor_demand_gbps(p));
        if (over_since_[p] < 0) {
          over_since_[p]  = now;
          peak_demand_[p] = state_.processor_demand_gbps(p);
        }
      } else if (over_since_[p] >= 0) {
        spans_.push_back({p, over_since_[p], now, peak_demand_[p]});
        over_since_[p] = -1;
      }
      if (interference_)
        for (uint32_t h : processor_hosts_[p]) {
          int want = desired_pstate(h);
          if (want != host_pstate_[h]) {
            hosts_[h]->set_pstate(static_cast<unsigned long>(want));
            host_pstate_[h] = want;
            pstate_changes_.push_back({now, h, want});
          }
        }
      // speed in use on this processor, after the P-state changes
      double flops        = 0;
      const Processor& pr = r_.processors[p];
      for (uint32_t c = pr.first_core; c < pr.first_core + pr.cores; c++)
        if (not state_.is_free(c))
          flops += hosts_[r_.cores[c].host]->get_speed();
      flops_in_use_ += flops - proc_flops_[p];
      proc_flops_[p] = flops;
    }
  }

  // ------------------------------------------------------------------------------ job life cycle

  Demand demand_of(uint32_t job) const
  {
    const auto& j = w_.jobs[job];
    const auto& p = w_.profile_of(j);
    return Demand{j.resources, p.mem_mb.value_or(0), p.mem_bw_gbps.value_or(0)};
  }

  void launch(const Decision& d, double now)
  {
    JobRecord& rec = records_[d.job];
    rec.state      = FinalState::running;
    rec.start_s    = now;
    rec.cores      = d.cores;
    const auto& j  = w_.jobs[d.job];
    const auto& p  = w_.profile_of(j);
    Running run;
    auto exec_on = [&](uint32_t host, double flops) {
      sg4::ExecPtr e = sg4::Exec::init();
      e->set_host(hosts_[host]);
      e->set_flops_amount(flops);
      exec_job_[e.get()] = d.job;
      run.execs.push_back(e);
    };
    switch (p.type) {
    case workload::ProfileType::delay:
      timed_.push({now + p.delay_s, seq_++, d.job, false});
      break;
    case workload::ProfileType::parallel_homogeneous:
    case workload::ProfileType::parallel: {
      bool comm     = p.type == workload::ProfileType::parallel_homogeneous
                          ? p.com > 0 && d.cores.size() > 1
                          : std::any_of(p.com_matrix.begin(), p.com_matrix.end(), [](double b) { return b > 0; });
      auto flops_of = [&](size_t i) { return p.type == workload::ProfileType::parallel ? p.cpu_vector[i] : p.cpu; };
      if (not comm) {
        for (size_t i = 0; i < d.cores.size(); i++)
          exec_on(r_.cores[d.cores[i]].host, flops_of(i));
      } else {
        // One parallel task over the distinct hosts of the cores (ptask_L07 host model).
        std::vector<uint32_t> hosts;
        std::vector<size_t> slot(d.cores.size());
        for (size_t i = 0; i < d.cores.size(); i++) {
          uint32_t h = r_.cores[d.cores[i]].host;
          auto it    = std::find(hosts.begin(), hosts.end(), h);
          slot[i]    = static_cast<size_t>(it - hosts.begin());
          if (it == hosts.end())
            hosts.push_back(h);
        }
        size_t n = hosts.size();
        std::vector<double> flops(n, 0), bytes(n * n, 0);
        for (size_t i = 0; i < d.cores.size(); i++) {
          flops[slot[i]] += flops_of(i);
          for (size_t k = 0; k < d.cores.size(); k++) {
            double b =
                p.type == workload::ProfileType::parallel ? p.com_matrix[i * d.cores.size() + k] : (i == k ? 0 : p.com);
            if (slot[i] != slot[k])
              bytes[slot[i] * n + slot[k]] += b;
          }
        }
        std::vector<sg4::Host*> hs;
        for (uint32_t h : hosts)
          hs.push_back(hosts_[h]);
        sg4::ExecPtr e = sg4::Exec::init();
        e->set_hosts(hs);
        e->set_flops_amounts(flops);
        e->set_bytes_amounts(bytes);
        exec_job_[e.get()] = d.job;
        run.execs.push_back(e);
      }
      break;
    }
    }
    run.remaining = static_cast<uint32_t>(run.execs.size());
    if (j.walltime_s)
      timed_.push({now + *j.walltime_s, seq_++, d.job, true});
    bool instant = run.execs.empty() && p.type != workload::ProfileType::delay;
    auto& stored = running_[d.job] = std::move(run);
    for (auto& e : stored.execs)
      e->start();
    if (instant)
      completed_.emplace_back(d.job, true);
  }

  /** Ends a job (finished, killed or failed): cancels what still runs, frees its cores. */
  void end_job(uint32_t job, FinalState final_state, double now)
  {
    auto it = running_.find(job);
    if (it == running_.end())
      return;
    for (auto& e : it->second.execs) {
      if (exec_job_.erase(e.get()) > 0) {
        e->cancel();
        canceled_.push_back(e);
        canceled_at_ = now;
      }
    }
    running_.erase(it);
    records_[job].state    = final_state;
    records_[job].finish_s = now;
    sched_.release(job);
  }

  void on_completion(const sg4::Activity& a)
  {
    auto it = exec_job_.find(&a);
    if (it == exec_job_.end())
      return;
    uint32_t job = it->second;
    exec_job_.erase(it);
    bool ok = a.get_state() == sg4::Activity::State::FINISHED;
    auto r  = running_.find(job);
    if (r == running_.end())
      return;
    if (not ok || --r->second.remaining == 0) {
      completed_.emplace_back(job, ok);
      request_step();
    }
  }

  // ------------------------------------------------------------------------------ the actor

  /** Runs the scheduling step once everything happening at this instant is known. */
  void request_step()
  {
    if (step_pending_)
      return;
    step_pending_ = true;
    Timer::set(sg4::Engine::get_clock(), [this]() {
      step_pending_ = false;
      step();
    });
  }

  void arm_wakeup(double date)
  {
    if (date == kInf || (wakeup_ != nullptr && wakeup_date_ <= date))
      return;
    if (wakeup_ != nullptr)
      wakeup_->remove();
    wakeup_date_ = date;
    wakeup_      = Timer::set(date, [this]() {
      wakeup_      = nullptr;
      wakeup_date_ = kInf;
      request_step();
    });
  }

  void step()
  {
    if (not error_.empty())
      return;
    double now     = sg4::Engine::get_clock();
    const size_t n = w_.jobs.size();
    if (canceled_at_ < now)
      canceled_.clear(); // SimGrid has processed their actions at an earlier instant
    std::vector<uint32_t> ending;
    std::vector<FinalState> ending_state;
    for (auto [job, ok] : completed_) {
      if (running_.count(job) && std::find(ending.begin(), ending.end(), job) == ending.end()) {
        ending.push_back(job);
        ending_state.push_back(ok ? FinalState::success : FinalState::failed);
      }
    }
    completed_.clear();
    while (not timed_.empty() && timed_.top().t <= now) {
      Timed t = timed_.top();
      timed_.pop();
      if (running_.count(t.job) && std::find(ending.begin(), ending.end(), t.job) == ending.end()) {
        ending.push_back(t.job);
        ending_state.push_back(t.walltime ? FinalState::walltime_reached : FinalState::success);
      }
    }
    // The energy consumed up to now goes to the sharing contexts before the changes.
    std::vector<uint32_t> freed;
    for (uint32_t job : ending)
      for (uint32_t c : records_[job].cores)
        freed.push_back(c);
    auto hosts_before = affected_hosts(freed);
    settle(hosts_before);
    std::set<uint32_t> touched_procs;
    for (uint32_t c : freed)
      touched_procs.insert(r_.cores[c].processor);
    for (size_t i = 0; i < ending.size(); i++) {
      end_job(ending[i], ending_state[i], now);
      done_++;
    }

    while (next_submit_ < n && w_.jobs[next_submit_].submit_s <= now) {
      auto job      = static_cast<uint32_t>(next_submit_++);
      const auto& j = w_.jobs[job];
      first_submit_ = std::min(first_submit_, j.submit_s);
      QueuedJob q;
      q.job              = job;
      q.submit_s         = j.submit_s;
      q.arrival          = arrivals_++;
      q.requested_time_s = workload::requested_time(w_, j).value_or(kInf);
      q.demand           = demand_of(job);
      if (not sched_.submit(q)) {
        records_[job].state    = FinalState::rejected;
        records_[job].finish_s = now;
        done_++;
        XBT_DEBUG("job %s rejected: it can never fit on the platform", j.id.c_str());
      }
    }

    auto decisions = sched_.step(now);
    if (not decisions.empty()) {
      std::vector<uint32_t> taken;
      for (const auto& d : decisions)
        taken.insert(taken.end(), d.cores.begin(), d.cores.end());
      std::vector<uint32_t> extra;
      for (uint32_t h : affected_hosts(taken))
        if (not std::binary_search(hosts_before.begin(), hosts_before.end(), h))
          extra.push_back(h);
      // Nothing has run on these cores yet: the energy since the last read still belongs to the
      // old contexts, unchanged at this instant.
      settle(extra);
      for (uint32_t c : taken)
        touched_procs.insert(r_.cores[c].processor);
      hosts_before.insert(hosts_before.end(), extra.begin(), extra.end());
    }
    for (uint32_t h : hosts_before)
      recompute_context(h);
    update_processors(touched_procs, now);
    for (const auto& d : decisions)
      launch(d, now);

    sample(now);
    if (done_ == n && running_.empty()) {
      finish();
      return;
    }
    if (not completed_.empty()) { // jobs without any work end at once
      request_step();
      return;
    }
    double next = kInf;
    if (next_submit_ < n)
      next = w_.jobs[next_submit_].submit_s;
    if (not timed_.empty())
      next = std::min(next, timed_.top().t);
    if (next == kInf && running_.empty())
      error_ = "the workload manager is stuck: " + std::to_string(sched_.queue_size()) +
               " jobs wait but nothing runs and nothing will happen";
    arm_wakeup(next);
  }

  void sample(double now)
  {
    MachineSample s{now,
                    flops_in_use_,
                    r_.core_count() - state_.free_cores(),
                    state_.free_cores(),
                    sched_.queue_size(),
                    running_.size()};
    if (not machine_.empty() && machine_.back().t == now)
      machine_.back() = s;
    else
      machine_.push_back(s);
    if (energy_ && now >= next_energy_sample_) {
      energy_series_.push_back({now, total_energy()});
      next_energy_sample_ = now + cfg_.energy_period_s;
    }
  }

  double total_energy()
  {
    double total = 0;
    simgrid::kernel::actor::simcall_answered([this, &total]() {
      for (uint32_t h : used_hosts_)
        total += sg_host_get_consumed_energy(hosts_[h]);
    });
    return total;
  }

  void finish()
  {
    double now = sg4::Engine::get_clock();
    for (uint32_t p = 0; p < r_.processors.size(); p++)
      if (over_since_[p] >= 0)
        spans_.push_back({p, over_since_[p], now, peak_demand_[p]});
    if (not energy_)
      return;
    settle(used_hosts_);
    plugin_total_ = 0;
    for (uint32_t h : used_hosts_)
      plugin_total_ += energy_read_[h];
    if (energy_series_.empty() || energy_series_.back().t != now)
      energy_series_.push_back({now, plugin_total_});
  }
};

// ------------------------------------------------------------------------------------ public API

WorkloadManager::WorkloadManager(const workload::Workload& w, Resources resources, const platform::Platform* platform,
                                 const ManagerConfig& config)
    : impl_(std::make_unique<Impl>(w, std::move(resources), platform, config))
{
}

WorkloadManager::~WorkloadManager() = default;

void WorkloadManager::start()
{
  Impl* impl = impl_.get();
  impl->bind_hosts();
  sg4::Activity::on_completion_cb([impl](const sg4::Activity& a) { impl->on_completion(a); });
  impl->arm_wakeup(impl->w_.jobs.empty() ? 0 : impl->w_.jobs.front().submit_s);
  if (impl->w_.jobs.empty())
    impl->request_step();
}

bool WorkloadManager::needs_ptask_model(const workload::Workload& w)
{
  for (const auto& j : w.jobs) {
    const auto& p = w.profile_of(j);
    if (p.type == workload::ProfileType::parallel_homogeneous && p.com > 0 && j.resources > 1)
      return true;
    if (p.type == workload::ProfileType::parallel &&
        std::any_of(p.com_matrix.begin(), p.com_matrix.end(), [](double b) { return b > 0; }))
      return true;
  }
  return false;
}

const workload::Workload& WorkloadManager::workload() const
{
  return impl_->w_;
}

const Resources& WorkloadManager::resources() const
{
  return impl_->r_;
}

const std::vector<JobRecord>& WorkloadManager::jobs() const
{
  return impl_->records_;
}

const std::string& WorkloadManager::error() const
{
  return impl_->error_;
}

double WorkloadManager::idle_energy_j() const
{
  return impl_->idle_energy_;
}

std::vector<std::pair<std::string, double>> WorkloadManager::figures() const
{
  const Impl& m = *impl_;
  std::map<FinalState, double> by_state;
  double makespan_end = 0, wait_sum = 0, wait_max = 0, turn_sum = 0, turn_max = 0, slow_sum = 0, slow_max = 0;
  double bsld_sum = 0, busy_core_seconds = 0, jobs_energy = 0;
  size_t finished = 0;
  for (size_t i = 0; i < m.records_.size(); i++) {
    const auto& r = m.records_[i];
    by_state[r.state]++;
    if (r.state == FinalState::rejected || r.start_s < 0)
      continue;
    const auto& j     = m.w_.jobs[i];
    double wait       = r.start_s - j.submit_s;
    double exec       = r.finish_s - r.start_s;
    double turnaround = r.finish_s - j.submit_s;
    double slowdown   = exec > 0 ? turnaround / exec : 1;
    double bsld       = std::max(1.0, turnaround / std::max(exec, 10.0));
    finished++;
    makespan_end = std::max(makespan_end, r.finish_s);
    wait_sum += wait;
    wait_max = std::max(wait_max, wait);
    turn_sum += turnaround;
    turn_max = std::max(turn_max, turnaround);
    slow_sum += slowdown;
    slow_max = std::max(slow_max, slowdown);
    bsld_sum += bsld;
    busy_core_seconds += exec * static_cast<double>(r.cores.size());
    jobs_energy += r.energy_j;
  }
  double first                                  = m.first_submit_ == kInf ? 0 : m.first_submit_;
  double makespan                               = finished ? makespan_end - first : 0;
  double nf                                     = finished ? static_cast<double>(finished) : 1;
  std::vector<std::pair<std::string, double>> f = {
      {"jobs", static_cast<double>(m.records_.size())},
      {"jobs_finished", static_cast<double>(finished)},
      {"jobs_success", by_state[FinalState::success]},
      {"jobs_walltime_reached", by_state[FinalState::walltime_reached]},
      {"jobs_failed", by_state[FinalState::failed]},
      {"jobs_rejected", by_state[FinalState::rejected]},
      {"cores", static_cast<double>(m.r_.core_count())},
      {"makespan_s", makespan},
      {"mean_waiting_time_s", wait_sum / nf},
      {"max_waiting_time_s", wait_max},
      {"mean_turnaround_time_s", turn_sum / nf},
      {"max_turnaround_time_s", turn_max},
      {"mean_slowdown", slow_sum / nf},
      {"max_slowdown", slow_max},
      {"mean_bounded_slowdown", bsld_sum / nf},
      {"utilization", makespan > 0 ? busy_core_seconds / (makespan * m.r_.core_count()) : 0},
      {"energy_j", m.plugin_total_},
      {"jobs_energy_j", jobs_energy},
      {"idle_energy_j", m.idle_energy_},
      {"pstate_changes", static_cast<double>(m.pstate_changes_.size())},
      {"overutilization_spans", static_cast<double>(m.spans_.size())},
  };
  return f;
}

std::vector<std::pair<std::string, std::string>> WorkloadManager::write_outputs(const std::filesystem::path& dir) const
{
  const Impl& m = *impl_;
  std::vector<std::pair<std::string, std::string>> out;
  ensure_directory(dir);
  {
    AtomicFile f(dir / "jobs.csv");
    auto& o = f.stream();
    o << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
         "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
         "allocated_resources,consumed_energy,metadata\n";
    for (size_t i = 0; i < m.records_.size(); i++) {
      const auto& r = m.records_[i];
      const auto& j = m.w_.jobs[i];
      auto req      = workload::requested_time(m.w_, j);
      bool started  = r.start_s >= 0;
      double exec   = started ? r.finish_s - r.start_s : 0;
      double turn   = started ? r.finish_s - j.submit_s : 0;
      o << csv_field(j.id) << "," << csv_field(m.w_.name) << "," << csv_field(m.w_.profile_of(j).name) << ","
        << format_number(j.submit_s) << "," << j.resources << "," << (req ? format_number(*req) : "-1") << ","
        << (r.state == FinalState::success ? 1 : 0) << "," << to_string(r.state) << ","
        << (started ? format_number(r.start_s) : "-1") << "," << format_number(exec) << ","
        << (started ? format_number(r.finish_s) : "-1") << ","
        << (started ? format_number(r.start_s - j.submit_s) : "-1") << "," << format_number(turn) << ","
        << (exec > 0 ? format_number(turn / exec) : "-1") << "," << intervals(r.cores) << ","
        << format_number(r.energy_j) << ",\n";
    }
    f.commit();
    out.emplace_back((dir / "jobs.csv").string(), "one line per job, Batsim v4 out_jobs.csv columns");
  }
  auto figures = this->figures();
  {
    std::ostringstream ss;
    json::Writer w(ss);
    w.begin_object();
    for (const auto& [k, v] : figures)
      w.field(k, v);
    w.end_object();
    write_file_atomically(dir / "schedule.json", ss.str());
    std::string header, row;
    for (const auto& [k, v] : figures) {
      header += (header.empty() ? "" : ",") + k;
      row += (row.empty() ? "" : ",") + format_number(v);
    }
    write_file_atomically(dir / "schedule.csv", header + "\n" + row + "\n");
    out.emplace_back((dir / "schedule.json").string(), "schedule summary (also schedule.csv, one row)");
  }
  {
    AtomicFile f(dir / "machine_states.csv");
    f.stream() << "time,flops_in_use,busy_cores,idle_cores,queued_jobs,running_jobs\n";
    for (const auto& s : m.machine_)
      f.stream() << format_number(s.t) << "," << format_number(s.flops_in_use) << "," << s.busy_cores << ","
                 << s.free_cores << "," << s.queued << "," << s.running << "\n";
    f.commit();
    out.emplace_back((dir / "machine_states.csv").string(), "cores in use and queue size after every event");
  }
  {
    AtomicFile f(dir / "energy.csv");
    f.stream() << "time,energy_j\n";
    for (const auto& s : m.energy_series_)
      f.stream() << format_number(s.t) << "," << format_number(s.joules) << "\n";
    f.commit();
    out.emplace_back((dir / "energy.csv").string(), "energy consumed by the cores' hosts over time");
  }
  {
    AtomicFile f(dir / "pstate_changes.csv");
    f.stream() << "time,host,new_pstate,pstate_name\n";
    for (const auto& c : m.pstate_changes_) {
      std::string name = m.platform_ ? m.platform_->cpu_pstate_names[static_cast<size_t>(c.pstate)] : "";
      f.stream() << format_number(c.t) << "," << m.r_.host_names[c.host] << "," << c.pstate << "," << name << "\n";
    }
    f.commit();
    out.emplace_back((dir / "pstate_changes.csv").string(), "host P-state changes");
  }
  {
    AtomicFile f(dir / "overutilization.csv");
    f.stream() << "processor,first_core,start,end,peak_demand_gbps,capacity_gbps\n";
    for (const auto& s : m.spans_)
      f.stream() << s.processor << "," << m.r_.processors[s.processor].first_core << "," << format_number(s.start)
                 << "," << format_number(s.end) << "," << format_number(s.peak_demand_gbps) << ","
                 << format_number(m.r_.processors[s.processor].mem_bw_gbps) << "\n";
    f.commit();
    out.emplace_back((dir / "overutilization.csv").string(), "memory-bandwidth over-utilization spans per processor");
  }
  return out;
}

} // namespace sgai::batch
