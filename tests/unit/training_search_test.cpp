// The configuration search (core/training/search.hpp): the candidates counted by hand, each
// prediction the direct one, the ranking, memory verdicts, threads changing nothing.
#include "core/training/memory.hpp"
#include "core/training/search.hpp"
#include "generators/platform/catalogue.hpp"

#include <gtest/gtest.h>

#include <algorithm>

using namespace sgai::training;

namespace {

/** 8 layers, hidden 2048, 16 heads, sequence 2048, global batch 32; TP overlap asked. */
std::vector<Setting> model()
{
  std::vector<Setting> s;
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"num-layers", "8"},
                                                                             {"hidden-size", "2048"},
                                                                             {"num-attention-heads", "16"},
                                                                             {"seq-length", "2048"},
                                                                             {"vocab-size", "32768"},
                                                                             {"global-batch-size", "32"},
                                                                             {"tensor-model-parallel-size", "2"},
                                                                             {"sequence-parallel", "true"},
                                                                             {"tp-comm-overlap", "true"},
                                                                             {"use-distributed-optimizer", "true"},
                                                                             {"overlap-grad-reduce", "true"}})
    s.push_back({k, v, "t.yaml", "line 1"});
  return s;
}

struct Inputs {
  sgai::platform::GpuType type;
  PlatformInputs in;
  explicit Inputs(double memory_bytes)
  {
    type.name                       = "H100";
    type.memory_bytes               = memory_bytes;
    in.type                         = &type;
    in.gpu.name                     = "H100";
    in.gpu.matmul                   = {132, 989.4e12, 0.8, 3.35e12};
    in.gpu.stream_Bps               = 3.35e12 * 0.867;
    in.gpu.peak_bf16                = 989.4e12;
    in.gpu.attention.kernel         = "cuDNN";
    in.gpu.attention.seq            = {2048, 4096};
    in.gpu.attention.forward        = {617e12, 609e12};
    in.gpu.attention.forward_causal = {484e12, 518e12};
    in.gpu.attention.backward       = {465e12, 499e12};
    in.fabric.nccl.arch             = sgai::collectives::nccl::Arch::hopper;
    in.fabric.nccl.intra_GBps       = 370.8;
    in.fabric.nccl.inter_GBps       = 400;
    in.fabric.nccl.net_latency_us   = 1;
    in.fabric.nccl.nvls_efficiency  = 0.85;
    sgai::collectives::nccl::default_channels(in.fabric.nccl);
    in.fabric.gpus_per_node = 8;
    in.gpu_busy_w = 700, in.gpu_idle_w = 70, in.node_cpu_w = 700;
  }
};

SearchOptions options(unsigned threads)
{
  SearchOptions o;
  o.gpus        = 16;
  o.micro_batch = {1, 2};
  o.recompute   = {Recompute::none, Recompute::full};
  o.threads     = threads;
  return o;
}

} // namespace

TEST(TrainingSearch, CandidatesPredictedAndRanked)
{
  Inputs big(80e9);
  SearchResult r = search_configurations(model(), big.in, options(1));
  // (TP, PP) with TP x PP dividing 16: 13 pairs; virtual stages: none, and for 4 layers a stage 2
  // and 1 layer each, for 2 layers a stage 1 layer each: 24 parallelisms; x 2 micro-batch sizes x
  // 2 recomputations
  EXPECT_EQ(r.tried, 96U);
  EXPECT_EQ(r.rows.size() + r.invalid, r.tried);
  EXPECT_GT(r.fitting, 40U);
  EXPECT_EQ(r.fitting, r.rows.size()); // a 0.4B model fits everywhere in 80 GB
  for (size_t i = 0; i + 1 < r.fitting; i++)
    EXPECT_GE(r.rows[i].tokens_per_s, r.rows[i + 1].tokens_per_s);
  for (const auto& row : r.rows) {
    // each prediction is the direct one of its configuration
    const Prediction p = predict_iteration(row.config, big.in.gpu, big.in.fabric, false);
    EXPECT_DOUBLE_EQ(row.tokens_per_s, p.tokens_per_s);
    EXPECT_DOUBLE_EQ(row.iteration_s, p.iteration_s);
    EXPECT_EQ(row.config.gpus(), 16U);
    // TP overlap and sequence parallelism kept where TP > 1, dropped at TP 1
    EXPECT_EQ(row.config.tp_comm_overlap, row.config.tensor_model_parallel_size > 1);
    EXPECT_EQ(row.config.sequence_parallel, row.config.tensor_model_parallel_size > 1);
    EXPECT_TRUE(row.config.use_distributed_optimizer);
  }
  EXPECT_EQ(describe_parallelism(r.rows.front().config).rfind("TP ", 0), 0U);
  // threads change nothing
  SearchResult r2 = search_configurations(model(), big.in, options(2));
  ASSERT_EQ(r2.rows.size(), r.rows.size());
  for (size_t i = 0; i < r.rows.size(); i++) {
    EXPECT_EQ(describe_parallelism(r2.rows[i].config), describe_parallelism(r.rows[i].config));
    EXPECT_EQ(r2.rows[i].tokens_per_s, r.rows[i].tokens_per_s);
  }
}

TEST(TrainingSearch, MemoryDecidesWhatFits)
{
  // 2 GB a GPU: only the configurations whose largest stage needs at most that fit
  Inputs small(2e9);
  SearchResult r = search_configurations(model(), small.in, options(1));
  EXPECT_GT(r.fitting, 0U);
  EXPECT_LT(r.fitting, r.rows.size());
  for (size_t i = 0; i < r.rows.size(); i++) {
    const auto& row = r.rows[i];
    double worst    = 0;
    for (const auto& st : memory_per_stage(row.config))
      worst = std::max(worst, st.total_bytes);
    EXPECT_DOUBLE_EQ(row.worst_bytes, worst);
    EXPECT_EQ(row.fits, worst <= 2e9);
    EXPECT_EQ(row.fits, i < r.fitting);
    if (i > r.fitting) { // the infeasible, smallest need first
      EXPECT_GE(row.worst_bytes, r.rows[i - 1].worst_bytes);
    }
  }
  // full recomputation keeps fewer activations: the smallest need of all is a recomputed one
  EXPECT_EQ(r.rows[r.fitting].config.recompute_granularity, Recompute::full);
  // memory kept free: 3 GB of 4 leave the same 1 GB as a 1 GB GPU does
  Inputs four(4e9), one(1e9);
  SearchOptions reserved = options(1);
  reserved.reserve_bytes = 3e9;
  SearchResult a         = search_configurations(model(), four.in, reserved);
  SearchResult b         = search_configurations(model(), one.in, options(1));
  EXPECT_EQ(a.fitting, b.fitting);
  EXPECT_LT(a.fitting, search_configurations(model(), four.in, options(1)).fitting);
}
