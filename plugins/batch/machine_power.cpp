/* The workload manager's machine power switching: machines' power states, switches off and on,
 * what the energy policy sees and decides. */
#include "plugins/batch/machine_power.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/batch/energy_ledger.hpp"
#include "plugins/batch/interference.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <stdexcept>

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

namespace {
} // namespace

MachinePower::MachinePower(const scheduling::Resources& r, const HostMap& hosts, const scheduling::ClusterState& state,
                           scheduling::Scheduler& sched, History& hist, Interference& pstates, ExecutorPool& pool)
    : r_(r)
    , hosts_(hosts)
    , state_(state)
    , sched_(sched)
    , hist_(hist)
    , pstates_(pstates)
    , pool_(pool)
{
}

void MachinePower::bind(EnergyLedger& ledger)
{
  ledger_ = &ledger;
  mstate_.assign(hosts_.sg.size(), scheduling::MachineState::idle);
  state_since_.assign(hosts_.sg.size(), sg4::Engine::get_clock());
  in_state_[static_cast<size_t>(scheduling::MachineState::idle)] = static_cast<uint32_t>(hosts_.used.size());
  hist_.machine_count                                            = static_cast<uint32_t>(hosts_.used.size());
  host_machine_.assign(hosts_.sg.size(), 0);
  for (uint32_t k = 0; k < hosts_.used.size(); k++)
    host_machine_[hosts_.used[k]] = k;
}

std::vector<MachinePower::Scripted> MachinePower::bind_power(const ManagerConfig& config, const std::string& source,
                                                             bool energy)
{
  config_                 = &config;
  switching_              = true;
  const std::string& file = config.platform_file.empty() ? source : config.platform_file;
  const char* why         = config.power ? "the energy policy switches machines off and on" : "switches are requested";
  sleep_ps_.assign(hosts_.sg.size(), scheduling::SleepPStates{});
  compute_ps_.assign(hosts_.sg.size(), 0);
  wakable_at_.assign(hosts_.sg.size(), 0);
  on_at_.assign(hosts_.sg.size(), 0);
  switched_at_.assign(hosts_.sg.size(), 0);
  cores_per_machine_ = std::numeric_limits<uint32_t>::max();
  for (uint32_t h : hosts_.used) {
    sg4::Host* host    = hosts_.sg[h];
    cores_per_machine_ = std::min(cores_per_machine_, static_cast<uint32_t>(hosts_.cores[h].size()));
    if (not energy && host->get_property("wattage_per_state") == nullptr)
      throw InputError(file, "host " + quote(host->get_name()),
                       std::string("no wattage_per_state, and ") + why +
                           ": the energy of a sleeping machine needs a power model");
    const char* sp = host->get_property("sleep_pstates");
    if (sp == nullptr)
      throw InputError(file, "host " + quote(host->get_name()),
                       std::string("no sleep_pstates property (Batsim's \"sleep:off:on\" P-states), and ") + why);
    try {
      sleep_ps_[h] = scheduling::parse_sleep_pstates(sp).front();
    } catch (const std::invalid_argument& e) {
      throw InputError(file, "host " + quote(host->get_name()), std::string("sleep_pstates: ") + e.what());
    }
    int n = static_cast<int>(host->get_pstate_count());
    for (int ps : {sleep_ps_[h].sleep, sleep_ps_[h].off, sleep_ps_[h].on})
      if (ps >= n)
        throw InputError(file, "host " + quote(host->get_name()),
                         "sleep_pstates '" + std::string(sp) + "' names P-state " + std::to_string(ps) +
                             " but the host has " + std::to_string(n));
    compute_ps_[h] = config.power ? config.power->pstate_compute : pstates_.pstate(h);
    if (compute_ps_[h] >= n)
      throw InputError(config.power_source, "at /pstate_compute",
                       "pstate_compute " + std::to_string(compute_ps_[h]) + " but host " + quote(host->get_name()) +
                           " has " + std::to_string(n) + " P-states");
    if (config.power && config.power->pstate_sleep != sleep_ps_[h].sleep)
      throw InputError(config.power_source, "at /pstate_sleep",
                       "pstate_sleep " + std::to_string(config.power->pstate_sleep) + " but host " +
                           quote(host->get_name()) + " sleeps in P-state " + std::to_string(sleep_ps_[h].sleep) +
                           " (its sleep_pstates)");
  }
  std::vector<Scripted> scripted;
  for (const auto& sw : config.switches) {
    auto it =
        std::find_if(hosts_.used.begin(), hosts_.used.end(), [&](uint32_t h) { return r_.host_names[h] == sw.host; });
    if (it == hosts_.used.end())
      throw InputError(config.power_source, "", "switch of host " + quote(sw.host) + ", which runs no jobs here");
    scripted.push_back({sw.t, *it, sw.on});
  }
  if (config.power) {
    ensured_sleep_ = scheduling::ensured_sleep_time(*config.power);
    power_ = std::make_unique<scheduling::PowerPolicy>(*config.power, static_cast<uint32_t>(hosts_.used.size()));
  }
  return scripted;
}

uint32_t MachinePower::held_cores() const
{
  uint32_t held = 0;
  for (size_t k = 2; k < 5; k++)
    held += in_state_[k] * (switching_ ? cores_per_machine_ : 0);
  return held;
}

void MachinePower::set_mstate(uint32_t h, scheduling::MachineState s, double now)
{
  scheduling::MachineState old = mstate_[h];
  if (old == s)
    return;
  hist_.time_in_state[static_cast<size_t>(old)] += now - state_since_[h];
  in_state_[static_cast<size_t>(old)]--;
  in_state_[static_cast<size_t>(s)]++;
  state_since_[h] = now;
  mstate_[h]      = s;
}

void MachinePower::update_mstate(uint32_t h, double now)
{
  if (mstate_[h] != scheduling::MachineState::idle && mstate_[h] != scheduling::MachineState::computing)
    return;
  bool busy = false;
  for (uint32_t c : hosts_.cores[h])
    if (state_.owner(c) < kHoldKey) { // (free: kNoJob; held for a switch: a hold key)
      busy = true;
      break;
    }
  set_mstate(h, busy ? scheduling::MachineState::computing : scheduling::MachineState::idle, now);
}

void MachinePower::set_host_pstate(uint32_t h, int ps, double now)
{
  pstates_.set(h, ps, now);
  ledger_->observe({h});
}

/** A switch is one flop in the virtual P-state (Batsim's src/pstate.cpp), on an executor. */
void MachinePower::launch_switch(uint32_t h)
{
  switches_in_flight_++;
  ExecutorPool::Chunk c{kPowerOwner, h, {}};
  c.items.emplace_back(ExecSpec{{h}, {1.0}, {}, 1}, 0);
  pool_.run(std::move(c));
}

void MachinePower::require_state(uint32_t h, double now, scheduling::MachineState wanted, const char* way) const
{
  if (mstate_[h] != wanted)
    throw RunError("cannot switch host " + r_.host_names[h] + " " + way + " at " + format_number(now) + " s: it is " +
                   to_string(mstate_[h]) + " (only " +
                   (wanted == scheduling::MachineState::idle ? "an idle" : "a sleeping") + " machine can be switched " +
                   way + ")");
}

void MachinePower::switch_off(uint32_t h, double now)
{
  require_state(h, now, scheduling::MachineState::idle, "off");
  set_mstate(h, scheduling::MachineState::switching_off, now);
  switched_at_[h] = now;
  sched_.hold(kHoldKey + h, hosts_.cores[h], now, kInf);
  set_host_pstate(h, sleep_ps_[h].off, now);
  hist_.machine_switches++;
  launch_switch(h);
}

void MachinePower::switch_on(uint32_t h, double now)
{
  require_state(h, now, scheduling::MachineState::sleeping, "on");
  set_mstate(h, scheduling::MachineState::switching_on, now);
  switched_at_[h] = now;
  set_host_pstate(h, sleep_ps_[h].on, now);
  on_at_[h] = now + 1 / hosts_.sg[h]->get_speed();
  // the scheduler plans with the policy's switch-on time, as batsched does (its switch-on "fake
  // job"; batsched adds its 5 s delay to it as to every job's requested time, a shift that
  // changes no decision), scripted switches with the real one
  sched_.hold_until(kHoldKey + h, config_->power ? now + config_->power->time_switch_on : on_at_[h]);
  hist_.machine_switches++;
  launch_switch(h);
}

void MachinePower::set_compute_pstate(uint32_t h, int ps, double now)
{
  compute_ps_[h] = ps;
  if (awake(h))
    set_host_pstate(h, ps, now);
}

bool MachinePower::switches_done(double now)
{
  std::vector<uint32_t>& switched = just_switched_;
  switched.clear();
  switched.swap(power_done_);
  // A switch's flop is done: the machine sleeps, or is on again (its cores back to the scheduler).
  for (uint32_t h : switched) {
    switches_in_flight_--;
    if (mstate_[h] == scheduling::MachineState::switching_off) {
      set_host_pstate(h, sleep_ps_[h].sleep, now);
      set_mstate(h, scheduling::MachineState::sleeping, now);
      wakable_at_[h] = now + ensured_sleep_;
    } else if (mstate_[h] == scheduling::MachineState::switching_on) {
      set_host_pstate(h, compute_ps_[h], now);
      set_mstate(h, scheduling::MachineState::idle, now);
      sched_.release(kHoldKey + h);
    }
  }
  return not switched.empty();
}

void MachinePower::apply(const scheduling::PowerDecision& d, double now)
{
  for (uint32_t m : d.switch_off)
    switch_off(hosts_.used[m], now);
  for (uint32_t m : d.switch_on)
    switch_on(hosts_.used[m], now);
  hist_.grouped_switches += (d.switch_off.empty() ? 0 : 1) + (d.switch_on.empty() ? 0 : 1);
}

void MachinePower::first_submission(double now)
{
  if (power_ && not first_submitted_) {
    first_submitted_ = true;
    power_->first_submission(now);
  }
}

std::vector<scheduling::WaitingJob> MachinePower::waiting() const
{
  std::vector<scheduling::WaitingJob> q;
  for (const auto& j : sched_.queue())
    q.push_back({(j.demand.cores + cores_per_machine_ - 1) / cores_per_machine_, j.requested_time_s});
  return q;
}

std::vector<scheduling::MachineView> MachinePower::machines() const
{
  std::vector<scheduling::MachineView> m(hosts_.used.size());
  for (size_t k = 0; k < hosts_.used.size(); k++) {
    uint32_t h       = hosts_.used[k];
    m[k].state       = mstate_[h];
    m[k].free_at     = 0;
    m[k].wakable_at  = wakable_at_[h];
    m[k].on_at       = on_at_[h];
    m[k].switched_at = switched_at_[h];
  }
  return m;
}

} // namespace sgai::batch
