#include "plugins/batch/energy_ledger.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>

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
  std::vector<double>& now = scratch_;
  now.resize(hosts.size());
  // (The plugin brings a host not read at this instant up to date in a simcall of its own: public
  // API only, no batching of them in one kernel call.)
  for (size_t i = 0; i < hosts.size(); i++)
    now[i] = sg_host_get_consumed_energy(hosts_[hosts[i]]);
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
      job_energy_[job] += delta * weight / total;
  }
}

void EnergyLedger::observe(const std::vector<uint32_t>& hosts)
{
  if (not enabled_ || hosts.empty())
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

double EnergyLedger::total()
{
  double t = sg4::Engine::get_clock();
  settle(dirty_);
  double dirty_sum             = 0;
  std::vector<uint32_t>& still = still_;
  still.clear();
  std::vector<double>& power = scratch_;
  power.resize(dirty_.size());
  for (size_t i = 0; i < dirty_.size(); i++)
    if (changed_at_[dirty_[i]] < t)
      power[i] = sg_host_get_current_consumption(hosts_[dirty_[i]]);
  for (size_t i = 0; i < dirty_.size(); i++) {
    uint32_t h = dirty_[i];
    if (changed_at_[h] < t) { // solved since its change: its power holds until the next one
      power_[h] = power[i];
      sum_a_ += energy_read_[h] - power_[h] * read_t_[h];
      sum_b_ += power_[h];
      dirty_flag_[h] = 0;
    } else {
      dirty_sum += energy_read_[h];
      still.push_back(h);
    }
  }
  dirty_.swap(still);
  return sum_a_ + sum_b_ * t + dirty_sum;
}

void EnergyLedger::set_context(uint32_t host, std::vector<std::pair<uint32_t, double>> jobs)
{
  context_[host] = std::move(jobs);
}

} // namespace sgai::batch
