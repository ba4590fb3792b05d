/* The run-time view (PipeSim §IV-A2, Figure 2): a deployed model's staleness, the share of its
 * metric it has lost since it was deployed, under one of three drift patterns. Closed forms, so
 * that a detector computes when a threshold is crossed and sleeps until then (no polling), and
 * mean staleness is an exact integral. Pure code. */
#ifndef SGAI_CORE_AIOPS_DRIFT_HPP
#define SGAI_CORE_AIOPS_DRIFT_HPP

namespace sgai::aiops {

enum class DriftKind { gradual, sudden, recurring };
const char* to_string(DriftKind k);

/** One deployed version's drift; `age` is seconds since it was deployed.
 *  - gradual:   s = min(1, rate x age)
 *  - sudden:    s = magnitude once age >= onset, else 0
 *  - recurring: s = amplitude (1 - cos(2 pi age / period)) / 2 (a seasonal concept that returns) */
struct Drift {
  DriftKind kind   = DriftKind::gradual;
  double rate      = 0; ///< per second (gradual)
  double onset     = 0; ///< seconds (sudden)
  double magnitude = 0; ///< sudden
  double period    = 1; ///< seconds (recurring)
  double amplitude = 0; ///< recurring

  double staleness(double age) const;
  /** The first age at which staleness reaches `threshold` (> 0); infinity when it never does. */
  double crossing(double threshold) const;
  /** The integral of staleness over ages [0, age]. */
  double integral(double age) const;
};

} // namespace sgai::aiops

#endif
