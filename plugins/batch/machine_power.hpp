/* The workload manager's machine power switching (private to plugins/batch): the power state of
 * each machine (a host that runs jobs), switched off and on by an energy policy (batsched's energy
 * variants) or by scripted switches; a switch is one flop in a virtual P-state, run by the executor
 * pool, while the scheduler holds the machine's cores. */
#ifndef SGAI_PLUGINS_BATCH_MACHINE_POWER_HPP
#define SGAI_PLUGINS_BATCH_MACHINE_POWER_HPP

#include "core/scheduling/power.hpp"
#include "core/scheduling/resources.hpp"
#include "core/scheduling/scheduler.hpp"
#include "plugins/batch/executors.hpp"
#include "plugins/batch/history.hpp"
#include "plugins/batch/hosts.hpp"
#include "plugins/batch/manager.hpp"

#include <array>
#include <cstddef>
#include <cstdint>
#include <limits>
#include <memory>
#include <string>
#include <vector>

namespace sgai::batch {

class EnergyLedger;
class Interference;

/** The scheduler's hold of a host's cores while it sleeps or switches: kHoldKey + host index. */
inline constexpr uint32_t kHoldKey = 0x80000000U;
static_assert(scheduling::kNoJob >= kHoldKey, "a free core's owner is no job: owner < kHoldKey means a job runs there");
/** The job of a switch's chunk and execution (its stage: the host). */
inline constexpr uint32_t kPowerOwner = std::numeric_limits<uint32_t>::max();

class MachinePower {
public:
  MachinePower(const scheduling::Resources& r, const HostMap& hosts, const scheduling::ClusterState& state,
               scheduling::Scheduler& sched, History& hist, Interference& pstates, ExecutorPool& pool);

  /** Every machine idle now (when the manager starts). */
  void bind(EnergyLedger& ledger);
  /** A switch asked at a date by ManagerConfig::switches: `host` is a host index. */
  struct Scripted {
    double t;
    uint32_t host;
    bool on;
  };
  /** Machines that may sleep: each host needs wattage_per_state and sleep_pstates naming P-states
   *  it has; said before the simulation, naming a host (in `source` when the config names no
   *  platform file). Returns the scripted switches. */
  std::vector<Scripted> bind_power(const ManagerConfig& config, const std::string& source, bool energy);

  /** The energy policy (null: none). */
  scheduling::PowerPolicy* policy() const { return power_.get(); }
  scheduling::MachineState state(uint32_t h) const { return mstate_[h]; }
  /** Whether a host sets its own P-state: awake, or no machine is ever switched. */
  bool awake(uint32_t h) const
  {
    return not switching_ || mstate_[h] == scheduling::MachineState::idle ||
           mstate_[h] == scheduling::MachineState::computing;
  }
  size_t switches_in_flight() const { return switches_in_flight_; }
  /** Hosts in each MachineState. */
  const std::array<uint32_t, 5>& in_state() const { return in_state_; }
  /** Cores of machines asleep or switching: not free, not busy. */
  uint32_t held_cores() const;

  /** An awake machine computes when a job holds one of its cores. */
  void update_mstate(uint32_t h, double now);
  void switch_off(uint32_t h, double now);
  void switch_on(uint32_t h, double now);
  /** A switch's execution ended (the executors said): handled at the manager's next step. */
  void switch_ended(uint32_t h) { power_done_.push_back(h); }
  /** The switches whose execution ended are done; false when there were none. */
  bool switches_done(double now);
  /** The hosts whose switch the last switches_done ended. */
  const std::vector<uint32_t>& just_switched() const { return just_switched_; }
  /** Whether machines may be switched (bind_power was called). */
  bool can_switch() const { return switching_; }
  /** A host's sleep, switching-off and switching-on P-states (after bind_power). */
  const scheduling::SleepPStates& sleep_pstates(uint32_t h) const { return sleep_ps_[h]; }
  /** The P-state a host computes in: set now if it is awake, else when it is switched on. */
  void set_compute_pstate(uint32_t h, int ps, double now);
  void apply(const scheduling::PowerDecision& d, double now);
  /** The energy policy hears of the first submission (once). */
  void first_submission(double now);

  /** What the energy policy sees: the waiting jobs in machines, each machine's state (free_at: 0,
   *  the manager knows the jobs). */
  std::vector<scheduling::WaitingJob> waiting() const;
  std::vector<scheduling::MachineView> machines() const;
  /** host index -> machine (index in the used hosts). */
  uint32_t machine_of(uint32_t h) const { return host_machine_[h]; }

private:
  const scheduling::Resources& r_;
  const HostMap& hosts_;
  const scheduling::ClusterState& state_;
  scheduling::Scheduler& sched_;
  History& hist_;
  Interference& pstates_;
  ExecutorPool& pool_;
  EnergyLedger* ledger_        = nullptr;
  const ManagerConfig* config_ = nullptr; ///< the manager's (set by bind_power: switches come from it)

  bool switching_ = false; ///< machines may be switched
  std::vector<scheduling::MachineState> mstate_;
  std::vector<scheduling::SleepPStates> sleep_ps_;
  std::vector<int> compute_ps_; ///< the P-state a machine computes in (switched on into)
  std::vector<double> state_since_, wakable_at_, on_at_, switched_at_;
  std::array<uint32_t, 5> in_state_{};
  double ensured_sleep_      = 0;
  size_t switches_in_flight_ = 0;
  std::vector<uint32_t> power_done_; ///< hosts whose switch's execution ended, not handled yet
  std::vector<uint32_t> just_switched_;
  std::unique_ptr<scheduling::PowerPolicy> power_;
  bool first_submitted_       = false;
  uint32_t cores_per_machine_ = 1;
  std::vector<uint32_t> host_machine_; ///< host index -> machine (index in the used hosts)

  void set_mstate(uint32_t h, scheduling::MachineState s, double now);
  void set_host_pstate(uint32_t h, int ps, double now);
  void launch_switch(uint32_t h);
  /** RunError unless host h is `wanted` (idle to switch "off", sleeping to switch "on"). */
  void require_state(uint32_t h, double now, scheduling::MachineState wanted, const char* way) const;
};

} // namespace sgai::batch

#endif
