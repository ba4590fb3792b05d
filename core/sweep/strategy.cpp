#include "core/sweep/strategy.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/sweep/campaign.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <numbers>
#include <sstream>
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

void find_extremes(Landscape& l)
{
  l.optimum = l.worst = 0;
  for (uint64_t i = 1; i < l.value.size(); ++i) {
    if (l.value[i] < l.value[l.optimum])
      l.optimum = i;
    if (l.value[i] > l.value[l.worst])
      l.worst = i;
  }
}

/** One CSV line's fields (RFC 4180 quotes: "a ""b""" is a "b"). */
std::vector<std::string> csv_fields(const std::string& line)
{
  std::vector<std::string> out(1);
  bool quoted = false;
  for (size_t i = 0; i < line.size(); ++i) {
    char c = line[i];
    if (quoted) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        out.back() += '"';
        ++i;
      } else if (c == '"')
        quoted = false;
      else
        out.back() += c;
    } else if (c == '"')
      quoted = true;
    else if (c == ',')
      out.emplace_back();
    else
      out.back() += c;
  }
  return out;
}

} // namespace

Landscape landscape_from_runs(const std::filesystem::path& campaign, const std::filesystem::path& runs_csv,
                              const std::string& name)
{
  Campaign c = read_campaign(campaign);
  Landscape l;
  l.name  = name.empty() ? c.name : name;
  l.space = c.space();
  // each parameter's values as the export shows them
  std::vector<std::map<std::string, uint32_t>> index(c.parameters.size());
  for (size_t d = 0; d < c.parameters.size(); ++d)
    for (size_t v = 0; v < c.parameters[d].values.size(); ++v)
      index[d].emplace(shown_value(c.parameters[d].values[v]), uint32_t(v));
  std::istringstream in(read_text_file(runs_csv));
  std::string file = runs_csv.string(), line;
  auto fail = [&](size_t at, const std::string& what) { throw InputError(file, "line " + std::to_string(at), what); };
  if (not std::getline(in, line))
    throw InputError(file, "line 1", "empty: expected the header of `sgai sweep export`");
  if (not line.empty() && line.back() == '\r')
    line.pop_back();
  auto header = csv_fields(line);
  auto column = [&](const std::string& col) {
    auto it = std::find(header.begin(), header.end(), col);
    if (it == header.end())
      fail(1, "no column " + quote(col) + " (campaign " + campaign.string() + ")");
    return size_t(it - header.begin());
  };
  size_t status = column("status"), objective = column("objective");
  std::vector<size_t> param_column;
  for (const auto& p : c.parameters)
    param_column.push_back(column(p.name));
  l.value.assign(l.space.count(), std::numeric_limits<double>::quiet_NaN());
  std::vector<size_t> line_of(l.space.count(), 0);
  for (size_t at = 2; std::getline(in, line); ++at) {
    if (not line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.empty())
      continue;
    auto f = csv_fields(line);
    if (f.size() != header.size())
      fail(at, std::to_string(f.size()) + " fields, the header has " + std::to_string(header.size()));
    if (f[status] != "done")
      continue;
    Point p(c.parameters.size());
    for (size_t d = 0; d < p.size(); ++d) {
      auto it = index[d].find(f[param_column[d]]);
      if (it == index[d].end()) {
        std::string valid;
        for (const auto& v : c.parameters[d].values)
          valid += (valid.empty() ? "" : ", ") + shown_value(v);
        fail(at, "parameter " + quote(c.parameters[d].name) + " has no value " + quote(f[param_column[d]]) + " (" +
                     valid + ")");
      }
      p[d] = it->second;
    }
    double v    = 0;
    size_t used = 0;
    try {
      v = std::stod(f[objective], &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used == 0 || used != f[objective].size() || not std::isfinite(v))
      fail(at, "objective " + quote(f[objective]) + " is not a finite number");
    uint64_t i = l.space.index(p);
    if (line_of[i] != 0)
      fail(at, "this point was run already, line " + std::to_string(line_of[i]));
    line_of[i] = at;
    l.value[i] = c.minimise ? v : -v;
  }
  for (uint64_t i = 0; i < l.value.size(); ++i)
    if (line_of[i] == 0) {
      Point p = l.space.point(i);
      std::string at;
      for (size_t d = 0; d < p.size(); ++d)
        at += (d ? ", " : "") + c.parameters[d].name + "=" + shown_value(c.parameters[d].values[p[d]]);
      throw InputError(file, "point " + std::to_string(i),
                       "no done run of " + at + ": the landscape needs every point of " + campaign.string() + " (" +
                           std::to_string(l.value.size()) + " points)");
    }
  find_extremes(l);
  return l;
}

Landscape landscape(const std::string& name)
{
  if (name == "batch")
    return landscape_from_runs("deploy/campaigns/hdeeprm-kth.json", "deploy/campaigns/landscapes/hdeeprm-kth.csv",
                               "batch");
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
    throw std::invalid_argument("no landscape " + name + " (rosenbrock, rastrigin, branin, batch)");
  for (const auto& a : axes)
    l.space.sizes.push_back(uint32_t(a.size()));
  l.value.resize(l.space.count());
  for (uint64_t i = 0; i < l.space.count(); ++i) {
    Point p = l.space.point(i);
    std::vector<double> x(p.size());
    for (size_t d = 0; d < p.size(); ++d)
      x[d] = axes[d][p[d]];
    l.value[i] = f(x);
  }
  find_extremes(l);
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
    if (l.optimal(i))
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
