/* Continuous distributions of positive quantities (interarrival gaps, task times) with their
 * maximum-likelihood fits, as PipeSim fits them (§V-A): exponential, log-normal, Pareto (the Lomax
 * form, Pareto II: support from 0, as gaps need), exponentiated Weibull. Pure code; sampling takes a
 * std::mt19937_64 so runs repeat with a seed. */
#ifndef SGAI_CORE_AIOPS_DISTRIBUTIONS_HPP
#define SGAI_CORE_AIOPS_DISTRIBUTIONS_HPP

#include <array>
#include <cstdint>
#include <functional>
#include <random>
#include <string>
#include <vector>

namespace sgai::aiops {

/** The standard normal CDF. */
double normal_cdf(double z);

enum class Family : uint8_t { exponential, lognormal, pareto, expweibull };
const char* to_string(Family f);
bool family_from_string(const std::string& s, Family& out);

/** One distribution: its family and up to three parameters.
 *  - exponential: p[0] = rate;  F(x) = 1 - exp(-rate x)
 *  - lognormal:   p[0] = mu, p[1] = sigma (of log x)
 *  - pareto:      p[0] = alpha (shape), p[1] = scale;  F(x) = 1 - (1 + x / scale)^-alpha
 *  - expweibull:  p[0] = a (exponent), p[1] = k (shape), p[2] = scale;
 *                 F(x) = (1 - exp(-(x / scale)^k))^a  (scipy's exponweib) */
struct Distribution {
  Family family = Family::exponential;
  std::array<double, 3> p{1, 0, 0};

  double cdf(double x) const;
  double pdf(double x) const;
  double log_pdf(double x) const;
  /** The x with cdf(x) = u, u in (0, 1). */
  double quantile(double u) const;
  double sample(std::mt19937_64& rng) const;
  double mean() const; ///< infinity when it has none (Pareto with alpha <= 1)
  /** Whether every parameter is finite and in its domain. */
  bool valid() const;
};

/** Maximum-likelihood fit of `family` to positive values (zeros and negatives are an
 *  std::invalid_argument: the caller decides what a zero gap means). At least two values. */
Distribution fit(Family family, const std::vector<double>& x);

/** Sum of squared differences between the empirical CDF (at each sorted value, the midpoint of its
 *  step) and the distribution's CDF: PipeSim's criterion for the best of several fits. */
double sse(const Distribution& d, std::vector<double> x);

/** Parameters of a family (1 to 3). */
int parameters(Family f);

/** The best of `families` fitted to x by sse(). */
Distribution fit_best(const std::vector<Family>& families, const std::vector<double>& x);

/** Kolmogorov-Smirnov distance between the sample and a CDF. */
double ks_distance(std::vector<double> x, const std::function<double(double)>& cdf);
/** Two-sample Kolmogorov-Smirnov distance. */
double ks_distance(std::vector<double> a, std::vector<double> b);

/** Nelder-Mead minimisation of f from x0 with initial step `step` per coordinate; stops when the
 *  simplex's values differ by less than `tolerance` (relative) or after `iterations`. */
std::vector<double> nelder_mead(const std::function<double(const std::vector<double>&)>& f, std::vector<double> x0,
                                const std::vector<double>& step, int iterations = 2000, double tolerance = 1e-10);

} // namespace sgai::aiops

#endif
