#include "core/kernels/gemm.hpp"

#include <algorithm>

namespace sgai::kernels {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b)
{
  return (a + b - 1) / b;
}

} // namespace

GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d)
{
  GemmTime best;
  if (m == 0 || n == 0 || k == 0 || d.sms <= 0 || d.peak_flops <= 0 || d.tile_fraction <= 0)
    return best;
  const double per_sm = d.peak_flops * d.tile_fraction / d.sms;
  for (const auto& shape : kTiles) {
    GemmTime t;
    t.tile_m       = shape[0];
    t.tile_n       = shape[1];
    t.tiles        = ceil_div(m, t.tile_m) * ceil_div(n, t.tile_n);
    t.waves        = ceil_div(t.tiles, uint64_t(d.sms));
    t.compute_s    = d.kernel_s + double(t.waves) * (d.wave_s + 2.0 * t.tile_m * t.tile_n * double(k) / per_sm);
    t.quantization = double(m) * double(n) / (double(t.waves) * d.sms * t.tile_m * t.tile_n);
    if (best.tiles == 0 || t.compute_s < best.compute_s)
      best = t;
  }
  if (d.memory_Bps > 0)
    best.memory_s = (double(m) * k + double(k) * n + double(m) * n) * element_bytes / d.memory_Bps;
  best.seconds = std::max(best.compute_s, best.memory_s);
  return best;
}

double tile_fraction_from(double measured_fraction, uint64_t m, uint64_t n, uint64_t k, const MatmulDevice& d)
{
  if (measured_fraction <= 0 || d.sms <= 0 || d.peak_flops <= 0 || m == 0 || n == 0 || k == 0)
    return 0;
  const double measured_s = 2.0 * double(m) * double(n) * double(k) / (measured_fraction * d.peak_flops);
  double rate             = 0; // per SM: the smallest that gives some tile shape the measured time
  for (const auto& shape : kTiles) {
    const uint64_t waves = ceil_div(ceil_div(m, shape[0]) * ceil_div(n, shape[1]), uint64_t(d.sms));
    const double left    = measured_s - d.kernel_s - double(waves) * d.wave_s;
    if (left <= 0)
      continue;
    const double r = double(waves) * 2.0 * shape[0] * shape[1] * double(k) / left;
    if (rate == 0 || r < rate)
      rate = r;
  }
  return rate > 0 ? std::min(1.0, rate * d.sms / d.peak_flops) : 0.0;
}

} // namespace sgai::kernels
