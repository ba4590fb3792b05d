#include "core/aiops/arrivals.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace sgai::aiops {

std::vector<std::pair<double, double>> gaps_of(std::vector<double> t)
{
  for (double& v : t)
    v = std::floor(v);
  std::sort(t.begin(), t.end());
  t.erase(std::unique(t.begin(), t.end()), t.end());
  std::vector<std::pair<double, double>> out;
  for (size_t i = 1; i < t.size(); ++i)
    out.push_back({t[i - 1], t[i] - t[i - 1]});
  return out;
}

int ArrivalProfile::hour_of(double t) const
{
  auto h = int64_t(std::floor(t / 3600.0)) + origin_hour;
  h %= kHoursPerWeek;
  return int(h < 0 ? h + kHoursPerWeek : h);
}

double ArrivalProfile::cdf(double t, double g) const
{
  return hours[size_t(hour_of(t))].cdf(g / factor);
}

double ArrivalProfile::sample(double t, std::mt19937_64& rng) const
{
  return hours[size_t(hour_of(t))].sample(rng) * factor;
}

double ArrivalProfile::mean(double t) const
{
  return hours[size_t(hour_of(t))].mean() * factor;
}

ArrivalProfile fit_arrivals(const std::vector<std::pair<double, double>>& gaps, const ArrivalFitOptions& o)
{
  if (gaps.size() < 2)
    throw std::invalid_argument("fitting arrivals needs at least three distinct arrival times");
  ArrivalProfile p;
  p.origin_hour = ((o.origin_hour % kHoursPerWeek) + kHoursPerWeek) % kHoursPerWeek;
  std::array<std::vector<double>, kHoursPerWeek> by_hour;
  std::vector<double> all;
  for (auto [start, gap] : gaps) {
    if (not(gap > 0))
      throw std::invalid_argument("gaps must be positive");
    by_hour[size_t(p.hour_of(start))].push_back(gap);
    all.push_back(gap);
  }
  p.overall = fit_best(o.families, all);
  for (int h = 0; h < kHoursPerWeek; ++h) {
    const auto& g = by_hour[size_t(h)];
    std::vector<Family> eligible;
    for (Family f : o.families)
      if (g.size() >= std::max<size_t>(2, o.per_parameter * size_t(parameters(f))))
        eligible.push_back(f);
    if (not eligible.empty()) {
      p.hours[size_t(h)]  = fit_best(eligible, g);
      p.fitted[size_t(h)] = g.size();
    } else {
      p.hours[size_t(h)] = p.overall;
    }
  }
  return p;
}

HoldOut hold_out_test(const ArrivalProfile& profile, const std::vector<std::pair<double, double>>& fitted,
                      const std::vector<std::pair<double, double>>& held)
{
  std::vector<double> all, u, ue;
  for (auto g : fitted)
    all.push_back(g.second);
  Distribution e = fit(Family::exponential, all);
  for (auto g : held) {
    u.push_back(profile.cdf(g.first, g.second));
    ue.push_back(e.cdf(g.second));
  }
  auto uniform = [](double x) { return std::clamp(x, 0.0, 1.0); };
  return {ks_distance(u, uniform), ks_distance(ue, uniform)};
}

} // namespace sgai::aiops
