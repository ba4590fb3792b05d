#include "plugins/batch/manager.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/batch/manager_impl.hpp"
#include "plugins/sim/clock.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/config.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <limits>
#include <map>
#include <memory>
#include <queue>
#include <set>
#include <stdexcept>
#include <unistd.h>
#include <unordered_map>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_batch, sgai, "sgai workload manager");

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

namespace {
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
  case FinalState::killed:
    return "COMPLETED_KILLED";
  }
  return "PENDING";
}

// -------------------------------------------------------------------------------------------- Impl

namespace {
/** The scheduler's configuration, with Slurm's setup resolved against the platform and workload. */
scheduling::SchedulerConfig with_slurm(scheduling::SchedulerConfig c, const workload::Workload& w,
                                       const scheduling::Resources& r)
{
  if (c.backfill != scheduling::Backfill::slurm || c.slurm)
    return c;
  if (not c.slurm_conf)
    throw std::logic_error("--backfill slurm without its slurm.conf");
  std::vector<scheduling::SlurmJobKeys> keys;
  keys.reserve(w.jobs.size());
  for (const auto& j : w.jobs)
    keys.push_back({j.id, j.user, j.group, j.partition, j.qos});
  c.slurm = scheduling::make_slurm_setup(*c.slurm_conf, c.slurm_associations.get(), r, keys, w.source);
  return c;
}
} // namespace

WorkloadManager::Impl::Impl(const workload::Workload& w, scheduling::Resources resources,
                            const platform::Platform* platform, const ManagerConfig& config)
    : own_(config.submitters > 0 ? w : workload::Workload{})
    , w_(config.submitters > 0 ? own_ : w)
    , n_given_(w.jobs.size())
    , open_submitters_(config.submitters)
    , r_(std::move(resources))
    , platform_(platform)
    , cfg_(config)
    , state_(r_)
    , sched_(state_, with_slurm(config.scheduler, w_, r_))
    , job_energy_(w.jobs.size(), 0.0)
    , pool_(*this, hosts_)
    , pstates_(r_, state_, hosts_, hist_, platform)
    , power_(r_, hosts_, state_, sched_, hist_, pstates_, pool_)
{
  if (r_.cores.empty())
    throw InputError(w.source, "", "the platform has no CPU cores to run jobs on");
  if (w.jobs.size() >= kHoldKey)
    throw InputError(w.source, "", "more than 2^31 jobs");
  if (cfg_.dynamic_jobs && (cfg_.socket_endpoint.empty() || cfg_.submitters == 0))
    throw std::logic_error("dynamic jobs need an external scheduler and a submitter for its registrations");
  if (not cfg_.socket_endpoint.empty()) {
    if (cfg_.decide || cfg_.power || not cfg_.switches.empty())
      throw UsageError("an external scheduler (--socket-endpoint) decides alone: no learning agent, energy policy "
                       "or scripted switches with it");
    ext_ = std::make_unique<External>(cfg_.socket_endpoint, cfg_.socket_timeout_s);
  }
  if (cfg_.power && cfg_.scheduler.backfill != scheduling::Backfill::easy)
    throw InputError(cfg_.power_source, "",
                     std::string("the energy policy ") + cfg_.power->variant +
                         " runs with EASY backfilling, as batsched's does (--backfill easy), not with " +
                         to_string(cfg_.scheduler.backfill));
  // Every job's profile must have a kind that can run it: said before anything runs.
  for (const auto& j : w_.jobs) {
    auto why = cannot_run(w_, j, r_);
    if (not why.empty())
      throw InputError(w_.source, "", "job " + quote(j.id) + ": " + why);
  }
  hist_.records.resize(w.jobs.size());
  hosts_.cores.resize(r_.host_names.size());
  hosts_.processors.resize(r_.host_names.size());
  hosts_.of_processor.resize(r_.processors.size());
  for (uint32_t c = 0; c < r_.core_count(); c++) {
    const scheduling::Core& core = r_.cores[c];
    hosts_.cores[core.host].push_back(c);
    auto& hp = hosts_.processors[core.host];
    if (hp.empty() || hp.back() != core.processor)
      hp.push_back(core.processor);
    auto& ph = hosts_.of_processor[core.processor];
    if (ph.empty() || ph.back() != core.host)
      ph.push_back(core.host);
  }
  for (uint32_t h = 0; h < hosts_.cores.size(); h++)
    if (not hosts_.cores[h].empty())
      hosts_.used.push_back(h);
  if (platform_ && cfg_.interference && not pstates_.enable(platform_->cpu_pstate_names))
    XBT_WARN("The platform's CPU P-states are not named idle, active and membw_limited: no interference model");
}

void WorkloadManager::Impl::bind_hosts()
{
  hosts_.sg.assign(r_.host_names.size(), nullptr);
  bool energy = true;
  for (uint32_t h : hosts_.used) {
    hosts_.sg[h] = sg4::Host::by_name_or_null(r_.host_names[h]);
    if (hosts_.sg[h] == nullptr)
      throw RunError("host " + r_.host_names[h] + " of the resource hierarchy is not in the simulation");
    if (hosts_.sg[h]->get_property("wattage_per_state") == nullptr)
      energy = false;
  }
  for (uint32_t h : r_.storage_hosts) // storage profiles' transfers; their energy is not the jobs'
    hosts_.sg[h] = sg4::Host::by_name(r_.host_names[h]);
  // Without energy (a host lacks wattage_per_state) the energy figures are empty; the run's
  // summary says why, once.
  ledger_ = std::make_unique<EnergyLedger>(hosts_.sg, job_energy_);
  if (not energy)
    ledger_->disable();
  // Under the ptask model a job's rate follows the network: SimGrid changes hosts' power on its
  // own; so does a host switched off or on by a state profile of the platform. Then every
  // energy reading goes to the plugin.
  if (simgrid::config::get_value<std::string>("host/model") == "ptask_L07")
    ledger_->read_always();
  sg4::Host::on_state_change_cb([flag = host_state_changed_](const sg4::Host&) { *flag = true; });
  hist_.energy = energy;
  pstates_.bind();
  power_.bind(*ledger_);
  // An external scheduler may switch machines when every one can sleep (Batsim's sleep_pstates).
  bool can_sleep = ext_ != nullptr;
  for (uint32_t h : hosts_.used)
    can_sleep = can_sleep && hosts_.sg[h]->get_property("sleep_pstates") != nullptr;
  if (cfg_.power || not cfg_.switches.empty() || can_sleep)
    for (const auto& sw : power_.bind_power(cfg_, w_.source, energy))
      timed_.push({sw.t, seq_++, sw.host, 0, false, static_cast<int8_t>(sw.on ? 1 : -1)});
}

std::vector<scheduling::MachineView> WorkloadManager::Impl::machines() const
{
  std::vector<scheduling::MachineView> m = power_.machines();
  for (const auto& [job, run] : running_) {
    const auto& rec = hist_.records[job];
    double end      = rec.start_s + workload::requested_time(w_, w_.jobs[job]).value_or(kInf);
    for (uint32_t c : rec.cores) {
      auto& v   = m[power_.machine_of(r_.cores[c].host)];
      v.free_at = std::max(v.free_at, end);
    }
  }
  return m;
}

// ---------------------------------------------------------------------------------- energy sharing

void WorkloadManager::Impl::recompute_context(uint32_t h)
{
  // (job, cores) pairs, by job: few jobs share a host, a linear search is cheapest
  std::vector<std::pair<uint32_t, double>>& weights = weights_;
  weights.clear();
  auto add = [&](uint32_t c) {
    uint32_t job = state_.owner(c);
    if (job >= kHoldKey) // free, or held for a reservation
      return;
    if (not weights.empty() && weights.back().first == job) { // (a host's cores mostly go together)
      weights.back().second += 1;
      return;
    }
    for (auto& [j, w] : weights)
      if (j == job) {
        w += 1;
        return;
      }
    weights.emplace_back(job, 1.0);
  };
  for (uint32_t c : hosts_.cores[h])
    add(c);
  if (weights.empty())
    for (uint32_t p : hosts_.processors[h]) {
      const scheduling::Processor& pr = r_.processors[p];
      for (uint32_t c = pr.first_core; c < pr.first_core + pr.cores; c++)
        add(c);
    }
  std::sort(weights.begin(), weights.end());
  ledger_->set_context(h, weights);
}

std::vector<uint32_t> WorkloadManager::Impl::affected_hosts(const std::vector<uint32_t>& cores) const
{
  // (a mark per host, not a std::set: a wide job touches thousands)
  std::vector<uint32_t> hosts;
  if (host_mark_.size() != hosts_.cores.size())
    host_mark_.assign(hosts_.cores.size(), 0);
  uint32_t last = UINT32_MAX;
  for (uint32_t c : cores) {
    uint32_t p = r_.cores[c].processor;
    if (p == last) // (a run of cores of one processor: its hosts once)
      continue;
    last = p;
    for (uint32_t h : hosts_.of_processor[p])
      if (not host_mark_[h]) {
        host_mark_[h] = 1;
        hosts.push_back(h);
      }
  }
  for (uint32_t h : hosts)
    host_mark_[h] = 0;
  if (not std::is_sorted(hosts.begin(), hosts.end()))
    std::sort(hosts.begin(), hosts.end());
  return hosts;
}

// ---------------------------------------------------------------------------------- job life cycle

scheduling::Demand WorkloadManager::Impl::demand_of(uint32_t job) const
{
  const auto& j = w_.jobs[job];
  const auto& p = w_.profile_of(j);
  return scheduling::Demand{j.resources, p.mem_mb.value_or(0), p.mem_bw_gbps.value_or(0)};
}

void WorkloadManager::Impl::launch(const scheduling::Decision& d, double now)
{
  JobRecord& rec = hist_.records[d.job];
  rec.state      = FinalState::running;
  rec.start_s    = now;
  rec.cores      = d.cores;
  const auto& j  = w_.jobs[d.job];
  Placement where;
  where.resources = &r_;
  for (uint32_t c : d.cores)
    where.core_hosts.push_back(r_.cores[c].host);
  Run& run                    = running_[d.job];
  run.profile                 = start_profile(source_of(d.job), profile_to_run(d.job), where);
  std::optional<double> limit = j.walltime_s;
  if (const auto* slurm = sched_.slurm()) // Slurm ends a job at its time limit (TIMEOUT)
    if (double l = slurm->limit_of(d.job); l < kInf)
      limit = limit ? std::min(*limit, l) : l;
  if (limit)
    timed_.push({now + *limit, seq_++, d.job, 0, true});
  next_stage(d.job, run, now);
}

bool WorkloadManager::Impl::next_stage(uint32_t job, Run& run, double now)
{
  run.execs.clear();
  run.on_hosts.clear();
  auto stage = run.profile->next();
  if (not stage)
    return false;
  run.stage++;
  run.ok = true;
  if (stage->delay_s >= 0) {
    timed_.push({now + stage->delay_s, seq_++, job, run.stage, false});
    return true;
  }
  std::vector<uint32_t> all_hosts;
  for (auto& spec : stage->execs) {
    run.on_hosts.emplace_back();
    for (uint32_t h : spec.hosts)
      if (not hosts_.cores[h].empty()) // (a storage host is not the manager's: its energy is not read)
        run.on_hosts.back().push_back(h);
    all_hosts.insert(all_hosts.end(), run.on_hosts.back().begin(), run.on_hosts.back().end());
  }
  run.pending = stage->execs.size();
  if (run.pending == 0) { // nothing to compute: the stage is over at once
    ended_.push_back({job, run.stage, true});
    return true;
  }
  // The executions go to the executor actors in chunks of at most kChunk: each executor starts
  // its chunk and waits for it (SimGrid 3.32 searches an actor's list of activities at every
  // completion: bounded lists keep a completion O(kChunk), whatever the width of the job).
  run.execs.assign(stage->execs.size(), nullptr);
  for (size_t first = 0; first < stage->execs.size(); first += ExecutorPool::kChunk) {
    ExecutorPool::Chunk c{job, run.stage, {}};
    for (size_t i = first; i < std::min(stage->execs.size(), first + ExecutorPool::kChunk); i++)
      c.items.emplace_back(std::move(stage->execs[i]), static_cast<uint32_t>(i));
    pool_.run(std::move(c));
  }
  // The hosts draw more from now on (the running total of energy follows every power change).
  ledger_->observe(all_hosts);
  return true;
}

bool WorkloadManager::Impl::wanted(const ExecutorPool::Chunk& c)
{
  if (c.job == kPowerOwner)
    return true;
  auto it = running_.find(c.job);
  return it != running_.end() && it->second.stage == c.stage;
}

void WorkloadManager::Impl::made(const ExecutorPool::Chunk& c, uint32_t index, const sg4::ExecPtr& e)
{
  if (c.job == kPowerOwner) {
    owner_[e.get()] = {c.job, c.stage}; // (the host)
  } else {
    owner_[e.get()]                           = {c.job, index};
    running_.find(c.job)->second.execs[index] = e;
  }
}

void WorkloadManager::Impl::ended(const sg4::Activity& a, bool ok)
{
  auto it = owner_.find(&a);
  if (it == owner_.end())
    return;
  const Owner o = it->second;
  owner_.erase(it);
  if (ok && o.job != kPowerOwner)
    if (auto r = running_.find(o.job); r != running_.end() && r->second.pending > 1) {
      r->second.pending--;
      double now = sg4::Engine::get_clock();
      for (uint32_t h : r->second.on_hosts[o.index])
        quiet_.push_back({h, now});
      return;
    }
  execs_done_.push_back({o, ok});
  wake();
}

void WorkloadManager::Impl::hear_quiet_changes()
{
  for (const auto& q : quiet_)
    ledger_->changed(q.host, q.t);
  quiet_.clear();
}

void WorkloadManager::Impl::exec_done(const Owner& o, bool ok)
{
  if (o.job == kPowerOwner) {
    power_.switch_ended(o.index);
    return;
  }
  auto it = running_.find(o.job);
  if (it == running_.end())
    return;
  Run& run = it->second;
  ledger_->observe(run.on_hosts[o.index]); // these hosts idle now while the job holds them
  if (not ok)
    run.ok = false; // a host failed under it
  if (--run.pending == 0)
    ended_.push_back({o.job, run.stage, run.ok});
}

void WorkloadManager::Impl::stop()
{
  stopped_ = true;
  wake();
  pool_.cancel_all();
}

void WorkloadManager::Impl::wake()
{
  if (waiting_ && not wake_posted_) {
    wake_posted_ = true;
    wake_->release();
  }
}

void WorkloadManager::Impl::end_job(uint32_t job, FinalState final_state, double now)
{
  auto it = running_.find(job);
  if (it == running_.end())
    return;
  Run& run = it->second;
  for (auto& e : run.execs)
    if (owner_.erase(e.get()) > 0) // still running: killed (its completion is not ours any more)
      e->cancel();
  running_.erase(it);
  hist_.records[job].state    = final_state;
  hist_.records[job].finish_s = now;
  sched_.release(job, now);
}

// ---------------------------------------------------------------------------------- the event loop

void WorkloadManager::Impl::run_actor()
{
  if (stopped_)
    return;
  try {
    // Batsim's scheduler decides once when the simulation begins, before any job: an energy
    // policy may switch idle machines off then
    if (auto* policy = power_.policy())
      power_.apply(policy->after_step(sg4::Engine::get_clock(), {}, machines()), sg4::Engine::get_clock());
    if (ext_)
      external_begin();
    if (not error_.empty())
      return;
    if (cfg_.submitters > 0) // a submission may come first
      wait_until(next_date());
    else if (double first = next_date(); first < kInf) // the first submission or scripted switch
      sim::sleep_until(first);
    if (stopped_)
      return;
    settle_instant();
    while (true) {
      step();
      // (switches still under way when the last job ends are waited for, as Batsim does)
      if ((finished_ && power_.switches_in_flight() == 0) || not error_.empty())
        return;
      if (not ended_.empty() || not execs_done_.empty()) // stages without work end at once
        continue;
      if (ext_ && not ext_->to_kill.empty()) // kills asked at this instant
        continue;
      if (redecide_) { // a decision to start nothing, with no submission to come: asked again now
        redecide_ = false;
        continue;
      }
      double now = sg4::Engine::get_clock();
      drop_stale_timers();
      double next = next_date();
      if (next == kInf && running_.empty() && power_.switches_in_flight() == 0) {
        if (open_submitters_ == 0) {
          error_ = stuck_message(now);
          return;
        }
        if (ext_ && cfg_.dynamic_jobs && open_submitters_ == 1 && not others_alive()) {
          error_ = "scheduler at " + ext_->socket.endpoint() +
                   ": dynamic jobs are enabled and nothing is left to happen, but the scheduler never sent NOTIFY "
                   "registration_finished (at " +
                   format_number(now) + " s)";
          return;
        }
        if (not others_alive()) { // nobody left to submit: said rather than deadlocked
          error_ = w_.source + ": the workload manager waits for " + std::to_string(open_submitters_) + " of its " +
                   std::to_string(cfg_.submitters) +
                   " submitters to end their submissions, and no other actor is left to submit (at " +
                   format_number(now) + " s)";
          return;
        }
      }
      wait_until(next);
      if (stopped_)
        return;
      settle_instant();
    }
  } catch (const std::exception& e) { // an exception escaping an actor would abort the run
    error_ = w_.source + ": the workload manager stopped: " + e.what();
  }
}

bool WorkloadManager::Impl::others_alive()
{
  const sg4::Actor* self = sg4::Actor::self();
  for (const auto& a : sg4::Engine::get_instance()->get_all_actors())
    if (a.get() != self && not a->is_daemon())
      return true;
  return false;
}

void WorkloadManager::Impl::wait_until(double t)
{
  if (not arrived_.empty()) // submitted before the manager's actor first ran
    return;
  double now   = sg4::Engine::get_clock();
  waiting_     = true;
  wake_posted_ = false;
  if (t == kInf)
    wake_->acquire();
  else if (t > now)
    wake_->acquire_timeout(t - now);
  waiting_ = false;
}

void WorkloadManager::Impl::settle_instant()
{
  sg4::this_actor::exec_init(0)->wait(); // (execute(0) would also set a priority: one simcall more)
  hear_quiet_changes();
  // That execution touched the manager's host: the power SimGrid reports for it is only right
  // after the next solve, so its energy is read, not extrapolated, at the next sample.
  ledger_->observe(manager_host_);
}

void WorkloadManager::Impl::drop_stale_timers()
{
  while (not timed_.empty()) {
    const Timed& t = timed_.top();
    if (t.script != 0)
      return;
    auto it = running_.find(t.job);
    if (it != running_.end() && (t.walltime || it->second.stage == t.stage))
      return;
    timed_.pop();
  }
}

double WorkloadManager::Impl::next_date() const
{
  double next = kInf;
  if (next_submit_ < n_given_)
    next = w_.jobs[next_submit_].submit_s;
  if (not timed_.empty())
    next = std::min(next, timed_.top().t);
  next = std::min(next, sched_.next_wake(sg4::Engine::get_clock())); // Slurm's periodic passes
  if (power_.policy() && done_ < w_.jobs.size())
    next = std::min(next, power_.policy()->next_stage());
  if (ext_) {
    if (not ext_->deferred.empty())
      next = std::min(next, ext_->deferred.front().timestamp);
    if (not ext_->pending.empty())
      next = std::min(next, ext_->ready_at);
  }
  return next;
}

void WorkloadManager::Impl::step()
{
  Instant in{sg4::Engine::get_clock(), 0, {}, {}, false};
  hear_quiet_changes();
  if (*host_state_changed_ && not ledger_always_read_) { // from now on, every reading is the plugin's
    ledger_always_read_ = true;
    ledger_->read_always();
    ledger_->observe(hosts_.used);
  }
  in.n = w_.jobs.size();
  std::vector<ExecDone> execs;
  execs.swap(execs_done_);
  for (const auto& e : execs)
    exec_done(e.owner, e.ok);
  in.happened = power_.switches_done(in.now);
  if (ext_ && in.happened)
    external_switched(in.now);
  // Every change of this instant to the hosts is known by now (executions that ended, switches;
  // the manager's own come below, each settled first): a host changed before it holds the power
  // SimGrid solved since, read now, and is settled from it below rather than by reading the
  // plugin (a simcall per host).
  ledger_->refresh();
  // A monitoring stage acts before the jobs that ended or came at this instant are heard (as
  // batsched's requested call does).
  if (auto* policy = power_.policy(); policy && in.now >= policy->next_stage() && done_ < in.n) {
    power_.apply(policy->stage(in.now, power_.waiting(), machines(), false), in.now);
    in.happened = true;
  }
  std::vector<StageEnd> over;
  over.swap(ended_);
  for (const auto& e : over)
    stage_over(in, e.job, e.stage, e.ok);
  if (not fire_timers(in))
    return;
  if (ext_)
    take_kills(in);
  std::vector<uint32_t> touched_procs; // (sorted and made unique by update_processors)
  std::vector<uint32_t> hosts_before = end_jobs(in, touched_procs);
  queue_arrivals(in);
  // Machines promised to sleep go to sleep as soon as they are free, before a job can take them.
  if (auto* policy = power_.policy())
    power_.apply(policy->promised(in.now, power_.waiting(), machines()), in.now);

  const bool deciding                         = cfg_.decide && sched_.queue_size() > 0;
  std::vector<scheduling::Decision> decisions = ext_ ? external_decide(in) : decide(in.now, deciding);
  if (not error_.empty())
    return;
  if (not decisions.empty())
    take_cores(decisions, hosts_before, touched_procs);
  for (uint32_t h : hosts_before) {
    recompute_context(h);
    power_.update_mstate(h, in.now);
  }
  pstates_.update_processors(touched_procs, power_, in.now);
  ledger_->observe(hosts_before); // ended jobs, P-state changes (started executions report their own)
  for (const auto& d : decisions)
    launch(d, in.now);
  if (auto* policy = power_.policy(); policy && done_ < in.n && (in.happened || not in.ending.empty()))
    power_.apply(policy->after_step(in.now, power_.waiting(), machines()), in.now);

  ledger_->refresh(); // every change of this instant is known
  if (deciding && cfg_.decided)
    cfg_.decided(decision_point(in.now));
  sample(in.now);
  progress(in.now, false);
  if (done_ == in.n && running_.empty() && not finished_ && no_more_submissions()) {
    // with an external scheduler, Batsim ends once no machine switches and no call is due
    if (ext_ && (power_.switches_in_flight() > 0 || ext_->calls > 0 || not ext_->pending.empty()))
      return;
    if (ext_ && not external_end(in.now))
      return;
    finish();
  }
}

void WorkloadManager::Impl::stage_over(Instant& in, uint32_t job, uint32_t stage, bool ok)
{
  auto it = running_.find(job);
  if (it == running_.end() || it->second.stage != stage || in.ends(job))
    return;
  if (not ok) {
    in.ending.push_back(job);
    in.ending_state.push_back(FinalState::failed);
  } else if (not next_stage(job, it->second, in.now)) {
    in.ending.push_back(job);
    in.ending_state.push_back(FinalState::success);
  }
}

bool WorkloadManager::Impl::fire_timers(Instant& in)
{
  while (not timed_.empty() && timed_.top().t <= in.now) {
    Timed t = timed_.top();
    timed_.pop();
    if (t.script == kCallTimer) {
      ext_->calls--;
      ext_->pending.requested_call(in.now);
      in.happened = true;
    } else if (t.script != 0) {
      // a scripted switch a machine cannot take ends the run with that error (said, not thrown:
      // an exception unwinding an actor's stack is what sanitizers cannot follow)
      scheduling::MachineState need =
          t.script > 0 ? scheduling::MachineState::sleeping : scheduling::MachineState::idle;
      if (power_.state(t.job) != need) {
        error_ = "cannot switch host " + r_.host_names[t.job] + (t.script > 0 ? " on" : " off") + " at " +
                 format_number(in.now) + " s: it is " + to_string(power_.state(t.job)) + " (only " +
                 (t.script > 0 ? "a sleeping machine can be switched on)" : "an idle machine can be switched off)");
        return false;
      }
      if (t.script > 0)
        power_.switch_on(t.job, in.now);
      else
        power_.switch_off(t.job, in.now);
    } else if (not t.walltime) {
      stage_over(in, t.job, t.stage, true);
    } else if (running_.count(t.job) && not in.ends(t.job)) {
      in.ending.push_back(t.job);
      in.ending_state.push_back(FinalState::walltime_reached);
    }
  }
  return true;
}

std::vector<uint32_t> WorkloadManager::Impl::end_jobs(const Instant& in, std::vector<uint32_t>& touched_procs)
{
  // The energy consumed up to now goes to the sharing contexts before the changes.
  std::vector<uint32_t> freed;
  for (uint32_t job : in.ending)
    freed.insert(freed.end(), hist_.records[job].cores.begin(), hist_.records[job].cores.end());
  auto hosts_before = affected_hosts(freed);
  ledger_->settle(hosts_before);
  pstates_.add_processors(freed, touched_procs);
  for (size_t i = 0; i < in.ending.size(); i++) {
    end_job(in.ending[i], in.ending_state[i], in.now);
    done_++;
  }
  if (ext_)
    external_ended(in);
  for (uint32_t h : hosts_before) // machines their jobs left are idle now (the energy policy sees it)
    power_.update_mstate(h, in.now);
  return hosts_before;
}

void WorkloadManager::Impl::queue_arrivals(Instant& in)
{
  std::vector<uint32_t> arrived;
  while (next_submit_ < n_given_ && w_.jobs[next_submit_].submit_s <= in.now)
    arrived.push_back(static_cast<uint32_t>(next_submit_++));
  if (not arrived_.empty()) {
    arrived.insert(arrived.end(), arrived_.begin(), arrived_.end());
    arrived_.clear();
  }
  for (uint32_t job : arrived) {
    const auto& j           = w_.jobs[job];
    scheduling::QueuedJob q = queued(job);
    if (ext_) {
      sched_.enqueue(q);
      external_submitted(job, in.now);
    } else if (not sched_.submit(q, in.now)) {
      hist_.records[job].state    = FinalState::rejected;
      hist_.records[job].finish_s = in.now;
      done_++;
      XBT_DEBUG("job %s rejected: it can never fit on the platform", j.id.c_str());
    }
    in.happened = true;
    power_.first_submission(in.now);
  }
}

std::vector<scheduling::Decision> WorkloadManager::Impl::decide(double now, bool deciding)
{
  bool start_nothing = false;
  if (deciding) {
    PolicyChoice c = cfg_.decide(decision_point(now));
    if (not c.job_policy.empty() || not c.resource_policy.empty())
      sched_.set_policies(c.job_policy, c.resource_policy); // (std::invalid_argument: the run stops, named)
    start_nothing = c.start_nothing;
    // no submission is left to bring the decision back: it is asked again at this instant
    redecide_ = start_nothing && no_more_submissions();
  }
  std::vector<scheduling::Decision> decisions;
  if (not start_nothing)
    decisions = sched_.step(now);
  return decisions;
}

void WorkloadManager::Impl::take_cores(const std::vector<scheduling::Decision>& decisions,
                                       std::vector<uint32_t>& hosts_before, std::vector<uint32_t>& touched_procs)
{
  std::vector<uint32_t> taken;
  for (const auto& d : decisions)
    taken.insert(taken.end(), d.cores.begin(), d.cores.end());
  std::vector<uint32_t> extra;
  for (uint32_t h : affected_hosts(taken))
    if (not std::binary_search(hosts_before.begin(), hosts_before.end(), h))
      extra.push_back(h);
  // Nothing has run on these cores yet: the energy since the last read still belongs to the
  // old contexts, unchanged at this instant.
  ledger_->settle(extra);
  pstates_.add_processors(taken, touched_procs);
  hosts_before.insert(hosts_before.end(), extra.begin(), extra.end());
}

// -------------------------------------------------------------------------------- the run's samples

DecisionPoint WorkloadManager::Impl::decision_point(double now) const
{
  return DecisionPoint{now,
                       &w_,
                       &r_,
                       &state_,
                       &sched_,
                       &hist_.records,
                       &hosts_.sg,
                       pstates_.flops_in_use(),
                       static_cast<uint32_t>(done_)};
}

std::string WorkloadManager::Impl::stuck_message(double now) const
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

void WorkloadManager::Impl::progress(double now, bool last)
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

void WorkloadManager::Impl::sample(double now)
{
  uint32_t held = power_.held_cores(); // cores of machines asleep or switching: not free, not busy
  MachineSample s{now,
                  pstates_.flops_in_use(),
                  r_.core_count() - state_.free_cores() - held,
                  state_.free_cores(),
                  sched_.queue_size(),
                  running_.size(),
                  power_.in_state()};
  auto& series = *hist_.series;
  series.machine(s);
  bool energy = ledger_->enabled() && series.wants(series_energy);
  bool again  = energy && series.last_energy_t() == now;
  if (energy && (again || now >= next_energy_sample_)) {
    double total = ledger_->total();
    if (cfg_.check_energy_series) { // read every host: the slow way the running total replaces
      double read = 0;
      for (uint32_t h : hosts_.used)
        read += sg_host_get_consumed_energy(hosts_.sg[h]);
      series_error_ = std::max(series_error_, std::fabs(read - total));
    }
    series.energy(now, total);
    next_energy_sample_ = now + cfg_.energy_period_s;
  }
}

void WorkloadManager::Impl::finish()
{
  finished_  = true;
  double now = sg4::Engine::get_clock();
  progress(now, true);
  pstates_.finish(now);
  if (ledger_->enabled()) {
    series_estimate_ = ledger_->total();
    ledger_->settle(hosts_.used);
    double total = 0;
    for (uint32_t h : hosts_.used)
      total += ledger_->read(h);
    hist_.plugin_total = total;
    hist_.idle_energy  = ledger_->idle_energy();
    if (std::fabs(series_estimate_ - total) > 1e-6 * std::max(1.0, total))
      XBT_WARN("energy time series drifted from the host_energy plugin: %.17g J estimated, %.17g J read",
               series_estimate_, total);
    hist_.series->energy(now, total);
  }
  for (size_t i = 0; i < hist_.records.size(); i++)
    hist_.records[i].energy_j = job_energy_[i];
  if (ext_) {
    hist_.scheduler_requests = ext_->socket.requests();
    hist_.scheduler_events   = ext_->decisions;
  }
}

// ------------------------------------------------------------------------------------ public API

WorkloadManager::WorkloadManager(const workload::Workload& w, scheduling::Resources resources,
                                 const platform::Platform* platform, const ManagerConfig& config)
    : impl_(std::make_unique<Impl>(w, std::move(resources), platform, config))
{
}

WorkloadManager::~WorkloadManager() = default;

void WorkloadManager::start()
{
  Impl* impl         = impl_.get();
  impl->hist_.series = std::make_unique<SeriesWriter>(impl->cfg_.series, impl->cfg_.series_dir);
  impl->bind_hosts();
  impl->ledger_->observe(impl->hosts_.used); // their power is known once SimGrid has solved the first instant
  impl->wake_         = sg4::Semaphore::create(0);
  impl->manager_host_ = {impl->hosts_.used.front()};
  if (impl->cfg_.submitters > 0) // a submitter's end may leave nobody to submit: the manager looks again
    sg4::Actor::on_termination_cb([alive = impl->alive_](const sg4::Actor&) {
      if (*alive != nullptr && (*alive)->open_submitters_ > 0)
        (*alive)->wake();
    });
  sg4::Actor::create("workload_manager", impl->hosts_.sg[impl->hosts_.used.front()], [impl]() { impl->run_actor(); });
}

bool WorkloadManager::needs_ptask_model(const workload::Workload& w)
{
  return std::any_of(w.jobs.begin(), w.jobs.end(),
                     [&w](const workload::Job& j) { return communicates(w, w.profile_of(j), j.resources); });
}

const workload::Workload& WorkloadManager::workload() const
{
  return impl_->w_;
}

const scheduling::Resources& WorkloadManager::resources() const
{
  return impl_->r_;
}

const std::vector<JobRecord>& WorkloadManager::jobs() const
{
  return impl_->hist_.records;
}

const std::string& WorkloadManager::error() const
{
  return impl_->error_;
}

bool WorkloadManager::finished() const
{
  return impl_->finished_;
}

uint32_t WorkloadManager::submit(std::shared_ptr<const workload::Workload> from, size_t job)
{
  return impl_->submit(std::move(from), job);
}

void WorkloadManager::end_submissions()
{
  impl_->end_submissions();
}

void WorkloadManager::stop()
{
  impl_->stop();
}

double WorkloadManager::idle_energy_j() const
{
  return impl_->hist_.idle_energy;
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
  return schedule_figures(impl_->hist_, impl_->w_, impl_->r_);
}

std::vector<std::pair<std::string, std::string>> WorkloadManager::write_outputs(const std::filesystem::path& dir)
{
  return write_history(impl_->hist_, impl_->w_, impl_->r_, dir);
}

} // namespace sgai::batch
