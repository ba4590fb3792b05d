/* The analytic iteration prediction (core/training/predict.hpp) and the pipeline timeline it runs
 * on: hand-computed cases. */
#include "core/kernels/gemm.hpp"
#include "core/training/chakra_out.hpp"
#include "core/training/config.hpp"
#include "core/training/memory.hpp"
#include "core/training/predict.hpp"
#include "core/training/schedule.hpp"

#include "tests/unit/training_kv.hpp"

#include <cmath>
#include <gtest/gtest.h>

#include <set>
#include <tuple>

using namespace sgai::training;

namespace {

/** A small GPT on one GPU: 2 layers, hidden 1024, 8 heads, sequence 2048, 4 micro-batches of 1. */
std::vector<std::pair<std::string, std::string>> small()
{
  return {{"num-layers", "2"},     {"hidden-size", "1024"},   {"num-attention-heads", "8"}, {"seq-length", "2048"},
          {"vocab-size", "32768"}, {"micro-batch-size", "1"}, {"global-batch-size", "4"}};
}

using sgai::test::settings;
using sgai::test::with;

/** An H100-like GPU: 132 SMs, 989.4 TFLOP/s, tiles at 80%, 3.35 TB/s streaming at 86.7%, attention
 *  at the FlashAttention-3 paper's cuDNN figures for 2k and 4k. */
GpuKernels h100()
{
  GpuKernels g;
  g.name                     = "H100";
  g.matmul                   = {132, 989.4e12, 0.8, 3.35e12};
  g.stream_Bps               = 3.35e12 * 0.867;
  g.peak_bf16                = 989.4e12;
  g.attention.kernel         = "cuDNN";
  g.attention.seq            = {2048, 4096};
  g.attention.forward        = {617e12, 609e12};
  g.attention.forward_causal = {484e12, 518e12};
  g.attention.backward       = {465e12, 499e12};
  return g;
}

/** DGX H100 as NCCL sees it: NVLink 4 at 370.8 GB/s per GPU, 8 x 50 GB/s NICs a node. */
Fabric dgx()
{
  Fabric f;
  f.nccl.arch            = sgai::collectives::nccl::Arch::hopper;
  f.nccl.intra_GBps      = 370.8;
  f.nccl.inter_GBps      = 400;
  f.nccl.net_latency_us  = 1;
  f.nccl.nvls_efficiency = 0.85;
  sgai::collectives::nccl::default_channels(f.nccl);
  f.gpus_per_node = 8;
  return f;
}

} // namespace

TEST(PipelineTimeline, PassTimesByRankAndParameterGates)
{
  // 1F1B, p = 2, m = 2: rank 0 forwards in 1 and backwards in 2, rank 1 in 2 and 4. By hand:
  // rank 0 F0 [0,1] F1 [1,2]; rank 1 F0 [1,3] B0 [3,7] F1 [7,9] B1 [9,13]; rank 0 B0 [7,9] B1 [13,15]
  auto time = [](uint32_t r, uint32_t, Pass p) { return (r == 0 ? 1.0 : 2.0) * (p == Pass::forward ? 1 : 2); };
  PipelineTimeline tl = pipeline_timeline(2, 2, 1, time, 0);
  EXPECT_DOUBLE_EQ(tl.rank_end[0], 15);
  EXPECT_DOUBLE_EQ(tl.rank_end[1], 13);
  EXPECT_DOUBLE_EQ(tl.forward(1, 0, 1), 9);
  EXPECT_DOUBLE_EQ(tl.chunk_done(0, 0), 15);
  // the first forwards wait for their parameters: rank 0 from 0.5, rank 1 from 4
  tl = pipeline_timeline(2, 2, 1, time, 0, {0.5, 4});
  EXPECT_DOUBLE_EQ(tl.rank_end[0], 18);
  EXPECT_DOUBLE_EQ(tl.rank_end[1], 16);
  // the same ends as pipeline_ends when every rank's passes take the same time
  auto same = [](uint32_t, uint32_t, Pass p) { return p == Pass::forward ? 1.0 : 2.0; };
  EXPECT_EQ(pipeline_timeline(4, 8, 2, same, 0.1).rank_end, pipeline_ends(4, 8, 2, {1, 2, 0.1}));
  EXPECT_THROW(pipeline_timeline(2, 2, 1, time, 0, {1}), std::invalid_argument);
}

TEST(TrainingPredict, GroupsSitWhereMegatronsRankOrderPutsThem)
{
  EXPECT_EQ(ranks_per_node(8, 1, 8), 8u);  // TP 8: one node
  EXPECT_EQ(ranks_per_node(48, 1, 8), 8u); // DP 48 without TP: 8 a node
  EXPECT_EQ(ranks_per_node(48, 8, 8), 1u); // DP behind TP 8: one a node
  EXPECT_EQ(ranks_per_node(16, 2, 8), 4u); // DP behind TP 2: 4 a node
  EXPECT_EQ(ranks_per_node(1, 1, 8), 1u);
}

TEST(TrainingPredict, PointToPointUsesTheGpusOwnNicAcrossNodes)
{
  Fabric f = dgx();
  // two nodes, one GPU each: its rail's 50 GB/s, plus the latency
  EXPECT_NEAR(collective_time(f, Collective::send_recv, 2, 1, 1e9), 1e-6 + 1e9 / 50e9, 1e-12);
  // one node: NVLink
  EXPECT_NEAR(collective_time(f, Collective::send_recv, 2, 2, 1e9), 1e-6 + 1e9 / 370.8e9, 1e-12);
  // all-to-all over 8 GPUs, one a node: 7/8 of the buffer through the NIC
  EXPECT_NEAR(collective_time(f, Collective::all_to_all, 8, 1, 8e9), 1e-6 + 7e9 / 50e9, 1e-12);
  // NCCL's model: a reduce-scatter over 48 GPUs, one a node, is slower than over 6 full nodes
  EXPECT_GT(collective_time(f, Collective::reduce_scatter, 48, 1, 1e9),
            2 * collective_time(f, Collective::reduce_scatter, 48, 8, 1e9));
  EXPECT_EQ(collective_time(f, Collective::all_gather, 1, 1, 1e9), 0);
}

TEST(TrainingPredict, ForcedNcclAlgorithmAndProtocolAreNcclsOwnTimes)
{
  namespace cn      = sgai::collectives::nccl;
  const Fabric free = dgx();
  Fabric f          = free;
  // NCCL_PROTO LL on a 1 GB reduce-scatter of 6 full nodes: NCCL's own LL time, far above its choice
  f.proto           = cn::Proto::ll;
  const double ll   = collective_time(f, Collective::reduce_scatter, 48, 8, 1e9);
  const cn::Model m = cn::model(free.nccl, sgai::chakra::CollectiveType::reduce_scatter, 48, 6);
  EXPECT_NEAR(ll, cn::choose(m, 1e9, std::nullopt, cn::Proto::ll)->time_us * 1e-6, 1e-12);
  EXPECT_GT(ll, 2 * collective_time(free, Collective::reduce_scatter, 48, 8, 1e9));
  // NCCL_ALGO Ring where NCCL's model picks the ring anyway: the same time
  f      = free;
  f.algo = cn::Algo::ring;
  EXPECT_EQ(collective_time(f, Collective::all_gather, 48, 8, 1e9),
            collective_time(free, Collective::all_gather, 48, 8, 1e9));
  // an algorithm the model has not for a collective (NVLS all-gather): refused, naming it
  f.algo = cn::Algo::nvls;
  try {
    collective_time(f, Collective::all_gather, 8, 8, 1e9);
    ADD_FAILURE() << "NVLS all-gather accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL_ALGO nvls: sgai's model of NCCL has no such algorithm/protocol for "
                                         "the all-gather of 8 ranks on 1 node"),
              std::string::npos)
        << e.what();
  }
  // point to point and all-to-all are not NCCL's tuned collectives: unchanged
  EXPECT_EQ(collective_time(f, Collective::send_recv, 2, 1, 1e9),
            collective_time(free, Collective::send_recv, 2, 1, 1e9));
}

TEST(TrainingPredict, LayerKernelsByHand)
{
  TrainingConfig c                     = make_config(settings(small()), 1);
  GpuKernels g                         = h100();
  LayerTimes l                         = layer_times(c, g, dgx());
  const sgai::kernels::MatmulDevice& d = g.matmul;
  auto t = [&](uint64_t m, uint64_t n, uint64_t k) { return sgai::kernels::gemm_time(m, n, k, 2, d).seconds; };
  // M = 2048 tokens: QKV 2048 x 3072 x 1024, projection 2048 x 1024 x 1024, FC1 2048 x 4096 x 1024,
  // FC2 2048 x 1024 x 4096; backward each as m x k (inner n) and k x n (inner m)
  EXPECT_DOUBLE_EQ(l.gemm_fwd, t(2048, 3072, 1024) + t(2048, 1024, 1024) + t(2048, 4096, 1024) + t(2048, 1024, 4096));
  EXPECT_DOUBLE_EQ(l.gemm_bwd, t(2048, 1024, 3072) + t(1024, 3072, 2048) + t(2048, 1024, 1024) + t(1024, 1024, 2048) +
                                   t(2048, 1024, 4096) + t(1024, 4096, 2048) + t(2048, 4096, 1024) +
                                   t(4096, 1024, 2048));
  // attention at 2k: 4 x 8 heads x 128 x 2048 x 2048 / 2 = 8.59 GFLOP at 484 TFLOP/s causal; the
  // backward 2.5 times that at 465 x 484/617 TFLOP/s
  const double flops = 4.0 * 8 * 128 * 2048 * 2048 / 2;
  EXPECT_NEAR(l.attention_fwd, flops / 484e12, 1e-15);
  EXPECT_NEAR(l.attention_bwd, 2.5 * flops / (465e12 * 484 / 617), 1e-15);
  // streaming: norms and dropout-adds on 2048 x 1024 elements (2 x (4 + 6 + 1) bytes forward,
  // 2 x (6 + 2 + 1 + 2 + 6) backward), GeLU on 2048 x 4096 (4, 6)
  const double nh = 2048.0 * 1024, nf = 2048.0 * 4096;
  EXPECT_NEAR(l.stream_fwd, (nh * 22 + nf * 4) / g.stream_Bps, 1e-15);
  EXPECT_NEAR(l.stream_bwd, (nh * 34 + nf * 6) / g.stream_Bps, 1e-15);
  EXPECT_EQ(l.tp_fwd + l.cp_fwd + l.ep_fwd + l.tp_bwd, 0);
  // FP8 (Transformer Engine): the norms write QKV's and FC1's inputs in FP8 and transpose them (1
  // byte more an element), the projection's and FC2's inputs are cast and transposed (4), and in
  // the backward the four output gradients (QKV 2048 x 3072, projection and FC2 2048 x 1024, FC1
  // 2048 x 4096) too (4)
  LayerTimes e = layer_times(make_config(settings(with(small(), "fp8-format", "hybrid")), 1), g, dgx());
  EXPECT_NEAR(e.stream_fwd - l.stream_fwd, (2 * nh + 4 * (nh + nf)) / g.stream_Bps, 1e-15);
  EXPECT_NEAR(e.stream_bwd - l.stream_bwd, 4 * (5 * nh + nf) / g.stream_Bps, 1e-15);
  EXPECT_DOUBLE_EQ(e.gemm_fwd, l.gemm_fwd); // (the same device here: the FP8 rate comes with the platform)
}

TEST(TrainingPredict, MultiLatentAttentionsProjectionsAndHeads)
{
  // MLA on the small model (hidden 1,024, 8 heads, 2,048 tokens): a query latent of 256, a KV latent
  // of 128, heads of 64 + 32 rotary for the scores and 64 for the values. Forward: the queries'
  // latent 2048 x 256 x 1024 and up-projection 2048 x 768 x 256, the KV latent with the rotary key
  // 2048 x 160 x 1024 and its up-projection 2048 x 1024 x 128, the output 2048 x 1024 x 512, then
  // the FFN; attention 2 x 8 heads x (96 + 64) x 2048 x 2048 / 2 FLOPs at the causal rate
  auto kv = small();
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{{"multi-latent-attention", "true"},
                                                                      {"q-lora-rank", "256"},
                                                                      {"kv-lora-rank", "128"},
                                                                      {"qk-head-dim", "64"},
                                                                      {"qk-pos-emb-head-dim", "32"},
                                                                      {"v-head-dim", "64"}})
    kv.emplace_back(k, v);
  GpuKernels g = h100();
  LayerTimes l = layer_times(make_config(settings(kv), 1), g, dgx());
  auto t = [&](uint64_t m, uint64_t n, uint64_t k) { return sgai::kernels::gemm_time(m, n, k, 2, g.matmul).seconds; };
  EXPECT_NEAR(l.gemm_fwd,
              t(2048, 256, 1024) + t(2048, 768, 256) + t(2048, 160, 1024) + t(2048, 1024, 128) + t(2048, 1024, 512) +
                  t(2048, 4096, 1024) + t(2048, 1024, 4096),
              1e-15);
  const double flops = 2.0 * 8 * (96 + 64) * 2048 * 2048 / 2;
  EXPECT_NEAR(l.attention_fwd, flops / 484e12, 1e-15);
}

TEST(TrainingPredict, SharedExpertsRunOnEveryToken)
{
  // 8 experts of FFN 1,024, top 2, and shared experts of FFN 2,048: beside the routed experts'
  // GEMMs, a dense FFN of 2,048 on the 2,048 tokens (FC1 2048 x 2048 x 1024, FC2 2048 x 1024 x 2048)
  auto moe     = with(with(with(small(), "num-experts", "8"), "moe-router-topk", "2"), "moe-ffn-hidden-size", "1024");
  GpuKernels g = h100();
  LayerTimes r = layer_times(make_config(settings(moe), 1), g, dgx());
  LayerTimes s =
      layer_times(make_config(settings(with(moe, "moe-shared-expert-intermediate-size", "2048")), 1), g, dgx());
  auto t = [&](uint64_t m, uint64_t n, uint64_t k) { return sgai::kernels::gemm_time(m, n, k, 2, g.matmul).seconds; };
  EXPECT_DOUBLE_EQ(s.gemm_fwd - r.gemm_fwd, t(2048, 2048, 1024) + t(2048, 1024, 2048));
  EXPECT_NEAR(s.gemm_bwd - r.gemm_bwd,
              t(2048, 1024, 2048) + t(1024, 2048, 2048) + t(2048, 2048, 1024) + t(2048, 1024, 2048), 1e-15);
  // and their GeLU on 2048 x 2048 elements (4 bytes forward, 6 backward)
  EXPECT_NEAR(s.stream_fwd - r.stream_fwd, 2048.0 * 2048 * 4 / g.stream_Bps, 1e-15);
  EXPECT_NEAR(s.stream_bwd - r.stream_bwd, 2048.0 * 2048 * 6 / g.stream_Bps, 1e-15);
}

TEST(TrainingPredict, OneGpuIsItsPassesAndItsOptimizer)
{
  TrainingConfig c = make_config(settings(small()), 1);
  GpuKernels g     = h100();
  Prediction p     = predict_iteration(c, g, dgx());
  const double passes =
      2 * (p.layer.forward() + p.layer.backward()) + p.embedding_fwd + p.embedding_bwd + p.head_fwd + p.head_bwd;
  EXPECT_NEAR(p.breakdown.compute_s, 4 * passes, 1e-12);
  EXPECT_NEAR(p.iteration_s, 4 * passes + p.breakdown.optimizer_s, 1e-12);
  EXPECT_EQ(p.breakdown.dp_s + p.breakdown.bubble_s + p.breakdown.tp_s, 0);
  EXPECT_GT(p.breakdown.optimizer_s, 0);
  // Megatron's count over the time: 4 sequences of 2048 tokens
  EXPECT_NEAR(p.tokens_per_s, 4 * 2048 / p.iteration_s, 1e-6);
}

TEST(TrainingPredict, OverlapHidesDataParallelCommunication)
{
  auto kv = small();
  for (auto& [k, v] : kv)
    if (k == "global-batch-size")
      v = "64"; // 16 GPUs, 4 micro-batches each
  kv.emplace_back("use-distributed-optimizer", "true");
  TrainingConfig plain = make_config(settings(kv), 16);
  kv.emplace_back("overlap-grad-reduce", "true");
  kv.emplace_back("overlap-param-gather", "true");
  TrainingConfig overlapped = make_config(settings(kv), 16);
  Prediction a              = predict_iteration(plain, h100(), dgx());
  Prediction b              = predict_iteration(overlapped, h100(), dgx());
  // without overlap the reduction and the gathering follow the passes, all exposed
  EXPECT_NEAR(a.breakdown.dp_s, a.dp_reduce_s + a.dp_gather_s, 1e-12);
  EXPECT_LT(b.breakdown.dp_s, a.breakdown.dp_s);
  EXPECT_LT(b.iteration_s, a.iteration_s);
  // what overlap saves, less what the overlapped collectives' SMs cost the passes
  EXPECT_NEAR(a.iteration_s - b.iteration_s,
              (a.breakdown.dp_s - b.breakdown.dp_s) - (b.breakdown.compute_s - a.breakdown.compute_s), 1e-12);
}

TEST(TrainingPredict, OverlappedCollectivesTakeTheirChannelsSms)
{
  // 16 GPUs on 2 nodes, DP 16: the overlapped reduce-scatters and all-gathers (NCCL's 16 ring
  // channels, a thread block on an SM each) leave the GEMMs and attention 116 of the 132 SMs while
  // they run: over their time W the passes lose W x 16 / 132 of work, spread over those kernels
  auto kv          = with(with(with(with(small(), "global-batch-size", "64"), "use-distributed-optimizer", "true"),
                               "overlap-grad-reduce", "true"),
                          "overlap-param-gather", "true");
  Prediction plain = predict_iteration(make_config(settings(with(kv, "overlap-param-gather", "false")), 16), h100(),
                                       dgx()); // (gradients overlapped only)
  TrainingConfig c = make_config(settings(kv), 16);
  Prediction b     = predict_iteration(c, h100(), dgx());
  Prediction none  = predict_iteration(
       make_config(settings(with(with(kv, "overlap-param-gather", "false"), "overlap-grad-reduce", "false")), 16),
       h100(), dgx());
  EXPECT_EQ(none.dp_sm_share, 0.0); // nothing overlapped: nothing taken
  double W = 0;
  for (const ChunkPlan& k : b.chunks) {
    W += k.buckets * collective_time(dgx(), Collective::reduce_scatter, 16, 8, k.params / k.buckets * 4);
    W += k.buckets * collective_time(dgx(), Collective::all_gather, 16, 8, k.gathered / k.buckets);
  }
  const LayerTimes& l = none.layer;
  const double busy   = 4 * 2 * (l.gemm_fwd + l.gemm_bwd + l.attention_fwd + l.attention_bwd);
  const double share  = std::min(W, busy * 132 / 116) * 16 / 132 / busy;
  ASSERT_GT(share, 0);
  EXPECT_NEAR(b.dp_sm_share, share, 1e-12);
  EXPECT_NEAR(b.layer.gemm_fwd, l.gemm_fwd * (1 + share), 1e-15);
  EXPECT_NEAR(b.layer.attention_bwd, l.attention_bwd * (1 + share), 1e-15);
  EXPECT_DOUBLE_EQ(b.layer.stream_fwd, l.stream_fwd); // memory-bound kernels keep their rate
  EXPECT_GT(b.dp_sm_share, plain.dp_sm_share);        // the gathers overlap too
  EXPECT_GT(plain.dp_sm_share, 0.0);
}

TEST(TrainingPredict, FsdpTakesTheSmsOfEveryLayersGathersAndReductions)
{
  // FSDP2 without pipelining, as Megatron-LM wraps it: each of the 4 micro-batches gathers each of
  // the 2 layers' parameters twice (forward, and backward after resharding) and reduce-scatters its
  // fp32 gradients, beside the passes: W = 4 x 2 x (2 all-gathers + 1 reduce-scatter) of a layer's
  // share (the embedding and the head spread over the layers)
  auto kv               = with(with(small(), "global-batch-size", "64"), "use-torch-fsdp2", "true");
  TrainingConfig c      = make_config(settings(kv), 16);
  Prediction f          = predict_iteration(c, h100(), dgx());
  const ChunkPlan& k    = f.chunks.front();
  const double gathered = k.gathered / 2, grads = k.params / 2 * 4;
  const double W = 4 * 2 *
                   (2 * collective_time(dgx(), Collective::all_gather, 16, 8, gathered) +
                    collective_time(dgx(), Collective::reduce_scatter, 16, 8, grads));
  const LayerTimes l = layer_times(c, h100(), dgx());
  const double busy  = 4 * 2 * (l.gemm_fwd + l.gemm_bwd + l.attention_fwd + l.attention_bwd);
  const double share = std::min(W, busy * 132 / 116) * 16 / 132 / busy;
  ASSERT_GT(share, 0);
  EXPECT_NEAR(f.dp_sm_share, share, 1e-12);
  // counted once an iteration (one reduction of every gradient), as before, it would be less
  const double once = collective_time(dgx(), Collective::reduce_scatter, 16, 8, k.params * 4) * 16 / 132 / busy;
  EXPECT_GT(f.dp_sm_share, 2 * once);
}

TEST(TrainingPredict, ContextParallelAllGatherAndAllToAllAreExposed)
{
  // CP 4 over 4 GPUs of a node: allgather's and a2a's exchanges precede or follow the attention,
  // each exposed as NCCL's model prices it; p2p's ring hides behind the attention blocks
  auto kv = with(with(with(small(), "seq-length", "8192"), "context-parallel-size", "4"), "num-query-groups", "4");
  const double KV = 2.0 * 2048 * 4 * 128 * 2, Q = 2048.0 * 8 * 128 * 2, O = 2048.0 * 1024 * 2;
  LayerTimes ag = layer_times(make_config(settings(with(kv, "cp-comm-type", "allgather")), 4), h100(), dgx());
  EXPECT_NEAR(ag.cp_fwd, collective_time(dgx(), Collective::all_gather, 4, 4, 4 * KV), 1e-15);
  EXPECT_NEAR(ag.cp_bwd,
              collective_time(dgx(), Collective::all_gather, 4, 4, 4 * KV) +
                  collective_time(dgx(), Collective::reduce_scatter, 4, 4, 4 * KV),
              1e-15);
  LayerTimes a2a    = layer_times(make_config(settings(with(kv, "cp-comm-type", "a2a")), 4), h100(), dgx());
  const double both = collective_time(dgx(), Collective::all_to_all, 4, 4, Q + KV) +
                      collective_time(dgx(), Collective::all_to_all, 4, 4, O);
  EXPECT_NEAR(a2a.cp_fwd, both, 1e-15);
  EXPECT_NEAR(a2a.cp_bwd, both, 1e-15);
  EXPECT_GT(a2a.cp_fwd, 0);
  LayerTimes ring = layer_times(make_config(settings(kv), 4), h100(), dgx());
  EXPECT_DOUBLE_EQ(ring.attention_fwd, ag.attention_fwd); // the same attention, its exchanges apart
  EXPECT_LT(ring.cp_fwd, ag.cp_fwd);
  // a2a+p2p over 2 x 2: the pairs' all-to-alls exposed, then a ring of 2 whose one step hides
  // behind half the attention when it can
  kv                = with(with(kv, "cp-comm-type", "a2a+p2p"), "hierarchical-context-parallel-sizes", "2,2");
  LayerTimes hier   = layer_times(make_config(settings(kv), 4), h100(), dgx());
  const double step = collective_time(dgx(), Collective::send_recv, 2, 2, KV);
  EXPECT_NEAR(hier.cp_fwd,
              collective_time(dgx(), Collective::all_to_all, 2, 2, Q + KV) +
                  collective_time(dgx(), Collective::all_to_all, 2, 2, O) +
                  std::max(0.0, step - hier.attention_fwd / 2),
              1e-15);
}

TEST(TrainingPredict, InterleavingShrinksTheBubble)
{
  auto kv = with(with(small(), "num-layers", "8"), "global-batch-size", "8");
  kv.emplace_back("pipeline-model-parallel-size", "4");
  TrainingConfig one = make_config(settings(kv), 4);
  kv.emplace_back("num-layers-per-virtual-pipeline-stage", "1");
  TrainingConfig two = make_config(settings(kv), 4);
  Prediction a       = predict_iteration(one, h100(), dgx());
  Prediction b       = predict_iteration(two, h100(), dgx());
  EXPECT_GT(a.breakdown.bubble_s, 0);
  EXPECT_LT(b.breakdown.bubble_s, a.breakdown.bubble_s);
  EXPECT_GT(b.tflops_per_gpu, a.tflops_per_gpu);
}

TEST(TrainingPredict, CountingTheEmbeddingAndTheLossBalancesTheEdgeChunks)
{
  // 6 layers on 4 stages, one per virtual stage with the embedding and the loss counted (8 = 4 x 2):
  // rank 0's first chunk is the embedding alone, rank 3's last the LM head and loss alone
  auto kv = with(with(small(), "num-layers", "6"), "global-batch-size", "8");
  kv.emplace_back("pipeline-model-parallel-size", "4");
  kv.emplace_back("num-layers-per-virtual-pipeline-stage", "1");
  kv.emplace_back("account-for-embedding-in-pipeline-split", "true");
  kv.emplace_back("account-for-loss-in-pipeline-split", "true");
  TrainingConfig c = make_config(settings(kv), 4);
  ASSERT_EQ(c.virtual_stages(), 2u);
  Prediction p = predict_iteration(c, h100(), dgx());
  ASSERT_EQ(p.chunks.size(), 8u);
  const double layer = p.layer.forward();
  EXPECT_DOUBLE_EQ(p.chunks[0].fwd, p.embedding_fwd); // rank 0, chunk 0
  EXPECT_DOUBLE_EQ(p.chunks[1].fwd, layer);           // rank 0, chunk 1
  EXPECT_DOUBLE_EQ(p.chunks[2].fwd, layer);           // rank 1, chunk 0
  EXPECT_DOUBLE_EQ(p.chunks[7].fwd, p.head_fwd);      // rank 3, chunk 1
  EXPECT_DOUBLE_EQ(p.chunks[6].fwd, layer);           // rank 3, chunk 0
  // uneven stages: the first and last stages' 1 layer each, the middle ones' 2
  auto u = with(with(small(), "num-layers", "6"), "global-batch-size", "8");
  u.emplace_back("pipeline-model-parallel-size", "4");
  u.emplace_back("decoder-first-pipeline-num-layers", "1");
  u.emplace_back("decoder-last-pipeline-num-layers", "1");
  Prediction q = predict_iteration(make_config(settings(u), 4), h100(), dgx());
  EXPECT_DOUBLE_EQ(q.chunks[0].fwd, q.embedding_fwd + layer);
  EXPECT_DOUBLE_EQ(q.chunks[1].fwd, 2 * layer);
  EXPECT_DOUBLE_EQ(q.chunks[3].fwd, layer + q.head_fwd);
}

TEST(TrainingPredict, NeedsTheGpusFigures)
{
  TrainingConfig c = make_config(settings(small()), 1);
  GpuKernels g     = h100();
  g.stream_Bps     = 0;
  EXPECT_THROW(predict_iteration(c, g, dgx()), std::invalid_argument);
}

TEST(TrainingPredict, TransformerEnginesOverlapByHand)
{
  // TP 2 with sequence parallelism on one node; hidden 1024, FFN 4096, M = 2048 tokens
  auto kv = small();
  for (auto& [k, v] : kv)
    if (k == "global-batch-size")
      v = "1";
  kv.emplace_back("tensor-model-parallel-size", "2");
  kv.emplace_back("sequence-parallel", "true");
  TrainingConfig plain = make_config(settings(kv), 2);
  kv.emplace_back("tp-comm-overlap", "true");
  TrainingConfig over = make_config(settings(kv), 2);
  GpuKernels g        = h100();
  Fabric f            = dgx();
  LayerTimes a = layer_times(plain, g, f), b = layer_times(over, g, f);
  // without the overlap: every collective exposed (2 all-gathers and 2 reduce-scatters of
  // 2048 x 1024 x 2 bytes forward)
  const double act = 2048.0 * 1024 * 2;
  EXPECT_NEAR(a.tp_fwd,
              2 * collective_time(f, Collective::all_gather, 2, 2, act) +
                  2 * collective_time(f, Collective::reduce_scatter, 2, 2, act),
              1e-12);
  // with it, forward: QKV and FC1 in 2 ring-exchange pieces of 1024 rows on all SMs, the projection
  // and FC2 in 4 pipeline pieces of 512 rows on 116 SMs, each piece's reduce-scatter overlapping
  // the next piece
  const auto& d = g.matmul;
  auto gemm     = [&](uint64_t m, uint64_t n, uint64_t k, int sms) {
    sgai::kernels::MatmulDevice x = d;
    x.sms                         = sms;
    x.peak_flops                  = d.peak_flops * sms / d.sms;
    return sgai::kernels::gemm_time(m, n, k, 2, x).seconds;
  };
  auto ring = [&](uint64_t n) {
    double piece = gemm(1024, n, 1024, 132);
    double step  = collective_time(f, Collective::send_recv, 2, 2, 1024.0 * 1024 * 2);
    return piece + std::max(piece, step);
  };
  auto pipe = [&](uint64_t k) {
    double piece = gemm(512, 1024, k, 116);
    double rs    = collective_time(f, Collective::reduce_scatter, 2, 2, 512.0 * 1024 * 2);
    return piece + 3 * std::max(piece, rs) + rs;
  };
  EXPECT_NEAR(b.gemm_fwd + b.tp_fwd, ring(1536) + pipe(512) + ring(2048) + pipe(2048), 1e-12);
  EXPECT_EQ(b.gemm_fwd, a.gemm_fwd);
  // at this size the pieces lose more to wave quantization than the overlap saves
  EXPECT_GT(b.forward(), a.forward());
}

TEST(TrainingPredict, GradientBucketsOfTheGivenSize)
{
  // Megatron's DDP buckets: max(40 M, 1 M x DP) parameters, or ddp-bucket-size
  auto kv          = with(with(small(), "use-distributed-optimizer", "true"), "overlap-grad-reduce", "true");
  TrainingConfig c = make_config(settings(kv), 1);
  Prediction p     = predict_iteration(c, h100(), dgx());
  EXPECT_EQ(p.chunks[0].buckets, uint32_t(std::ceil(p.chunks[0].params / 40e6)));
  Prediction q = predict_iteration(make_config(settings(with(kv, "ddp-bucket-size", "10000000")), 1), h100(), dgx());
  EXPECT_EQ(q.chunks[0].buckets, uint32_t(std::ceil(q.chunks[0].params / 1e7)));
  EXPECT_GT(q.chunks[0].buckets, p.chunks[0].buckets);
}

TEST(TrainingPredict, DenseLayersOfAMoeModelCostWhatDenseLayersCost)
{
  // 4 layers, every other one MoE (moe-layer-freq 2), EP 2 on 2 stages: each stage one MoE layer
  // and one dense; a chunk's pass is the sum of its layers'
  auto kv = with(with(small(), "num-layers", "4"), "global-batch-size", "8");
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{{"num-experts", "4"},
                                                                      {"moe-router-topk", "2"},
                                                                      {"expert-model-parallel-size", "2"},
                                                                      {"pipeline-model-parallel-size", "2"},
                                                                      {"moe-layer-freq", "2"}})
    kv.emplace_back(k, v);
  TrainingConfig c = make_config(settings(kv), 8); // DP 4
  Prediction p     = predict_iteration(c, h100(), dgx());
  LayerTimes dense = layer_times(dense_layers_of(c), h100(), dgx());
  EXPECT_DOUBLE_EQ(p.dense_layer.forward(), dense.forward());
  EXPECT_EQ(p.dense_layer.ep_fwd, 0);
  EXPECT_GT(p.layer.ep_fwd, 0);
  EXPECT_NEAR(p.chunks[1].fwd, p.layer.forward() + dense.forward() + p.head_fwd, 1e-12);
  EXPECT_NEAR(p.chunks[0].bwd, p.layer.backward() + dense.backward() + p.embedding_bwd, 1e-12);
  // the traces lay each layer out as its own kind (the MoE layer's all-to-alls as transfers): the passes
  // to the microsecond
  for (uint32_t rank : {0u, 7u}) {
    sgai::chakra::Trace t = iteration_trace(c, p, rank);
    uint64_t micros       = 0;
    for (const auto& n : t.nodes)
      if (n.type == sgai::chakra::NodeType::comp)
        micros += n.duration_micros;
    const uint32_t st = rank / 4;
    double exchanges  = 2 * (p.layer.ep_fwd + p.layer.ep_bwd); // per micro-batch, its layer's
    EXPECT_NEAR(micros * 1e-6, p.stage_optimizer_s[st] + 2 * (p.chunks[st].fwd + p.chunks[st].bwd) - exchanges, 20e-6)
        << rank;
  }
}

TEST(TrainingChakra, EverySendHasItsReceiveAndEveryPassItsTime)
{
  // 8 layers on 2 interleaved stages of 2 chunks, TP 2, DP 2: 8 GPUs, 4 micro-batches each
  auto kv = with(with(small(), "num-layers", "8"), "global-batch-size", "8");
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{{"tensor-model-parallel-size", "2"},
                                                                      {"sequence-parallel", "true"},
                                                                      {"pipeline-model-parallel-size", "2"},
                                                                      {"num-layers-per-virtual-pipeline-stage", "2"},
                                                                      {"use-distributed-optimizer", "true"},
                                                                      {"overlap-grad-reduce", "true"},
                                                                      {"overlap-param-gather", "true"}})
    kv.emplace_back(k, v);
  TrainingConfig c = make_config(settings(kv), 8);
  Prediction p     = predict_iteration(c, h100(), dgx());
  std::multiset<std::tuple<int64_t, int64_t, int64_t, uint64_t>> sends, recvs;
  for (uint32_t rank = 0; rank < 8; ++rank) {
    sgai::chakra::Trace t = iteration_trace(c, p, rank);
    uint64_t micros = 0, collectives = 0;
    for (const auto& n : t.nodes) {
      if (n.type == sgai::chakra::NodeType::comp)
        micros += n.duration_micros;
      if (n.type == sgai::chakra::NodeType::comm_coll)
        ++collectives;
      if (n.type == sgai::chakra::NodeType::comm_send)
        sends.insert({rank, *n.int_attr("comm_dst"), *n.int_attr("comm_tag"), *n.comm_size()});
      if (n.type == sgai::chakra::NodeType::comm_recv)
        recvs.insert({*n.int_attr("comm_src"), rank, *n.int_attr("comm_tag"), *n.comm_size()});
    }
    // 4 micro-batches through 2 chunks forward and backward, and the optimizer, to the microsecond
    const uint32_t st = rank / 4;
    double want       = p.stage_optimizer_s[st];
    for (uint32_t ch = 0; ch < 2; ++ch)
      want += 4 * (p.chunks[st * 2 + ch].fwd + p.chunks[st * 2 + ch].bwd);
    EXPECT_NEAR(micros * 1e-6, want, 20e-6) << rank;
    // each chunk's parameters gathered and its gradients reduce-scattered, bucket by bucket
    uint64_t buckets = p.chunks[st * 2].buckets + p.chunks[st * 2 + 1].buckets;
    EXPECT_EQ(collectives, 2 * buckets) << rank;
  }
  // 4 micro-batches x (2 chunks x 2 stages - 1) boundaries x 2 directions x 4 (TP x DP) pipelines
  EXPECT_EQ(sends.size(), 4u * 3 * 2 * 4);
  EXPECT_EQ(sends, recvs);
  auto groups = iteration_groups(c);
  EXPECT_EQ(groups.size(), 4u);
  EXPECT_EQ(groups["1"], (std::vector<uint32_t>{0, 2}));
  EXPECT_EQ(groups["4"], (std::vector<uint32_t>{5, 7}));
}

TEST(TrainingPredict, RecomputationRunsTheForwardAgain)
{
  auto kv             = small();
  TrainingConfig none = make_config(settings(kv), 1);
  kv.emplace_back("recompute-granularity", "selective");
  TrainingConfig selective = make_config(settings(kv), 1);
  kv.back().second         = "full";
  TrainingConfig full      = make_config(settings(kv), 1);
  LayerTimes n = layer_times(none, h100(), dgx()), s = layer_times(selective, h100(), dgx()),
             f = layer_times(full, h100(), dgx());
  // selective: the core attention again; full: the layer's whole forward again
  EXPECT_NEAR(s.backward() - n.backward(), n.attention_fwd, 1e-15);
  EXPECT_NEAR(f.backward() - n.backward(), n.forward(), 1e-15);
  EXPECT_EQ(f.forward(), n.forward());
}

TEST(TrainingPredict, RecomputedModulesRunTheirForwardAgain)
{
  // Megatron-Core's recompute-modules: the backward runs the modules' forward kernels again; the
  // small GPT (h 1,024, FFN 4,096, GeLU, s 2,048, TP 1)
  const GpuKernels g = h100();
  auto sel           = with(small(), "recompute-granularity", "selective");
  auto base          = layer_times(make_config(settings(sel), 1), g, dgx());
  auto lt = layer_times(make_config(settings(with(sel, "recompute-modules", "core_attn mlp layernorm")), 1), g, dgx());
  auto t  = [&](uint64_t m, uint64_t n, uint64_t k) { return sgai::kernels::gemm_time(m, n, k, 2, g.matmul).seconds; };
  // the MLP's two GEMMs forward
  EXPECT_NEAR(lt.gemm_bwd - base.gemm_bwd, t(2048, 4096, 1024) + t(2048, 1024, 4096), 1e-12);
  // GeLU's forward (4 bytes an element) and the two norms' (4 bytes)
  EXPECT_NEAR(lt.stream_bwd - base.stream_bwd, (2048.0 * 4096 * 4 + 2 * 2048.0 * 1024 * 4) / g.stream_Bps, 1e-12);
  EXPECT_DOUBLE_EQ(lt.gemm_fwd, base.gemm_fwd);
  EXPECT_DOUBLE_EQ(lt.attention_bwd, base.attention_bwd);
  // without core_attn the attention is not run again
  auto no_attn = layer_times(make_config(settings(with(sel, "recompute-modules", "mlp")), 1), g, dgx());
  EXPECT_NEAR(lt.attention_bwd - no_attn.attention_bwd, lt.attention_fwd, 1e-15);
}

TEST(TrainingPredict, MultiTokenPredictionOnTheLastStage)
{
  // mtp-num-layers 1 on the small GPT (one GPU, 4 micro-batches): per micro-batch one more layer,
  // the embedding's lookup, the projection 2 h -> h, three norms, the LM head and loss again
  const GpuKernels g = h100();
  auto c0 = make_config(settings(small()), 1), c1 = make_config(settings(with(small(), "mtp-num-layers", "1")), 1);
  const Prediction p0 = predict_iteration(c0, g, dgx()), p1 = predict_iteration(c1, g, dgx());
  EXPECT_EQ(p0.mtp_fwd, 0.0);
  const double proj = sgai::kernels::gemm_time(2048, 1024, 2048, 2, g.matmul).seconds;
  EXPECT_NEAR(p1.mtp_fwd,
              p1.layer.forward() + p1.embedding_fwd + proj + 3 * 2048.0 * 1024 * 4 / g.stream_Bps + p1.head_fwd, 1e-12);
  EXPECT_NEAR(p1.breakdown.compute_s - p0.breakdown.compute_s, 4 * p1.mtp_kernels, 1e-9);
  EXPECT_GT(p1.iteration_s, p0.iteration_s + 4 * (p1.mtp_fwd + p1.mtp_bwd) * 0.99);
  // its parameters on the stage: a layer, the projection and three norms (the embedding and the
  // LM head are the model's)
  EXPECT_NEAR(memory_per_stage(c1)[0].parameters - memory_per_stage(c0)[0].parameters, count_parameters(c1).mtp, 1);
  EXPECT_NEAR(count_parameters(c1).mtp, 12.0 * 1024 * 1024 + 4 * 1024 + 2 * 1024.0 * 1024 + 3 * 2 * 1024, 1);
}

TEST(TrainingPredict, RoutedCopiesMoveThroughMemory)
{
  // the small GPT with 4 experts, top-2, on one GPU (all 4 experts local): per layer forward the
  // norms and dropout-adds (2 x (4 + 6 + 1) bytes of 2,048 x 1,024), GeLU over the 4,096 routed
  // copies' 4,096-wide FFN (4 bytes), and the dispatcher's moves of the 4,096 copies' 2,048-byte rows:
  // permuted (2), unpermuted and summed (3), sorted by expert and back (4)
  const GpuKernels g  = h100();
  auto moe            = make_config(settings(with(with(small(), "num-experts", "4"), "moe-router-topk", "2")), 1);
  const LayerTimes lt = layer_times(moe, g, dgx());
  const double copies = 2048.0 * 2, row = 2.0 * 1024;
  EXPECT_NEAR(lt.stream_fwd * g.stream_Bps,
              2048.0 * 1024 * 2 * 11 + copies * 4096 * 4 + copies * 5 * row + copies * 4 * row, 1);
}
