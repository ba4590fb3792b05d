/* The workload manager's P-states: hosts' P-states from their processors' memory-bandwidth
 * interference, spans of over-utilization, the speed in use. */
#include "plugins/batch/interference.hpp"

#include "plugins/batch/machine_power.hpp"

#include <simgrid/s4u/Host.hpp>

#include <algorithm>

namespace sgai::batch {

Interference::Interference(const scheduling::Resources& r, const scheduling::ClusterState& state, const HostMap& hosts,
                           History& hist, const platform::Platform* platform)
    : r_(r)
    , state_(state)
    , hosts_(hosts)
    , hist_(hist)
    , platform_(platform)
{
  over_since_.assign(r_.processors.size(), -1);
  proc_flops_.assign(r_.processors.size(), 0);
  peak_demand_.assign(r_.processors.size(), 0);
}

bool Interference::enable(const std::vector<std::string>& names)
{
  auto find = [&](const char* n) {
    auto it = std::find(names.begin(), names.end(), n);
    return it == names.end() ? -1 : static_cast<int>(it - names.begin());
  };
  ps_idle_      = find("idle");
  ps_active_    = find("active");
  ps_membw_     = find("membw_limited");
  interference_ = ps_idle_ >= 0 && ps_active_ >= 0 && ps_membw_ >= 0;
  return interference_;
}

void Interference::bind()
{
  host_pstate_.assign(hosts_.sg.size(), 0);
  for (uint32_t h : hosts_.used)
    host_pstate_[h] = static_cast<int>(hosts_.sg[h]->get_pstate());
}

void Interference::set(uint32_t h, int ps, double now)
{
  hosts_.sg[h]->set_pstate(static_cast<unsigned long>(ps));
  host_pstate_[h]  = ps;
  std::string name = platform_ ? platform_->cpu_pstate_names[static_cast<size_t>(ps)] : "";
  hist_.series->pstate(now, r_.host_names[h], ps, name);
}

void Interference::record_span(uint32_t p, double now)
{
  const scheduling::Processor& pr = r_.processors[p];
  hist_.series->span({p, over_since_[p], now, peak_demand_[p]}, pr.first_core, pr.mem_bw_gbps);
}

int Interference::desired_pstate(uint32_t h) const
{
  bool busy = false, over = false, active = false;
  for (uint32_t c : hosts_.cores[h])
    if (not state_.is_free(c)) {
      busy = true;
      break;
    }
  for (uint32_t p : hosts_.processors[h]) {
    over   = over || state_.processor_over_utilized(p);
    active = active || state_.processor_busy_cores(p) > 0;
  }
  if (busy)
    return over ? ps_membw_ : ps_active_;
  return active ? ps_active_ : ps_idle_;
}

void Interference::update_processors(std::vector<uint32_t>& processors, const MachinePower& power, double now)
{
  if (not std::is_sorted(processors.begin(), processors.end())) // (a job's cores mostly come in order)
    std::sort(processors.begin(), processors.end());
  processors.erase(std::unique(processors.begin(), processors.end()), processors.end());
  update_sorted_processors(processors, power, now);
}

void Interference::add_processors(const std::vector<uint32_t>& cores, std::vector<uint32_t>& out) const
{
  for (uint32_t c : cores)
    if (uint32_t p = r_.cores[c].processor; out.empty() || out.back() != p)
      out.push_back(p);
}

void Interference::update_sorted_processors(const std::vector<uint32_t>& processors, const MachinePower& power,
                                            double now)
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
      record_span(p, now);
      over_since_[p] = -1;
    }
    if (interference_)
      for (uint32_t h : hosts_.of_processor[p]) {
        if (not power.awake(h))
          continue; // asleep or switching: its P-state is the switch's
        int want = desired_pstate(h);
        if (want != host_pstate_[h])
          set(h, want, now);
      }
    // speed in use on this processor, after the P-state changes
    double flops                    = 0;
    const scheduling::Processor& pr = r_.processors[p];
    uint32_t last_host              = UINT32_MAX;
    double speed                    = 0;
    for (uint32_t c = pr.first_core; c < pr.first_core + pr.cores; c++)
      if (not state_.is_free(c) && state_.owner(c) < kHoldKey) { // (not a sleeping machine)
        if (uint32_t h = r_.cores[c].host; h != last_host) {     // (a processor's cores share a host but
          last_host = h;                                         // at core granularity)
          speed     = hosts_.sg[h]->get_speed();
        }
        flops += speed;
      }
    flops_in_use_ += flops - proc_flops_[p];
    proc_flops_[p] = flops;
  }
}

void Interference::finish(double now)
{
  for (uint32_t p = 0; p < r_.processors.size(); p++)
    if (over_since_[p] >= 0)
      record_span(p, now);
}

} // namespace sgai::batch
