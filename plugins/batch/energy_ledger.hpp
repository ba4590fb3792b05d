/* Energy attribution of the workload manager: gives what each host consumed to the jobs sharing it
 * (its "context": the jobs on its cores, else those on its processors' other cores), and keeps a
 * running total of all hosts' energy without reading them all at every sample.
 * SimGrid's host_energy plugin integrates a host's power, constant between changes of its load or
 * P-state. The manager makes those changes itself (it starts and hears the end of every execution,
 * sets every P-state), so once SimGrid has solved a change the host's power is read from the plugin
 * once and its energy then follows from it until the next change: a host is read twice per change
 * (its power, then nothing), not at every event that touches it. Where SimGrid changes hosts on its
 * own (the ptask model, whose rates follow the network; host state or speed profiles), every
 * reading goes to the plugin. */
#ifndef SGAI_PLUGINS_BATCH_ENERGY_LEDGER_HPP
#define SGAI_PLUGINS_BATCH_ENERGY_LEDGER_HPP

#include <simgrid/forward.h>

#include <cstdint>
#include <utility>
#include <vector>

namespace sgai::batch {

class EnergyLedger {
public:
  /** `hosts` by host index (nullptr: not used); `job_energy` receives each job's share. */
  EnergyLedger(std::vector<simgrid::s4u::Host*> hosts, std::vector<double>& job_energy);

  /** False when a host of the manager has no power model: no energy figure at all. */
  bool enabled() const { return enabled_; }
  void disable() { enabled_ = false; }
  /** From now on, every settle reads the plugin (SimGrid changes hosts' power on its own). */
  void read_always() { analytic_ = false; }

  /** Reads the plugin's energy of these hosts now and gives what they consumed since the last read
   *  to the jobs of their current context. */
  void settle(const std::vector<uint32_t>& hosts);
  /** Settles these hosts after a change of their load or P-state; they are dirty until a sample
   *  reads their new power. */
  void observe(const std::vector<uint32_t>& hosts);
  /** A host's load changed at `t` (not after the last step's instant), heard later: it is dirty
   *  from then on, and read (not extrapolated) at its next settle; a clean one is first settled at
   *  `t` from its known power. Never a simcall. */
  void changed(uint32_t host, double t);
  /** Hosts changed before this instant: their new power is solved; it is read now and their energy
   *  follows from it until their next change. Call when every change of this instant is known. */
  void refresh();
  /** Energy of all hosts now: the clean ones from their power, the dirty ones read. */
  double total();
  /** Who shares a host's energy from now on: (job, weight) pairs; empty: the host idles. */
  void set_context(uint32_t host, const std::vector<std::pair<uint32_t, double>>& jobs);

  double idle_energy() const { return idle_energy_; }
  /** A host's energy at its last settle. */
  double read(uint32_t host) const { return energy_read_[host]; }

private:
  std::vector<simgrid::s4u::Host*> hosts_;
  std::vector<double>& job_energy_;
  bool enabled_  = true;
  bool analytic_ = true;
  // A clean host draws a known power P since its last reading E at t_read: the sum over clean
  // hosts is sum(E - P t_read) + sum(P) x t. A host whose load or P-state changed is dirty: SimGrid
  // solves its new share only after the change, so it is read at each sample until one falls
  // strictly after the change, when its power is read and it turns clean again.
  std::vector<double> energy_read_, power_, read_t_, changed_at_;
  std::vector<char> dirty_flag_;
  std::vector<uint32_t> dirty_;
  double sum_a_ = 0, sum_b_ = 0;
  std::vector<std::vector<std::pair<uint32_t, double>>> context_;
  double idle_energy_ = 0;
  std::vector<double> scratch_; ///< readings of one settle() or total()
  /** What a host consumed since its last reading, to the jobs of its context (or to idle). */
  void give(uint32_t host, double delta);
  std::vector<uint32_t> still_;
  std::vector<uint32_t> one_; ///< refresh's host to settle
};

} // namespace sgai::batch

#endif
