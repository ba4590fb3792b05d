// The training description, Megatron's FLOP count and the memory model, against hand-computed cases.
#include "core/foundation/error.hpp"
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "core/training/schedule.hpp"
#include "core/training/traffic.hpp"

#include "tests/unit/training_kv.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <tuple>

using namespace sgai::training;

namespace {

/** Settings from "key=value" pairs, as if written in a file named "t.yaml". */
std::vector<Setting> settings(const std::vector<std::pair<std::string, std::string>>& kv)
{
  std::vector<Setting> out;
  int line = 1;
  for (const auto& [k, v] : kv)
    out.push_back({k, v, "t.yaml", "line " + std::to_string(line++)});
  return out;
}

/** Megatron-Core's 1.7B row: 24 layers, hidden 2048, 16 heads, sequence 4,096, vocabulary 131,072,
 *  global batch 192 on 48 GPUs. */
std::vector<std::pair<std::string, std::string>> gpt_1_7b()
{
  return {{"num-layers", "24"},          {"hidden-size", "2048"},
          {"num-attention-heads", "16"}, {"seq-length", "4096"},
          {"vocab-size", "131072"},      {"micro-batch-size", "1"},
          {"global-batch-size", "192"},  {"use-distributed-optimizer", "true"}};
}

std::string error_of(const std::vector<std::pair<std::string, std::string>>& kv, uint64_t gpus)
{
  try {
    make_config(settings(kv), gpus);
  } catch (const sgai::InputError& e) {
    return e.place() + ": " + e.message();
  } catch (const sgai::UsageError& e) {
    return std::string("usage: ") + e.what();
  }
  return "";
}

using sgai::test::with;

} // namespace

TEST(TrainingConfig, DefaultsAreMegatrons)
{
  TrainingConfig c = make_config(settings(gpt_1_7b()), 48);
  EXPECT_EQ(c.ffn_hidden_size, 4u * 2048);
  EXPECT_EQ(c.num_query_groups, 16u);
  EXPECT_EQ(c.kv_channels, 128u);
  EXPECT_EQ(c.padded_vocab_size, 131072u); // already a multiple of 128
  EXPECT_EQ(c.data_parallel_size, 48u);
  EXPECT_EQ(c.microbatches(), 4u); // 192 / (1 x 48)
  EXPECT_EQ(c.virtual_stages(), 1u);
  // Megatron pads the vocabulary to a multiple of 128 x TP: 50,257 -> 50,304 at TP 1, 50,688 at TP 4
  auto kv = with(with(gpt_1_7b(), "vocab-size", "50257"), "global-batch-size", "96");
  EXPECT_EQ(make_config(settings(kv), 48).padded_vocab_size, 50304u);
  kv = with(with(kv, "tensor-model-parallel-size", "4"), "global-batch-size", "48");
  EXPECT_EQ(make_config(settings(kv), 48).padded_vocab_size, 50688u);
}

TEST(TrainingConfig, UnderscoresAndDashesNameTheSameKey)
{
  auto kv     = gpt_1_7b();
  kv[0].first = "num_layers";
  EXPECT_EQ(make_config(settings(kv), 48).num_layers, 24u);
}

TEST(TrainingConfig, EachInconsistencyIsOneErrorNamingTheKeyAndValue)
{
  auto g = gpt_1_7b();
  EXPECT_EQ(error_of(with(g, "tensor-model-parallel-size", "3"), 48),
            "line 9: tensor-model-parallel-size '3': does not divide num-attention-heads 16");
  EXPECT_EQ(error_of(with(with(g, "num-query-groups", "4"), "tensor-model-parallel-size", "8"), 48),
            "line 10: tensor-model-parallel-size '8': does not divide num-query-groups 4");
  EXPECT_EQ(error_of(with(g, "pipeline-model-parallel-size", "5"), 48),
            "line 9: pipeline-model-parallel-size '5': does not divide num-layers 24");
  EXPECT_EQ(
      error_of(with(with(g, "pipeline-model-parallel-size", "2"), "num-layers-per-virtual-pipeline-stage", "5"), 48),
      "line 10: num-layers-per-virtual-pipeline-stage '5': does not divide the 12 layers of a pipeline stage");
  EXPECT_EQ(
      error_of(with(with(with(g, "pipeline-model-parallel-size", "2"), "num-layers-per-virtual-pipeline-stage", "3"),
                    "global-batch-size", "72"),
               48),
      "line 10: num-layers-per-virtual-pipeline-stage '3': the interleaved schedule needs the 3 micro-batches per "
      "replica to be a multiple of pipeline-model-parallel-size 2");
  EXPECT_EQ(error_of(with(g, "tensor-model-parallel-size", "8"), 100),
            "line 9: tensor-model-parallel-size '8': tensor x pipeline x context parallel = 8 does not divide the "
            "100 GPUs");
  EXPECT_EQ(error_of(g, 50), "line 7: global-batch-size '192': not a multiple of micro-batch-size x "
                             "data-parallel-size = 50");
  EXPECT_EQ(error_of(with(g, "data-parallel-size", "24"), 48),
            "line 9: data-parallel-size '24': tensor x pipeline x context x data parallel = 24, not the 48 GPUs");
  EXPECT_EQ(error_of(with(g, "context-parallel-size", "3"), 48),
            "line 9: context-parallel-size '3': twice it does not divide seq-length 4096 (each CP rank holds two "
            "chunks, for causal balance)");
  EXPECT_EQ(error_of(with(g, "expert-model-parallel-size", "8"), 48),
            "line 9: expert-model-parallel-size '8': expert parallelism needs num-experts");
  EXPECT_EQ(error_of(with(with(g, "num-experts", "6"), "expert-model-parallel-size", "4"), 48),
            "line 10: expert-model-parallel-size '4': does not divide num-experts 6");
  EXPECT_EQ(error_of(with(g, "num-layers", "24x"), 48),
            "line 1: num-layers '24x': expected a whole number from 1 to 16777216");
  EXPECT_EQ(error_of(with(g, "swiglu", "yes"), 48), "line 9: swiglu 'yes': expected true or false");
  EXPECT_NE(error_of(with(g, "num-layer", "24"), 48)
                .find("line 9: unknown key 'num-layer' (known: 'num-layers', 'hidden-size',"),
            std::string::npos);
  EXPECT_EQ(error_of(with(with(g, "tensor-model-parallel-size", "2"), "tp-comm-overlap", "true"), 48),
            "line 10: tp-comm-overlap 'true': overlapping TP communication needs sequence-parallel (and TP above 1)");
  auto no_layers = g;
  no_layers.erase(no_layers.begin());
  EXPECT_EQ(error_of(no_layers, 48), ": missing num-layers (a training description needs it)");
}

TEST(TrainingConfig, ALaunchScriptsOtherArgumentsAreTakenAndListed)
{
  // Megatron-LM's own scripts give the learning-rate schedule, data, logging and checkpoints too:
  // taken, listed once in the order given, changing nothing; a misspelt key is still an error
  auto kv = gpt_1_7b();
  for (const auto& [k, v] : std::vector<std::pair<std::string, std::string>>{{"lr", "6.0e-5"},
                                                                             {"data_path", "/data/x"},
                                                                             {"split", "949,50,1"},
                                                                             {"clip-grad", "1.0"},
                                                                             {"no-load-optim", "true"},
                                                                             {"rotary-base", "500000"}})
    kv.emplace_back(k, v);
  TrainingConfig c = make_config(settings(kv), 48);
  EXPECT_EQ(c.unmodelled,
            (std::vector<std::string>{"lr", "data-path", "split", "clip-grad", "no-load-optim", "rotary-base"}));
  TrainingConfig plain = make_config(settings(gpt_1_7b()), 48);
  EXPECT_EQ(c.padded_vocab_size, plain.padded_vocab_size);
  EXPECT_EQ(c.microbatches(), plain.microbatches());
  EXPECT_TRUE(plain.unmodelled.empty());
  EXPECT_EQ(error_of(with(gpt_1_7b(), "lrr", "1"), 48).rfind("line 9: unknown key 'lrr'", 0), 0u);
  // a file may list several data paths
  auto dir = std::filesystem::temp_directory_path() / "sgai_training_unmodelled";
  std::filesystem::create_directories(dir);
  std::ofstream(dir / "t.json") << R"({"num-layers": 24, "hidden-size": 2048, "num-attention-heads": 16,
    "seq-length": 4096, "vocab-size": 131072, "micro-batch-size": 1, "global-batch-size": 192,
    "data-path": ["0.5", "/a", "0.5", "/b"], "lr": 0.0001})";
  EXPECT_EQ(make_config(read_settings(dir / "t.json"), 48).unmodelled, (std::vector<std::string>{"data-path", "lr"}));
  std::ofstream(dir / "t.json") << R"({"num-layers": [24]})";
  EXPECT_THROW(read_settings(dir / "t.json"), sgai::InputError);
  std::filesystem::remove_all(dir);
}

TEST(TrainingConfig, EachNameIsListedOnce)
{
  // the command line registers every known, older and unmodelled name as an option: a name in two
  // tables (data-cache-path, once) made CLI11 throw before any argument was read
  std::set<std::string> seen;
  for (const auto& k : known_keys())
    EXPECT_TRUE(seen.insert(k).second) << k;
  for (const auto* table : {&alias_keys(), &unmodelled_keys()})
    for (const auto& entry : *table)
      EXPECT_TRUE(seen.insert(entry.first).second) << entry.first;
  // Megatron-LM's functional tests' switches are taken
  EXPECT_EQ(seen.count("deterministic-mode"), 1u);
  EXPECT_EQ(seen.count("use-persistent-ckpt-worker"), 1u);
}

TEST(TrainingConfig, MegatronsOlderNamesAreWhatTheySay)
{
  // Megatron-LM 2021 (Narayanan et al.'s scripts): activations-checkpoint-method is full
  // recomputation; checkpoint-activations the same, uniform; recompute-activations selective;
  // use-flash-attn a fused attention
  auto c = make_config(settings(with(gpt_1_7b(), "activations-checkpoint-method", "block")), 48);
  EXPECT_EQ(c.recompute_granularity, Recompute::full);
  c = make_config(
      settings(with(with(gpt_1_7b(), "checkpoint-activations", "true"), "activations-checkpoint-num-layers", "2")), 48);
  EXPECT_EQ(c.recompute_granularity, Recompute::full);
  EXPECT_EQ(c.recompute_num_layers, 2u);
  c = make_config(settings(with(gpt_1_7b(), "checkpoint-activations", "false")), 48);
  EXPECT_EQ(c.recompute_granularity, Recompute::none);
  c = make_config(settings(with(gpt_1_7b(), "recompute-activations", "true")), 48);
  EXPECT_EQ(c.recompute_granularity, Recompute::selective);
  c = make_config(settings(with(gpt_1_7b(), "use-flash-attn", "true")), 48);
  EXPECT_TRUE(c.fused_attention);
  EXPECT_TRUE(c.unmodelled.empty());
  // a script with the 2021 names ran Megatron-LM 2021's unfused attention, unless it says otherwise
  c = make_config(settings(with(gpt_1_7b(), "activations-checkpoint-method", "uniform")), 48);
  EXPECT_FALSE(c.fused_attention);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_EQ(c.notes[0], "attention-backend unfused: activations-checkpoint-method is Megatron-LM 2021's name, whose "
                        "attention was unfused (give attention-backend for another)");
  c = make_config(
      settings(with(with(gpt_1_7b(), "activations-checkpoint-method", "uniform"), "attention-backend", "flash")), 48);
  EXPECT_TRUE(c.fused_attention);
  EXPECT_TRUE(c.notes.empty());
  c = make_config(settings(with(gpt_1_7b(), "recompute-activations", "true")), 48);
  EXPECT_TRUE(c.fused_attention);
  // DDP-impl torch: PyTorch's DDP all-reduces bucket by bucket during the backward; local after it
  EXPECT_TRUE(make_config(settings(with(gpt_1_7b(), "DDP-impl", "torch")), 48).overlap_grad_reduce);
  EXPECT_FALSE(make_config(settings(with(gpt_1_7b(), "DDP-impl", "local")), 48).overlap_grad_reduce);
  EXPECT_FALSE(make_config(settings(with(with(gpt_1_7b(), "DDP-impl", "torch"), "overlap-grad-reduce", "false")), 48)
                   .overlap_grad_reduce);
  EXPECT_NE(error_of(with(gpt_1_7b(), "DDP-impl", "apex"), 48).find("DDP-impl"), std::string::npos);
  EXPECT_NE(error_of(with(with(gpt_1_7b(), "attention-backend", "unfused"), "use-flash-attn", "true"), 48)
                .find("line 10: attention-backend is given twice (also line 9)"),
            std::string::npos);
  // the same setting under both names in one file is given twice
  EXPECT_NE(
      error_of(with(with(gpt_1_7b(), "recompute-granularity", "full"), "activations-checkpoint-method", "uniform"), 48)
          .find("recompute-granularity is given twice"),
      std::string::npos);
  // a merge file is GPT-2's BPE: 50,257 tokens when no vocab-size is given, and said so
  auto kv = gpt_1_7b();
  kv.erase(std::remove_if(kv.begin(), kv.end(), [](const auto& e) { return e.first == "vocab-size"; }), kv.end());
  EXPECT_NE(error_of(kv, 48).find("missing vocab-size"), std::string::npos);
  kv.emplace_back("merge-file", "gpt2-merges.txt");
  c = make_config(settings(kv), 48);
  EXPECT_EQ(c.vocab_size, 50257u);
  EXPECT_EQ(c.padded_vocab_size, 50304u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("vocab-size 50257"), std::string::npos);
  // Llama2Tokenizer is Llama 2's SentencePiece vocabulary, 32,000 tokens; a tokenizer whose file
  // holds the vocabulary (HuggingFace, TikToken, ...) needs vocab-size, and the error says why
  kv.pop_back();
  c = make_config(settings(with(kv, "tokenizer-type", "Llama2Tokenizer")), 48);
  EXPECT_EQ(c.vocab_size, 32000u);
  ASSERT_EQ(c.notes.size(), 1u);
  EXPECT_NE(c.notes[0].find("Llama 2's vocabulary"), std::string::npos);
  EXPECT_NE(error_of(with(kv, "tokenizer-type", "HuggingFaceTokenizer"), 48)
                .find("missing vocab-size (sgai does not open the files of tokenizer-type HuggingFaceTokenizer"),
            std::string::npos);
}

TEST(TrainingConfig, UnevenStagesAsMegatronCoreBuildsThem)
{
  // 14 layers on 4 stages (global batch 96 over DP 12: 8 micro-batches, a multiple of PP)
  auto g = with(with(gpt_1_7b(), "num-layers", "14"), "global-batch-size", "96");
  g      = with(g, "pipeline-model-parallel-size", "4");
  // the first and last stages' own counts, the others sharing the rest: 3, 4, 4, 3
  TrainingConfig u = make_config(
      settings(with(with(g, "decoder-first-pipeline-num-layers", "3"), "decoder-last-pipeline-num-layers", "3")), 48);
  EXPECT_EQ(u.stage_layers(0), 3u);
  EXPECT_EQ(u.stage_layers(1), 4u);
  EXPECT_EQ(u.stage_layers(2), 4u);
  EXPECT_EQ(u.stage_layers(3), 3u);
  // the Llama 3 405B layout: the embedding and the loss count as layers (16 = 4 x 4), one layer
  // per virtual stage... here 2: chunks of 2, the first stage's first chunk and the last stage's
  // last chunk one fewer
  TrainingConfig l = make_config(settings(with(with(with(g, "account-for-embedding-in-pipeline-split", "true"),
                                                    "account-for-loss-in-pipeline-split", "true"),
                                               "num-layers-per-virtual-pipeline-stage", "2")),
                                 48);
  EXPECT_EQ(l.split_layers(), 16u);
  EXPECT_EQ(l.virtual_stages(), 2u);
  EXPECT_EQ(l.chunk_layers(0, 0), 1u);
  EXPECT_EQ(l.chunk_layers(0, 1), 2u);
  EXPECT_EQ(l.chunk_layers(1, 0), 2u);
  EXPECT_EQ(l.chunk_layers(3, 0), 2u);
  EXPECT_EQ(l.chunk_layers(3, 1), 1u);
  uint32_t total = 0;
  for (uint32_t r = 0; r < 4; ++r)
    total += l.stage_layers(r);
  EXPECT_EQ(total, 14u);
  // Megatron-LM's checks
  EXPECT_EQ(error_of(g, 48), "line 9: pipeline-model-parallel-size '4': does not divide num-layers 14");
  EXPECT_EQ(error_of(with(g, "account-for-embedding-in-pipeline-split", "true"), 48),
            "line 9: pipeline-model-parallel-size '4': does not divide num-layers 14 (num-layers 14 with the "
            "embedding or the loss counted: 15)");
  EXPECT_EQ(error_of(with(g, "decoder-first-pipeline-num-layers", "4"), 48),
            "line 9: pipeline-model-parallel-size '4': the other 3 stages cannot share the 10 remaining layers evenly");
  EXPECT_EQ(
      error_of(with(with(with(g, "decoder-first-pipeline-num-layers", "3"), "decoder-last-pipeline-num-layers", "3"),
                    "num-virtual-stages-per-pipeline-rank", "2"),
               48),
      "line 12: num-virtual-stages-per-pipeline-rank '2': does not divide the 3 layers of pipeline stage 0");
  EXPECT_EQ(
      error_of(with(with(with(g, "decoder-first-pipeline-num-layers", "2"), "decoder-last-pipeline-num-layers", "4"),
                    "num-layers-per-virtual-pipeline-stage", "2"),
               48),
      "line 12: num-layers-per-virtual-pipeline-stage '2': with uneven first or last stages give "
      "num-virtual-stages-per-pipeline-rank instead (as Megatron-LM)");
  EXPECT_EQ(error_of(with(with(gpt_1_7b(), "decoder-first-pipeline-num-layers", "3"), "global-batch-size", "96"), 48),
            "line 9: decoder-first-pipeline-num-layers '3': uneven pipeline stages need pipeline-model-parallel-size "
            "above 1");
  EXPECT_EQ(error_of(with(g, "decoder-first-pipeline-num-layers", "15"), 48),
            "line 10: decoder-first-pipeline-num-layers '15': the first and last stages would hold more than the 14 "
            "layers");
}

TEST(TrainingConfig, FlagsAreUsageErrorsAndOverrideTheFile)
{
  auto s = settings(gpt_1_7b());
  s.push_back({"num-layers", "12", "", "--num-layers"});
  EXPECT_EQ(make_config(s, 48).num_layers, 12u);
  s.push_back({"num-layers", "0", "", "--num-layers"});
  try {
    make_config(s, 48);
    FAIL() << "accepted 0 layers";
  } catch (const sgai::UsageError& e) {
    EXPECT_STREQ(e.what(), "--num-layers '0': expected a whole number from 1 to 16777216");
  }
}

TEST(TrainingConfig, ReadsJsonAndYamlFiles)
{
  auto dir = std::filesystem::temp_directory_path() / ("sgai-training-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "a.yaml") << "num-layers: 24\nhidden_size: 2048\nnum-attention-heads: 16\nseq-length: 4096\n"
                                     "vocab-size: 131072\nmicro-batch-size: 1\nglobal-batch-size: 192\nswiglu: true\n";
    std::ofstream(dir / "a.json") << R"({"sgai_training": 1, "num-layers": 24, "hidden-size": 2048,
      "num-attention-heads": 16, "seq-length": 4096, "vocab-size": 131072,
      "micro-batch-size": 1, "global-batch-size": 192, "swiglu": true})";
    std::ofstream(dir / "twice.yaml") << "num-layers: 24\nnum_layers: 12\n";
    std::ofstream(dir / "list.yaml") << "num-layers: [24]\n";
  }
  auto y = make_config(read_settings(dir / "a.yaml"), 48);
  auto j = make_config(read_settings(dir / "a.json"), 48);
  EXPECT_EQ(y.hidden_size, 2048u);
  EXPECT_TRUE(y.swiglu);
  EXPECT_EQ(megatron_flops(y), megatron_flops(j));
  try {
    make_config(read_settings(dir / "twice.yaml"), 48);
    FAIL();
  } catch (const sgai::InputError& e) {
    EXPECT_EQ(e.place(), "line 2");
    EXPECT_EQ(e.message(), "num-layers is given twice (also line 1)");
  }
  try {
    read_settings(dir / "list.yaml");
    FAIL();
  } catch (const sgai::InputError& e) {
    EXPECT_EQ(e.place(), "line 1");
  }
  std::filesystem::remove_all(dir);
}

TEST(TrainingFlops, MegatronCoresCountGivesItsPublishedThroughput)
{
  // 12 B s L h^2 (1 + 1 + s/h + f/h + V/(2 L h)) = 12 x 192 x 4096 x 24 x 2048^2 x (2 + 2 + 4 + 4/3)
  TrainingConfig c = make_config(settings(gpt_1_7b()), 48);
  double want      = 12.0 * 192 * 4096 * 24 * 2048.0 * 2048.0 * (2 + 2 + 4 + 131072.0 / (2 * 24 * 2048));
  EXPECT_DOUBLE_EQ(megatron_flops(c), want);
  // the table's 408.8 TFLOP/s per GPU on 48 GPUs is an iteration of this many seconds
  EXPECT_NEAR(megatron_flops(c) / (408.8e12 * 48), 0.4519, 1e-4);
  EXPECT_DOUBLE_EQ(tokens_per_iteration(c), 192.0 * 4096);
  // SwiGLU's three matrices count 3/2 of the FFN; grouped-query attention fewer K, V columns
  auto kv          = with(with(gpt_1_7b(), "swiglu", "true"), "num-query-groups", "4");
  TrainingConfig l = make_config(settings(kv), 48);
  double want_l    = 12.0 * 192 * 4096 * 24 * 2048.0 * 2048.0 * (1 + 0.25 + 2 + 4 * 1.5 + 131072.0 / (2 * 24 * 2048));
  EXPECT_DOUBLE_EQ(megatron_flops(l), want_l);
  EXPECT_DOUBLE_EQ(hardware_flops(l), megatron_flops(l)); // nothing recomputed
}

TEST(TrainingFlops, TheHardwareCountAddsTheRecomputedForward)
{
  // full recomputation: Narayanan et al. 2021's count, 96 B s L h^2 (1 + s/6h + V/16Lh)
  TrainingConfig c = make_config(settings(with(gpt_1_7b(), "recompute-granularity", "full")), 48);
  const double B = 192, s = 4096, L = 24, h = 2048, V = 131072;
  EXPECT_NEAR(hardware_flops(c) / (96 * B * s * L * h * h * (1 + s / (6 * h) + V / (16 * L * h))), 1, 1e-12);
  EXPECT_DOUBLE_EQ(megatron_flops(c), megatron_flops(make_config(settings(gpt_1_7b()), 48)));
  // selective: the core attention's score and context products forward again, 4 B s^2 L (k a)
  c = make_config(settings(with(gpt_1_7b(), "recompute-granularity", "selective")), 48);
  EXPECT_NEAR(hardware_flops(c) - megatron_flops(c), 4 * B * s * s * L * h, 1e-6 * megatron_flops(c));
}

TEST(TrainingMemory, GptThreeHas175BillionParameters)
{
  // GPT-3: 96 layers, hidden 12,288, 96 heads, vocabulary 50,257 (padded 50,304): 12 L h^2 + V h
  auto kv = std::vector<std::pair<std::string, std::string>>{
      {"num-layers", "96"},    {"hidden-size", "12288"},  {"num-attention-heads", "96"}, {"seq-length", "2048"},
      {"vocab-size", "50257"}, {"micro-batch-size", "1"}, {"global-batch-size", "1536"}};
  TrainingConfig c = make_config(settings(kv), 1536);
  ParameterCount p = count_parameters(c);
  EXPECT_DOUBLE_EQ(p.attention_per_layer, 4.0 * 12288 * 12288);
  EXPECT_DOUBLE_EQ(p.mlp_per_layer, 8.0 * 12288 * 12288);
  EXPECT_DOUBLE_EQ(p.norms_per_layer, 4.0 * 12288);
  EXPECT_NEAR(p.total / 1e9, 174.6, 0.1);
}

TEST(TrainingMemory, KorthikantisActivationFormulas)
{
  // Korthikanti et al. 2022, one layer, 16-bit values: s b h (34 + 5 a s / h) alone; with TP t:
  // s b h (10 + 24/t + 5 a s / (h t)); with sequence parallelism s b h (34/t + 5 a s / (h t));
  // selective recomputation with SP: 34 s b h / t
  auto kv        = with(with(gpt_1_7b(), "attention-backend", "unfused"), "micro-batch-size", "2");
  kv             = with(kv, "global-batch-size", "96");
  const double s = 4096, b = 2, h = 2048, a = 16;
  TrainingConfig c = make_config(settings(kv), 48);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(c), s * b * h * (34 + 5 * a * s / h));
  // FP8 (Transformer Engine): the four GEMMs' inputs kept in FP8, a byte less an element: QKV's,
  // the projection's and FC1's (h each) and FC2's (4 h): s b h (34 - 7 + 5 a s / h)
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(make_config(settings(with(kv, "fp8-format", "hybrid")), 48)),
                   s * b * h * (27 + 5 * a * s / h));
  kv = with(with(kv, "tensor-model-parallel-size", "4"), "global-batch-size", "24");
  c  = make_config(settings(kv), 48);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(c), s * b * h * (10 + 24.0 / 4 + 5 * a * s / (h * 4)));
  kv = with(kv, "sequence-parallel", "true");
  c  = make_config(settings(kv), 48);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(c), s * b * h * (34.0 / 4 + 5 * a * s / (h * 4)));
  kv = with(kv, "recompute-granularity", "selective");
  c  = make_config(settings(kv), 48);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(c), s * b * h * 34.0 / 4);
  // a fused attention kernel keeps only fp32 softmax statistics: 4 s b a bytes
  kv = with(kv, "attention-backend", "flash");
  kv = with(kv, "recompute-granularity", "full");
  c  = make_config(settings(kv), 48);
  EXPECT_DOUBLE_EQ(activation_bytes_per_layer(c), s * b * h * 34.0 / 4 + 4 * s * b * a / 4);
}

TEST(TrainingMemory, OptimizerBytesFollowMegatronsTable)
{
  // bf16 parameters, fp32 gradients: 18 bytes per parameter, 6 + 12/d with the distributed optimizer
  auto kv          = with(gpt_1_7b(), "use-distributed-optimizer", "false");
  TrainingConfig c = make_config(settings(kv), 48);
  auto st          = memory_per_stage(c);
  ASSERT_EQ(st.size(), 1u);
  EXPECT_DOUBLE_EQ(st[0].weight_bytes + st[0].gradient_bytes + st[0].optimizer_bytes, 18 * st[0].parameters);
  EXPECT_NEAR(st[0].parameters / 1e9, count_parameters(c).total / 1e9, 1e-9); // one stage, no TP: all of it
  c  = make_config(settings(gpt_1_7b()), 48);
  st = memory_per_stage(c);
  EXPECT_DOUBLE_EQ(st[0].weight_bytes + st[0].gradient_bytes + st[0].optimizer_bytes,
                   (6 + 12.0 / 48) * st[0].parameters);
  // FP8: Transformer Engine's cached FP8 copy and transpose of every layer's GEMM weights, 2 bytes more
  auto p8  = count_parameters(c);
  auto st8 = memory_per_stage(make_config(settings(with(gpt_1_7b(), "fp8-format", "hybrid")), 48));
  EXPECT_DOUBLE_EQ(st8[0].weight_bytes - st[0].weight_bytes, 2 * 24 * (p8.attention_per_layer + p8.mlp_per_layer));
  // FSDP shards all 18 bytes over the 48 replicas, one layer's weights gathered at a time
  c  = make_config(settings(with(with(gpt_1_7b(), "use-distributed-optimizer", "false"), "use-torch-fsdp2", "true")),
                   48);
  st = memory_per_stage(c);
  auto p = count_parameters(c);
  EXPECT_DOUBLE_EQ(st[0].weight_bytes + st[0].gradient_bytes + st[0].optimizer_bytes,
                   18 * st[0].parameters / 48 + 2 * (p.attention_per_layer + p.mlp_per_layer));
}

TEST(TrainingMemory, PipelineStagesKeepTheirMicrobatchesInFlight)
{
  // 1F1B: stage i keeps min(p - i, m) micro-batches; interleaved with v chunks: 2 (p - i - 1) +
  // (v - 1) p + 1 chunks of L / (p v) layers
  auto kv          = with(with(gpt_1_7b(), "pipeline-model-parallel-size", "4"), "global-batch-size", "96");
  TrainingConfig c = make_config(settings(kv), 48); // DP 12, 8 micro-batches
  auto st          = memory_per_stage(c);
  ASSERT_EQ(st.size(), 4u);
  double layer = activation_bytes_per_layer(c);
  for (uint32_t i = 0; i < 4; ++i) {
    EXPECT_EQ(st[i].inflight, 4 - i);
    EXPECT_EQ(st[i].layers, 6u);
  }
  EXPECT_DOUBLE_EQ(st[0].activation_bytes, 4 * 6 * layer);
  EXPECT_DOUBLE_EQ(st[3].activation_bytes, 1 * 6 * layer + 4.0 * 4096 * 1 * 131072); // and the fp32 logits
  // the first stage holds the embedding, the last its tied copy as the LM head and the final norm
  EXPECT_DOUBLE_EQ(st[3].parameters - st[1].parameters, 131072.0 * 2048 + 2 * 2048);
  // (and Megatron's default learned positions, seq-length rows: max-position-embeddings not given)
  EXPECT_DOUBLE_EQ(st[0].parameters - st[1].parameters, 131072.0 * 2048 + 4096.0 * 2048);
  kv = with(kv, "num-layers-per-virtual-pipeline-stage", "3"); // v = 2 chunks of 3 layers
  c  = make_config(settings(kv), 48);
  st = memory_per_stage(c);
  EXPECT_DOUBLE_EQ(st[0].activation_bytes, (2 * 3 + 1 * 4 + 1) * 3 * layer);
  EXPECT_DOUBLE_EQ(st[3].activation_bytes, (0 + 4 + 1) * 3 * layer + 4.0 * 4096 * 131072);
}

TEST(TrainingMemory, LearnedPositionsAsMegatronCoreHoldsThem)
{
  // Megatron-LM's default position-embedding-type, learned_absolute: a max-position-embeddings x h
  // table on the first stage, whole on every TP rank; rope (or the older switches) holds none
  auto kv = with(with(with(gpt_1_7b(), "pipeline-model-parallel-size", "2"), "tensor-model-parallel-size", "4"),
                 "global-batch-size", "96");
  TrainingConfig c = make_config(settings(kv), 48); // TP 4 x PP 2 x DP 6
  EXPECT_TRUE(c.learned_positions);
  EXPECT_EQ(c.max_position_embeddings, 4096u);
  auto learned = memory_per_stage(c);
  auto p       = count_parameters(c);
  EXPECT_DOUBLE_EQ(p.positions, 4096.0 * 2048);
  c = make_config(settings(with(kv, "max-position-embeddings", "8192")), 48);
  EXPECT_DOUBLE_EQ(count_parameters(c).positions, 8192.0 * 2048);
  for (const auto& [key, value] :
       std::vector<std::pair<std::string, std::string>>{{"position-embedding-type", "rope"},
                                                        {"use-rotary-position-embeddings", "true"},
                                                        {"no-position-embedding", "true"},
                                                        {"position-embedding-type", "none"}}) {
    c           = make_config(settings(with(kv, key, value)), 48);
    auto none   = memory_per_stage(c);
    auto p_none = count_parameters(c);
    EXPECT_FALSE(c.learned_positions) << key;
    EXPECT_DOUBLE_EQ(p.total - p_none.total, 4096.0 * 2048) << key;
    EXPECT_DOUBLE_EQ(learned[0].parameters - none[0].parameters, 4096.0 * 2048) << key; // not divided by TP 4
    EXPECT_DOUBLE_EQ(learned[1].parameters, none[1].parameters) << key;
  }
  // the older switch wins over the type, wherever it is written (Megatron's arguments.py)
  auto both = with(with(kv, "use-rotary-position-embeddings", "true"), "position-embedding-type", "learned_absolute");
  EXPECT_FALSE(make_config(settings(both), 48).learned_positions);
  EXPECT_EQ(error_of(with(kv, "max-position-embeddings", "2048"), 48),
            "line 11: max-position-embeddings '2048': is below seq-length 4096");
  EXPECT_EQ(
      error_of(with(kv, "position-embedding-type", "alibi"), 48).rfind("line 11: position-embedding-type 'alibi'", 0),
      0u);
}

TEST(TrainingSchedule, OneFOneBOrdersAsMegatronCore)
{
  // p = 2, rank 0, 4 micro-batches: one forward to warm up, then forward/backward pairs
  auto o = pipeline_order(2, 0, 4, 1);
  std::string s;
  for (const auto& op : o)
    s += (op.pass == Pass::forward ? "F" : "B") + std::to_string(op.microbatch) + " ";
  EXPECT_EQ(s, "F0 F1 B0 F2 B1 F3 B2 B3 ");
  // the last rank has no warm-up
  o = pipeline_order(2, 1, 4, 1);
  EXPECT_EQ(o[0].pass, Pass::forward);
  EXPECT_EQ(o[1].pass, Pass::backward);
}

TEST(TrainingSchedule, InterleavedOrdersAsMegatronCore)
{
  // p = 2, v = 2, 4 micro-batches: forward k is micro-batch (k / 4) 2 + k % 2 of chunk (k / 2) % 2;
  // rank 0 warms up (2 - 0 - 1) 2 + (2 - 1) 2 = 4 forwards
  auto o = pipeline_order(2, 0, 4, 2);
  std::string s;
  for (const auto& op : o)
    s += (op.pass == Pass::forward ? "F" : "B") + std::to_string(op.microbatch) + "." + std::to_string(op.chunk) + " ";
  EXPECT_EQ(s, "F0.0 F1.0 F0.1 F1.1 F2.0 B0.1 F3.0 B1.1 F2.1 B0.0 F3.1 B1.0 B2.1 B3.1 B2.0 B3.0 ");
  // as many micro-batches as stages: all forwards, then all backwards
  o = pipeline_order(2, 1, 2, 2);
  EXPECT_EQ(o[3].pass, Pass::forward);
  EXPECT_EQ(o[4].pass, Pass::backward);
  EXPECT_THROW(pipeline_order(4, 0, 6, 2), std::invalid_argument); // 6 is not a multiple of 4
}

TEST(TrainingSchedule, BubblesAreNarayanansWithConstantPasses)
{
  // 1F1B, p = 4, m = 8, forward 1, backward 2: (m + p - 1)(tf + tb) = 33, bubble 3/11
  auto ends        = pipeline_ends(4, 8, 1, {1, 2, 0});
  double iteration = *std::max_element(ends.begin(), ends.end());
  EXPECT_DOUBLE_EQ(iteration, 33);
  EXPECT_DOUBLE_EQ((iteration - 8 * 3) / iteration, ideal_bubble_fraction(4, 8, 1));
  // interleaved, v = 2: each chunk half the work, (v m + p - 1)(tf + tb) / v... = 19 x 1.5
  ends      = pipeline_ends(4, 8, 2, {0.5, 1, 0});
  iteration = *std::max_element(ends.begin(), ends.end());
  EXPECT_DOUBLE_EQ(iteration, 28.5);
  EXPECT_DOUBLE_EQ((iteration - 8 * 3) / iteration, ideal_bubble_fraction(4, 8, 2));
  // one stage: no bubble, passes back to back
  ends = pipeline_ends(1, 8, 1, {1, 2, 0.5});
  EXPECT_DOUBLE_EQ(ends[0], 24);
}

namespace {

/** The transfer of that group, collective and phase (the test fails without one). */
Transfer find_transfer(const std::vector<Transfer>& all, Group g, Collective k, Phase p)
{
  for (const auto& t : all)
    if (t.group == g && t.collective == k && t.phase == p)
      return t;
  ADD_FAILURE() << "no " << to_string(g) << " " << to_string(k) << " " << to_string(p);
  return {};
}

} // namespace

TEST(TrainingTraffic, TensorParallelLayersAsMegatronCoreSendsThem)
{
  // 16B row: TP 4 with sequence parallelism, hidden 6,144, sequence 4,096, micro-batch 1: each
  // all-gather and reduce-scatter moves the whole s b h tensor of 2-byte values
  auto kv = with(with(with(gpt_1_7b(), "hidden-size", "6144"), "num-attention-heads", "48"),
                 "tensor-model-parallel-size", "4");
  kv      = with(kv, "sequence-parallel", "true");
  auto c  = make_config(settings(kv), 192);
  auto l  = layer_transfers(c);
  ASSERT_EQ(l.size(), 4u);
  const double act = 4096.0 * 1 * 6144 * 2;
  auto ag          = find_transfer(l, Group::tensor, Collective::all_gather, Phase::forward);
  EXPECT_EQ(ag.ranks, 4u);
  EXPECT_EQ(ag.count, 2u);
  EXPECT_DOUBLE_EQ(ag.bytes, act);
  EXPECT_EQ(find_transfer(l, Group::tensor, Collective::reduce_scatter, Phase::forward).count, 2u);
  EXPECT_EQ(find_transfer(l, Group::tensor, Collective::reduce_scatter, Phase::backward).count, 2u);
  EXPECT_EQ(find_transfer(l, Group::tensor, Collective::all_gather, Phase::backward).count, 4u);
  // without sequence parallelism: two all-reduces each way; full recomputation repeats the forward's
  c = make_config(settings(with(with(kv, "sequence-parallel", "false"), "recompute-granularity", "full")), 192);
  l = layer_transfers(c);
  EXPECT_EQ(find_transfer(l, Group::tensor, Collective::all_reduce, Phase::forward).count, 2u);
  uint32_t backward = 0;
  for (const auto& t : l)
    if (t.phase == Phase::backward)
      backward += t.count;
  EXPECT_EQ(backward, 4u);
}

TEST(TrainingTraffic, RingAttentionAndExpertAllToAll)
{
  // CP 4 with 8 query groups of 128 channels: each step passes K and V of the local 1,024 tokens,
  // 2 x 1024 x 1 x 128 x 8 x 2 bytes, 3 times forward; the backward passes twice as much
  auto kv = with(with(gpt_1_7b(), "num-query-groups", "8"), "context-parallel-size", "4");
  kv      = with(kv, "global-batch-size", "48");
  auto c  = make_config(settings(kv), 48);
  auto l  = layer_transfers(c);
  auto f  = find_transfer(l, Group::context, Collective::send_recv, Phase::forward);
  EXPECT_EQ(f.count, 3u);
  EXPECT_DOUBLE_EQ(f.bytes, 2.0 * 1024 * 1 * 128 * 8 * 2);
  EXPECT_DOUBLE_EQ(find_transfer(l, Group::context, Collective::send_recv, Phase::backward).bytes, 2 * f.bytes);
  // 8 experts, top-2, EP 8: dispatch and combine of 4,096 tokens x 2 copies x 2,048 x 2 bytes
  kv     = with(with(with(gpt_1_7b(), "num-experts", "8"), "moe-router-topk", "2"), "expert-model-parallel-size", "8");
  c      = make_config(settings(kv), 48);
  l      = layer_transfers(c);
  auto a = find_transfer(l, Group::expert, Collective::all_to_all, Phase::forward);
  EXPECT_EQ(a.ranks, 8u);
  EXPECT_EQ(a.count, 2u);
  EXPECT_DOUBLE_EQ(a.bytes, 4096.0 * 2 * 2048 * 2);
}

TEST(TrainingTraffic, ContextParallelAllGatherAndAllToAllAsTransformerEngineRunsThem)
{
  // CP 4, 16 heads and 8 query groups of 128 channels, 1,024 local tokens: a rank's K and V are
  // 2 x 1024 x 8 x 128 x 2 bytes, its Q 1024 x 16 x 128 x 2, its output 1024 x 2048 x 2
  auto kv =
      with(with(with(gpt_1_7b(), "num-query-groups", "8"), "context-parallel-size", "4"), "global-batch-size", "48");
  const double KV = 2.0 * 1024 * 8 * 128 * 2, Q = 1024.0 * 16 * 128 * 2, O = 1024.0 * 2048 * 2;
  // allgather (Llama 3's): K and V gathered before the attention, forward and again backward; their
  // gradients reduce-scattered after it
  auto l = layer_transfers(make_config(settings(with(kv, "cp-comm-type", "allgather")), 48));
  auto f = find_transfer(l, Group::context, Collective::all_gather, Phase::forward);
  EXPECT_EQ(f.ranks, 4u);
  EXPECT_EQ(f.count, 1u);
  EXPECT_DOUBLE_EQ(f.bytes, 4 * KV);
  EXPECT_FALSE(f.after_attention);
  EXPECT_DOUBLE_EQ(find_transfer(l, Group::context, Collective::all_gather, Phase::backward).bytes, 4 * KV);
  auto rs = find_transfer(l, Group::context, Collective::reduce_scatter, Phase::backward);
  EXPECT_DOUBLE_EQ(rs.bytes, 4 * KV);
  EXPECT_TRUE(rs.after_attention);
  // a2a (DeepSpeed-Ulysses): Q, K and V before the attention, the output after it; backward the
  // output's gradient before, Q's, K's and V's after
  l = layer_transfers(make_config(settings(with(kv, "cp-comm-type", "a2a")), 48));
  std::vector<std::tuple<Phase, double, bool>> seen;
  for (const Transfer& t : l)
    if (t.group == Group::context) {
      EXPECT_EQ(t.collective, Collective::all_to_all);
      seen.emplace_back(t.phase, t.bytes, t.after_attention);
    }
  EXPECT_EQ(seen, (std::vector<std::tuple<Phase, double, bool>>{{Phase::forward, Q + KV, false},
                                                                {Phase::forward, O, true},
                                                                {Phase::backward, O, false},
                                                                {Phase::backward, Q + KV, true}}));
  // YAML lists and command lines name one type for every layer
  EXPECT_EQ(make_config(settings(with(kv, "cp-comm-type", "a2a a2a")), 48).cp_comm_type, CpComm::a2a);
  EXPECT_NE(error_of(with(kv, "cp-comm-type", "p2p a2a"), 48).find("one type for every layer"), std::string::npos);
  EXPECT_NE(error_of(with(kv, "cp-comm-type", "ring"), 48).find("'ring': expected one of p2p"), std::string::npos);
  // a2a+p2p (hierarchical-context-parallel-sizes 2 2): all-to-alls within pairs, a ring of 2 over
  // the pairs passing blocks of K and V as large as p2p's (twice the tokens, half the groups)
  auto h = with(with(kv, "cp-comm-type", "a2a+p2p"), "hierarchical-context-parallel-sizes", "2 2");
  seen.clear();
  std::vector<uint32_t> ranks;
  for (const Transfer& t : layer_transfers(make_config(settings(h), 48)))
    if (t.group == Group::context) {
      seen.emplace_back(t.phase, t.bytes, t.after_attention);
      ranks.push_back(t.count * 100 + t.ranks);
    }
  EXPECT_EQ(seen, (std::vector<std::tuple<Phase, double, bool>>{{Phase::forward, Q + KV, false},
                                                                {Phase::forward, KV, false},
                                                                {Phase::forward, O, true},
                                                                {Phase::backward, O, false},
                                                                {Phase::backward, 2 * KV, false},
                                                                {Phase::backward, Q + KV, true}}));
  EXPECT_EQ(ranks, (std::vector<uint32_t>{102, 102, 102, 102, 102, 102})); // (once each, over 2 ranks)
  EXPECT_NE(error_of(with(kv, "cp-comm-type", "a2a+p2p"), 48).find("needs hierarchical-context-parallel-sizes"),
            std::string::npos);
  EXPECT_NE(error_of(with(h, "hierarchical-context-parallel-sizes", "2 4"), 48).find("multiplies to 8, not context"),
            std::string::npos);
  EXPECT_NE(error_of(with(h, "hierarchical-context-parallel-sizes", "4"), 48).find("expected two sizes"),
            std::string::npos);
  EXPECT_NE(error_of(with(h, "hierarchical-context-parallel-sizes", "2 x"), 48).find("'x' is not a size"),
            std::string::npos);
  // the all-to-alls split the heads: 8 query groups over CP 16 cannot be
  kv = with(with(kv, "context-parallel-size", "16"), "cp-comm-type", "a2a");
  EXPECT_NE(error_of(kv, 48).find("8 query groups over 16 CP ranks"), std::string::npos);
}

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
static std::vector<std::pair<std::string, std::string>> deepseek_moe(const std::string& layers)
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

TEST(TrainingTraffic, DataParallelGradientsAndPipelineBoundaries)
{
  // 1.7B row, distributed optimizer over 48 replicas: fp32 gradients reduce-scattered, bf16
  // parameters all-gathered, once per iteration
  auto c  = make_config(settings(with(gpt_1_7b(), "untie-embeddings-and-output-weights", "true")), 48);
  auto it = iteration_transfers(c);
  ASSERT_EQ(it.size(), 2u);
  double params = count_parameters(c).total;
  auto rs       = find_transfer(it, Group::data, Collective::reduce_scatter, Phase::backward);
  EXPECT_EQ(rs.ranks, 48u);
  EXPECT_NEAR(rs.bytes, 4 * params, 1);
  EXPECT_NEAR(find_transfer(it, Group::data, Collective::all_gather, Phase::optimizer).bytes, 2 * params, 1);
  // PP 4: s b h x 2 bytes across each boundary each way; the tied embedding's gradients all-reduced
  // between the first and last stages
  c = make_config(settings(with(with(gpt_1_7b(), "pipeline-model-parallel-size", "4"), "global-batch-size", "96")), 48);
  it      = iteration_transfers(c);
  auto pp = find_transfer(it, Group::pipeline, Collective::send_recv, Phase::forward);
  EXPECT_DOUBLE_EQ(pp.bytes, 4096.0 * 2048 * 2);
  EXPECT_DOUBLE_EQ(find_transfer(it, Group::pipeline, Collective::all_reduce, Phase::optimizer).bytes,
                   4.0 * 131072 * 2048);
  // without the distributed optimizer: one all-reduce of the gradients
  c  = make_config(settings(with(gpt_1_7b(), "use-distributed-optimizer", "false")), 48);
  it = iteration_transfers(c);
  ASSERT_EQ(it.size(), 1u);
  EXPECT_EQ(it[0].collective, Collective::all_reduce);
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
