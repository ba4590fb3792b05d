#include "core/kernels/gemm.hpp"

#include <algorithm>

namespace sgai::kernels {

namespace {

uint64_t ceil_div(uint64_t a, uint64_t b)
{
  return (a + b - 1) / b;
}

/** One of gemm_time's choices: a tile shape and a split of the inner dimension. */
struct Choice {
  uint32_t tile_m, tile_n, split;
  uint64_t tiles, waves, slice; ///< output tiles, waves of tiles x split, k / split rounded up
  double fixed_s;               ///< kernels, waves and the partials' reduction: all but the tiles' FLOPs
  double tile_flops;            ///< one tile's FLOPs over its slice
};

/** Every choice gemm_time weighs, in order (the first of equal times is kept). */
template <class F>
void for_each_choice(uint64_t m, uint64_t n, uint64_t k, uint64_t batch, const MatmulDevice& d, F&& f)
{
  for (const auto& shape : kTiles)
    for (uint32_t s = 1; s <= kMaxSplitK && s <= k; s++) {
      if (s > 1 && d.memory_Bps <= 0)
        break; // (no bandwidth to price the partials: no split)
      Choice c;
      c.tile_m     = shape[0];
      c.tile_n     = shape[1];
      c.split      = s;
      c.tiles      = batch * ceil_div(m, c.tile_m) * ceil_div(n, c.tile_n);
      c.waves      = ceil_div(c.tiles * s, uint64_t(d.sms));
      c.slice      = ceil_div(k, s);
      c.fixed_s    = d.kernel_s + double(c.waves) * d.wave_s;
      c.tile_flops = 2.0 * c.tile_m * c.tile_n * double(c.slice);
      if (s > 1)
        c.fixed_s += d.kernel_s + double(batch) * double(m) * double(n) * (8.0 * s + 2) / d.memory_Bps;
      f(c);
    }
}

} // namespace

GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d)
{
  return gemm_time(m, n, k, element_bytes, d, 1);
}

GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d, uint64_t batch)
{
  GemmTime best;
  if (m == 0 || n == 0 || k == 0 || batch == 0 || d.sms <= 0 || d.peak_flops <= 0 || d.tile_fraction <= 0)
    return best;
  const double per_sm = d.peak_flops * d.tile_fraction / d.sms;
  for_each_choice(m, n, k, batch, d, [&](const Choice& c) {
    const double compute = c.fixed_s + double(c.waves) * c.tile_flops / per_sm;
    if (best.tiles != 0 && compute >= best.compute_s)
      return;
    best.tile_m    = c.tile_m;
    best.tile_n    = c.tile_n;
    best.split     = c.split;
    best.tiles     = c.tiles;
    best.waves     = c.waves;
    best.compute_s = compute;
    best.quantization =
        double(m) * double(n) * double(k) / (double(c.waves) * d.sms * c.tile_m * c.tile_n * double(c.slice));
  });
  if (d.memory_Bps > 0)
    best.memory_s = double(batch) * (double(m) * k + double(k) * n + double(m) * n) * element_bytes / d.memory_Bps;
  best.seconds = std::max(best.compute_s, best.memory_s);
  return best;
}

double tile_fraction_from(double measured_fraction, uint64_t m, uint64_t n, uint64_t k, const MatmulDevice& d)
{
  if (measured_fraction <= 0 || d.sms <= 0 || d.peak_flops <= 0 || m == 0 || n == 0 || k == 0)
    return 0;
  const double measured_s = 2.0 * double(m) * double(n) * double(k) / (measured_fraction * d.peak_flops);
  double rate             = 0; // per SM: the smallest that gives some choice the measured time
  for_each_choice(m, n, k, 1, d, [&](const Choice& c) {
    const double left = measured_s - c.fixed_s;
    if (left <= 0)
      return;
    const double r = double(c.waves) * c.tile_flops / left;
    if (rate == 0 || r < rate)
      rate = r;
  });
  return rate > 0 ? std::min(1.0, rate * d.sms / d.peak_flops) : 0.0;
}

} // namespace sgai::kernels
