#include "plugins/sweep/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <numbers>
#include <stdexcept>

namespace sgai::sweep {

bool strategy_from_string(const std::string& s, Strategy& out)
{
  if (s == "grasp")
    out = Strategy::grasp;
  else if (s == "random")
    out = Strategy::random;
  else if (s == "full")
    out = Strategy::full;
  else
    return false;
  return true;
}

bool next_point(Strategy strategy, const Space& space, const std::vector<Result>& results,
                const std::set<uint64_t>& taken, bool minimise, double beta, std::mt19937_64& rng, uint64_t& out)
{
  uint64_t count = space.count();
  if (taken.size() >= count)
    return false;
  if (strategy == Strategy::full) {
    for (uint64_t i = 0; i < count; ++i)
      if (not taken.count(i)) {
        out = i;
        return true;
      }
    return false;
  }
  if (strategy == Strategy::random || results.size() < space.dimensions() + 1) {
    // a uniform free point by rejection: count / free draws on average, so a whole random sweep
    // costs about N ln N draws
    std::uniform_int_distribution<uint64_t> any(0, count - 1);
    for (;;) {
      uint64_t i = any(rng);
      if (not taken.count(i)) {
        out = i;
        return true;
      }
    }
  }
  DoeModel m = main_effects(space, results, minimise);
  Point p    = construction(m, beta, rng);
  if (not taken.count(space.index(p))) {
    out = space.index(p);
    return true;
  }
  auto near = local_search(space, p, 1, taken, rng);
  if (near.empty())
    return false;
  out = space.index(near.front());
  return true;
}

namespace {

std::vector<double> axis(double lo, double hi, uint32_t n)
{
  std::vector<double> v(n);
  for (uint32_t i = 0; i < n; ++i)
    v[i] = n > 1 ? lo + (hi - lo) * double(i) / double(n - 1) : lo;
  return v;
}

} // namespace

Landscape landscape(const std::string& name)
{
  Landscape l;
  l.name = name;
  std::vector<std::vector<double>> axes;
  std::function<double(const std::vector<double>&)> f;
  if (name == "rosenbrock") {
    axes.assign(4, axis(-2, 2, 6));
    f = [](const std::vector<double>& x) {
      double s = 0;
      for (size_t i = 0; i + 1 < x.size(); ++i)
        s += 100 * (x[i + 1] - x[i] * x[i]) * (x[i + 1] - x[i] * x[i]) + (1 - x[i]) * (1 - x[i]);
      return s;
    };
  } else if (name == "rastrigin") {
    axes = {axis(-5.12, 5.12, 22), axis(-5.12, 5.12, 20), axis(-5.12, 5.12, 20)};
    f    = [](const std::vector<double>& x) {
      double s = 10 * double(x.size());
      for (double v : x)
        s += v * v - 10 * std::cos(2 * std::numbers::pi * v);
      return s;
    };
  } else if (name == "branin") {
    axes = {axis(-5, 10, 30), axis(0, 15, 30)};
    f    = [](const std::vector<double>& x) {
      double pi = std::numbers::pi, b = 5.1 / (4 * pi * pi), c = 5 / pi, t = 1 / (8 * pi);
      double y = x[1] - b * x[0] * x[0] + c * x[0] - 6;
      return y * y + 10 * (1 - t) * std::cos(x[0]) + 10;
    };
  } else
    throw std::invalid_argument("no landscape " + name + " (rosenbrock, rastrigin, branin)");
  for (const auto& a : axes)
    l.space.sizes.push_back(uint32_t(a.size()));
  l.value.resize(l.space.count());
  for (uint64_t i = 0; i < l.space.count(); ++i) {
    Point p = l.space.point(i);
    std::vector<double> x(p.size());
    for (size_t d = 0; d < p.size(); ++d)
      x[d] = axes[d][p[d]];
    l.value[i] = f(x);
    if (l.value[i] < l.value[l.optimum])
      l.optimum = i;
  }
  return l;
}

uint64_t runs_to_optimum(const Landscape& l, Strategy s, double beta, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::set<uint64_t> taken;
  std::vector<Result> results;
  for (uint64_t runs = 1;; ++runs) {
    uint64_t i = 0;
    if (not next_point(s, l.space, results, taken, true, beta, rng, i))
      return runs; // (never: the optimum is a free point until run)
    if (i == l.optimum)
      return runs;
    taken.insert(i);
    results.push_back({l.space.point(i), l.value[i]});
  }
}

Interval bootstrap_mean(const std::vector<double>& x, uint64_t seed)
{
  Interval r;
  if (x.empty())
    return r;
  double sum = 0;
  for (double v : x)
    sum += v;
  r.mean = sum / double(x.size());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<size_t> pick(0, x.size() - 1);
  std::vector<double> means;
  for (int b = 0; b < 2000; ++b) {
    double s = 0;
    for (size_t k = 0; k < x.size(); ++k)
      s += x[pick(rng)];
    means.push_back(s / double(x.size()));
  }
  std::sort(means.begin(), means.end());
  r.low  = means[50];   // 2.5%
  r.high = means[1949]; // 97.5%
  return r;
}

} // namespace sgai::sweep
