/* Dense GEMM times on a GPU: output tiles spread over the SMs in waves (tile and wave quantization,
 * NVIDIA's Matrix Multiplication Background User's Guide, DU-09799-001, 2023, chapter 3), each tile
 * at a fraction of an SM's peak taken from measured maximum achievable matmul throughput. */
#ifndef SGAI_CORE_KERNELS_GEMM_HPP
#define SGAI_CORE_KERNELS_GEMM_HPP

#include <cstdint>

namespace sgai::kernels {

/** One GPU at one precision, for GEMMs. */
struct MatmulDevice {
  int sms              = 0; ///< streaming multiprocessors
  double peak_flops    = 0; ///< dense tensor-core peak at the precision
  double tile_fraction = 0; ///< of an SM's peak, while it computes a full output tile
  double memory_Bps    = 0; ///< HBM bandwidth (0: no memory bound)
};

/** A GEMM's time and how its tiles fell. */
struct GemmTime {
  double seconds   = 0; ///< max(compute, memory)
  double compute_s = 0;
  double memory_s  = 0; ///< A, B and C read or written once at the full HBM bandwidth
  uint32_t tile_m = 0, tile_n = 0;
  uint64_t tiles = 0, waves = 0;
  /** Useful work over the work of the waves run: m n / (waves x SMs x tile_m x tile_n). */
  double quantization = 0;
};

/** The output tiles the model chooses from: cuBLAS's largest, most efficient ones (the guide's
 *  "Typical Tile Dimensions In cuBLAS": 256x128, and 128x128); 128x256 is 256x128 transposed. */
constexpr uint32_t kTiles[3][2] = {{256, 128}, {128, 256}, {128, 128}};

/** C (m x n) = A (m x k) B (k x n), elements of `element_bytes`: for each tile shape, ceil(m/tm)
 *  ceil(n/tn) tiles in ceil(tiles / SMs) waves, each wave the time of one tile (2 tm tn k FLOPs at
 *  tile_fraction x peak / SMs); the fastest shape, as cuBLAS's heuristics pick. */
GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d);

/** The tile fraction that makes a measured best shape (m x n output) run at `measured_fraction` of
 *  the peak: the measurement over the model's quantization of that shape, at most 1. */
double tile_fraction_from(double measured_fraction, uint64_t m, uint64_t n, int sms);

} // namespace sgai::kernels

#endif
