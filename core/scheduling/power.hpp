/* Switching machines off and on, as Batsim does it and as batsched's energy policies decide it.
 *
 * A machine (a host) that names `sleep_pstates="sleep:off:on"` can sleep: switching it off puts it in
 * the virtual P-state `off` for one flop, then in `sleep`; switching it on puts it in `on` for one
 * flop, then back in its computing P-state (Batsim's src/pstate.cpp). The workload manager does
 * the switching (manager.cpp); a PowerPolicy decides which machines to switch, at each scheduling
 * step and at periodic monitoring stages:
 *   - `energy_bf_monitoring_inertial`: batsched's inertial shutdown. The liquid load horizon (the
 *     time the queue's area would take to pour into the free machines) is integrated over each
 *     monitoring period; while its integral grows, machines are woken, while it shrinks, put to
 *     sleep, in numbers that grow by the inertial alteration ("x2": 1, 2, 4, ... per stage) while
 *     the trend lasts. With idle_time_to_sedate 0 it is also opportunistic (idle machines sleep).
 *   - `energy_bf_subpart_sleeper`: at each monitoring stage, the machines awake beyond a fraction of
 *     the platform (and beyond what the first waiting job needs) go to sleep.
 * Both wake machines when the first waiting job could never start on the machines awake, and, with
 * idle_time_to_sedate, put machines idle for that long to sleep (sedate_idle_on_classical_events:
 * after every step too) and wake sleeping ones for waiting jobs that could then start. Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_POWER_HPP
#define SGAI_CORE_SCHEDULING_POWER_HPP

#include <cstdint>
#include <filesystem>
#include <limits>
#include <optional>
#include <string>
#include <vector>

namespace sgai::scheduling {

/** Batsim's machine states (machine_states.csv). */
enum class MachineState : uint8_t { idle, computing, sleeping, switching_on, switching_off };
const char* to_string(MachineState s);

/** One `sleep_pstates` triplet: the sleep P-state and the virtual P-states of the switches. */
struct SleepPStates {
  int sleep = -1;
  int off   = -1; ///< the virtual P-state while switching off
  int on    = -1; ///< the virtual P-state while switching on
};
/** Parses `sleep_pstates` ("13:14:15" or several triplets "a:b:c,d:e:f"); the first triplet is
 *  used. std::invalid_argument with the reason on a malformed value. */
std::vector<SleepPStates> parse_sleep_pstates(const std::string& value);

/** batsched's options of its energy variants (its variant_options JSON file, read as it is). */
struct PowerOptions {
  std::string variant; ///< energy_bf_monitoring_inertial or energy_bf_subpart_sleeper
  double monitoring_period = 0;
  // the scheduler's model of the machines (used to plan, not to simulate)
  double power_sleep = 0, power_idle = 0, power_compute = 0;
  double energy_switch_on = 0, energy_switch_off = 0, time_switch_on = 0, time_switch_off = 0;
  int pstate_sleep = -1, pstate_compute = -1;
  double ensured_sleep_time_lower_bound = 0, ensured_sleep_time_upper_bound = 1e8;
  // inertial shutdown
  char alteration            = 'x'; ///< 'x': n = previous * k; 'p': n = previous + k
  double alteration_k        = 2;
  double upper_llh_threshold = 1e100;
  bool allow_future_switches = true;
  // idle sleeping
  double idle_time_to_sedate           = 1e18;
  bool sedate_idle_on_classical_events = false;
  // subpart sleeper
  double fraction_of_machines_to_let_awake = 1;
  /** batsched adds this to every requested time when it plans (its rjms_delay, -d, default 5 s). */
  double rjms_delay = 5;
};

/** The variants sgai runs. */
const std::vector<std::string>& power_variants();
/** Reads batsched's options file for `variant` (one of power_variants()). Unknown keys, missing
 *  required ones and out-of-range values are InputErrors at their JSON pointer. output_dir and
 *  trace_output_filename are read and not used (sgai writes its outputs under --out). */
PowerOptions read_power_options(const std::filesystem::path& file, const std::string& variant);

/** batsched's ensured sleep time: how long a machine must sleep for switching it to pay off,
 *  ((t_off + t_on + 2 rjms_delay) P_idle - E_off - E_on) / (P_sleep - P_idle), clamped to the bounds. */
double ensured_sleep_time(const PowerOptions& o);

/** What the policy sees of one machine. */
struct MachineView {
  MachineState state = MachineState::idle;
  double free_at     = 0; ///< computing: when its jobs' requested times end (infinity: unknown)
  double wakable_at  = 0; ///< sleeping: from when it may be switched on (after the ensured sleep)
  double on_at       = 0; ///< switching on: when it will be on
  double switched_at = 0; ///< switching on or off: when the switch was asked for
};

/** A waiting job: its machines and requested time (queue order: the first is the priority job). */
struct WaitingJob {
  uint32_t machines;
  double requested_time_s;
};

struct PowerDecision {
  std::vector<uint32_t> switch_off; ///< machines to switch off now (idle)
  std::vector<uint32_t> switch_on;  ///< machines to switch on now (sleeping, wakable)
};

class PowerPolicy {
public:
  PowerPolicy(PowerOptions options, uint32_t machines);

  /** Before each scheduling step: the promised switches that can be made now (a machine promised
   *  to sleep sleeps as soon as its jobs are over, before another job takes it). */
  PowerDecision promised(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m);
  /** After each scheduling step at `now` (jobs started already): the queue, the machines. */
  PowerDecision after_step(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m);
  /** When the next monitoring stage is due (infinity: none); the first is a period after the
   *  first submission. */
  double next_stage() const { return next_stage_; }
  /** The first submission: arms the monitoring stages. */
  void first_submission(double now);
  /** A monitoring stage at `now`; `last` stops the stages (no job is left). */
  PowerDecision stage(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m, bool last);
  /** Whether a machine is promised to sleep (the scheduler must not give it a job). */
  bool reserved_for_sleep(uint32_t machine) const { return to_sedate_[machine] != 0; }
  /** The liquid load horizon at `now` (tests). */
  double liquid_load_horizon(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m) const;

  const PowerOptions& options() const { return o_; }

private:
  PowerOptions o_;
  uint32_t n_;
  double next_stage_ = std::numeric_limits<double>::infinity();
  bool first_stage_  = true;
  bool awakening_    = true; ///< the last inertial decision: wake (true) or sedate
  double llh_last_ = 0, llh_date_ = 0, integral_ = 0, integral_prev_ = 0;
  /** What batsched's schedule predicts: the queue's load (machine-seconds) and the machines free
   *  over time, as (time, change of the count) steps, the first job's reservation included. */
  struct Prediction {
    double load = 0;
    std::vector<std::pair<double, int>> steps;
    /** The liquid load horizon from t: how long the load takes to pour into the free machines. */
    double horizon(double t) const;
  };
  Prediction last_; ///< the last step's prediction: its horizon at the next step is batsched's "before" value
  /** (time, machine) when each machine is free as batsched plans, by time; none for those never. */
  std::vector<std::pair<double, uint32_t>> planned_free(double now, const std::vector<MachineView>& m) const;
  Prediction predict(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m) const;
  std::vector<char> to_sedate_, to_awaken_;         ///< switches promised until the machine can take them
  uint32_t awakened_since_ = 0, sedated_since_ = 0; ///< switched since the last stage (the inertia's base)
  uint32_t awakened_now_ = 0, sedated_now_ = 0;     ///< switched in this call by the inertia or for the first job
  uint32_t for_idle_   = 0;                         ///< machines asleep (or going to) for having been idle
  uint32_t by_inertia_ = 0; ///< machines asleep (or going to) by the inertia or the subpart rule
  /** n machines are no longer asleep or going to: counted off by_inertia_ first, then for_idle_. */
  void unsleep(uint32_t n);
  std::vector<double> idle_since_;
  std::vector<char> off_now_, on_now_; ///< this call's decisions

  void begin(const PowerDecision& d);
  void off(uint32_t i, PowerDecision& d);
  void on(uint32_t i, PowerDecision& d);
  bool idle_now(uint32_t i, const std::vector<MachineView>& m) const;
  bool awake_now(uint32_t i, const std::vector<MachineView>& m) const;
  bool wakable(uint32_t i, double now, const std::vector<MachineView>& m) const;
  /** Machines awake (not promised to sleep), switching on or promised to wake. */
  uint32_t awake_soon(const std::vector<MachineView>& m) const;
  uint32_t altered(uint32_t previous) const;
  void integrate(double now, double llh);
  void update_idle(double now, const std::vector<MachineView>& m);
  /** Carries out the promised switches that are possible now. */
  uint32_t queued_switches(double now, const std::vector<MachineView>& m, PowerDecision& d);
  /** n machines to sedate: idle ones first (lowest numbers), then those whose jobs end first, taking
   *  of those the first waiting job could use only as many as leave it its machines. */
  std::vector<uint32_t> pick_to_sedate(uint32_t n, double now, const std::vector<WaitingJob>& queue,
                                       const std::vector<MachineView>& m) const;
  /** n machines to wake: wakable now first, then by the end of their ensured sleep, then those
   *  switching off. */
  std::vector<uint32_t> pick_to_awaken(uint32_t n, double now, const std::vector<MachineView>& m) const;
  void awaken(const std::vector<uint32_t>& machines, double now, const std::vector<MachineView>& m, PowerDecision& d);
  void sedate(const std::vector<uint32_t>& machines, const std::vector<MachineView>& m, PowerDecision& d);
  /** The first waiting job could never start on the machines awake or waking: promised switch-offs
   *  are cancelled, then machines woken. */
  bool priority_job(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                    PowerDecision& d);
  void idle_sleep(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m,
                  PowerDecision& d);
  /** The machines EASY's reservation of the first waiting job holds (batsched's basic selector);
   *  with all_usable, every machine free when it can start. */
  std::vector<char> reserved_for_first(double now, const std::vector<WaitingJob>& queue,
                                       const std::vector<MachineView>& m, bool all_usable = false) const;
  bool idle_wake(double now, const std::vector<WaitingJob>& queue, const std::vector<MachineView>& m, PowerDecision& d);
};

} // namespace sgai::scheduling

#endif
