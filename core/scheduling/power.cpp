#include "core/scheduling/power.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <stdexcept>

namespace sgai::scheduling {

namespace {
constexpr double kHorizon = 1e19; ///< batsched's infinite horizon: the queue cannot be poured
} // namespace

const char* to_string(MachineState s)
{
  switch (s) {
  case MachineState::idle:
    return "idle";
  case MachineState::computing:
    return "computing";
  case MachineState::sleeping:
    return "sleeping";
  case MachineState::switching_on:
    return "switching_on";
  case MachineState::switching_off:
    return "switching_off";
  }
  return "idle";
}

std::vector<SleepPStates> parse_sleep_pstates(const std::string& value)
{
  std::vector<SleepPStates> out;
  if (not value.empty() && value.back() == ',')
    throw std::invalid_argument("'" + value + "' ends with a comma");
  std::stringstream groups(value);
  std::string group;
  while (std::getline(groups, group, ',')) {
    int v[3];
    std::stringstream parts(group);
    std::string part;
    int k = 0;
    while (std::getline(parts, part, ':')) {
      part.erase(0, part.find_first_not_of(" \t"));
      part.erase(part.find_last_not_of(" \t") + 1);
      if (k == 3 || part.empty() || part.find_first_not_of("0123456789") != std::string::npos || part.size() > 6)
        throw std::invalid_argument("'" + group + "' is not sleep:off:on (three P-state numbers)");
      v[k++] = std::stoi(part);
    }
    if (k != 3)
      throw std::invalid_argument("'" + group + "' is not sleep:off:on (three P-state numbers)");
    if (v[0] == v[1] || v[0] == v[2] || v[1] == v[2])
      throw std::invalid_argument("'" + group + "' names a P-state twice (sleep, off and on differ)");
    out.push_back({v[0], v[1], v[2]});
  }
  if (out.empty())
    throw std::invalid_argument("no sleep:off:on triplet");
  return out;
}

const std::vector<std::string>& power_variants()
{
  static const std::vector<std::string> v = {"energy_bf_monitoring_inertial", "energy_bf_subpart_sleeper"};
  return v;
}

PowerOptions read_power_options(const std::filesystem::path& file, const std::string& variant)
{
  PowerOptions o;
  o.variant   = variant;
  auto doc    = json::load(file);
  auto obj    = doc.object();
  auto pos    = [&](const char* key) { return obj.required(key).positive(); };
  auto nonneg = [&](const char* key, double dflt) {
    auto v = obj.optional(key);
    return v ? v->non_negative() : dflt;
  };
  o.power_sleep       = nonneg("power_sleep", -1);
  o.power_idle        = pos("power_idle");
  o.power_compute     = pos("power_compute");
  o.energy_switch_on  = pos("energy_switch_on");
  o.energy_switch_off = pos("energy_switch_off");
  o.time_switch_on    = pos("time_switch_on");
  o.time_switch_off   = pos("time_switch_off");
  if (o.power_sleep < 0)
    obj.fail("missing field 'power_sleep' (watts of a sleeping machine)");
  if (not(o.power_sleep < o.power_idle))
    obj.fail_at("power_sleep", "power_sleep " + format_number(o.power_sleep) + " W must be below power_idle " +
                                   format_number(o.power_idle) + " W, or sleeping never pays");
  o.pstate_sleep                   = static_cast<int>(obj.required("pstate_sleep").integer(0, 1000000));
  o.pstate_compute                 = static_cast<int>(obj.required("pstate_compute").integer(0, 1000000));
  o.monitoring_period              = obj.required("monitoring_period").positive();
  o.ensured_sleep_time_lower_bound = nonneg("ensured_sleep_time_lower_bound", 0);
  o.ensured_sleep_time_upper_bound = nonneg("ensured_sleep_time_upper_bound", 1e8);
  if (o.ensured_sleep_time_lower_bound > o.ensured_sleep_time_upper_bound)
    obj.fail_at("ensured_sleep_time_lower_bound", "the lower bound is above the upper bound");
  o.idle_time_to_sedate = nonneg("idle_time_to_sedate", 1e18);
  if (auto v = obj.optional("sedate_idle_on_classical_events"))
    o.sedate_idle_on_classical_events = v->boolean();
  if (auto v = obj.optional("allow_future_switches"))
    o.allow_future_switches = v->boolean();
  // read and not used: sgai writes its outputs under --out
  for (const char* key : {"output_dir", "trace_output_filename"})
    if (auto v = obj.optional(key))
      (void)v->string();
  std::vector<std::string> accepted = {"power_sleep",
                                       "power_idle",
                                       "power_compute",
                                       "energy_switch_on",
                                       "energy_switch_off",
                                       "time_switch_on",
                                       "time_switch_off",
                                       "pstate_sleep",
                                       "pstate_compute",
                                       "monitoring_period",
                                       "ensured_sleep_time_lower_bound",
                                       "ensured_sleep_time_upper_bound",
                                       "idle_time_to_sedate",
                                       "sedate_idle_on_classical_events",
                                       "allow_future_switches",
                                       "output_dir",
                                       "trace_output_filename"};
  if (variant == "energy_bf_monitoring_inertial") {
    if (auto v = obj.optional("inertial_alteration")) {
      std::string s = v->string();
      std::string t;
      for (char c : s)
        if (c != ' ' && c != '\t')
          t += c;
      char* end = nullptr;
      double k  = t.size() > 1 ? std::strtod(t.c_str() + 1, &end) : 0;
      if (t.size() < 2 || (t[0] != 'x' && t[0] != 'p') || end == nullptr || *end != '\0' || not(k >= 0) || k > 1e6)
        v->fail("inertial_alteration " + v->shown() +
                " is not 'x' or 'p' followed by a number (\"x2\": twice as many "
                "machines each stage, \"p1\": one more)");
      o.alteration   = t[0];
      o.alteration_k = k;
    }
    if (auto v = obj.optional("upper_llh_threshold"))
      o.upper_llh_threshold = v->non_negative();
    accepted.insert(accepted.end(), {"inertial_alteration", "upper_llh_threshold"});
  } else if (variant == "energy_bf_subpart_sleeper") {
    auto v                              = obj.required("fraction_of_machines_to_let_awake");
    o.fraction_of_machines_to_let_awake = v.number();
    if (not(o.fraction_of_machines_to_let_awake >= 0 && o.fraction_of_machines_to_let_awake <= 1))
      v.fail("fraction_of_machines_to_let_awake " + v.shown() + " is not in [0, 1]");
    accepted.push_back("fraction_of_machines_to_let_awake");
  } else {
    throw InputError(file.string(), "",
                     "unknown energy policy '" + variant + "' (known: " + json::list_names(power_variants()) + ")");
  }
  obj.finish(accepted);
  return o;
}

double ensured_sleep_time(const PowerOptions& o)
{
  double t = ((o.time_switch_off + o.time_switch_on + 2 * o.rjms_delay) * o.power_idle - o.energy_switch_off -
              o.energy_switch_on) /
             (o.power_sleep - o.power_idle);
  return std::min(std::max(t, o.ensured_sleep_time_lower_bound), o.ensured_sleep_time_upper_bound);
}

// ------------------------------------------------------------------------------------- the policy

PowerPolicy::PowerPolicy(PowerOptions options, uint32_t machines)
    : o_(std::move(options))
    , n_(machines)
    , to_sedate_(machines, 0)
    , to_awaken_(machines, 0)
    , idle_since_(machines, 0)
    , off_now_(machines, 0)
    , on_now_(machines, 0)
{
}

void PowerPolicy::first_submission(double now)
{
  if (next_stage_ == kInf && first_stage_)
    next_stage_ = now + o_.monitoring_period;
  llh_date_ = now;
}

void PowerPolicy::begin(const PowerDecision& d)
{
  std::fill(off_now_.begin(), off_now_.end(), 0);
  std::fill(on_now_.begin(), on_now_.end(), 0);
  for (uint32_t i : d.switch_off)
    off_now_[i] = 1;
  for (uint32_t i : d.switch_on)
    on_now_[i] = 1;
}

void PowerPolicy::off(uint32_t i, PowerDecision& d)
{
  d.switch_off.push_back(i);
  off_now_[i]   = 1;
  to_sedate_[i] = 0;
}

void PowerPolicy::on(uint32_t i, PowerDecision& d)
{
  d.switch_on.push_back(i);
  on_now_[i]    = 1;
  to_awaken_[i] = 0;
}

bool PowerPolicy::idle_now(uint32_t i, const std::vector<MachineView>& m) const
{
  return m[i].state == MachineState::idle && not off_now_[i];
}

bool PowerPolicy::awake_now(uint32_t i, const std::vector<MachineView>& m) const
{
  return (m[i].state == MachineState::idle || m[i].state == MachineState::computing) && not off_now_[i];
}

bool PowerPolicy::wakable(uint32_t i, double now, const std::vector<MachineView>& m) const
{
  return m[i].state == MachineState::sleeping && m[i].wakable_at <= now && not on_now_[i];
}

uint32_t PowerPolicy::awake_soon(const std::vector<MachineView>& m) const
{
  uint32_t n = 0;
  for (uint32_t i = 0; i < n_; i++)
    if ((awake_now(i, m) && not to_sedate_[i]) || m[i].state == MachineState::switching_on || on_now_[i] ||
        to_awaken_[i])
      n++;
  return n;
}

uint32_t PowerPolicy::altered(uint32_t previous) const
{
  double n = o_.alteration == 'x' ? previous * o_.alteration_k : previous + o_.alteration_k;
  return n >= 4e9 ? 4000000000U : static_cast<uint32_t>(n);
}

std::vector<std::pair<double, uint32_t>> PowerPolicy::planned_free(double now, const std::vector<MachineView>& m) const
{
  // batsched plans with the requested times plus its rjms_delay: a computing machine is free at
  // its jobs' planned end, a machine switching on at the switch's planned end (time_switch_on after
  // the request), plus the delay; a machine asleep, switching off or promised to sleep never
  std::vector<std::pair<double, uint32_t>> free;
  for (uint32_t i = 0; i < n_; i++) {
    if (off_now_[i] || to_sedate_[i])
      continue;
    if (on_now_[i])
      free.emplace_back(now + o_.time_switch_on + o_.rjms_delay, i);
    else if (m[i].state == MachineState::idle)
      free.emplace_back(now, i);
    else if (m[i].state == MachineState::computing && std::isfinite(m[i].free_at))
      free.emplace_back(std::max(now, m[i].free_at + o_.rjms_delay), i);
    else if (m[i].state == MachineState::switching_on)
      free.emplace_back(std::max(now, m[i].switched_at + o_.time_switch_on + o_.rjms_delay), i);
  }
  std::sort(free.begin(), free.end());
  return free;
}

PowerPolicy::Prediction PowerPolicy::predict(double now, const std::vector<WaitingJob>& queue,
                                             const std::vector<MachineView>& m) const
{
  Prediction p;
  for (const auto& j : queue)
    p.load += j.machines * (j.requested_time_s + o_.rjms_delay);
  std::vector<double> free;
  for (const auto& [t, i] : planned_free(now, m))
    free.push_back(t);
  for (double t : free)
    p.steps.emplace_back(t, 1);
  // the first waiting job's reservation (EASY's): its machines, from the first time that many are
  // free, for its requested time (batsched counts it in the queue's load too)
  if (not queue.empty() && queue.front().machines > 0 && queue.front().machines <= free.size() &&
      std::isfinite(queue.front().requested_time_s)) {
    double start = free[queue.front().machines - 1];
    double end   = start + queue.front().requested_time_s + o_.rjms_delay;
    auto w       = static_cast<int>(queue.front().machines);
    p.steps.emplace_back(start, -w);
    p.steps.emplace_back(end, w);
    std::stable_sort(p.steps.begin(), p.steps.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  }
  return p;
}

double PowerPolicy::Prediction::horizon(double t) const
{
  // the time the load takes to pour, from t, into the machines free over time
  if (load == 0)
    return 0;
  if (not std::isfinite(load))
    return kHorizon;
  double left = load;
  long count  = 0;
  size_t k    = 0;
  for (; k < steps.size() && steps[k].first <= t; k++)
    count += steps[k].second;
  double from = t;
  for (; k <= steps.size(); k++) {
    double next = k < steps.size() ? steps[k].first : kInf;
    if (count > 0) {
      double area = static_cast<double>(count) * (next - from);
      if (area >= left)
        return from + left / static_cast<double>(count) - t;
      left -= area;
    }
    if (k == steps.size())
      break;
    count += steps[k].second;
    from = next;
  }
  return kHorizon;
}

double PowerPolicy::liquid_load_horizon(double now, const std::vector<WaitingJob>& queue,
                                        const std::vector<MachineView>& m) const
{
  return predict(now, queue, m).horizon(now);
}

void PowerPolicy::integrate(double now, double llh)
{
  integral_ += (llh_last_ + llh) / 2 * (now - llh_date_);
  llh_last_ = llh;
  llh_date_ = now;
}

void PowerPolicy::update_idle(double now, const std::vector<MachineView>& m)
{
  for (uint32_t i = 0; i < n_; i++) {
    bool idle = m[i].state == MachineState::idle;
    if (idle && idle_since_[i] == kInf)
      idle_since_[i] = now;
    else if (not idle)
      idle_since_[i] = kInf;
  }
}

uint32_t PowerPolicy::queued_switches(double now, const std::vector<MachineView>& m, PowerDecision& d)
{
  uint32_t done = 0;
  for (uint32_t i = 0; i < n_; i++) {
    if (to_awaken_[i]) {
      if (wakable(i, now, m)) {
        on(i, d);
        awakened_now_++;
        done++;
      } else if (m[i].state != MachineState::sleeping && m[i].state != MachineState::switching_off) {
        to_awaken_[i] = 0; // awake already
      }
    }
    if (to_sedate_[i]) {
      if (idle_now(i, m)) {
        off(i, d);
        sedated_now_++;
        done++;
      } else if (m[i].state != MachineState::computing) {
        to_sedate_[i] = 0; // asleep or switching already
      }
    }
  }
  return done;
}

std::vector<uint32_t> PowerPolicy::pick_to_sedate(uint32_t n, double now, const std::vector<WaitingJob>& queue,
                                                  const std::vector<MachineView>& m) const
{
  // The machines free first (idle now, lowest numbers, then by their jobs' planned end), as
  // batsched walks its schedule; of those the first waiting job could use (free when it can
  // start), only as many as leave it its machines (batsched's steal limit).
  std::vector<char> usable = reserved_for_first(now, queue, m, true);
  uint32_t need            = queue.empty() ? 0 : queue.front().machines;
  auto pool                = static_cast<uint32_t>(std::count(usable.begin(), usable.end(), 1));
  uint32_t steal_left      = pool > need ? pool - need : 0;
  if (pool == 0)
    steal_left = 0;
  std::vector<std::pair<double, uint32_t>> order;
  for (uint32_t i = 0; i < n_; i++) {
    if (to_sedate_[i])
      continue;
    if (idle_now(i, m))
      order.emplace_back(now, i);
    else if (m[i].state == MachineState::computing)
      order.emplace_back(m[i].free_at, i);
  }
  std::stable_sort(order.begin(), order.end());
  std::vector<uint32_t> out;
  for (const auto& [t, i] : order) {
    if (out.size() >= n)
      break;
    if (usable[i]) {
      if (steal_left == 0)
        continue;
      steal_left--;
    }
    out.push_back(i);
  }
  return out;
}

std::vector<uint32_t> PowerPolicy::pick_to_awaken(uint32_t n, double now, const std::vector<MachineView>& m) const
{
  // the machines that can be woken first: wakable now (lowest numbers), then by the end of their
  // ensured sleep, then those still switching off
  std::vector<std::pair<double, uint32_t>> c;
  for (uint32_t i = 0; i < n_; i++) {
    if (to_awaken_[i] || on_now_[i])
      continue;
    if (m[i].state == MachineState::sleeping)
      c.emplace_back(std::max(now, m[i].wakable_at), i);
    else if (m[i].state == MachineState::switching_off || off_now_[i])
      c.emplace_back(kInf, i);
  }
  std::sort(c.begin(), c.end());
  std::vector<uint32_t> out;
  for (size_t k = 0; k < c.size() && out.size() < n; k++)
    out.push_back(c[k].second);
  return out;
}

void PowerPolicy::awaken(const std::vector<uint32_t>& machines, double now, const std::vector<MachineView>& m,
                         PowerDecision& d)
{
  for (uint32_t i : machines) {
    if (wakable(i, now, m)) {
      on(i, d);
      awakened_now_++;
    } else {
      to_awaken_[i] = 1;
    }
  }
}

void PowerPolicy::sedate(const std::vector<uint32_t>& machines, const std::vector<MachineView>& m, PowerDecision& d)
{
  for (uint32_t i : machines) {
    if (idle_now(i, m)) {
      off(i, d);
      sedated_now_++;
    } else {
      to_sedate_[i] = 1; // switched off once its jobs are over
    }
  }
}

void PowerPolicy::unsleep(uint32_t n)
{
  uint32_t a = std::min(n, by_inertia_);
  by_inertia_ -= a;
  for_idle_ -= std::min(n - a, for_idle_);
}

bool PowerPolicy::priority_job(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                               PowerDecision& d)
{
  if (queue.empty())
    return false;
  uint32_t need  = queue.front().machines;
  uint32_t avail = awake_soon(m);
  if (need <= avail)
    return false;
  // cancel the promised switch-offs first, those whose machines are free earliest
  std::vector<std::pair<double, uint32_t>> promised;
  for (uint32_t i = 0; i < n_; i++)
    if (to_sedate_[i])
      promised.emplace_back(m[i].free_at, i);
  std::sort(promised.begin(), promised.end());
  uint32_t cancelled = 0;
  for (size_t k = 0; k < promised.size() && avail < need; k++, avail++, cancelled++)
    to_sedate_[promised[k].second] = 0;
  unsleep(cancelled);
  if (avail < need) {
    auto w = pick_to_awaken(need - avail, now, m);
    unsleep(static_cast<uint32_t>(w.size()));
    awaken(w, now, m, d);
  }
  return true;
}

void PowerPolicy::idle_sleep(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                             PowerDecision& d)
{
  for (uint32_t i = 0; i < n_; i++)
    if (m[i].state == MachineState::switching_on || on_now_[i] || to_awaken_[i])
      return; // never switch off while switching on (no on/off ping-pong)
  uint32_t keep  = queue.empty() ? 0 : queue.front().machines;
  uint32_t awake = awake_soon(m);
  if (awake <= keep)
    return;
  uint32_t n = awake - keep;
  // a machine the first job's reservation holds would sleep only after that job: not now
  std::vector<char> reserved = reserved_for_first(now, queue, m);
  for (uint32_t i = 0; i < n_ && n > 0; i++)
    if (idle_now(i, m) && not to_sedate_[i] && not reserved[i] && idle_since_[i] <= now - o_.idle_time_to_sedate) {
      off(i, d);
      for_idle_++;
      n--;
    }
}

std::vector<char> PowerPolicy::reserved_for_first(double now, const std::vector<WaitingJob>& queue,
                                                  const std::vector<MachineView>& m, bool all_usable) const
{
  // EASY's reservation of the first waiting job: the lowest-numbered machines of those free when
  // it can start (batsched's basic selector), from when that many are free as planned
  std::vector<char> reserved(n_, 0);
  if (queue.empty())
    return reserved;
  auto free     = planned_free(now, m);
  uint32_t need = queue.front().machines;
  if (need == 0 || need > free.size())
    return reserved;
  double start = free[need - 1].first;
  std::vector<uint32_t> at;
  for (const auto& [t, i] : free)
    if (t <= start)
      at.push_back(i);
  std::sort(at.begin(), at.end());
  for (uint32_t k = 0; k < (all_usable ? at.size() : need); k++)
    reserved[at[k]] = 1;
  return reserved;
}

bool PowerPolicy::idle_wake(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                            PowerDecision& d)
{
  if (queue.empty() || for_idle_ == 0)
    return false;
  // the first job's reservation keeps its machines: they are not for the others
  std::vector<char> reserved = reserved_for_first(now, queue, m);
  std::vector<uint32_t> idle, asleep;
  for (uint32_t i = 0; i < n_; i++) {
    if (idle_now(i, m) && not to_sedate_[i] && not reserved[i])
      idle.push_back(i);
    else if (wakable(i, now, m) && asleep.size() < for_idle_)
      asleep.push_back(i);
  }
  size_t ui = 0, ua = 0; // idle and asleep machines used so far, lowest first
  std::vector<uint32_t> wake;
  for (const auto& j : queue) {
    size_t left = idle.size() - ui + asleep.size() - ua;
    if (left == 0)
      break;
    if (j.machines > left)
      continue;
    size_t from_idle = std::min<size_t>(j.machines, idle.size() - ui);
    ui += from_idle;
    for (size_t k = from_idle; k < j.machines; k++)
      wake.push_back(asleep[ua++]);
  }
  for (uint32_t i : wake) {
    on(i, d);
    for_idle_--;
  }
  return not wake.empty();
}

PowerDecision PowerPolicy::promised(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m)
{
  PowerDecision d;
  begin(d);
  awakened_now_ = sedated_now_ = 0;
  queued_switches(now, m, d);
  if (not queue.empty()) { // (as batsched counts them: with an empty queue, not for the inertia)
    awakened_since_ += awakened_now_;
    sedated_since_ += sedated_now_;
  }
  return d;
}

PowerDecision PowerPolicy::after_step(double now, const std::vector<WaitingJob>& queue,
                                      const std::vector<MachineView>& m)
{
  PowerDecision d;
  begin(d);
  integrate(now, last_.horizon(now)); // the previous step's prediction, at this instant
  awakened_now_ = sedated_now_ = 0;
  queued_switches(now, m, d);
  priority_job(now, queue, m, d);
  if (not queue.empty()) { // the switches of this step count for the inertia
    awakened_since_ += awakened_now_;
    sedated_since_ += sedated_now_;
  }
  update_idle(now, m);
  if (not idle_wake(now, queue, m, d) && o_.sedate_idle_on_classical_events)
    idle_sleep(now, queue, m, d);
  double before = last_.horizon(now);
  last_         = predict(now, queue, m);
  llh_last_     = last_.horizon(now);
  if (getenv("SGAI_LLH"))
    fprintf(stderr, "LLH %g,%zu,%g,%g,%g\n", now, queue.size(), last_.load, before, llh_last_);
  return d;
}

PowerDecision PowerPolicy::stage(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                                 bool last)
{
  PowerDecision d;
  begin(d);
  next_stage_ = last ? kInf : now + o_.monitoring_period;
  integrate(now, last_.horizon(now));
  // the promised switch-offs are decided again
  unsleep(static_cast<uint32_t>(std::count(to_sedate_.begin(), to_sedate_.end(), 1)));
  std::fill(to_sedate_.begin(), to_sedate_.end(), 0);
  awakened_now_ = sedated_now_ = 0;
  bool needs_awakening         = not queue.empty() && queue.front().machines > awake_soon(m);
  uint32_t keep_for_p          = queue.empty() ? 0 : queue.front().machines;
  if (o_.variant == "energy_bf_monitoring_inertial") {
    if (first_stage_) {
      first_stage_ = false;
      awakening_   = true;
    } else if (not needs_awakening) {
      if (integral_ / o_.monitoring_period >= o_.upper_llh_threshold) {
        awakening_     = true;
        integral_prev_ = 0; // still growing, by decree
      }
      if (awakening_) {
        if (integral_ > integral_prev_) {
          uint32_t candidates = 0;
          for (uint32_t i = 0; i < n_; i++)
            if ((m[i].state == MachineState::sleeping || m[i].state == MachineState::switching_off) &&
                not to_awaken_[i] && not on_now_[i] && (o_.allow_future_switches || wakable(i, now, m)))
              candidates++;
          uint32_t n = std::min(std::max(altered(awakened_since_), 1U), candidates);
          if (n > 0) {
            auto w = pick_to_awaken(n, now, m);
            unsleep(static_cast<uint32_t>(w.size()));
            awaken(w, now, m, d);
          }
        } else {
          awakening_ = false;
        }
      } else {
        if (integral_ <= integral_prev_) {
          uint32_t awake = 0;
          for (uint32_t i = 0; i < n_; i++)
            if (awake_now(i, m) && (o_.allow_future_switches || idle_now(i, m)))
              awake++;
          uint32_t nb = awake > keep_for_p ? awake - keep_for_p : 0;
          uint32_t n  = std::min(std::max(altered(sedated_since_), 1U), nb);
          // machines already asleep for having been idle count as sedated by the inertia first
          // ("stolen"); as in batsched, when only some are, n new machines are still sedated
          uint32_t steal = std::min(for_idle_, n);
          std::vector<uint32_t> x;
          if (n > steal) {
            x = pick_to_sedate(n, now, queue, m);
            if (not o_.allow_future_switches)
              x.erase(std::remove_if(x.begin(), x.end(), [&](uint32_t i) { return not idle_now(i, m); }), x.end());
          }
          by_inertia_ += static_cast<uint32_t>(x.size()) + steal;
          for_idle_ -= steal;
          sedate(x, m, d);
        } else {
          awakening_ = true;
        }
      }
    }
    integral_prev_ = integral_;
  } else { // energy_bf_subpart_sleeper
    if (not needs_awakening) {
      auto keep  = static_cast<uint32_t>(std::floor(o_.fraction_of_machines_to_let_awake * n_));
      keep       = std::max(keep, keep_for_p);
      uint32_t a = awake_soon(m);
      if (a > keep) {
        uint32_t k     = a - keep;
        uint32_t steal = std::min(for_idle_, k);
        by_inertia_ += steal;
        for_idle_ -= steal;
        auto x = pick_to_sedate(k, now, queue, m);
        by_inertia_ += static_cast<uint32_t>(x.size());
        sedate(x, m, d);
      }
    }
  }
  integral_ = 0;
  queued_switches(now, m, d);
  if (needs_awakening)
    priority_job(now, queue, m, d);
  awakened_since_ = awakened_now_;
  sedated_since_  = sedated_now_;
  update_idle(now, m);
  idle_sleep(now, queue, m, d);
  last_     = predict(now, queue, m);
  llh_last_ = last_.horizon(now);
  return d;
}

} // namespace sgai::scheduling
