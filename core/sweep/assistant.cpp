#include "core/sweep/assistant.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <numeric>
#include <stdexcept>

namespace sgai::sweep {

DoeModel main_effects(const Space& space, const std::vector<Result>& results, bool minimise)
{
  DoeModel m;
  size_t dims = space.dimensions();
  std::vector<std::vector<double>> sum(dims);
  m.quality.resize(dims);
  m.runs.resize(dims);
  for (size_t d = 0; d < dims; ++d) {
    sum[d].assign(space.sizes[d], 0.0);
    m.quality[d].assign(space.sizes[d], 0.0);
    m.runs[d].assign(space.sizes[d], 0);
  }
  if (results.empty())
    return m;
  double total = 0;
  for (const Result& r : results) {
    total += r.value;
    for (size_t d = 0; d < dims; ++d) {
      sum[d][r.point[d]] += r.value;
      ++m.runs[d][r.point[d]];
    }
  }
  m.grand_mean = total / double(results.size());
  for (size_t d = 0; d < dims; ++d)
    for (size_t v = 0; v < space.sizes[d]; ++v)
      if (m.runs[d][v] > 0) {
        double effect   = sum[d][v] / double(m.runs[d][v]) - m.grand_mean;
        m.quality[d][v] = minimise ? -effect : effect;
      }
  return m;
}

std::vector<uint32_t> restricted_candidates(const std::vector<double>& quality, double beta)
{
  if (quality.empty())
    return {};
  auto [lo, hi]    = std::minmax_element(quality.begin(), quality.end());
  double threshold = *lo + beta * (*hi - *lo);
  std::vector<uint32_t> out;
  for (size_t v = 0; v < quality.size(); ++v)
    // (a tolerance so that beta = 1 keeps the best even after rounding)
    if (quality[v] >= threshold - 1e-12 * std::max(1.0, std::fabs(threshold)))
      out.push_back(uint32_t(v));
  return out;
}

Point construction(const DoeModel& model, double beta, std::mt19937_64& rng)
{
  Point p(model.quality.size());
  for (size_t d = 0; d < p.size(); ++d) {
    auto rcl = restricted_candidates(model.quality[d], beta);
    p[d]     = rcl[std::uniform_int_distribution<size_t>(0, rcl.size() - 1)(rng)];
  }
  return p;
}

std::vector<Point> local_search(const Space& space, const Point& from, size_t n, const std::set<uint64_t>& taken,
                                std::mt19937_64& rng)
{
  // squared normalised distances over the grid, the point's coordinates kept as an odometer (no
  // allocation per point: the campaigns' spaces hold up to millions of points)
  size_t dims = space.dimensions();
  std::vector<double> scale(dims);
  for (size_t d = 0; d < dims; ++d)
    scale[d] = space.sizes[d] > 1 ? 1.0 / double(space.sizes[d] - 1) : 0.0;
  uint64_t self = space.index(from);
  std::vector<char> used(space.count(), 0); // (a flag per point: cheaper than the set in the scan)
  for (uint64_t t : taken)
    if (t < used.size())
      used[t] = 1;
  used[self] = 1;
  Point at(dims, 0);
  auto distance2 = [&]() {
    double s2 = 0;
    for (size_t d = 0; d < dims; ++d) {
      double delta = (double(at[d]) - double(from[d])) * scale[d];
      s2 += delta * delta;
    }
    return s2;
  };
  auto advance = [&]() {
    for (size_t d = dims; d-- > 0;) {
      if (++at[d] < space.sizes[d])
        return;
      at[d] = 0;
    }
  };
  std::vector<Point> out;
  if (n == 1) {
    // the nearest free point, equally near ones chosen uniformly (reservoir sampling)
    double best   = std::numeric_limits<double>::infinity();
    uint64_t pick = 0, ties = 0;
    for (uint64_t i = 0; i < space.count(); ++i, advance()) {
      if (used[i])
        continue;
      double d2 = distance2();
      if (d2 < best - 1e-12) {
        best = d2;
        pick = i;
        ties = 1;
      } else if (std::fabs(d2 - best) <= 1e-12 && std::uniform_int_distribution<uint64_t>(0, ties++)(rng) == 0)
        pick = i;
    }
    if (ties > 0)
      out.push_back(space.point(pick));
    return out;
  }
  std::vector<std::pair<double, uint64_t>> free;
  for (uint64_t i = 0; i < space.count(); ++i, advance())
    if (not used[i])
      free.emplace_back(distance2(), i);
  // random order among equals: shuffle, then a stable sort by distance
  std::shuffle(free.begin(), free.end(), rng);
  std::stable_sort(free.begin(), free.end(), [](const auto& a, const auto& b) { return a.first < b.first - 1e-12; });
  for (size_t k = 0; k < free.size() && out.size() < n; ++k)
    out.push_back(space.point(free[k].second));
  return out;
}

std::vector<Point> grasp_sample(const Space& space, const DoeModel& model, double beta, size_t n,
                                const std::set<uint64_t>& taken, std::mt19937_64& rng)
{
  if (n == 0)
    return {};
  Point start = construction(model, beta, rng);
  std::vector<Point> out;
  if (not taken.count(space.index(start)))
    out.push_back(start);
  for (Point& p : local_search(space, start, n - out.size(), taken, rng))
    out.push_back(std::move(p));
  return out;
}

size_t default_min_points(const Space& space)
{
  return space.dimensions() + 1;
}

Clusters dbscan(const Space& space, const std::vector<Point>& points, double eps, size_t min_points)
{
  size_t n = points.size();
  std::vector<std::vector<double>> x(n);
  for (size_t i = 0; i < n; ++i)
    x[i] = space.normalised(points[i]);
  auto near = [&](size_t i) {
    std::vector<size_t> out;
    for (size_t j = 0; j < n; ++j) {
      double s = 0;
      for (size_t d = 0; d < x[i].size(); ++d)
        s += (x[i][d] - x[j][d]) * (x[i][d] - x[j][d]);
      if (std::sqrt(s) <= eps + 1e-12)
        out.push_back(j);
    }
    return out;
  };
  Clusters c;
  constexpr int unvisited = -2;
  c.label.assign(n, unvisited);
  for (size_t i = 0; i < n; ++i) {
    if (c.label[i] != unvisited)
      continue;
    auto seeds = near(i);
    if (seeds.size() < min_points) {
      c.label[i] = -1; // noise, unless a cluster reaches it later
      continue;
    }
    int id     = c.count++;
    c.label[i] = id;
    std::deque<size_t> queue(seeds.begin(), seeds.end());
    while (not queue.empty()) {
      size_t j = queue.front();
      queue.pop_front();
      if (c.label[j] == -1)
        c.label[j] = id; // a border point
      if (c.label[j] != unvisited)
        continue;
      c.label[j] = id;
      auto more  = near(j);
      if (more.size() >= min_points)
        queue.insert(queue.end(), more.begin(), more.end());
    }
  }
  return c;
}

uint64_t runs_still_possible(const SlaState& sla)
{
  uint64_t started = sla.finished + sla.running;
  uint64_t budget  = std::numeric_limits<uint64_t>::max();
  if (sla.max_runs > 0)
    budget = sla.max_runs > started ? sla.max_runs - started : 0;
  if (std::isfinite(sla.deadline_s) && sla.mean_run_s > 0) {
    double left = std::max(0.0, sla.deadline_s - sla.now_s);
    // each of the `parallel` slots runs left / mean runs, the running ones first
    double slots     = double(sla.parallel) * std::floor(left / sla.mean_run_s);
    uint64_t by_time = slots > double(sla.running) ? uint64_t(slots - double(sla.running)) : 0;
    budget           = std::min(budget, by_time);
  } else if (std::isfinite(sla.deadline_s) && sla.now_s >= sla.deadline_s)
    budget = 0;
  return budget;
}

Forecast forecast(const Space& space, const std::vector<Result>& results, const std::set<uint64_t>& taken,
                  bool minimise, const SlaState& sla, double eps, size_t min_points)
{
  Forecast f;
  f.possible = runs_still_possible(sla);
  if (results.empty())
    return f;
  std::vector<double> values;
  for (const Result& r : results)
    values.push_back(r.value);
  std::sort(values.begin(), values.end());
  double median = values[(values.size() - 1) / 2];
  if (not minimise)
    median = values[values.size() / 2];
  std::vector<double> member_values;
  for (const Result& r : results)
    if (minimise ? r.value <= median : r.value >= median) {
      f.members.push_back(r.point);
      member_values.push_back(r.value);
    }
  f.clusters = dbscan(space, f.members, eps, min_points);
  f.pending.resize(size_t(f.clusters.count));
  f.cluster_quality.assign(size_t(f.clusters.count), 0.0);
  std::vector<size_t> size(size_t(f.clusters.count), 0);
  for (size_t i = 0; i < f.members.size(); ++i)
    if (int c = f.clusters.label[i]; c >= 0) {
      f.cluster_quality[size_t(c)] += member_values[i];
      ++size[size_t(c)];
    }
  for (size_t c = 0; c < size.size(); ++c)
    f.cluster_quality[c] /= double(size[c]);
  // each free point near a member belongs to that member's cluster (the nearest member's when
  // several clusters reach it); the clustered members' coordinates computed once, the grid walked
  // as an odometer (the same arithmetic as Space::distance)
  std::vector<std::vector<double>> member_x;
  std::vector<int> member_label;
  for (size_t m = 0; m < f.members.size(); ++m)
    if (int c = f.clusters.label[m]; c >= 0) {
      member_x.push_back(space.normalised(f.members[m]));
      member_label.push_back(c);
    }
  std::vector<char> used(space.count(), 0);
  for (uint64_t t : taken)
    if (t < used.size())
      used[t] = 1;
  size_t dims = space.dimensions();
  Point at(dims, 0);
  std::vector<double> x(dims);
  for (uint64_t i = 0; i < space.count() && not member_x.empty(); ++i) {
    if (not used[i]) {
      for (size_t d = 0; d < dims; ++d)
        x[d] = space.sizes[d] > 1 ? double(at[d]) / double(space.sizes[d] - 1) : 0.0;
      int best    = -1;
      double near = eps + 1e-12;
      for (size_t m = 0; m < member_x.size(); ++m) {
        double s = 0;
        for (size_t d = 0; d < dims; ++d)
          s += (x[d] - member_x[m][d]) * (x[d] - member_x[m][d]);
        if (double dist = std::sqrt(s); dist <= near) {
          near = dist;
          best = member_label[m];
        }
      }
      if (best >= 0) {
        f.pending[size_t(best)].push_back(at);
        ++f.pending_total;
      }
    }
    for (size_t d = dims; d-- > 0;) {
      if (++at[d] < space.sizes[d])
        break;
      at[d] = 0;
    }
  }
  f.violation = f.pending_total > f.possible;
  return f;
}

std::vector<Point> suggest(const Space& space, const Forecast& f, const std::vector<Result>& results, bool minimise,
                           double exploitation, uint64_t runs, const DoeModel& model, double beta,
                           const std::set<uint64_t>& taken, std::mt19937_64& rng)
{
  if (not(exploitation >= 0 && exploitation <= 1))
    throw std::invalid_argument("an exploitation level lies in [0, 1]");
  std::vector<Point> out;
  std::set<uint64_t> used = taken;
  auto inside             = uint64_t(std::llround(exploitation * double(runs)));
  // clusters, the best first; weights from their mean quality, shifted to be positive
  std::vector<size_t> order(f.pending.size());
  std::iota(order.begin(), order.end(), 0);
  std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
    return minimise ? f.cluster_quality[a] < f.cluster_quality[b] : f.cluster_quality[a] > f.cluster_quality[b];
  });
  if (not order.empty() && inside > 0) {
    double worst = f.cluster_quality[order.back()], best = f.cluster_quality[order.front()];
    std::vector<double> weight;
    double total = 0;
    for (size_t c : order) {
      // 1 for the worst cluster up to 2 for the best: every cluster keeps a share
      double w = best != worst ? 1 + (f.cluster_quality[c] - worst) / (best - worst) : 1;
      weight.push_back(w);
      total += w;
    }
    uint64_t given = 0;
    for (size_t k = 0; k < order.size() && given < inside; ++k) {
      size_t c = order[k];
      uint64_t want =
          k + 1 == order.size()
              ? inside - given
              : std::min<uint64_t>(inside - given, uint64_t(std::llround(double(inside) * weight[k] / total)));
      // the cluster's best run, and its free points nearest to it first
      const Point* anchor = nullptr;
      double anchor_value = 0;
      for (size_t m = 0; m < f.members.size(); ++m)
        if (f.clusters.label[m] == int(c))
          for (const Result& r : results)
            if (r.point == f.members[m] &&
                (anchor == nullptr || (minimise ? r.value < anchor_value : r.value > anchor_value))) {
              anchor       = &f.members[m];
              anchor_value = r.value;
            }
      // (each distance computed once, then a stable sort on it)
      std::vector<std::pair<double, size_t>> pending;
      for (size_t k2 = 0; k2 < f.pending[c].size(); ++k2)
        pending.emplace_back(anchor != nullptr ? space.distance(f.pending[c][k2], *anchor) : 0.0, k2);
      std::stable_sort(pending.begin(), pending.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      uint64_t took = 0;
      for (const auto& [dist, k2] : pending) {
        const Point& p = f.pending[c][k2];
        if (took == want)
          break;
        if (used.insert(space.index(p)).second) {
          out.push_back(p);
          ++took;
        }
      }
      given += took;
    }
  }
  // the rest by GRASP, outside the clusters' pending points
  std::set<uint64_t> avoid = used;
  for (const auto& pending : f.pending)
    for (const Point& p : pending)
      avoid.insert(space.index(p));
  while (out.size() < runs) {
    auto more = grasp_sample(space, model, beta, size_t(runs - out.size()), avoid, rng);
    if (more.empty())
      break;
    for (Point& p : more) {
      avoid.insert(space.index(p));
      out.push_back(std::move(p));
    }
  }
  return out;
}

} // namespace sgai::sweep
