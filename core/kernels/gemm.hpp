/* Dense GEMM times on a GPU: output tiles spread over the SMs in waves (tile and wave quantization,
 * NVIDIA's Matrix Multiplication Background User's Guide, DU-09799-001, 2023, chapter 3), each tile
 * at a fraction of an SM's peak taken from measured maximum achievable matmul throughput, each wave
 * and each kernel with a fixed cost (a tile's prologue and epilogue, the launch and the tail)
 * derived from measured GEMMs of many shapes (tools/validate/gemm_overheads.py). A GEMM of few
 * output tiles may split its inner dimension over more SMs (cuBLAS's and CUTLASS's parallel
 * split-K: each slice writes an FP32 partial product, a second kernel sums them). */
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
  double kernel_s      = 0; ///< fixed cost of a GEMM kernel
  double wave_s        = 0; ///< fixed cost of each wave of output tiles
};

/** A GEMM's time and how its tiles fell. */
struct GemmTime {
  double seconds   = 0; ///< max(compute, memory)
  double compute_s = 0;
  double memory_s  = 0; ///< A, B and C read or written once at the full HBM bandwidth
  uint32_t tile_m = 0, tile_n = 0;
  uint32_t split = 1; ///< slices of the inner dimension (split-K), 1: none
  uint64_t tiles = 0, waves = 0;
  /** Useful work over the work of the waves run: m n k / (waves x SMs x tile_m x tile_n x k/split). */
  double quantization = 0;
};

/** The output tiles the model chooses from: cuBLAS's largest, most efficient ones (the guide's
 *  "Typical Tile Dimensions In cuBLAS": 256x128, and 128x128); 128x256 is 256x128 transposed. */
constexpr uint32_t kTiles[3][2] = {{256, 128}, {128, 256}, {128, 128}};

/** The largest split-K tried (cuBLAS's heuristics rarely go further for training shapes). */
constexpr uint32_t kMaxSplitK = 4;

/** C (m x n) = A (m x k) B (k x n), elements of `element_bytes`: for each tile shape and split s
 *  (1 to kMaxSplitK; above 1 only with a memory bandwidth), s ceil(m/tm) ceil(n/tn) tiles in
 *  ceil(tiles / SMs) waves, each wave wave_s plus the time of one tile (2 tm tn ceil(k/s) FLOPs at
 *  tile_fraction x peak / SMs), plus kernel_s; with s > 1 a second kernel (kernel_s) reads the s FP32
 *  partials and writes C: m n (8 s + 2) bytes at the memory bandwidth. The fastest, as cuBLAS's
 *  heuristics pick. */
GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d);
/** `batch` GEMMs of the same shape in one kernel (cuBLAS's strided batched GEMM): their tiles share
 *  the waves (`tiles` counts them all), their bytes add up. */
GemmTime gemm_time(uint64_t m, uint64_t n, uint64_t k, double element_bytes, const MatmulDevice& d, uint64_t batch);

/** The tile fraction that makes a measured best shape (m x n x k) run at `measured_fraction` of the
 *  peak under `d`'s SMs, peak, bandwidth and fixed costs (its tile_fraction ignored): the smallest
 *  over gemm_time's choices (tile shape, split) of the rate that makes that choice's time the
 *  measured one, at most 1. Without fixed costs: the measurement over the model's quantization of
 *  the shape. 0 when the fixed costs alone exceed the measured time. */
double tile_fraction_from(double measured_fraction, uint64_t m, uint64_t n, uint64_t k, const MatmulDevice& d);

} // namespace sgai::kernels

#endif
