/* The AI-ops simulator's outputs: summary, resources, deployed models, the database. */
#include "plugins/aiops_sim/simulator_impl.hpp"

namespace sgai::aiops_sim {

// ------------------------------------------------------------------------------------ outputs

RunSummary Simulator::finish()
{
  if (failure_)
    std::rethrow_exception(failure_);
  double horizon = std::max(e_.duration_s, sum_.end_s);
  double stale   = 0;
  for (uint32_t m = 0; m < deployed_.size(); ++m) {
    retire(m, horizon);
    stale += deployed_[m].integral;
  }
  if (not deployed_.empty())
    sum_.mean_staleness = stale / (double(deployed_.size()) * e_.duration_s);
  sum_.mean_wait_s = done_ > 0 ? wait_total_ / double(done_) : 0;

  // the hours still open, up to the last one of the run
  horizon_ = horizon;
  for (size_t r = 0; r < hours_.size(); ++r) {
    advance(r, horizon);
    while (not hours_[r].open.empty() && double(hours_[r].first) * kHour < horizon)
      close_hour(r);
  }
  for (auto& a : arrival_hours_)
    if (not deployed_.empty() && size_t(a.hour) < stale_hours_.size())
      a.mean_staleness = stale_hours_[size_t(a.hour)] / (kHour * double(deployed_.size()));

  auto& f = sum_.figures;
  f       = {{"pipelines", double(sum_.pipelines)},
             {"arrivals", double(sum_.arrivals)},
             {"retrainings", double(sum_.retrainings)},
             {"gated", double(sum_.gated)},
             {"tasks", double(sum_.tasks)},
             {"activities", double(sum_.activities)},
             {"duration_s", e_.duration_s},
             {"end_s", sum_.end_s},
             {"mean_wait_s", sum_.mean_wait_s},
             {"max_wait_s", sum_.max_wait_s},
             {"mean_staleness", sum_.mean_staleness},
             {"retraining_compute_s", sum_.retraining_compute_s}};
  // SimGrid's energy plugins (on in every sgai run): hosts with wattage_per_state, links with
  // wattage_range; contended transfers make links busy. Every figure is always there, in the
  // documented order: hosts' energy empty when a pool host lacks wattage_per_state, links' 0 J when
  // they lack wattage_range, each said once in a note
  auto energy = sim::collect_energy(true);
  f.emplace_back("hosts_energy_j", energy.hosts_total_j);
  f.emplace_back("links_energy_j", energy.links_total_j);
  sum_.notes      = energy.notes();
  const auto& dir = options_.output_dir;
  {
    AtomicFile out(dir / "resources.csv");
    auto& o = out.stream();
    o.precision(10);
    o << "resource,kind,slots,tasks,busy_s,utilisation,mean_queue_s,bytes_read,bytes_written\n";
    double span  = std::max(horizon, 1.0);
    uint64_t all = 0;
    double read = 0, written = 0;
    for (const Pool& p : pools_) {
      o << p.name << ",pool," << p.slots << ',' << p.tasks << ',' << p.busy << ','
        << (p.slots > 0 ? p.busy / (double(p.slots) * span) : 0) << ','
        << (p.tasks > 0 ? p.queued / double(p.tasks) : 0) << ',' << p.bytes_read << ',' << p.bytes_written << '\n';
      all += p.tasks;
      read += p.bytes_read;
      written += p.bytes_written;
    }
    o << e_.store << ",store,0," << all << ",0,0,0," << read << ',' << written << '\n';
    out.commit();
  }
  if (not deployed_.empty()) {
    AtomicFile out(dir / "deployed.csv");
    auto& o = out.stream();
    o.precision(10);
    o << "model,versions,retrainings,mean_staleness\n";
    for (uint32_t m = 0; m < deployed_.size(); ++m)
      o << m << ',' << deployed_[m].version + 1 << ',' << deployed_[m].retrains << ','
        << deployed_[m].integral / e_.duration_s << '\n';
    out.commit();
  }
  if (db_) {
    db_->finish(arrival_hours_);
    sum_.database_bytes = uint64_t(std::filesystem::file_size(dir / "aiops.sqlite"));
  }
  f.emplace_back("database_bytes", double(sum_.database_bytes)); // 0 without a database
  {
    AtomicFile out(dir / "summary.csv");
    out.stream().precision(10);
    out.stream() << "figure,value\n";
    for (const auto& [k, v] : f) {
      out.stream() << k << ',';
      if (std::isfinite(v))
        out.stream() << v;
      out.stream() << '\n';
    }
    out.commit();
  }
  return sum_;
}

} // namespace sgai::aiops_sim
