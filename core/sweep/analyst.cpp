#include "core/sweep/analyst.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <stdexcept>

namespace sgai::sweep {

bool insight_from_string(const std::string& s, Insight& out)
{
  if (s == "bad")
    out = Insight::bad;
  else if (s == "good")
    out = Insight::good;
  else if (s == "none")
    out = Insight::none;
  else
    return false;
  return true;
}

std::string to_string(Insight i)
{
  switch (i) {
  case Insight::bad:
    return "bad";
  case Insight::good:
    return "good";
  case Insight::none:
    return "none";
  }
  return "?";
}

bool Box::contains(const Point& p) const
{
  for (size_t d = 0; d < p.size(); ++d)
    if (p[d] < low[d] || p[d] > high[d])
      return false;
  return true;
}

uint64_t Box::count() const
{
  uint64_t n = 1;
  for (size_t d = 0; d < low.size(); ++d)
    n *= uint64_t(high[d] - low[d] + 1);
  return n;
}

Beliefs::Beliefs(const Landscape& l, double fraction)
    : landscape_(&l)
{
  if (not(fraction > 0 && fraction <= 1))
    throw std::invalid_argument("a belief region's fraction of each parameter's values lies in (0, 1]: " +
                                std::to_string(fraction));
  const Space& s = l.space;
  size_t dims    = s.dimensions();
  for (uint32_t size : s.sizes)
    width_.push_back(std::clamp(uint32_t(std::lround(fraction * double(size))), 1u, size));
  // every placement of the box: its low corner in a grid of (size - width + 1) per parameter
  Space corners;
  for (size_t d = 0; d < dims; ++d)
    corners.sizes.push_back(s.sizes[d] - width_[d] + 1);
  Space inner{width_};
  std::vector<std::pair<double, Point>> eligible; // (mean objective, low corner) of the boxes without an optimum
  for (uint64_t c = 0; c < corners.count(); ++c) {
    Point low    = corners.point(c);
    double sum   = 0;
    bool optimum = false;
    for (uint64_t k = 0; k < inner.count() && not optimum; ++k) {
      Point p = inner.point(k);
      for (size_t d = 0; d < dims; ++d)
        p[d] += low[d];
      uint64_t i = s.index(p);
      optimum    = l.optimal(i);
      sum += l.value[i];
    }
    if (not optimum)
      eligible.emplace_back(sum / double(inner.count()), low);
  }
  if (eligible.empty())
    return; // (every box holds an optimum: no bad insight, as draw says)
  std::vector<double> means;
  for (const auto& e : eligible)
    means.push_back(e.first);
  std::sort(means.begin(), means.end());
  double median = means[(means.size() - 1) / 2];
  for (const auto& [mean, low] : eligible)
    if (mean > median)
      bad_.push_back(low);
  if (bad_.empty()) // (all equally poor)
    for (const auto& e : eligible)
      bad_.push_back(e.second);
}

Box Beliefs::draw(Insight insight, std::mt19937_64& rng) const
{
  const Space& s = landscape_->space;
  Box b;
  switch (insight) {
  case Insight::none:
    for (uint32_t size : s.sizes) {
      b.low.push_back(0);
      b.high.push_back(size - 1);
    }
    break;
  case Insight::good: {
    Point o = s.point(landscape_->optimum);
    for (size_t d = 0; d < s.dimensions(); ++d) {
      uint32_t w  = width_[d];
      uint32_t lo = o[d] + 1 >= w ? o[d] + 1 - w : 0, hi = std::min(o[d], s.sizes[d] - w);
      uint32_t at = std::uniform_int_distribution<uint32_t>(lo, hi)(rng);
      b.low.push_back(at);
      b.high.push_back(at + w - 1);
    }
    break;
  }
  case Insight::bad: {
    if (bad_.empty())
      throw std::invalid_argument("every belief box of " + landscape_->name +
                                  " holds an optimum: no bad insight is possible");
    const Point& low = bad_[std::uniform_int_distribution<size_t>(0, bad_.size() - 1)(rng)];
    for (size_t d = 0; d < s.dimensions(); ++d) {
      b.low.push_back(low[d]);
      b.high.push_back(low[d] + width_[d] - 1);
    }
    break;
  }
  }
  return b;
}

Analyst::Analyst(const Landscape& l, Box belief, const AnalystConfig& c, uint64_t seed)
    : l_(&l)
    , belief_(std::move(belief))
    , c_(c)
    , rng_(seed)
    , used_(l.space.count(), 0)
    , best_(std::numeric_limits<double>::infinity())
{
  if (c.confidence_pct > 100)
    throw std::invalid_argument("a confidence is a percentage: " + std::to_string(c.confidence_pct));
  for (uint32_t size : l.space.sizes) {
    good_.emplace_back(size, 0);
    bad_.emplace_back(size, 0);
  }
}

double Analyst::weight(size_t d, uint32_t v) const
{
  double prior = v >= belief_.low[d] && v <= belief_.high[d] ? 1.0 : 0.0;
  return c_.learning ? (prior + double(good_[d][v])) / (1.0 + double(bad_[d][v])) : prior;
}

void Analyst::record(uint64_t point, bool suggestion)
{
  double y = l_->value[point];
  results_.push_back({l_->space.point(point), y});
  taken_.insert(point);
  used_[point] = 1;
  suggested_ += suggestion ? 1 : 0;
  best_ = std::min(best_, y);
  sorted_values_.insert(std::upper_bound(sorted_values_.begin(), sorted_values_.end(), y), y);
  if (c_.learning) {
    double median  = sorted_values_[(sorted_values_.size() - 1) / 2];
    const Point& p = results_.back().point;
    for (size_t d = 0; d < p.size(); ++d) {
      good_[d][p[d]] += y < median ? 1 : 0;
      bad_[d][p[d]] += y > median ? 1 : 0;
    }
  }
}

bool Analyst::run(uint64_t point)
{
  if (used_.at(point))
    return false;
  record(point, true);
  return true;
}

bool Analyst::step(uint64_t& point)
{
  uint64_t k = results_.size() + 1, pc = c_.confidence_pct;
  bool suggestion = (k * pc) / 100 > ((k - 1) * pc) / 100;
  bool ok         = suggestion ? next_point(Strategy::grasp, l_->space, results_, taken_, true, c_.beta, rng_, point)
                               : own_pick(point);
  if (ok)
    record(point, suggestion);
  return ok;
}

bool Analyst::own_pick(uint64_t& point)
{
  const Space& s = l_->space;
  size_t dims    = s.dimensions();
  uint64_t count = s.count();
  if (taken_.size() >= count)
    return false;
  // the weights per parameter (a parameter of all-zero weights drawn uniformly) and their support
  std::vector<std::vector<double>> w(dims);
  uint64_t support = 1;
  for (size_t d = 0; d < dims; ++d) {
    double total = 0;
    for (uint32_t v = 0; v < s.sizes[d]; ++v) {
      w[d].push_back(weight(d, v));
      total += w[d].back();
    }
    if (total <= 0)
      w[d].assign(s.sizes[d], 1.0);
    support *= uint64_t(std::count_if(w[d].begin(), w[d].end(), [](double x) { return x > 0; }));
  }
  auto positive = [&](const Point& p) {
    for (size_t d = 0; d < dims; ++d)
      if (w[d][p[d]] <= 0)
        return false;
    return true;
  };
  uint64_t support_taken = 0;
  for (const Result& r : results_)
    support_taken += positive(r.point) ? 1 : 0;
  if (support_taken >= support) {
    // the belief used up: a uniform free point
    for (auto& wd : w)
      std::fill(wd.begin(), wd.end(), 1.0);
  }
  // by rejection first: each parameter's value drawn from its weights, until a free point
  std::vector<std::discrete_distribution<uint32_t>> draw;
  for (const auto& wd : w)
    draw.emplace_back(wd.begin(), wd.end());
  Point p(dims);
  for (int attempt = 0; attempt < 64; ++attempt) {
    for (size_t d = 0; d < dims; ++d)
      p[d] = draw[d](rng_);
    if (uint64_t i = s.index(p); not used_[i]) {
      point = i;
      return true;
    }
  }
  // few free points left in the support: draw among them exactly
  std::vector<double> mass;
  std::vector<uint64_t> which;
  Point at(dims, 0);
  for (uint64_t i = 0; i < count; ++i) {
    if (not used_[i]) {
      double m = 1;
      for (size_t d = 0; d < dims; ++d)
        m *= w[d][at[d]];
      if (m > 0) {
        mass.push_back(m);
        which.push_back(i);
      }
    }
    for (size_t d = dims; d-- > 0;) {
      if (++at[d] < s.sizes[d])
        break;
      at[d] = 0;
    }
  }
  if (which.empty())
    return false; // (never: the support has a free point, or every weight is 1)
  point = which[std::discrete_distribution<size_t>(mass.begin(), mass.end())(rng_)];
  return true;
}

namespace {

Box belief_for(const Beliefs& b, Insight insight, uint64_t seed)
{
  // its own stream, so that settings of confidence and learning meet the same boxes
  std::mt19937_64 rng(seed ^ 0x9e3779b97f4a7c15ULL);
  return b.draw(insight, rng);
}

} // namespace

uint64_t analyst_runs_to_optimum(const Landscape& l, const Beliefs& b, const AnalystConfig& c, uint64_t seed)
{
  Analyst a(l, belief_for(b, c.insight, seed), c, seed);
  uint64_t point = 0;
  while (a.step(point))
    if (l.optimal(point))
      return a.results().size();
  return a.results().size(); // (never: every point run includes the optimum)
}

SlaOutcome sla_experiment(const Landscape& l, const Beliefs& b, const AnalystConfig& c, uint64_t max_runs,
                          const std::vector<double>& exploitation, uint64_t seed)
{
  if (max_runs == 0)
    throw std::invalid_argument("an SLA's maximum of runs is at least 1");
  Analyst a(l, belief_for(b, c.insight, seed), c, seed);
  uint64_t cut   = (7 * max_runs + 9) / 10; // ceil(0.7 B)
  uint64_t point = 0;
  while (a.results().size() < cut && a.step(point)) {
  }
  auto finish = [&](Analyst& x) {
    while (x.results().size() < max_runs && x.step(point)) {
    }
    return l.quality(x.best());
  };
  SlaOutcome out;
  {
    Analyst alone = a;
    out.without   = finish(alone);
  }
  SlaState sla;
  sla.max_runs   = max_runs;
  sla.finished   = a.results().size();
  Forecast f     = forecast(l.space, a.results(), a.taken(), true, sla, kDefaultEps, default_min_points(l.space));
  out.clusters   = f.clusters.count > 0;
  out.violation  = f.violation;
  DoeModel model = main_effects(l.space, a.results(), true);
  for (double e : exploitation) {
    Analyst accepting = a;
    uint64_t left     = max_runs - accepting.results().size();
    for (const Point& p : suggest(l.space, f, a.results(), true, e, left, model, c.beta, a.taken(), accepting.rng()))
      accepting.run(l.space.index(p));
    out.with.push_back(finish(accepting));
  }
  return out;
}

} // namespace sgai::sweep
