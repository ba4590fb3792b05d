/* Gaussian mixtures with full covariances, fitted by expectation-maximisation from k-means++ starts
 * and chosen by BIC (PipeSim's asset synthesizer: a mixture on log rows, log columns and log bytes;
 * sgai also fits log training times with one per framework). Pure code, a few dimensions. */
#ifndef SGAI_CORE_AIOPS_MIXTURE_HPP
#define SGAI_CORE_AIOPS_MIXTURE_HPP

#include <cstdint>
#include <random>
#include <vector>

namespace sgai::aiops {

struct Gaussian {
  double weight = 1;
  std::vector<double> mean;                    ///< d
  std::vector<std::vector<double>> covariance; ///< d x d, positive definite
};

struct Mixture {
  std::vector<Gaussian> components;

  size_t dimensions() const { return components.empty() ? 0 : components.front().mean.size(); }
  /** Log-density of a point. */
  double log_pdf(const std::vector<double>& x) const;
  /** Sum of log-densities of the points. */
  double log_likelihood(const std::vector<std::vector<double>>& x) const;
  /** The CDF of coordinate `dim` (a mixture of normals). */
  double marginal_cdf(size_t dim, double v) const;
  std::vector<double> sample(std::mt19937_64& rng) const;
  /** Free parameters: per component d means, d (d + 1) / 2 covariances, and k - 1 weights. */
  size_t parameters() const;
  /** Whether weights sum to 1, every number is finite and every covariance positive definite. */
  bool valid() const;
};

struct MixtureFitOptions {
  size_t max_components = 10;
  size_t iterations     = 300;
  double tolerance      = 1e-6; ///< relative change of the log-likelihood that ends EM
  uint64_t seed         = 1;
  size_t restarts       = 2; ///< k-means++ starts per component count; the best likelihood kept
};

/** EM for exactly k components. std::invalid_argument when there are fewer points than components
 *  or the points do not share one dimension. */
Mixture fit_mixture(const std::vector<std::vector<double>>& x, size_t k, const MixtureFitOptions& options = {});

/** The component count from 1 to max_components with the lowest BIC (-2 log L + p log n); the search
 *  stops once three more components have not lowered it, and never goes beyond one component per
 *  (parameters of a component + 1) points. */
Mixture fit_mixture_bic(const std::vector<std::vector<double>>& x, const MixtureFitOptions& options = {});

/** BIC of a fitted mixture on its points. */
double bic(const Mixture& m, const std::vector<std::vector<double>>& x);

} // namespace sgai::aiops

#endif
