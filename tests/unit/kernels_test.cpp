// The GEMM model (core/kernels/gemm.hpp) against hand-computed tile and wave quantization, and the
// catalogue's measured matmul figures.
#include "core/kernels/gemm.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"

#include <gtest/gtest.h>

using namespace sgai::kernels;

TEST(Gemm, TilesFallInWavesOverTheSms)
{
  // 132 SMs (H100), 1 PFLOP/s at a tile fraction of 1/2: each SM computes 1e15 / 2 / 132 FLOP/s
  MatmulDevice d{132, 1e15, 0.5, 0};
  const double per_sm = 1e15 * 0.5 / 132;
  // 8192 x 8192: 256x128 tiles, 32 x 64 = 2,048 of them, in ceil(2048 / 132) = 16 waves
  GemmTime t = gemm_time(8192, 8192, 4096, 2, d);
  EXPECT_EQ(t.tile_m, 256u);
  EXPECT_EQ(t.tile_n, 128u);
  EXPECT_EQ(t.tiles, 2048u);
  EXPECT_EQ(t.waves, 16u);
  EXPECT_DOUBLE_EQ(t.compute_s, 16 * 2.0 * 256 * 128 * 4096 / per_sm);
  EXPECT_DOUBLE_EQ(t.quantization, 8192.0 * 8192 / (16 * 132 * 256.0 * 128));
  EXPECT_EQ(t.memory_s, 0); // no bandwidth given
  // 2048 x 2048: 128 tiles of 256x128 in one wave; 128x128 tiles (256, two waves) take as long, the
  // first shape listed wins
  t = gemm_time(2048, 2048, 1024, 2, d);
  EXPECT_EQ(t.tiles, 128u);
  EXPECT_EQ(t.waves, 1u);
  EXPECT_NEAR(t.quantization, 128.0 / 132, 1e-12);
  // 4096 x 640: 80 tiles of 256x128 (one wave), 96 of 128x256 (one wave) or 160 of 128x128 (two
  // waves of half the work): the same time, the first shape listed is kept
  t = gemm_time(4096, 640, 1024, 2, d);
  EXPECT_EQ(t.tile_m, 256u);
  EXPECT_EQ(t.waves, 1u);
  EXPECT_DOUBLE_EQ(t.compute_s, 2.0 * 256 * 128 * 1024 / per_sm);
  // a partial tile costs a whole one: 257 x 128 is two 256x128 tiles, or three 128x128 in one wave of
  // half the work: 128x128 wins
  t = gemm_time(257, 128, 1024, 2, d);
  EXPECT_EQ(t.tile_m, 128u);
  EXPECT_EQ(t.tile_n, 128u);
  EXPECT_EQ(t.waves, 1u);
  EXPECT_DOUBLE_EQ(t.quantization, 257.0 * 128 / (132 * 128.0 * 128));
  // memory bound: a GEMV-like 8192 x 1 x 8192 reads 8192^2 elements of 2 bytes at 1 TB/s
  d.memory_Bps = 1e12;
  t            = gemm_time(8192, 1, 8192, 2, d);
  EXPECT_DOUBLE_EQ(t.memory_s, (8192.0 * 8192 + 8192 + 8192) * 2 / 1e12);
  EXPECT_EQ(t.seconds, std::max(t.compute_s, t.memory_s));
}

TEST(Gemm, TileFractionMakesTheMeasuredBestShapeRunAtItsMeasuredRate)
{
  // H100 BF16: 80.3% at 2048x2048x13312, whose 128 tiles fill 128 of 132 SMs: 0.803 / (128/132)
  const MatmulDevice h100{132, 989.4e12, 0, 0};
  double f = tile_fraction_from(0.803, 2048, 2048, 13312, h100);
  EXPECT_NEAR(f, 0.803 * 132 / 128, 1e-12);
  MatmulDevice d{132, 989.4e12, f, 0};
  GemmTime t = gemm_time(2048, 2048, 13312, 2, d);
  EXPECT_NEAR(2.0 * 2048 * 2048 * 13312 / t.seconds / 989.4e12, 0.803, 1e-12);
  // a shape that fills every wave runs faster than the measured best, at f itself
  t = gemm_time(132 * 256, 128, 8192, 2, d);
  EXPECT_NEAR(2.0 * 132 * 256 * 128 * 8192 / t.seconds / 989.4e12, f, 1e-12);
  EXPECT_EQ(tile_fraction_from(2.0, 2048, 2048, 13312, h100), 1.0); // never above the peak
}

TEST(Gemm, FixedCostsPerKernelAndWave)
{
  // 2.5 us a kernel, 2.125 us a wave: the measured best shape still runs at 80.3%, its one wave of
  // 128 tiles of 128x256 (2 x 128 x 256 x 13312 FLOPs each) now at a faster tile rate, by hand
  MatmulDevice d{132, 989.4e12, 0, 0, 2.5e-6, 2.125e-6};
  const double measured = 2.0 * 2048 * 2048 * 13312 / (0.803 * 989.4e12);
  const double rate     = 2.0 * 128 * 256 * 13312 / (measured - 2.5e-6 - 2.125e-6);
  d.tile_fraction       = tile_fraction_from(0.803, 2048, 2048, 13312, d);
  EXPECT_NEAR(d.tile_fraction, rate * 132 / 989.4e12, 1e-12);
  EXPECT_NEAR(gemm_time(2048, 2048, 13312, 2, d).seconds, measured, 1e-15);
  // 4096 x 2048 x 2048: 256 tiles of 256x128 in 2 waves, each 2.125 us plus 2 x 256 x 128 x 2048
  // FLOPs at the rate, and the kernel's 2.5 us
  GemmTime t = gemm_time(4096, 2048, 2048, 2, d);
  EXPECT_EQ(t.waves, 2U);
  EXPECT_NEAR(t.seconds, 2.5e-6 + 2 * (2.125e-6 + 2.0 * 256 * 128 * 2048 / rate), 1e-15);
  // the fixed costs alone above the measured time: no rate makes it
  MatmulDevice slow{132, 989.4e12, 0, 0, 1e-3, 0};
  EXPECT_EQ(tile_fraction_from(0.803, 2048, 2048, 13312, slow), 0.0);
}

TEST(Gemm, FewTilesSplitTheirInnerDimension)
{
  // 256 x 2048 x 8192 on 132 SMs: 16 tiles of 256x128 or 32 of 128x128 leave most SMs idle; split
  // in 4, the 128x128 tiles are 128 (one wave) over k/4 = 2,048, then a second kernel reads the 4
  // FP32 partials and writes C: 256 x 2048 x (8 x 4 + 2) bytes at 1 TB/s
  MatmulDevice d{132, 1e15, 0.5, 1e12, 1e-6, 2e-6};
  const double per_sm = 1e15 * 0.5 / 132;
  GemmTime t          = gemm_time(256, 2048, 8192, 2, d);
  EXPECT_EQ(t.split, 4u);
  EXPECT_EQ(t.tile_m, 128u);
  EXPECT_EQ(t.tile_n, 128u);
  EXPECT_EQ(t.tiles, 32u);
  EXPECT_EQ(t.waves, 1u);
  EXPECT_NEAR(t.compute_s, 2e-6 + 2e-6 + 2.0 * 128 * 128 * 2048 / per_sm + 256.0 * 2048 * 34 / 1e12, 1e-15);
  EXPECT_NEAR(t.quantization, 128.0 / 132, 1e-12);
  // the same unsplit: one wave of 32 tiles of 128x128 over the whole k, 1.9 times as long
  MatmulDevice whole = d;
  whole.memory_Bps   = 0;
  GemmTime u         = gemm_time(256, 2048, 8192, 2, whole);
  EXPECT_EQ(u.split, 1u);
  EXPECT_NEAR(u.compute_s, 1e-6 + 2e-6 + 2.0 * 128 * 128 * 8192 / per_sm, 1e-15);
  EXPECT_GT(u.compute_s, 1.8 * t.compute_s);
  // a GEMM that fills its waves is not split (the partials would only cost)
  EXPECT_EQ(gemm_time(8192, 8192, 4096, 2, d).split, 1u);
  // a measured shape the model splits: the tile fraction makes it run at the measured rate
  d.tile_fraction = tile_fraction_from(0.15, 256, 2048, 8192, d);
  EXPECT_GT(d.tile_fraction, 0);
  EXPECT_EQ(gemm_time(256, 2048, 8192, 2, d).split, 4u);
  EXPECT_NEAR(2.0 * 256 * 2048 * 8192 / gemm_time(256, 2048, 8192, 2, d).seconds / 1e15, 0.15, 1e-12);
}

TEST(Gemm, CatalogueGivesMeasuredMatmulsForTheTrainingGpus)
{
  auto cat = sgai::platform::load_catalogue("platforms/catalogues/accelerators.json");
  // every GPU the training model names has what the kernel model needs: a matmul figure and a
  // streaming fraction, each with its source
  for (const char* name :
       {"A100 SXM4 40GB", "A100 SXM4 80GB", "H100 SXM5 80GB", "H200 SXM 141GB", "B200 SXM 180GB", "B200 GB200 186GB"}) {
    const auto& g = cat.gpus.at(name);
    ASSERT_TRUE(g.matmul.count("bf16")) << name;
    EXPECT_GT(g.matmul.at("bf16").fraction, 0.6) << name;
    EXPECT_NE(g.matmul_source.find("ml-engineering"), std::string::npos) << name;
    EXPECT_GT(g.stream_fraction, 0.7) << name;
  }
  // Hopper and Blackwell BF16: the sustained rate (MSMF: the GPU at its power limit), not the
  // boost burst: the H200's measured MSMF; the H100's own burst times the H200's MSMF over burst
  const auto& h200_bf16 = cat.gpus.at("H200 SXM 141GB").matmul.at("bf16");
  EXPECT_EQ(h200_bf16.fraction, 0.753);
  EXPECT_EQ(h200_bf16.m, 1536u);
  EXPECT_EQ(h200_bf16.n, 2816u);
  EXPECT_EQ(h200_bf16.k, 6144u);
  EXPECT_EQ(h200_bf16.sustained, 1.0);
  const auto& h100_bf16 = cat.gpus.at("H100 SXM5 80GB").matmul.at("bf16");
  EXPECT_EQ(h100_bf16.fraction, 0.803);
  EXPECT_EQ(h100_bf16.m, 2048u);
  EXPECT_EQ(h100_bf16.k, 13312u);
  EXPECT_EQ(h100_bf16.sustained, 0.879);
  for (const char* name : {"H100 SXM5 80GB", "H200 SXM 141GB"})
    EXPECT_NE(cat.gpus.at(name).matmul_source.find("MSMF"), std::string::npos) << name;
  // the A100: its burst times the same ratio, and the H100's GEMM fixed costs
  const auto& a100 = cat.gpus.at("A100 SXM4 80GB");
  EXPECT_EQ(a100.matmul.at("bf16").sustained, 0.879);
  EXPECT_EQ(a100.attention_sustained, 0.879);
  EXPECT_EQ(a100.matmul_kernel_s, cat.gpus.at("H100 SXM5 80GB").matmul_kernel_s);
  EXPECT_EQ(a100.matmul_wave_s, cat.gpus.at("H100 SXM5 80GB").matmul_wave_s);
  EXPECT_EQ(cat.gpus.at("B200 SXM 180GB").matmul.at("bf16").fraction, 0.640);
  EXPECT_EQ(cat.gpus.at("B200 SXM 180GB").stream_fraction, 0.75);
  // GB200's GPU: its own burst figures (1822 of 2500 TFLOPS BF16), held at the B200's measured
  // sustained-over-burst ratio (no GB200 MSMF is published)
  const auto& gb200 = cat.gpus.at("B200 GB200 186GB");
  EXPECT_EQ(gb200.matmul.at("bf16").fraction, 0.729);
  EXPECT_EQ(gb200.matmul.at("bf16").sustained, 0.839);
  EXPECT_EQ(gb200.matmul.at("fp8").sustained, 0.839);
  EXPECT_EQ(gb200.multiprocessors, 152);
  EXPECT_NE(gb200.matmul_source.find("assumption"), std::string::npos);
  const auto& h100 = cat.gpus.at("H100 SXM5 80GB").matmul.at("fp8");
  EXPECT_EQ(h100.fraction, 0.709);
  EXPECT_EQ(h100.m, 1024u);
  EXPECT_EQ(h100.k, 14336u);
}
