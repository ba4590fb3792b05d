#include "core/aiops/mixture.hpp"

#include "core/aiops/distributions.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sgai::aiops {

namespace {

using Matrix = std::vector<std::vector<double>>;

/** Lower Cholesky factor; false when not positive definite. */
bool cholesky(const Matrix& a, Matrix& l)
{
  size_t n = a.size();
  l.assign(n, std::vector<double>(n, 0));
  for (size_t i = 0; i < n; ++i)
    for (size_t j = 0; j <= i; ++j) {
      double s = a[i][j];
      for (size_t k = 0; k < j; ++k)
        s -= l[i][k] * l[j][k];
      if (i == j) {
        if (not(s > 0) || not std::isfinite(s))
          return false;
        l[i][i] = std::sqrt(s);
      } else {
        l[i][j] = s / l[j][j];
      }
    }
  return true;
}

constexpr size_t kMaxDims = 16;

/** log N(x; mean, L L^T), `logdet` the log of L's diagonal product. No allocation (d <= 16). */
double log_normal_density(const double* x, const std::vector<double>& mean, const Matrix& l, double logdet)
{
  size_t d = mean.size();
  double z[kMaxDims];
  double q = 0;
  for (size_t i = 0; i < d; ++i) {
    double s = x[i] - mean[i];
    for (size_t k = 0; k < i; ++k)
      s -= l[i][k] * z[k];
    z[i] = s / l[i][i];
    q += z[i] * z[i];
  }
  return -0.5 * q - logdet - 0.5 * double(d) * std::log(2 * M_PI);
}

double log_det(const Matrix& l)
{
  double s = 0;
  for (size_t i = 0; i < l.size(); ++i)
    s += std::log(l[i][i]);
  return s;
}

double log_normal_density(const std::vector<double>& x, const std::vector<double>& mean, const Matrix& l)
{
  return log_normal_density(x.data(), mean, l, log_det(l));
}

double distance2(const std::vector<double>& a, const std::vector<double>& b)
{
  double s = 0;
  for (size_t i = 0; i < a.size(); ++i)
    s += (a[i] - b[i]) * (a[i] - b[i]);
  return s;
}

/** One EM run from k-means++ seeds. */
Mixture em(const std::vector<std::vector<double>>& x, size_t k, const MixtureFitOptions& o, std::mt19937_64& rng)
{
  const size_t n = x.size(), d = x.front().size();
  // overall variance: the floor added to every covariance's diagonal (keeps EM away from
  // degenerate components)
  std::vector<double> mean_all(d, 0), var_all(d, 0);
  for (const auto& p : x)
    for (size_t j = 0; j < d; ++j)
      mean_all[j] += p[j] / double(n);
  for (const auto& p : x)
    for (size_t j = 0; j < d; ++j)
      var_all[j] += (p[j] - mean_all[j]) * (p[j] - mean_all[j]) / double(n);
  std::vector<double> floor(d);
  for (size_t j = 0; j < d; ++j)
    floor[j] = std::max(1e-6 * var_all[j], 1e-12);

  // k-means++ seeds
  std::vector<std::vector<double>> centers;
  centers.push_back(x[std::uniform_int_distribution<size_t>(0, n - 1)(rng)]);
  std::vector<double> dist(n, std::numeric_limits<double>::infinity());
  while (centers.size() < k) {
    double total = 0;
    for (size_t i = 0; i < n; ++i) {
      dist[i] = std::min(dist[i], distance2(x[i], centers.back()));
      total += dist[i];
    }
    double r    = std::uniform_real_distribution<double>(0, total)(rng);
    size_t pick = n - 1;
    for (size_t i = 0; i < n; ++i) {
      r -= dist[i];
      if (r <= 0) {
        pick = i;
        break;
      }
    }
    centers.push_back(x[pick]);
  }
  // responsibilities from the nearest center
  std::vector<std::vector<double>> resp(n, std::vector<double>(k, 0));
  for (size_t i = 0; i < n; ++i) {
    size_t best = 0;
    for (size_t c = 1; c < k; ++c)
      if (distance2(x[i], centers[c]) < distance2(x[i], centers[best]))
        best = c;
    resp[i][best] = 1;
  }
  Mixture m;
  m.components.resize(k);
  double previous = -std::numeric_limits<double>::infinity();
  std::vector<Matrix> chol(k);
  for (size_t it = 0; it < o.iterations; ++it) {
    // M step
    for (size_t c = 0; c < k; ++c) {
      Gaussian& g = m.components[c];
      double nk   = 0;
      for (size_t i = 0; i < n; ++i)
        nk += resp[i][c];
      nk       = std::max(nk, 1e-10);
      g.weight = nk / double(n);
      g.mean.assign(d, 0);
      for (size_t i = 0; i < n; ++i)
        for (size_t j = 0; j < d; ++j)
          g.mean[j] += resp[i][c] * x[i][j] / nk;
      g.covariance.assign(d, std::vector<double>(d, 0));
      for (size_t i = 0; i < n; ++i)
        for (size_t a = 0; a < d; ++a)
          for (size_t b = 0; b <= a; ++b)
            g.covariance[a][b] += resp[i][c] * (x[i][a] - g.mean[a]) * (x[i][b] - g.mean[b]) / nk;
      for (size_t a = 0; a < d; ++a) {
        g.covariance[a][a] += floor[a];
        for (size_t b = 0; b < a; ++b)
          g.covariance[b][a] = g.covariance[a][b];
      }
      if (not cholesky(g.covariance, chol[c])) { // collapse: reset to the overall spread
        for (size_t a = 0; a < d; ++a)
          for (size_t b = 0; b < d; ++b)
            g.covariance[a][b] = a == b ? var_all[a] + floor[a] : 0;
        cholesky(g.covariance, chol[c]);
      }
    }
    // E step
    double ll = 0;
    std::vector<double> lp(k), base(k);
    for (size_t c = 0; c < k; ++c)
      base[c] = std::log(m.components[c].weight);
    std::vector<double> dets(k);
    for (size_t c = 0; c < k; ++c)
      dets[c] = log_det(chol[c]);
    for (size_t i = 0; i < n; ++i) {
      for (size_t c = 0; c < k; ++c)
        lp[c] = base[c] + log_normal_density(x[i].data(), m.components[c].mean, chol[c], dets[c]);
      double total = log_sum_exp(lp);
      ll += total;
      for (size_t c = 0; c < k; ++c)
        resp[i][c] = std::exp(lp[c] - total);
    }
    if (std::fabs(ll - previous) <= o.tolerance * std::fabs(ll))
      break;
    previous = ll;
  }
  return m;
}

} // namespace

double Mixture::log_pdf(const std::vector<double>& x) const
{
  std::vector<double> lp;
  Matrix l;
  for (const Gaussian& g : components) {
    if (not cholesky(g.covariance, l))
      return -std::numeric_limits<double>::infinity();
    lp.push_back(std::log(g.weight) + log_normal_density(x, g.mean, l));
  }
  return log_sum_exp(lp);
}

double Mixture::log_likelihood(const std::vector<std::vector<double>>& x) const
{
  // factor every covariance once
  std::vector<Matrix> chol(components.size());
  for (size_t c = 0; c < components.size(); ++c)
    if (not cholesky(components[c].covariance, chol[c]))
      return -std::numeric_limits<double>::infinity();
  double ll = 0;
  std::vector<double> lp(components.size()), dets(components.size());
  for (size_t c = 0; c < components.size(); ++c)
    dets[c] = log_det(chol[c]);
  for (const auto& p : x) {
    for (size_t c = 0; c < components.size(); ++c)
      lp[c] = std::log(components[c].weight) + log_normal_density(p.data(), components[c].mean, chol[c], dets[c]);
    ll += log_sum_exp(lp);
  }
  return ll;
}

double Mixture::marginal_cdf(size_t dim, double v) const
{
  double s = 0;
  for (const Gaussian& g : components)
    s += g.weight * normal_cdf((v - g.mean[dim]) / std::sqrt(g.covariance[dim][dim]));
  return s;
}

std::vector<double> Mixture::sample(std::mt19937_64& rng) const
{
  double u = std::uniform_real_distribution<double>(0, 1)(rng);
  size_t c = 0;
  for (; c + 1 < components.size(); ++c) {
    u -= components[c].weight;
    if (u < 0)
      break;
  }
  const Gaussian& g = components[c];
  Matrix l;
  cholesky(g.covariance, l);
  size_t d = g.mean.size();
  std::normal_distribution<double> z01(0, 1);
  std::vector<double> z(d), out(g.mean);
  for (double& v : z)
    v = z01(rng);
  for (size_t i = 0; i < d; ++i)
    for (size_t k = 0; k <= i; ++k)
      out[i] += l[i][k] * z[k];
  return out;
}

size_t Mixture::parameters() const
{
  size_t d = dimensions(), k = components.size();
  return k * (d + d * (d + 1) / 2) + (k > 0 ? k - 1 : 0);
}

bool Mixture::valid() const
{
  if (components.empty())
    return false;
  double w = 0;
  size_t d = dimensions();
  Matrix l;
  for (const Gaussian& g : components) {
    if (not(g.weight > 0) || not std::isfinite(g.weight) || g.mean.size() != d || g.covariance.size() != d)
      return false;
    for (double v : g.mean)
      if (not std::isfinite(v))
        return false;
    for (size_t a = 0; a < d; ++a) {
      if (g.covariance[a].size() != d)
        return false;
      for (size_t b = 0; b < d; ++b)
        if (not std::isfinite(g.covariance[a][b]) ||
            std::fabs(g.covariance[a][b] - g.covariance[b][a]) > 1e-9 * (std::fabs(g.covariance[a][b]) + 1e-300))
          return false;
    }
    if (not cholesky(g.covariance, l))
      return false;
    w += g.weight;
  }
  return std::fabs(w - 1) < 1e-6;
}

double bic(const Mixture& m, const std::vector<std::vector<double>>& x)
{
  return -2 * m.log_likelihood(x) + double(m.parameters()) * std::log(double(x.size()));
}

Mixture fit_mixture(const std::vector<std::vector<double>>& x, size_t k, const MixtureFitOptions& o)
{
  if (k == 0 || x.size() < k)
    throw std::invalid_argument("a mixture of " + std::to_string(k) + " components needs at least as many points");
  size_t d = x.front().size();
  if (d > kMaxDims)
    throw std::invalid_argument("mixtures of at most 16 dimensions");
  for (const auto& p : x) {
    if (p.size() != d || d == 0)
      throw std::invalid_argument("every point has the same, non-zero dimension");
    for (double v : p)
      if (not std::isfinite(v))
        throw std::invalid_argument("points must be finite");
  }
  std::mt19937_64 rng(o.seed + 7919 * k);
  Mixture best;
  double best_ll = -std::numeric_limits<double>::infinity();
  for (size_t r = 0; r < std::max<size_t>(1, o.restarts); ++r) {
    Mixture m = em(x, k, o, rng);
    double ll = m.log_likelihood(x);
    if (ll > best_ll) {
      best_ll = ll;
      best    = std::move(m);
    }
  }
  return best;
}

Mixture fit_mixture_bic(const std::vector<std::vector<double>>& x, const MixtureFitOptions& o)
{
  Mixture best;
  double best_bic = std::numeric_limits<double>::infinity();
  // a component needs at least as many points as its parameters (d means, d (d + 1) / 2 covariances)
  const size_t d    = x.empty() ? 1 : x.front().size();
  const size_t most = std::max<size_t>(1, x.size() / (d + d * (d + 1) / 2 + 1));
  size_t worse      = 0;
  for (size_t k = 1; k <= std::min(o.max_components, most); ++k) {
    Mixture m = fit_mixture(x, k, o);
    double b  = bic(m, x);
    if (b < best_bic) {
      best_bic = b;
      best     = std::move(m);
      worse    = 0;
    } else if (++worse == 3) {
      break; // three more components did not help: BIC has passed its minimum
    }
  }
  return best;
}

} // namespace sgai::aiops
