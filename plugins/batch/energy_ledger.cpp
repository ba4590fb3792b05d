#include "plugins/batch/energy_ledger.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>

#include <algorithm>

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

EnergyLedger::EnergyLedger(std::vector<sg4::Host*> hosts, std::vector<double>& job_energy)
    : hosts_(std::move(hosts))
    , job_energy_(job_energy)
{
  double now = sg4::Engine::get_clock();
  energy_read_.assign(hosts_.size(), 0);
  power_.assign(hosts_.size(), 0);
  read_t_.assign(hosts_.size(), now);
  changed_at_.assign(hosts_.size(), now);
  dirty_flag_.assign(hosts_.size(), 0);
  context_.resize(hosts_.size());
}

void EnergyLedger::settle(const std::vector<uint32_t>& hosts)
{
  if (not enabled_ || hosts.empty())
    return;
  double t                 = sg4::Engine::get_clock();
  std::vector<double>& now = scratch_;
  now.resize(hosts.size());
  // A host settled at this instant consumed nothing since; a clean one drew its known power; a
  // dirty one is read (the plugin brings a host not read at this instant up to date in a simcall of
  // its own: public API only, no batching of them in one kernel call).
  for (size_t i = 0; i < hosts.size(); i++) {
    uint32_t h = hosts[i];
    if (read_t_[h] == t)
      now[i] = energy_read_[h];
    else if (analytic_ && not dirty_flag_[h])
      now[i] = energy_read_[h] + power_[h] * (t - read_t_[h]);
    else
      now[i] = sg_host_get_consumed_energy(hosts_[h]);
  }
  for (size_t i = 0; i < hosts.size(); i++) {
    uint32_t h   = hosts[i];
    double delta = now[i] - energy_read_[h];
    if (not dirty_flag_[h])
      sum_a_ += (now[i] - power_[h] * t) - (energy_read_[h] - power_[h] * read_t_[h]);
    energy_read_[h] = now[i];
    read_t_[h]      = t;
    give(h, delta);
  }
}

void EnergyLedger::give(uint32_t h, double delta)
{
  if (delta == 0)
    return;
  const auto& ctx = context_[h];
  if (ctx.empty()) {
    idle_energy_ += delta;
    return;
  }
  double total = 0;
  for (const auto& [job, weight] : ctx)
    total += weight;
  for (const auto& [job, weight] : ctx)
    job_energy_[job] += delta * weight / total;
}

void EnergyLedger::observe(const std::vector<uint32_t>& hosts)
{
  if (not enabled_ || hosts.empty())
    return;
  settle(hosts);
  double t = sg4::Engine::get_clock();
  for (uint32_t h : hosts)
    changed(h, t);
}

void EnergyLedger::changed(uint32_t h, double t)
{
  if (not enabled_)
    return;
  changed_at_[h] = std::max(changed_at_[h], t); // (heard late: a later change may be known already)
  if (dirty_flag_[h])
    return;
  sum_a_ -= energy_read_[h] - power_[h] * read_t_[h];
  sum_b_ -= power_[h];
  dirty_flag_[h] = 1;
  dirty_.push_back(h);
  if (analytic_ && read_t_[h] < t) {
    // Clean until t: it drew its known power since its last reading, for its context (unchanged
    // since: contexts change only after their hosts are settled). Read so at t, it needs no
    // reading of the plugin (a simcall) when its new power is read.
    double delta = power_[h] * (t - read_t_[h]);
    energy_read_[h] += delta;
    read_t_[h] = t;
    give(h, delta);
  }
}

void EnergyLedger::refresh()
{
  if (not enabled_ || dirty_.empty())
    return;
  double t                     = sg4::Engine::get_clock();
  std::vector<uint32_t>& still = still_;
  still.clear();
  for (uint32_t h : dirty_) {
    if (changed_at_[h] < t) { // solved since its change: its power holds until the next one
      // (in analytic mode, read at its change, its energy follows from its power; one changed
      // without a reading is read now)
      if (not analytic_ || read_t_[h] < changed_at_[h]) {
        one_.assign(1, h);
        settle(one_);
      }
      power_[h] = sg_host_get_current_consumption(hosts_[h]);
      sum_a_ += energy_read_[h] - power_[h] * read_t_[h];
      sum_b_ += power_[h];
      dirty_flag_[h] = 0;
    } else {
      still.push_back(h);
    }
  }
  dirty_.swap(still);
}

double EnergyLedger::total()
{
  double t = sg4::Engine::get_clock();
  refresh();
  settle(dirty_);
  double dirty_sum = 0;
  for (uint32_t h : dirty_)
    dirty_sum += energy_read_[h];
  return sum_a_ + sum_b_ * t + dirty_sum;
}

void EnergyLedger::set_context(uint32_t host, const std::vector<std::pair<uint32_t, double>>& jobs)
{
  context_[host].assign(jobs.begin(), jobs.end()); // (into the host's own storage: no allocation once grown)
}

} // namespace sgai::batch
