/* The AI-ops simulator's deployed models: drift, retraining, staleness. */
#include "plugins/aiops_sim/simulator_impl.hpp"

namespace sgai::aiops_sim {

// ------------------------------------------------------------------------------------ deployed models

aiops::Drift Simulator::draw_drift()
{
  const aiops::DriftSpec& s = e_.deployed.drift;
  double total              = s.gradual + s.sudden + s.recurring;
  double x                  = std::uniform_real_distribution<double>(0, total)(drift_rng_);
  aiops::Drift d;
  if (x < s.gradual) {
    d.kind = aiops::DriftKind::gradual;
    d.rate = s.gradual_per_day / 86400;
  } else if (x < s.gradual + s.sudden) {
    d.kind      = aiops::DriftKind::sudden;
    d.onset     = std::exponential_distribution<double>(1 / s.sudden_mean_onset)(drift_rng_);
    d.magnitude = s.sudden_magnitude;
  } else {
    d.kind      = aiops::DriftKind::recurring;
    d.period    = s.recurring_period;
    d.amplitude = s.recurring_amplitude;
  }
  return d;
}

void Simulator::schedule(uint32_t model)
{
  Deployed& d = deployed_[model];
  for (const auto& t : e_.triggers) {
    if (t.kind == "threshold") {
      double c = d.drift.crossing(t.value);
      if (std::isfinite(c))
        events_.push({std::max(d.deployed + c, s4u::Engine::get_clock()), model, d.version, Origin::threshold});
    } else if (t.kind == "schedule")
      events_.push({std::max(d.deployed + t.value, s4u::Engine::get_clock()), model, d.version, Origin::schedule});
  }
}

void Simulator::add_staleness(const Deployed& d, double from, double to)
{
  from = std::max(from, 0.0);
  to   = std::min(to, e_.duration_s);
  if (not(to > from))
    return;
  for (double a = from; a < to;) {
    double b = std::min(to, (std::floor(a / kHour) + 1) * kHour);
    auto h   = size_t(a / kHour);
    if (stale_hours_.size() <= h)
      stale_hours_.resize(h + 1, 0);
    stale_hours_[h] += d.drift.integral(b - d.deployed) - d.drift.integral(a - d.deployed);
    a = b;
  }
}

void Simulator::retire(uint32_t model, double now)
{
  Deployed& d = deployed_[model];
  double from = std::max(d.deployed, 0.0), to = std::min(now, e_.duration_s);
  double s = to > from ? d.drift.integral(to - d.deployed) - d.drift.integral(from - d.deployed) : 0;
  d.integral += s;
  add_staleness(d, d.deployed, now);
  if (db_) {
    db_->add(aiops::VersionRow{int64_t(model), d.version, d.pipeline, int32_t(d.drift.kind), d.deployed, now, d.metric,
                               now > d.deployed ? (d.drift.integral(now - d.deployed) / (now - d.deployed)) : 0});
    double st = d.drift.staleness(now - d.deployed);
    db_->add(aiops::SampleRow{now, int64_t(model), d.version, int32_t(aiops::SampleEvent::retired), d.metric * (1 - st),
                              st});
  }
}

void Simulator::deploy(uint32_t model, double now, int64_t pipeline, double metric)
{
  retire(model, now);
  Deployed& d = deployed_[model];
  ++d.version;
  d.pipeline = pipeline;
  d.deployed = now;
  d.metric   = metric;
  d.drift    = draw_drift();
  if (db_)
    db_->add(aiops::SampleRow{now, int64_t(model), d.version, int32_t(aiops::SampleEvent::deployed), d.metric, 0});
  schedule(model);
  wake_detector();
}

} // namespace sgai::aiops_sim
