#include "core/aiops/drift.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <numbers>

namespace sgai::aiops {

const char* to_string(DriftKind k)
{
  switch (k) {
  case DriftKind::gradual:
    return "gradual";
  case DriftKind::sudden:
    return "sudden";
  case DriftKind::recurring:
    return "recurring";
  }
  return "?";
}

double Drift::staleness(double age) const
{
  age = std::max(0.0, age);
  switch (kind) {
  case DriftKind::gradual:
    return std::min(1.0, rate * age);
  case DriftKind::sudden:
    return age >= onset ? magnitude : 0.0;
  case DriftKind::recurring:
    return amplitude * (1 - std::cos(2 * std::numbers::pi * age / period)) / 2;
  }
  return 0;
}

double Drift::crossing(double threshold) const
{
  constexpr double never = std::numeric_limits<double>::infinity();
  switch (kind) {
  case DriftKind::gradual:
    return rate > 0 && threshold <= 1 ? threshold / rate : never;
  case DriftKind::sudden:
    return magnitude >= threshold ? onset : never;
  case DriftKind::recurring:
    if (amplitude < threshold)
      return never;
    return period / (2 * std::numbers::pi) * std::acos(std::clamp(1 - 2 * threshold / amplitude, -1.0, 1.0));
  }
  return never;
}

double Drift::integral(double age) const
{
  age = std::max(0.0, age);
  switch (kind) {
  case DriftKind::gradual: {
    if (rate <= 0)
      return 0;
    double full = 1 / rate; // the age at which everything is lost
    if (age <= full)
      return rate * age * age / 2;
    return full / 2 + (age - full);
  }
  case DriftKind::sudden:
    return magnitude * std::max(0.0, age - onset);
  case DriftKind::recurring: {
    double w = 2 * std::numbers::pi / period;
    return amplitude / 2 * (age - std::sin(w * age) / w);
  }
  }
  return 0;
}

} // namespace sgai::aiops
