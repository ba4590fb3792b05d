#include "core/aiops/distributions.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sgai::aiops {

double normal_cdf(double z)
{
  return 0.5 * std::erfc(-z / std::sqrt(2.0));
}

namespace {

/** Inverse of the standard normal CDF: Acklam's rational approximation, one Newton step. */
double normal_quantile(double u)
{
  static const double a[] = {-3.969683028665376e+01, 2.209460984245205e+02,  -2.759285104469687e+02,
                             1.383577518672690e+02,  -3.066479806614716e+01, 2.506628277459239e+00};
  static const double b[] = {-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
                             6.680131188771972e+01, -1.328068155288572e+01};
  static const double c[] = {-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
                             -2.549732539343734e+00, 4.374664141464968e+00,  2.938163982698783e+00};
  static const double d[] = {7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
                             3.754408661907416e+00};
  double x;
  if (u < 0.02425) {
    double q = std::sqrt(-2 * std::log(u));
    x        = (((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else if (u > 1 - 0.02425) {
    double q = std::sqrt(-2 * std::log(1 - u));
    x        = -(((((c[0] * q + c[1]) * q + c[2]) * q + c[3]) * q + c[4]) * q + c[5]) /
        ((((d[0] * q + d[1]) * q + d[2]) * q + d[3]) * q + 1);
  } else {
    double q = u - 0.5, r = q * q;
    x = (((((a[0] * r + a[1]) * r + a[2]) * r + a[3]) * r + a[4]) * r + a[5]) * q /
        (((((b[0] * r + b[1]) * r + b[2]) * r + b[3]) * r + b[4]) * r + 1);
  }
  double e = normal_cdf(x) - u;
  x -= e * std::sqrt(2 * M_PI) * std::exp(x * x / 2);
  return x;
}

double mean_of(const std::vector<double>& v)
{
  return std::accumulate(v.begin(), v.end(), 0.0) / double(v.size());
}

} // namespace

const char* to_string(Family f)
{
  switch (f) {
  case Family::exponential:
    return "exponential";
  case Family::lognormal:
    return "lognormal";
  case Family::pareto:
    return "pareto";
  case Family::expweibull:
    return "expweibull";
  }
  return "?";
}

bool family_from_string(const std::string& s, Family& out)
{
  for (Family f : {Family::exponential, Family::lognormal, Family::pareto, Family::expweibull})
    if (s == to_string(f)) {
      out = f;
      return true;
    }
  return false;
}

bool Distribution::valid() const
{
  auto pos = [](double v) { return std::isfinite(v) && v > 0; };
  switch (family) {
  case Family::exponential:
    return pos(p[0]);
  case Family::lognormal:
    return std::isfinite(p[0]) && pos(p[1]);
  case Family::pareto:
    return pos(p[0]) && pos(p[1]);
  case Family::expweibull:
    return pos(p[0]) && pos(p[1]) && pos(p[2]);
  }
  return false;
}

double Distribution::cdf(double x) const
{
  if (x <= 0)
    return 0;
  switch (family) {
  case Family::exponential:
    return -std::expm1(-p[0] * x);
  case Family::lognormal:
    return normal_cdf((std::log(x) - p[0]) / p[1]);
  case Family::pareto:
    return 1 - std::pow(1 + x / p[1], -p[0]);
  case Family::expweibull:
    return std::pow(-std::expm1(-std::pow(x / p[2], p[1])), p[0]);
  }
  return 0;
}

double Distribution::log_pdf(double x) const
{
  if (x <= 0)
    return -kInf;
  switch (family) {
  case Family::exponential:
    return std::log(p[0]) - p[0] * x;
  case Family::lognormal: {
    double z = (std::log(x) - p[0]) / p[1];
    return -std::log(x * p[1] * std::sqrt(2 * M_PI)) - z * z / 2;
  }
  case Family::pareto:
    return std::log(p[0] / p[1]) - (p[0] + 1) * std::log1p(x / p[1]);
  case Family::expweibull: {
    double a = p[0], k = p[1], s = p[2];
    double t = std::pow(x / s, k);
    return std::log(a * k / s) + (k - 1) * std::log(x / s) - t + (a - 1) * std::log(-std::expm1(-t));
  }
  }
  return -kInf;
}

double Distribution::pdf(double x) const
{
  return std::exp(log_pdf(x));
}

double Distribution::quantile(double u) const
{
  u = std::clamp(u, 1e-300, 1 - 1e-16);
  switch (family) {
  case Family::exponential:
    return -std::log1p(-u) / p[0];
  case Family::lognormal:
    return std::exp(p[0] + p[1] * normal_quantile(u));
  case Family::pareto:
    return p[1] * std::expm1(-std::log1p(-u) / p[0]);
  case Family::expweibull:
    return p[2] * std::pow(-std::log1p(-std::pow(u, 1 / p[0])), 1 / p[1]);
  }
  return 0;
}

double Distribution::sample(std::mt19937_64& rng) const
{
  // 53 random bits in (0, 1)
  double u = (double(rng() >> 11) + 0.5) * (1.0 / 9007199254740992.0);
  return quantile(u);
}

double Distribution::mean() const
{
  switch (family) {
  case Family::exponential:
    return 1 / p[0];
  case Family::lognormal:
    return std::exp(p[0] + p[1] * p[1] / 2);
  case Family::pareto:
    return p[0] > 1 ? p[1] / (p[0] - 1) : kInf;
  case Family::expweibull: {
    // E[X] = integral of the quantile over (0, 1): midpoints on a grid dense at both ends
    const int n = 20000;
    double sum  = 0;
    for (int i = 0; i < n; ++i) {
      double v = (i + 0.5) / n;
      double u = v * v * (3 - 2 * v); // smoothstep: spacing du = 6 v (1 - v) dv
      sum += quantile(u) * 6 * v * (1 - v) / n;
    }
    return sum;
  }
  }
  return 0;
}

std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                                const std::vector<double>& step, int iterations, double tolerance)
{
  const size_t n = x0.size();
  std::vector<std::vector<double>> s(n + 1, x0);
  for (size_t i = 0; i < n; ++i)
    s[i + 1][i] += step[i];
  std::vector<double> v(n + 1);
  auto eval = [&f](const std::vector<double>& x) {
    double y = f(x);
    return std::isfinite(y) ? y : kInf;
  };
  for (size_t i = 0; i <= n; ++i)
    v[i] = eval(s[i]);
  std::vector<size_t> order(n + 1);
  for (int it = 0; it < iterations; ++it) {
    std::iota(order.begin(), order.end(), size_t(0));
    std::sort(order.begin(), order.end(), [&v](size_t a, size_t b) { return v[a] < v[b]; });
    size_t best = order.front(), worst = order.back(), second = order[n - 1];
    if (std::fabs(v[worst] - v[best]) <= tolerance * (std::fabs(v[best]) + tolerance))
      break;
    std::vector<double> c(n, 0);
    for (size_t i : order)
      if (i != worst)
        for (size_t j = 0; j < n; ++j)
          c[j] += s[i][j] / double(n);
    auto along = [&](double t) {
      std::vector<double> x(n);
      for (size_t j = 0; j < n; ++j)
        x[j] = c[j] + t * (s[worst][j] - c[j]);
      return x;
    };
    std::vector<double> r = along(-1);
    double vr             = eval(r);
    if (vr < v[best]) {
      std::vector<double> e = along(-2);
      double ve             = eval(e);
      if (ve < vr) {
        s[worst] = e;
        v[worst] = ve;
      } else {
        s[worst] = r;
        v[worst] = vr;
      }
    } else if (vr < v[second]) {
      s[worst] = r;
      v[worst] = vr;
    } else {
      std::vector<double> k = vr < v[worst] ? along(-0.5) : along(0.5);
      double vk             = eval(k);
      if (vk < std::min(vr, v[worst])) {
        s[worst] = k;
        v[worst] = vk;
      } else { // shrink towards the best
        for (size_t i = 0; i <= n; ++i)
          if (i != best) {
            for (size_t j = 0; j < n; ++j)
              s[i][j] = s[best][j] + 0.5 * (s[i][j] - s[best][j]);
            v[i] = eval(s[i]);
          }
      }
    }
  }
  size_t best = size_t(std::min_element(v.begin(), v.end()) - v.begin());
  return s[best];
}

Distribution fit(Family family, const std::vector<double>& x)
{
  if (x.size() < 2)
    throw std::invalid_argument("a fit needs at least two values");
  for (double v : x)
    if (not(v > 0) || not std::isfinite(v))
      throw std::invalid_argument("a fit takes positive finite values");
  Distribution d;
  d.family = family;
  std::vector<double> lx(x.size());
  std::transform(x.begin(), x.end(), lx.begin(), [](double v) { return std::log(v); });
  const double lmean = mean_of(lx);
  double lvar        = 0;
  for (double v : lx)
    lvar += (v - lmean) * (v - lmean);
  lvar /= double(lx.size());
  const double lsd = std::sqrt(std::max(lvar, 1e-12));
  auto nll         = [&x](const Distribution& c) {
    if (not c.valid())
      return kInf;
    double s = 0;
    for (double v : x)
      s -= c.log_pdf(v);
    return s;
  };
  switch (family) {
  case Family::exponential:
    d.p = {1 / mean_of(x), 0, 0};
    break;
  case Family::lognormal:
    d.p = {lmean, lsd, 0};
    break;
  case Family::pareto: {
    // alpha profiled out: for a scale s, alpha = n / sum log(1 + x / s); the scale by Nelder-Mead
    auto alpha_for = [&x](double s) {
      double t = 0;
      for (double v : x)
        t += std::log1p(v / s);
      return double(x.size()) / t;
    };
    auto f = [&](const std::vector<double>& q) {
      Distribution c;
      c.family = Family::pareto;
      double s = std::exp(q[0]);
      c.p      = {alpha_for(s), s, 0};
      return nll(c);
    };
    double best = kInf, best_s = std::exp(lmean);
    for (double start : {lmean - 2, lmean, lmean + 2, lmean + 5}) {
      auto q   = nelder_mead(f, {start}, {1.0});
      double v = f(q);
      if (v < best) {
        best   = v;
        best_s = std::exp(q[0]);
      }
    }
    d.p = {alpha_for(best_s), best_s, 0};
    break;
  }
  case Family::expweibull: {
    // starts: the Weibull of the log-moments (Var log X = pi^2 / (6 k^2)), with exponents 1/2, 1, 2
    double k0 = M_PI / (std::sqrt(6.0) * lsd);
    double s0 = std::exp(lmean + 0.5772156649015329 / k0);
    auto f    = [&](const std::vector<double>& q) {
      Distribution c;
      c.family = Family::expweibull;
      c.p      = {std::exp(q[0]), std::exp(q[1]), std::exp(q[2])};
      return nll(c);
    };
    double best = kInf;
    std::vector<double> bq{0, std::log(k0), std::log(s0)};
    for (double a0 : {0.5, 1.0, 2.0, 5.0}) {
      auto q   = nelder_mead(f, {std::log(a0), std::log(k0), std::log(s0)}, {0.5, 0.3, 0.5});
      q        = nelder_mead(f, q, {0.1, 0.1, 0.1}); // restart: Nelder-Mead can stall
      double v = f(q);
      if (v < best) {
        best = v;
        bq   = q;
      }
    }
    d.p = {std::exp(bq[0]), std::exp(bq[1]), std::exp(bq[2])};
    break;
  }
  }
  if (not d.valid())
    throw std::invalid_argument(std::string("the ") + to_string(family) + " fit did not converge");
  return d;
}

int parameters(Family f)
{
  return f == Family::exponential ? 1 : f == Family::expweibull ? 3 : 2;
}

double sse(const Distribution& d, std::vector<double> x)
{
  std::sort(x.begin(), x.end());
  double s = 0, n = double(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double e = (double(i) + 0.5) / n - d.cdf(x[i]);
    s += e * e;
  }
  return s;
}

Distribution fit_best(const std::vector<Family>& families, const std::vector<double>& x)
{
  Distribution best;
  double best_sse = kInf;
  for (Family f : families) {
    Distribution d;
    try {
      d = fit(f, x);
    } catch (const std::invalid_argument&) {
      continue;
    }
    double e = sse(d, x);
    if (e < best_sse) {
      best_sse = e;
      best     = d;
    }
  }
  if (not std::isfinite(best_sse))
    throw std::invalid_argument("no family could be fitted");
  return best;
}

double ks_distance(std::vector<double> x, const std::function<double(double)>& cdf)
{
  std::sort(x.begin(), x.end());
  double d = 0, n = double(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    double f = cdf(x[i]);
    d        = std::max({d, double(i + 1) / n - f, f - double(i) / n});
  }
  return d;
}

double ks_distance(std::vector<double> a, std::vector<double> b)
{
  std::sort(a.begin(), a.end());
  std::sort(b.begin(), b.end());
  size_t i = 0, j = 0;
  double d = 0, na = double(a.size()), nb = double(b.size());
  while (i < a.size() && j < b.size()) {
    double v = std::min(a[i], b[j]);
    while (i < a.size() && a[i] <= v)
      ++i;
    while (j < b.size() && b[j] <= v)
      ++j;
    d = std::max(d, std::fabs(double(i) / na - double(j) / nb));
  }
  return d;
}

} // namespace sgai::aiops
