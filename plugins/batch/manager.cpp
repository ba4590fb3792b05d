#include "plugins/batch/manager.hpp"

#include "generators/platform/sim/inspect.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json_writer.hpp"
#include "generators/util/numbers.hpp"
#include "plugins/sim/energy.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/kernel/Timer.hpp>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/simix.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <sstream>
#include <unistd.h>
#include <unordered_map>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_batch, sgai, "sgai workload manager");

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

namespace {

constexpr double kInf      = std::numeric_limits<double>::infinity();
constexpr double kNoFigure = std::numeric_limits<double>::quiet_NaN(); ///< an energy figure that cannot be had

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
    if (not sim::runs_jobs(*h)) // Batsim's master and storage hosts, sgai's gateways
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
    energy_period_ = cfg_.energy_period_s;
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

  // Running jobs and their executions. Each job with executions gets a short-lived actor that
  // starts and waits for them: SimGrid 3.32 keeps the activities an actor started in a list that
  // it searches linearly at every completion, so thousands of executions started from maestro
  // cost quadratic time. With one actor per running job, each list holds one job's executions.
  struct ExecSpec {
    std::vector<uint32_t> hosts; ///< indices in hosts_
    std::vector<double> flops;
    std::vector<double> bytes; ///< empty: a plain execution on hosts[0]
  };
  struct Run {
    std::vector<ExecSpec> specs;     ///< what to execute, created by the actor (an execution belongs
    std::vector<sg4::ExecPtr> execs; ///< to the actor calling Exec::init, so not from maestro)
    bool started  = false;           ///< the actor started the executions
    bool canceled = false;           ///< the manager ended the job (walltime): the actor must not report
  };
  std::unordered_map<uint32_t, std::shared_ptr<Run>> running_;
  std::vector<std::pair<uint32_t, bool>> completed_; ///< (job, ok) reported by SimGrid, not handled yet

  // Everything else runs in SimGrid's maestro: kernel timers bring the manager back at submission
  // times, delay ends and walltimes, and the job actors report their end through a simcall.
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
  // Running total of the hosts' energy without reading them all at every sample. A clean host
  // draws a known power P since its last reading E at t_read: the sum over clean hosts is
  // sum(E - P t_read) + sum(P) x t. A host whose load or P-state changed is dirty: SimGrid solves
  // its new share only after the change, so it is read at each sample until one falls strictly
  // after the change, when its power is read and it turns clean again.
  std::vector<double> power_, read_t_, changed_at_;
  std::vector<char> dirty_flag_;
  std::vector<uint32_t> dirty_;
  double sum_a_ = 0, sum_b_ = 0;
  double series_estimate_ = 0; ///< the running total at the end, before the final reading
  double series_error_    = 0; ///< largest gap between the running total and a full reading
  bool progress_          = ::isatty(STDERR_FILENO) != 0;
  bool progress_shown_    = false;
  std::chrono::steady_clock::time_point next_progress_ = std::chrono::steady_clock::now() + std::chrono::seconds(1);
  std::vector<std::vector<std::pair<uint32_t, double>>> context_; ///< per host: (job, weight)
  double idle_energy_        = 0;
  double plugin_total_       = 0;
  double next_energy_sample_ = 0;
  double energy_period_      = 0; ///< cfg_.energy_period_s

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
    // Without energy (a host lacks wattage_per_state) the energy figures are empty; the run's
    // summary says why, once.
    energy_read_.assign(hosts_.size(), 0);
    power_.assign(hosts_.size(), 0);
    read_t_.assign(hosts_.size(), sg4::Engine::get_clock());
    changed_at_.assign(hosts_.size(), sg4::Engine::get_clock());
    dirty_flag_.assign(hosts_.size(), 0);
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
    double t = sg4::Engine::get_clock();
    for (size_t i = 0; i < hosts.size(); i++) {
      uint32_t h   = hosts[i];
      double delta = now[i] - energy_read_[h];
      if (not dirty_flag_[h])
        sum_a_ += (now[i] - power_[h] * t) - (energy_read_[h] - power_[h] * read_t_[h]);
      energy_read_[h] = now[i];
      read_t_[h]      = t;
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

  /** Settles these hosts after a change of their load or P-state; they are dirty until a sample
   *  reads their new power. */
  void observe(const std::vector<uint32_t>& hosts)
  {
    if (not energy_ || hosts.empty())
      return;
    settle(hosts);
    double t = sg4::Engine::get_clock();
    for (uint32_t h : hosts) {
      changed_at_[h] = t;
      if (dirty_flag_[h])
        continue;
      sum_a_ -= energy_read_[h] - power_[h] * read_t_[h];
      sum_b_ -= power_[h];
      dirty_flag_[h] = 1;
      dirty_.push_back(h);
    }
  }

  /** Energy of the manager's hosts now: the clean ones from their power, the dirty ones read. */
  double total_energy()
  {
    double t = sg4::Engine::get_clock();
    settle(dirty_);
    double dirty_sum = 0;
    std::vector<uint32_t> still;
    simgrid::kernel::actor::simcall_answered([this, t, &dirty_sum, &still]() {
      for (uint32_t h : dirty_) {
        if (changed_at_[h] < t) { // solved since its change: its power holds until the next one
          power_[h] = sg_host_get_current_consumption(hosts_[h]);
          sum_a_ += energy_read_[h] - power_[h] * read_t_[h];
          sum_b_ += power_[h];
          dirty_flag_[h] = 0;
        } else {
          dirty_sum += energy_read_[h];
          still.push_back(h);
        }
      }
    });
    dirty_.swap(still);
    return sum_a_ + sum_b_ * t + dirty_sum;
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
    auto run       = std::make_shared<Run>();
    auto exec_on   = [&](uint32_t host, double flops) { run->specs.push_back({{host}, {flops}, {}}); };
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
        run->specs.push_back({std::move(hosts), std::move(flops), std::move(bytes)});
      }
      break;
    }
    }
    if (j.walltime_s)
      timed_.push({now + *j.walltime_s, seq_++, d.job, true});
    if (run->specs.empty()) {
      if (p.type != workload::ProfileType::delay)
        completed_.emplace_back(d.job, true); // nothing to compute: done at once
    } else {
      sg4::Actor::create(j.id, hosts_[r_.cores[d.cores.front()].host],
                         [this, job = d.job, run]() { run_job(job, run); });
    }
    running_[d.job] = std::move(run);
  }

  /** The body of a job's actor: starts its executions, waits for them, reports. */
  void run_job(uint32_t job, const std::shared_ptr<Run>& run)
  {
    if (run->canceled)
      return;
    std::vector<std::vector<uint32_t>> exec_hosts;
    std::vector<uint32_t> all_hosts;
    for (auto& spec : run->specs) {
      sg4::ExecPtr e = sg4::Exec::init();
      if (spec.bytes.empty()) {
        e->set_host(hosts_[spec.hosts[0]]);
        e->set_flops_amount(spec.flops[0]);
      } else {
        std::vector<sg4::Host*> hs;
        for (uint32_t h : spec.hosts)
          hs.push_back(hosts_[h]);
        e->set_hosts(hs);
        e->set_flops_amounts(spec.flops);
        e->set_bytes_amounts(spec.bytes);
      }
      run->execs.push_back(e);
      all_hosts.insert(all_hosts.end(), spec.hosts.begin(), spec.hosts.end());
      exec_hosts.push_back(std::move(spec.hosts));
    }
    run->specs.clear();
    for (auto& e : run->execs)
      e->start();
    run->started = true;
    // The hosts draw more from now on (the running total of energy follows every power change).
    simgrid::kernel::actor::simcall_answered([this, &all_hosts]() { observe(all_hosts); });
    bool ok                           = true;
    std::vector<sg4::ExecPtr> pending = run->execs;
    try {
      while (not pending.empty()) {
        auto i = static_cast<size_t>(sg4::Exec::wait_any(pending));
        if (run->canceled)
          return;
        // this execution's hosts idle now while the job holds them
        simgrid::kernel::actor::simcall_answered([this, &exec_hosts, i]() { observe(exec_hosts[i]); });
        pending[i]    = pending.back();
        exec_hosts[i] = std::move(exec_hosts.back());
        pending.pop_back();
        exec_hosts.pop_back();
      }
    } catch (const simgrid::CancelException&) {
      return; // the manager ended it
    } catch (const simgrid::Exception&) {
      ok = false; // a host failed under it
    }
    if (run->canceled)
      return;
    simgrid::kernel::actor::simcall_answered([this, job, ok]() {
      completed_.emplace_back(job, ok);
      request_step();
    });
  }

  /** Ends a job (finished, killed or failed): cancels what still runs, frees its cores. */
  void end_job(uint32_t job, FinalState final_state, double now)
  {
    auto it = running_.find(job);
    if (it == running_.end())
      return;
    Run& run     = *it->second;
    run.canceled = true;
    if (run.started)
      for (auto& e : run.execs)
        if (e->get_state() == sg4::Activity::State::STARTED)
          e->cancel();
    running_.erase(it);
    records_[job].state    = final_state;
    records_[job].finish_s = now;
    sched_.release(job);
  }

  // ------------------------------------------------------------------------------ the scheduling step

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
    observe(hosts_before); // ended jobs, P-state changes (started jobs' actors report their own)
    for (const auto& d : decisions)
      launch(d, now);

    sample(now);
    progress(now, false);
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
      error_ = stuck_message(now);
    arm_wakeup(next);
  }

  /** Why the run cannot go on: the waiting jobs (the first three), what each asks and what the
   *  platform has free, naming the workload file. */
  std::string stuck_message(double now) const
  {
    const auto& queue = sched_.queue();
    std::string jobs;
    for (size_t i = 0; i < queue.size() && i < 3; i++) {
      const auto& q = queue[i];
      jobs += (jobs.empty() ? "" : "; ") + std::string("job ") + quote(w_.jobs[q.job].id) + " asks " +
              std::to_string(q.demand.cores) + " cores";
      if (q.demand.mem_mb > 0)
        jobs += " with " + format_number(q.demand.mem_mb) + " MB each";
      if (q.demand.mem_bw_gbps > 0)
        jobs += ", " + format_number(q.demand.mem_bw_gbps) + " GB/s each";
      if (std::isfinite(q.requested_time_s))
        jobs += ", for " + format_number(q.requested_time_s) + " s";
    }
    if (queue.size() > 3)
      jobs += "; and " + std::to_string(queue.size() - 3) + " more";
    return w_.source + ": the workload manager is stuck at " + format_number(now) +
           " s: " + std::to_string(queue.size()) + " jobs wait, none can start on the " +
           std::to_string(state_.free_cores()) + " free cores of " + std::to_string(r_.core_count()) +
           " and nothing runs (" + jobs + ")";
  }

  /** On a terminal, one line of progress at most twice a second (nothing when not a terminal). */
  void progress(double now, bool last)
  {
    if (not progress_ || (last && not progress_shown_))
      return;
    auto wall = std::chrono::steady_clock::now();
    if (not last && wall < next_progress_)
      return;
    next_progress_  = wall + std::chrono::milliseconds(500);
    progress_shown_ = true;
    std::fprintf(stderr, "\r[batch] simulated %.0f s, %zu/%zu jobs done, %zu running, %zu queued   %s", now, done_,
                 w_.jobs.size(), running_.size(), sched_.queue_size(), last ? "\n" : "");
    std::fflush(stderr);
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
    bool again = energy_ && not energy_series_.empty() && energy_series_.back().t == now;
    if (energy_ && (again || now >= next_energy_sample_)) {
      double total = total_energy();
      if (cfg_.check_energy_series) { // read every host: the slow way the running total replaces
        double read = 0;
        simgrid::kernel::actor::simcall_answered([this, &read]() {
          for (uint32_t h : used_hosts_)
            read += sg_host_get_consumed_energy(hosts_[h]);
        });
        series_error_ = std::max(series_error_, std::fabs(read - total));
      }
      if (again)
        energy_series_.back().joules = total;
      else
        energy_series_.push_back({now, total});
      next_energy_sample_ = now + energy_period_;
    }
  }

  void finish()
  {
    double now = sg4::Engine::get_clock();
    progress(now, true);
    for (uint32_t p = 0; p < r_.processors.size(); p++)
      if (over_since_[p] >= 0)
        spans_.push_back({p, over_since_[p], now, peak_demand_[p]});
    if (not energy_)
      return;
    series_estimate_ = total_energy();
    settle(used_hosts_);
    plugin_total_ = 0;
    for (uint32_t h : used_hosts_)
      plugin_total_ += energy_read_[h];
    if (std::fabs(series_estimate_ - plugin_total_) > 1e-6 * std::max(1.0, plugin_total_))
      XBT_WARN("energy time series drifted from the host_energy plugin: %.17g J estimated, %.17g J read",
               series_estimate_, plugin_total_);
    if (not energy_series_.empty() && energy_series_.back().t == now)
      energy_series_.back().joules = plugin_total_;
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
  impl->observe(impl->used_hosts_); // their power is known once SimGrid has solved the first instant
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

double WorkloadManager::series_energy_j() const
{
  return impl_->series_estimate_;
}

double WorkloadManager::series_error_j() const
{
  return impl_->series_error_;
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
      {"energy_j", m.energy_ ? m.plugin_total_ : kNoFigure},
      {"jobs_energy_j", m.energy_ ? jobs_energy : kNoFigure},
      {"idle_energy_j", m.energy_ ? m.idle_energy_ : kNoFigure},
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
        << format_plain(j.submit_s) << "," << j.resources << "," << (req ? format_plain(*req) : "-1") << ","
        << (r.state == FinalState::success ? 1 : 0) << "," << to_string(r.state) << ","
        << (started ? format_plain(r.start_s) : "-1") << "," << format_plain(exec) << ","
        << (started ? format_plain(r.finish_s) : "-1") << "," << (started ? format_plain(r.start_s - j.submit_s) : "-1")
        << "," << format_plain(turn) << "," << (exec > 0 ? format_plain(turn / exec) : "-1") << ","
        << format_intervals(r.cores) << "," << (m.energy_ ? format_plain(r.energy_j) : "") << ",\n";
    }
    f.commit();
    out.emplace_back((dir / "jobs.csv").string(), "one line per job, Batsim v4 out_jobs.csv columns");
  }
  auto figures = this->figures();
  {
    std::ostringstream ss;
    json::Writer w(ss);
    w.begin_object();
    for (const auto& [k, v] : figures) {
      if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        w.field(k, static_cast<int64_t>(v)); // counts read as counts
      else
        w.field(k, v);
    }
    w.end_object();
    write_file_atomically(dir / "schedule.json", ss.str());
    std::string header, row;
    for (const auto& [k, v] : figures) {
      header += (header.empty() ? "" : ",") + k;
      row += (row.empty() ? "" : ",") + format_plain(v);
    }
    write_file_atomically(dir / "schedule.csv", header + "\n" + row + "\n");
    out.emplace_back((dir / "schedule.json").string(), "schedule summary (also schedule.csv, one row)");
  }
  {
    AtomicFile f(dir / "machine_states.csv");
    f.stream() << "time,flops_in_use,busy_cores,idle_cores,queued_jobs,running_jobs\n";
    for (const auto& s : m.machine_)
      f.stream() << format_plain(s.t) << "," << format_plain(s.flops_in_use) << "," << s.busy_cores << ","
                 << s.free_cores << "," << s.queued << "," << s.running << "\n";
    f.commit();
    out.emplace_back((dir / "machine_states.csv").string(), "cores in use and queue size after every event");
  }
  {
    AtomicFile f(dir / "energy.csv");
    f.stream() << "time,energy_j\n";
    for (const auto& s : m.energy_series_)
      f.stream() << format_plain(s.t) << "," << format_plain(s.joules) << "\n";
    f.commit();
    out.emplace_back((dir / "energy.csv").string(), "energy consumed by the cores' hosts over time");
  }
  {
    AtomicFile f(dir / "pstate_changes.csv");
    f.stream() << "time,host,new_pstate,pstate_name\n";
    for (const auto& c : m.pstate_changes_) {
      std::string name = m.platform_ ? m.platform_->cpu_pstate_names[static_cast<size_t>(c.pstate)] : "";
      f.stream() << format_plain(c.t) << "," << m.r_.host_names[c.host] << "," << c.pstate << "," << name << "\n";
    }
    f.commit();
    out.emplace_back((dir / "pstate_changes.csv").string(), "host P-state changes");
  }
  {
    AtomicFile f(dir / "overutilization.csv");
    f.stream() << "processor,first_core,start,end,peak_demand_gbps,capacity_gbps\n";
    for (const auto& s : m.spans_)
      f.stream() << s.processor << "," << m.r_.processors[s.processor].first_core << "," << format_plain(s.start) << ","
                 << format_plain(s.end) << "," << format_plain(s.peak_demand_gbps) << ","
                 << format_plain(m.r_.processors[s.processor].mem_bw_gbps) << "\n";
    f.commit();
    out.emplace_back((dir / "overutilization.csv").string(), "memory-bandwidth over-utilization spans per processor");
  }
  return out;
}

} // namespace sgai::batch
