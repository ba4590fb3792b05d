// The training description's newer parts (mixture of experts, recomputation, pipeline layouts,
// multi-latent attention, gradient and parameter types) against hand-computed cases.
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "core/training/traffic.hpp"

#include "tests/unit/training_kv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

using namespace sgai::training;
using namespace sgai::test; // settings, error_of, gpt_1_7b, find_transfer, with

TEST(TrainingConfig, SharedExpertsAsDeepSeekMoEAndQwenMoEHaveThem)
{
  // Qwen1.5-MoE-A2.7B's shape (24 layers, hidden 2,048, 16 heads, 60 experts of FFN 1,408, top 4,
  // shared experts of FFN 5,632, SwiGLU, RMSNorm, vocabulary 151,936 untied): 14.3 B parameters as
  // published; per layer attention 4 h^2, the routed experts 60 x 3 h 1408 and the router 60 h, the
  // shared ones 3 h 5632
  std::vector<std::pair<std::string, std::string>> kv = {{"num-layers", "24"},
                                                         {"hidden-size", "2048"},
                                                         {"num-attention-heads", "16"},
                                                         {"num-experts", "60"},
                                                         {"moe-router-topk", "4"},
                                                         {"moe-ffn-hidden-size", "1408"},
                                                         {"swiglu", "true"},
                                                         {"normalization", "RMSNorm"},
                                                         {"vocab-size", "151936"},
                                                         {"untie-embeddings-and-output-weights", "true"},
                                                         {"seq-length", "4096"},
                                                         {"micro-batch-size", "1"},
                                                         {"global-batch-size", "64"},
                                                         {"tensor-model-parallel-size", "2"},
                                                         {"sequence-parallel", "true"},
                                                         {"expert-model-parallel-size", "4"}};
  auto routed                                         = make_config(settings(kv), 64);
  auto c         = make_config(settings(with(kv, "moe-shared-expert-intermediate-size", "5632")), 64);
  auto p         = count_parameters(c);
  const double h = 2048;
  EXPECT_DOUBLE_EQ(p.shared_per_layer, 3 * h * 5632);
  EXPECT_DOUBLE_EQ(p.mlp_per_layer, 60 * 3 * h * 1408 + 60 * h);
  EXPECT_DOUBLE_EQ(p.total - count_parameters(routed).total, 24 * 3 * h * 5632);
  EXPECT_NEAR(p.total / 1e9, 14.3, 0.05);
  // Megatron's count: the shared experts' FFN beside the top-k routed ones, 12 B s L h^2 x S / h x 3/2
  EXPECT_NEAR(megatron_flops(c) - megatron_flops(routed), 12.0 * 64 * 4096 * 24 * h * h * 5632 / h * 1.5, 1e3);
  // split by TP only: stage memory holds them / TP beside the experts / (EP TP); each TP-split block
  // has its inputs gathered and its outputs scattered: attention and the shared experts a dense
  // block's s b h x 2 bytes, the experts the routed copies, top-k (4) times that
  auto st = memory_per_stage(c), st0 = memory_per_stage(routed);
  EXPECT_NEAR(st[0].parameters - st0[0].parameters, 24 * 3 * h * 5632 / 2, 1);
  auto gathered = [](const TrainingConfig& x, Phase ph) {
    std::vector<std::pair<double, uint32_t>> out;
    for (const Transfer& t : layer_transfers(x))
      if (t.group == Group::tensor && t.collective == Collective::all_gather && t.phase == ph)
        out.emplace_back(t.bytes, t.count);
    return out;
  };
  const double act = 4096 * h * 2;
  using Gathers    = std::vector<std::pair<double, uint32_t>>;
  EXPECT_EQ(gathered(c, Phase::forward), (Gathers{{act, 2}, {4 * act, 1}}));
  EXPECT_EQ(gathered(routed, Phase::forward), (Gathers{{act, 1}, {4 * act, 1}}));
  // backward: a dense block's output gradient and input again, the experts' output gradient once
  EXPECT_EQ(gathered(routed, Phase::backward), (Gathers{{act, 2}, {4 * act, 1}}));
  // activations: the shared experts' input (whole, / TP with SP) and their SwiGLU activations
  EXPECT_NEAR(activation_bytes_per_layer(c) - activation_bytes_per_layer(routed),
              (2.0 * 4096 * h + 6.0 * 4096 * 5632) / 2, 1);
  // without experts they mean nothing: an error naming the key
  auto dense = kv;
  dense.erase(std::remove_if(dense.begin(), dense.end(),
                             [](const auto& e) {
                               return e.first.rfind("moe-", 0) == 0 || e.first == "num-experts" ||
                                      e.first == "expert-model-parallel-size";
                             }),
              dense.end());
  EXPECT_NE(error_of(with(dense, "moe-shared-expert-intermediate-size", "5632"), 64)
                .find("moe-shared-expert-intermediate-size '5632': shared experts need num-experts"),
            std::string::npos);
}

/** DeepSeekMoE's layers (hidden 2,048, 16 heads, a dense FFN of 10,944, 64 experts of FFN 1,408,
 *  top 6, shared experts of 2,816, SwiGLU, RMSNorm, vocabulary 102,400 untied), on 64 GPUs with EP 8. */
static sgai::test::KeyValues deepseek_moe(const std::string& layers)
{
  return {{"num-layers", layers},
          {"hidden-size", "2048"},
          {"num-attention-heads", "16"},
          {"ffn-hidden-size", "10944"},
          {"num-experts", "64"},
          {"moe-router-topk", "6"},
          {"moe-ffn-hidden-size", "1408"},
          {"moe-shared-expert-intermediate-size", "2816"},
          {"swiglu", "true"},
          {"normalization", "RMSNorm"},
          {"vocab-size", "102400"},
          {"untie-embeddings-and-output-weights", "true"},
          {"seq-length", "4096"},
          {"micro-batch-size", "1"},
          {"global-batch-size", "64"},
          {"expert-model-parallel-size", "8"}};
}

TEST(TrainingConfig, MoeLayerFrequencyAsMegatronReadsIt)
{
  // DeepSeekMoE 16B's shape: 28 layers, the first dense (FFN 10,944), the others 64 experts of FFN
  // 1,408, top 6, with shared experts of FFN 2,816; vocabulary 102,400: 16.4 B parameters as published
  auto kv = deepseek_moe("28");
  kv.emplace_back("pipeline-model-parallel-size", "2");
  auto all = make_config(settings(kv), 64);
  auto c   = make_config(settings(with(kv, "moe-layer-freq", "([0]+[1]*27)")), 64);
  EXPECT_EQ(all.moe_layer_count(), 28u);
  EXPECT_EQ(c.moe_layer_count(), 27u);
  EXPECT_FALSE(c.moe_layer(0));
  EXPECT_TRUE(c.moe_layer(1));
  auto p = count_parameters(c);
  EXPECT_NEAR(p.total / 1e9, 16.4, 0.05);
  EXPECT_DOUBLE_EQ(count_parameters(all).total - p.total,
                   p.mlp_per_layer + p.shared_per_layer - p.dense_mlp_per_layer); // one layer the other way
  // stage 0 holds the dense layer: 13 MoE layers; stage 1 14
  EXPECT_EQ(c.stage_moe_layers(0), 13u);
  EXPECT_EQ(c.stage_moe_layers(1), 14u);
  auto st = memory_per_stage(c), st_all = memory_per_stage(all);
  EXPECT_NEAR(st_all[0].parameters - st[0].parameters,
              (p.mlp_per_layer - 64 * 2048.0) / 8 + 64 * 2048.0 + p.shared_per_layer - p.dense_mlp_per_layer, 1);
  EXPECT_DOUBLE_EQ(st_all[1].parameters, st[1].parameters);
  // Megatron's count: the dense layer's FFN in place of one MoE layer's routed and shared experts
  const double h = 2048, scale = 12.0 * 64 * 4096 * h * h;
  EXPECT_NEAR(megatron_flops(all) - megatron_flops(c), scale * ((6 * 1408.0 + 2816) - 10944) / h * 1.5, 1e3);
  // an integer N: every N-th layer from the first (Megatron's i % N == 0)
  auto every2 = make_config(settings(with(kv, "moe-layer-freq", "2")), 64);
  EXPECT_EQ(every2.moe_layer_count(), 14u);
  EXPECT_TRUE(every2.moe_layer(0));
  EXPECT_FALSE(every2.moe_layer(1));
  EXPECT_EQ(make_config(settings(with(kv, "moe-layer-freq", "[0]*3+[1,1]*12+[1]")), 64).moe_layer_count(), 25u);
  // what Megatron-LM would refuse: one error each, naming the key
  EXPECT_NE(error_of(with(kv, "moe-layer-freq", "([0]+[1]*26)"), 64).find("lists 27 layers, num-layers is 28"),
            std::string::npos);
  EXPECT_NE(error_of(with(kv, "moe-layer-freq", "[0]*28"), 64).find("makes no layer a MoE layer"), std::string::npos);
  EXPECT_NE(error_of(with(kv, "moe-layer-freq", "[0,2]*14"), 64).find("neither a layer frequency nor a list"),
            std::string::npos);
  EXPECT_NE(error_of(with(kv, "moe-layer-freq", "[1]*28+"), 64).find("neither a layer frequency"), std::string::npos);
  EXPECT_NE(error_of(with(kv, "moe-layer-freq", "0"), 64).find("moe-layer-freq '0'"), std::string::npos);
  auto dense = gpt_1_7b();
  EXPECT_NE(error_of(with(dense, "moe-layer-freq", "2"), 48).find("MoE layers need num-experts"), std::string::npos);
}

TEST(TrainingConfig, ExpertCapacityBoundsTheBusiestExpert)
{
  // Megatron's token dropping: an expert takes at most capacity x its mean share; padded to the
  // capacity, exactly that (and the all-to-alls carry the padded shares)
  auto moe =
      with(with(with(gpt_1_7b(), "num-experts", "8"), "moe-router-topk", "2"), "expert-model-parallel-size", "8");
  auto imb = with(moe, "moe-load-imbalance", "1.5");
  EXPECT_DOUBLE_EQ(make_config(settings(imb), 48).expert_load(), 1.5);
  EXPECT_DOUBLE_EQ(make_config(settings(with(imb, "moe-expert-capacity-factor", "1.25")), 48).expert_load(), 1.25);
  EXPECT_DOUBLE_EQ(make_config(settings(with(imb, "moe-expert-capacity-factor", "2")), 48).expert_load(), 1.5);
  auto padded = with(with(moe, "moe-expert-capacity-factor", "1.25"), "moe-pad-expert-input-to-capacity", "true");
  auto c      = make_config(settings(padded), 48);
  EXPECT_DOUBLE_EQ(c.expert_load(), 1.25);
  EXPECT_DOUBLE_EQ(find_transfer(layer_transfers(c), Group::expert, Collective::all_to_all, Phase::forward).bytes,
                   1.25 * find_transfer(layer_transfers(make_config(settings(moe), 48)), Group::expert,
                                        Collective::all_to_all, Phase::forward)
                              .bytes);
  // the busiest expert's tokens in the activations: top-k x its load
  EXPECT_GT(activation_bytes_per_layer(c), activation_bytes_per_layer(make_config(settings(moe), 48)));
  EXPECT_NE(error_of(with(moe, "moe-pad-expert-input-to-capacity", "true"), 48)
                .find("padding to the capacity needs moe-expert-capacity-factor"),
            std::string::npos);
  EXPECT_NE(
      error_of(with(gpt_1_7b(), "moe-expert-capacity-factor", "1"), 48).find("an expert capacity needs num-experts"),
      std::string::npos);
}

TEST(TrainingMemory, ThePrecisionAwareOptimizerKeepsItsOwnTypes)
{
  // use-precision-aware-optimizer: the main parameters and Adam's moments in their types, sharded
  // by the distributed optimizer (DeepSeek-V3's bf16 moments: 4 + 2 + 2 = 8 bytes, not 12), the
  // gradient buffer in main-grads-dtype (and the data-parallel reduction with it)
  auto base = gpt_1_7b(); // distributed optimizer over 48 replicas
  auto pa = with(with(with(base, "use-precision-aware-optimizer", "true"), "exp-avg-dtype", "bf16"), "exp-avg-sq-dtype",
                 "bf16");
  auto c  = make_config(settings(pa), 48);
  auto st = memory_per_stage(c), st0 = memory_per_stage(make_config(settings(base), 48));
  EXPECT_DOUBLE_EQ(st[0].optimizer_bytes, st0[0].optimizer_bytes * 8 / 12);
  EXPECT_DOUBLE_EQ(st[0].gradient_bytes, st0[0].gradient_bytes);
  auto g = make_config(settings(with(pa, "main-grads-dtype", "bf16")), 48);
  EXPECT_EQ(g.grad_bytes(), 2);
  EXPECT_DOUBLE_EQ(memory_per_stage(g)[0].gradient_bytes, 2 * st[0].parameters);
  EXPECT_DOUBLE_EQ(memory_per_stage(make_config(settings(with(pa, "exp-avg-sq-dtype", "fp8")), 48))[0].optimizer_bytes,
                   st0[0].optimizer_bytes * 7 / 12);
  // the types need the optimizer, and it the distributed optimizer; a type it does not know
  EXPECT_NE(error_of(with(base, "exp-avg-dtype", "bf16"), 48)
                .find("exp-avg-dtype 'bf16': needs use-precision-aware-optimizer"),
            std::string::npos);
  EXPECT_NE(
      error_of(with(with(base, "use-distributed-optimizer", "false"), "use-precision-aware-optimizer", "true"), 48)
          .find("needs use-distributed-optimizer"),
      std::string::npos);
  EXPECT_NE(error_of(with(pa, "main-params-dtype", "bf16"), 48).find("expected one of"), std::string::npos);
}

TEST(TrainingConfig, ExpertTensorParallelismSplitsTheExpertsApart)
{
  // Megatron-Core's expert-tensor-parallel-size: the experts split by ETP (TP by default), their
  // gradients reduced over TP x CP x DP / (ETP x EP) ranks; 8 experts (FFN 8,192, top-2), TP 2 with
  // sequence parallelism, DP 24, EP 8
  auto moe = with(
      with(with(with(gpt_1_7b(), "num-experts", "8"), "tensor-model-parallel-size", "2"), "sequence-parallel", "true"),
      "global-batch-size", "96");
  moe           = with(moe, "expert-model-parallel-size", "8");
  const auto c2 = make_config(settings(moe), 48);
  const auto c1 = make_config(settings(with(moe, "expert-tensor-parallel-size", "1")), 48);
  EXPECT_EQ(c2.etp(), 2u);
  EXPECT_EQ(c1.etp(), 1u);
  EXPECT_EQ(c2.expert_data_parallel_size(), 3u); // 2 x 24 / (2 x 8)
  EXPECT_EQ(c1.expert_data_parallel_size(), 6u); // 2 x 24 / (1 x 8)
  // the experts' weights: 24 layers x 8 x 2 x 2,048 x 8,192 over EP x ETP (16 or 8 GPUs)
  const double experts = 24.0 * 8 * 2 * 2048 * 8192;
  EXPECT_NEAR(memory_per_stage(c1)[0].parameters - memory_per_stage(c2)[0].parameters, experts / 8 - experts / 16, 1);
  // their optimizer state over the expert data parallelism: 12 bytes x experts / (EP ETP) / EDP
  EXPECT_NEAR(memory_per_stage(c1)[0].optimizer_bytes - memory_per_stage(c2)[0].optimizer_bytes,
              12 * (experts / 8 / 6 - experts / 16 / 3), 1);
  // the routed tokens gathered over ETP: ETP 2 gathers top-k x the TP group's 4,096 tokens,
  // 2 x 4,096 x 2,048 x 2 bytes, twice what ETP 1 keeps (each rank's own 2,048 tokens, top-2)
  EXPECT_NEAR(activation_bytes_per_layer(c2) - activation_bytes_per_layer(c1), 2.0 * 2048 * 2048 * 2, 1);
  auto gathers = [](const TrainingConfig& x) {
    std::vector<std::pair<uint32_t, double>> out;
    for (const Transfer& t : layer_transfers(x))
      if (t.group == Group::tensor && t.collective == Collective::all_gather && t.phase == Phase::forward)
        out.emplace_back(t.ranks, t.bytes);
    return out;
  };
  const double act = 4096.0 * 2048 * 2;
  using Gathers    = std::vector<std::pair<uint32_t, double>>;
  EXPECT_EQ(gathers(c2), (Gathers{{2, act}, {2, 2 * act}})); // attention's, the experts' (top-2)
  EXPECT_EQ(gathers(c1), (Gathers{{2, act}}));               // attention's only
  // the dispatch and combine carry the same tokens either way
  EXPECT_DOUBLE_EQ(find_transfer(layer_transfers(c1), Group::expert, Collective::all_to_all, Phase::forward).bytes,
                   find_transfer(layer_transfers(c2), Group::expert, Collective::all_to_all, Phase::forward).bytes);
  // ETP x EP must divide a stage's TP x CP x DP ranks, ETP the experts' FFN; without experts it
  // means nothing
  EXPECT_NE(error_of(with(moe, "expert-tensor-parallel-size", "4"), 48)
                .find("expert-tensor-parallel-size '4': x expert-model-parallel-size 8 = 32 ranks, which do not "
                      "divide tensor x context x data parallel = 48"),
            std::string::npos);
  EXPECT_NE(error_of(with(moe, "expert-tensor-parallel-size", "3"), 48)
                .find("expert-tensor-parallel-size '3': does not divide moe-ffn-hidden-size 8192"),
            std::string::npos);
  EXPECT_NE(error_of(with(gpt_1_7b(), "expert-tensor-parallel-size", "1"), 48)
                .find("expert tensor parallelism needs num-experts"),
            std::string::npos);
}

TEST(TrainingConfig, RecomputeModulesKeepLess)
{
  // Megatron-Core's recompute-modules under selective recomputation (core attention alone unless
  // given); the 1.7B GPT (h 2,048, FFN 8,192, s 4,096, b 1, TP 1, dropout 0.1): per layer
  const double s = 4096, h = 2048, f = 8192;
  auto sel  = with(gpt_1_7b(), "recompute-granularity", "selective");
  auto base = make_config(settings(sel), 48);
  EXPECT_EQ(base.recompute_modules, uint32_t(kCoreAttn));
  auto mods = [&](const std::string& m) { return make_config(settings(with(sel, "recompute-modules", m)), 48); };
  // the norms' outputs: QKV's and FC1's inputs, 2 s b h each
  EXPECT_NEAR(activation_bytes_per_layer(base) - activation_bytes_per_layer(mods("core_attn layernorm")), 2 * 2 * s * h,
              1);
  // a dense MLP's activations: FC1's output and the activation's (FC2's input), 2 s b f each
  EXPECT_NEAR(activation_bytes_per_layer(base) - activation_bytes_per_layer(mods("core_attn,mlp")), 2 * 2 * s * f, 1);
  // the experts' modules mean nothing in a dense layer
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(mods("core_attn moe_act moe shared_experts")),
                   activation_bytes_per_layer(base));
  // without core_attn the softmax statistics stay (fused attention: 4 s b a bytes)
  EXPECT_NEAR(activation_bytes_per_layer(mods("mlp")) - activation_bytes_per_layer(mods("core_attn mlp")), 4 * s * 16,
              1);
  // the modules only act under selective recomputation (Megatron-Core ignores them otherwise)
  auto none = make_config(settings(with(gpt_1_7b(), "recompute-modules", "mlp")), 48);
  EXPECT_FALSE(none.recomputes(kMlp));
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(none), activation_bytes_per_layer(make_config(settings(gpt_1_7b()), 48)));
  // a MoE layer (8 experts, top-2, EP 8): moe drops the routed copies and the experts'
  // activations (2 copies: 2 x 2 s h + 4 x 2 s f); moe_act the activation's output alone (2 x 2 s f)
  auto moe  = with(with(with(sel, "num-experts", "8"), "moe-router-topk", "2"), "expert-model-parallel-size", "8");
  auto m0   = make_config(settings(moe), 48);
  auto m_of = [&](const std::string& m) { return make_config(settings(with(moe, "recompute-modules", m)), 48); };
  EXPECT_NEAR(activation_bytes_per_layer(m0) - activation_bytes_per_layer(m_of("core_attn moe")),
              2 * 2 * s * h + 2 * 4 * s * f, 1);
  EXPECT_NEAR(activation_bytes_per_layer(m0) - activation_bytes_per_layer(m_of("core_attn moe_act")), 2 * 2 * s * f, 1);
  // ... and the backward runs the dispatch and combine again
  auto a2a = [](const TrainingConfig& x) {
    uint32_t n = 0;
    for (const Transfer& t : layer_transfers(x))
      if (t.group == Group::expert && t.phase == Phase::backward)
        n += t.count;
    return n;
  };
  EXPECT_EQ(a2a(m0), 2u);
  EXPECT_EQ(a2a(m_of("core_attn moe")), 4u);
  // Megatron's count plus what runs again: the routed experts' forward, a third of their part
  EXPECT_GT(hardware_flops(m_of("core_attn moe")), hardware_flops(m0));
  // names sgai does not model, and MLA's module without MLA: one error naming the value
  EXPECT_NE(
      error_of(with(sel, "recompute-modules", "core_attn mhc"), 48)
          .find("recompute-modules 'core_attn mhc': 'mhc' is not a module sgai recomputes ('core_attn', 'moe_act', "
                "'layernorm', 'mla_up_proj', 'mlp', 'moe', 'shared_experts')"),
      std::string::npos);
  EXPECT_NE(
      error_of(with(sel, "recompute-modules", "mla_up_proj"), 48).find("mla_up_proj needs multi-latent-attention"),
      std::string::npos);
  // a YAML list, as a launch line's several words become
  auto dir = std::filesystem::temp_directory_path() / "sgai_recompute_modules";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.yaml") << "num-layers: 24\nhidden-size: 2048\nnum-attention-heads: 16\nseq-length: 4096\n"
                                   "vocab-size: 131072\nmicro-batch-size: 1\nglobal-batch-size: 192\n"
                                   "recompute-granularity: selective\nrecompute-modules: [core_attn, layernorm]\n";
  EXPECT_EQ(make_config(read_settings(dir / "t.yaml"), 48).recompute_modules, uint32_t(kCoreAttn | kLayernorm));
  std::ofstream(dir / "t.json") << R"({"num-layers": 24, "hidden-size": 2048, "num-attention-heads": 16,
    "seq-length": 4096, "vocab-size": 131072, "micro-batch-size": 1, "global-batch-size": 192,
    "recompute-granularity": "selective", "recompute-modules": ["mlp"]})";
  EXPECT_EQ(make_config(read_settings(dir / "t.json"), 48).recompute_modules, uint32_t(kMlp));
  std::filesystem::remove_all(dir);
}

TEST(TrainingConfig, PipelineLayoutPlacesTheLayers)
{
  // Megatron-Core's pipeline-model-parallel-layout, its own example for DeepSeek-V3's 61 layers on
  // PP 16: "Et*3|(tt|)*29,m|L" unrolls to 32 virtual stages (2 a rank): the embedding and 3 layers,
  // 29 of 2 layers, MTP alone (rank 14's second), the loss alone (rank 15's second)
  auto kv = with(
      with(with(with(gpt_1_7b(), "num-layers", "61"), "pipeline-model-parallel-size", "16"), "mtp-num-layers", "1"),
      "global-batch-size", "48");
  kv     = with(kv, "pipeline-model-parallel-layout", "Et*3|(tt|)*29,m|L");
  auto c = make_config(settings(kv), 48);
  EXPECT_EQ(c.virtual_stages(), 2u);
  EXPECT_EQ(c.chunk_layers(0, 0), 3u);
  EXPECT_EQ(c.chunk_layers(0, 1), 2u);  // virtual stage 16
  EXPECT_EQ(c.chunk_layers(14, 1), 0u); // "m"
  EXPECT_EQ(c.chunk_layers(15, 1), 0u); // "L"
  EXPECT_EQ(c.stage_layers(0), 5u);
  EXPECT_EQ(c.stage_layers(15), 2u);
  EXPECT_EQ(c.mtp_rank, 14u);
  EXPECT_EQ(c.chunk_first_layer(0, 1), 33u); // after the first round of virtual stages: 3 + 15 x 2
  // MTP's parameters on rank 14 (with an embedding of its own), not on rank 15
  auto st            = memory_per_stage(c);
  const auto pc      = count_parameters(c);
  const double layer = pc.attention_per_layer + pc.mlp_per_layer + pc.norms_per_layer;
  EXPECT_NEAR(st[14].parameters - st[13].parameters, pc.mtp + pc.embedding - 2 * layer, 1);
  // what Megatron-Core refuses, one error each
  auto bad = [&](const std::string& layout) {
    return error_of(with(kv, "pipeline-model-parallel-layout", layout), 48);
  };
  EXPECT_NE(bad("Et*3|(tt|)*29,m|").find("the loss (L) must come last, once"), std::string::npos);
  EXPECT_NE(bad("Et*3|(tt|)*28,ttm|L").find("lists 31 stages, not a multiple of pipeline-model-parallel-size 16"),
            std::string::npos);
  EXPECT_NE(bad("Et*3|(tt|)*28,t|m,t|L").find("decoder layers (t) must come before the MTP layers (m)"),
            std::string::npos);
  EXPECT_NE(bad("Et*2|(tt|)*29,m|L").find("places 60 decoder layers (t), num-layers is 61"), std::string::npos);
  EXPECT_NE(bad("Et*3|(tt|)*29,x|L").find("'x' is not a layer (E, t, m, L)"), std::string::npos);
  EXPECT_NE(bad("Et*3|(tt|)*29,m|L*").find("a '*' without a count after it"), std::string::npos);
  EXPECT_NE(bad("Et*3|(tt|)*99999999").find("unrolls to more than"), std::string::npos);
  EXPECT_NE(
      error_of(with(with(kv, "pipeline-model-parallel-size", "1"), "pipeline-model-parallel-layout", "Et*30|t*31L"), 48)
          .find("lists 2 stages: interleaving needs pipeline-model-parallel-size above 1"),
      std::string::npos);
  EXPECT_NE(error_of(with(kv, "decoder-first-pipeline-num-layers", "3"), 48)
                .find("decoder-first-pipeline-num-layers '3': pipeline-model-parallel-layout places the layers itself"),
            std::string::npos);
}

TEST(TrainingConfig, MultiLatentAttentionAsDeepSeekBuiltIt)
{
  // DeepSeek-V2-Lite's shape: 27 layers, hidden 2,048, 16 heads of MLA (KV latent 512, no query
  // latent, 128 + 64 rotary for the scores, 128 for the values), the first layer dense (FFN
  // 10,944), 64 experts of 1,408, top 6, shared 2,816, vocabulary 102,400: 15.7 B as published
  auto kv = deepseek_moe("27");
  for (auto [k, v] : std::vector<std::pair<std::string, std::string>>{
           {"multi-latent-attention", "true"}, {"kv-lora-rank", "512"}, {"moe-layer-freq", "([0]+[1]*26)"}})
    kv.emplace_back(k, v);
  auto c         = make_config(settings(kv), 64);
  auto p         = count_parameters(c);
  const double h = 2048, a = 16;
  // split by TP: queries h x a (128 + 64), keys' and values' up-projection 512 x a (128 + 128), the
  // output a 128 x h; whole: the down-projection h x (512 + 64) and the latent's norm
  EXPECT_DOUBLE_EQ(p.attention_per_layer, h * a * 192 + 512 * a * 256 + a * 128 * h);
  EXPECT_DOUBLE_EQ(p.attention_whole_per_layer, h * 576 + 512);
  EXPECT_NEAR(p.total / 1e9, 15.7, 0.05);
  // Megatron's count (training.py, MLA): 6 (q + kv latent + rotary key + output + core attention's
  // causal half) a token and layer, beside the FFN's and the logits' usual terms
  std::vector<std::pair<std::string, std::string>> plain;
  for (const auto& e : kv)
    if (e.first.rfind("moe-", 0) != 0 && e.first != "num-experts" && e.first != "expert-model-parallel-size")
      plain.push_back(e);
  auto d         = make_config(settings(plain), 64);
  const double s = 4096, B = 64, L = 27, V = double(d.padded_vocab_size), f = 10944;
  const double att =
      6 * (h * a * 192 + 512 * (h + a * 256 + 1) + h * 64 + a * 128 * h + s * a * 192 / 2 + s * a * 128 / 2);
  EXPECT_NEAR(megatron_flops(d) / (B * s * L * att + 12 * B * s * L * h * f * 1.5 + 6 * B * s * V * h), 1, 1e-12);
  // the ring passes keys and values as the kernel reads them: a (192 + 128) a token, over TP
  auto cp = make_config(settings(with(with(plain, "context-parallel-size", "4"), "global-batch-size", "16")), 64);
  EXPECT_DOUBLE_EQ(find_transfer(layer_transfers(cp), Group::context, Collective::send_recv, Phase::forward).bytes,
                   1024.0 * (a * 192 + a * 128) * 2);
  // DeepSeek-V3's: 61 layers, hidden 7,168, 128 heads with a query latent of 1,536, the first 3
  // layers dense (18,432), 256 experts of 2,048, top 8, one shared, vocabulary 129,280: 671 B
  std::vector<std::pair<std::string, std::string>> v3 = {{"num-layers", "61"},
                                                         {"hidden-size", "7168"},
                                                         {"num-attention-heads", "128"},
                                                         {"ffn-hidden-size", "18432"},
                                                         {"multi-latent-attention", "true"},
                                                         {"q-lora-rank", "1536"},
                                                         {"kv-lora-rank", "512"},
                                                         {"num-experts", "256"},
                                                         {"moe-router-topk", "8"},
                                                         {"moe-ffn-hidden-size", "2048"},
                                                         {"moe-shared-expert-intermediate-size", "2048"},
                                                         {"moe-layer-freq", "[0]*3+[1]*58"},
                                                         {"swiglu", "true"},
                                                         {"normalization", "RMSNorm"},
                                                         {"vocab-size", "129280"},
                                                         {"untie-embeddings-and-output-weights", "true"},
                                                         {"seq-length", "4096"},
                                                         {"micro-batch-size", "1"},
                                                         {"global-batch-size", "64"},
                                                         {"expert-model-parallel-size", "64"}};
  EXPECT_NEAR(count_parameters(make_config(settings(v3), 64)).total / 1e9, 671, 0.5);
  // its multi-token prediction (one depth): a MoE layer, the projection 2 h x h and three norms, the
  // embedding and LM head shared: 11.6 B beside the 671 (DeepSeek's 14 B also count the copies of
  // the embedding and the head its checkpoint stores, 2 x 0.93 B)
  auto v3_mtp     = make_config(settings(with(v3, "mtp-num-layers", "1")), 64);
  const auto pm   = count_parameters(v3_mtp);
  const double h7 = 7168;
  EXPECT_NEAR(pm.mtp,
              pm.attention_per_layer + pm.attention_whole_per_layer + pm.norms_per_layer + pm.mlp_per_layer +
                  pm.shared_per_layer + 2 * h7 * h7 + 3 * h7,
              1);
  EXPECT_NEAR((pm.mtp + 2 * 129280 * h7) / 1e9, 14, 0.6);
  EXPECT_DOUBLE_EQ(pm.total, count_parameters(make_config(settings(v3), 64)).total);
  // Megatron's FLOP count: one more MoE layer, the projection and norms, the logits twice
  // (training.py's num_floating_point_operations with mtp_num_layers 1)
  const auto v3c = make_config(settings(v3), 64);
  EXPECT_GT(megatron_flops(v3_mtp), megatron_flops(v3c) * 1.01);
  // by hand on the dense 1.7B (h 2,048, MHA, FFN 8,192, s 4,096, V 131,072, batch 192): one more
  // layer 12 h^2 (2 + s/h) + 12 h f, the projection and norms 6 (3 h + 2 h^2), the logits 6 h V a token
  const auto g1   = make_config(settings(gpt_1_7b()), 48),
             g2   = make_config(settings(with(gpt_1_7b(), "mtp-num-layers", "1")), 48);
  const double hh = 2048, ss = 4096, tokens = double(g1.global_batch_size) * ss;
  EXPECT_NEAR(megatron_flops(g2) - megatron_flops(g1),
              tokens * (12 * hh * hh * (2 + ss / hh) + 12 * hh * 8192 + 6 * (3 * hh + 2 * hh * hh) + 6 * hh * 131072),
              megatron_flops(g1) * 1e-12);
  // MLA's dimensions without MLA, or query groups with it: one error naming the key
  EXPECT_NE(
      error_of(with(gpt_1_7b(), "kv-lora-rank", "512"), 48).find("kv-lora-rank '512': needs multi-latent-attention"),
      std::string::npos);
  EXPECT_NE(error_of(with(plain, "num-query-groups", "4"), 64).find("multi-latent attention has no query groups"),
            std::string::npos);
}

TEST(TrainingConfig, ChunksHoldTheLayersInMegatronsOrder)
{
  // 8 layers on 2 stages of 2 chunks: model chunk ch x p + r holds layers 2 (ch x 2 + r), + 1
  auto kv = with(with(with(gpt_1_7b(), "num-layers", "8"), "pipeline-model-parallel-size", "2"),
                 "num-layers-per-virtual-pipeline-stage", "2");
  auto c  = make_config(settings(with(kv, "global-batch-size", "96")), 48);
  EXPECT_EQ(c.chunk_first_layer(0, 0), 0u);
  EXPECT_EQ(c.chunk_first_layer(1, 0), 2u);
  EXPECT_EQ(c.chunk_first_layer(0, 1), 4u);
  EXPECT_EQ(c.chunk_first_layer(1, 1), 6u);
}

TEST(TrainingConfig, GradientsReduceInTheTypeMegatronPicks)
{
  // fp32 under bf16 (Megatron-LM's arguments.py), unless grad-reduce-in-bf16; the parameters' type
  // under fp16, unless accumulate-allreduce-grads-in-fp32
  EXPECT_EQ(make_config(settings(gpt_1_7b()), 48).grad_bytes(), 4);
  EXPECT_EQ(make_config(settings(with(gpt_1_7b(), "grad-reduce-in-bf16", "true")), 48).grad_bytes(), 2);
  EXPECT_EQ(make_config(settings(with(gpt_1_7b(), "fp16", "true")), 48).grad_bytes(), 2);
  EXPECT_EQ(
      make_config(settings(with(with(gpt_1_7b(), "fp16", "true"), "accumulate-allreduce-grads-in-fp32", "true")), 48)
          .grad_bytes(),
      4);
  // the data-parallel reduce-scatter and the gradient buffer follow: 2 bytes a parameter, and the
  // bf16 row of Megatron's table loses its 2 extra bytes (16 with the distributed optimizer's 12)
  auto c        = make_config(settings(with(gpt_1_7b(), "grad-reduce-in-bf16", "true")), 48);
  double params = count_parameters(c).total;
  auto it       = iteration_transfers(c);
  EXPECT_NEAR(find_transfer(it, Group::data, Collective::reduce_scatter, Phase::backward).bytes, 2 * params, 1);
  auto st = memory_per_stage(c);
  EXPECT_DOUBLE_EQ(st[0].gradient_bytes, 2 * st[0].parameters);
}

TEST(TrainingConfig, Fp8ParametersAreGatheredInFp8)
{
  // fp8-param-gather (Transformer Engine's fp8_model_init): the layers' GEMM weights are FP8
  // parameters, a byte and their cached transpose's byte, with no bf16 copy beside them; the
  // distributed optimizer gathers them in FP8, the embedding, the LM head and the norms in bf16
  auto fp8          = with(with(gpt_1_7b(), "fp8-format", "hybrid"), "grad-reduce-in-bf16", "true");
  auto cast         = make_config(settings(fp8), 48);
  auto own          = make_config(settings(with(fp8, "fp8-param-gather", "true")), 48);
  auto p            = count_parameters(own);
  const double gemm = 24 * (p.attention_per_layer + p.mlp_per_layer);
  auto m_cast = memory_per_stage(cast), m_own = memory_per_stage(own);
  EXPECT_DOUBLE_EQ(m_cast[0].weight_bytes - m_own[0].weight_bytes, 2 * gemm);
  EXPECT_DOUBLE_EQ(m_own[0].weight_bytes, 2 * m_own[0].parameters);
  EXPECT_DOUBLE_EQ(m_own[0].gradient_bytes, m_cast[0].gradient_bytes);
  auto gathered = [](const TrainingConfig& c) {
    return find_transfer(iteration_transfers(c), Group::data, Collective::all_gather, Phase::optimizer).bytes;
  };
  EXPECT_NEAR(gathered(cast), 2 * p.total, 1);
  EXPECT_NEAR(gathered(own), 2 * p.total - gemm, 1);
  // without FP8 there are no FP8 parameters: one error naming the key
  try {
    make_config(settings(with(gpt_1_7b(), "fp8-param-gather", "true")), 48);
    FAIL() << "accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("fp8-param-gather"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("need fp8-format"), std::string::npos) << e.what();
  }
}
