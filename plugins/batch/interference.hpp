/* The workload manager's P-states (private to plugins/batch): each host's P-state, set from its
 * processors' memory-bandwidth interference (the P-states named idle, active and membw_limited)
 * and by machine power switching (machine_power.hpp); the spans of over-utilization of each
 * processor and the speed of the busy cores. */
#ifndef SGAI_PLUGINS_BATCH_INTERFERENCE_HPP
#define SGAI_PLUGINS_BATCH_INTERFERENCE_HPP

#include "core/scheduling/resources.hpp"
#include "generators/platform/model.hpp"
#include "plugins/batch/history.hpp"
#include "plugins/batch/hosts.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::batch {

class MachinePower;

class Interference {
public:
  /** `platform` may be null (SimGrid XML platform: P-states have no names). */
  Interference(const scheduling::Resources& r, const scheduling::ClusterState& state, const HostMap& hosts,
               History& hist, const platform::Platform* platform);

  /** The interference model, with the platform's CPU P-states `names`; false (no model) when they
   *  are not named idle, active and membw_limited. */
  bool enable(const std::vector<std::string>& names);
  /** Every used host's P-state, read from SimGrid (when the manager starts). */
  void bind();

  int pstate(uint32_t h) const { return host_pstate_[h]; }
  /** Sets a host's P-state and records the change. */
  void set(uint32_t h, int ps, double now);

  /** Appends the processors of these cores, a run of cores of one processor once. */
  void add_processors(const std::vector<uint32_t>& cores, std::vector<uint32_t>& out) const;
  /** The processors whose cores changed hands (sorted and made unique here): their spans of
   *  over-utilization, their hosts' P-states (those `power` says are awake) and their speed in use. */
  void update_processors(std::vector<uint32_t>& processors, const MachinePower& power, double now);
  /** Speed of the busy cores now (HDeepRM's makespan reward). */
  double flops_in_use() const { return flops_in_use_; }
  /** The spans of over-utilization still open end now. */
  void finish(double now);

private:
  const scheduling::Resources& r_;
  const scheduling::ClusterState& state_;
  const HostMap& hosts_;
  History& hist_;
  const platform::Platform* platform_;

  bool interference_ = false;
  int ps_idle_ = -1, ps_active_ = -1, ps_membw_ = -1;
  std::vector<int> host_pstate_;
  std::vector<double> over_since_;
  std::vector<double> peak_demand_;
  std::vector<double> proc_flops_; ///< speed of each processor's busy cores
  double flops_in_use_ = 0;

  int desired_pstate(uint32_t h) const;
  void update_sorted_processors(const std::vector<uint32_t>& processors, const MachinePower& power, double now);
  void record_span(uint32_t p, double now);
};

} // namespace sgai::batch

#endif
