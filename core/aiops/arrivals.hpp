/* Pipeline arrivals as PipeSim models them (§V-A3): interarrival gaps clustered by the hour of the
 * week they start in (168 clusters), each cluster the best by SSE (empirical CDF against fitted CDF)
 * of a log-normal, an exponentiated Weibull and a Pareto fit, each family fitted only where the
 * cluster holds ten gaps per parameter; a sample is drawn from the cluster of the current simulated
 * time, its gap times an interarrival factor. Pure code. */
#ifndef SGAI_CORE_AIOPS_ARRIVALS_HPP
#define SGAI_CORE_AIOPS_ARRIVALS_HPP

#include "core/aiops/distributions.hpp"

#include <array>
#include <cstdint>
#include <random>
#include <utility>
#include <vector>

namespace sgai::aiops {

constexpr int kHoursPerWeek = 168;

/** (start, gap) of consecutive arrivals, in seconds; arrivals within the same second count once
 *  (PipeSim's timestamps have a second's resolution). `timestamps` need not be sorted. */
std::vector<std::pair<double, double>> gaps_of(std::vector<double> timestamps);

struct ArrivalProfile {
  /** Hour of the week of simulated time 0 (0: Monday 00:00, or simply the first hour counted when
   *  the data's weekday is unknown). */
  int origin_hour = 0;
  /** Every gap is multiplied by this (PipeSim's interarrival factor: > 1 fewer arrivals). */
  double factor = 1;
  std::array<Distribution, kHoursPerWeek> hours{};
  std::array<uint64_t, kHoursPerWeek> fitted{}; ///< gaps each cluster was fitted on (0: the overall fit)
  Distribution overall;                         ///< every gap: clusters with too few gaps use it

  /** The cluster of simulated time t (seconds). */
  int hour_of(double t) const;
  /** P(gap <= g) for a gap starting at t. */
  double cdf(double t, double g) const;
  /** A gap starting at t. */
  double sample(double t, std::mt19937_64& rng) const;
  /** The mean gap in the cluster of t. */
  double mean(double t) const;
};

struct ArrivalFitOptions {
  std::vector<Family> families{Family::lognormal, Family::expweibull, Family::pareto};
  /** A family is fitted to a cluster only with at least this many gaps per parameter (the rule of
   *  thumb of ten observations per parameter): an exponentiated Weibull needs 30 gaps, a log-normal
   *  or a Pareto 20; a cluster too small for any takes the overall fit. */
  size_t per_parameter = 10;
  int origin_hour      = 0;
};

/** Fits the profile to (start, gap) pairs (gaps_of), start in seconds from simulated time 0. */
ArrivalProfile fit_arrivals(const std::vector<std::pair<double, double>>& gaps, const ArrivalFitOptions& options = {});

/** Held-back gaps tested against a profile fitted to other gaps: the KS distance to the uniform of
 *  their CDF values (each through the cluster it starts in), and the same for one exponential
 *  fitted to the fitted gaps. */
struct HoldOut {
  double ks_profile     = 0;
  double ks_exponential = 0;
};
HoldOut hold_out_test(const ArrivalProfile& profile, const std::vector<std::pair<double, double>>& fitted,
                      const std::vector<std::pair<double, double>>& held);

} // namespace sgai::aiops

#endif
