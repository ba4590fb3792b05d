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

using namespace sgai::test; // settings, error_of, gpt_1_7b, find_transfer, with

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
  // FSDP2 reduce-scatters each layer's gradients during the backward, whatever the DDP's flag says
  const auto fsdp = with(with(gpt_1_7b(), "use-distributed-optimizer", "false"), "use-torch-fsdp2", "true");
  EXPECT_FALSE(make_config(settings(gpt_1_7b()), 48).overlap_grad_reduce);
  EXPECT_TRUE(make_config(settings(fsdp), 48).overlap_grad_reduce);
  EXPECT_FALSE(make_config(settings(with(fsdp, "overlap-grad-reduce", "false")), 48).overlap_grad_reduce);
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

TEST(TrainingConfig, NullIsNotSetAsMegatronsNone)
{
  // A dump of Megatron-LM's arguments holds many nulls (argparse's None): not set, the key still
  // checked; a null that a description needs is missing, not a crash (a fuzzer's find).
  auto dir = std::filesystem::temp_directory_path() / ("sgai-training-null-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  {
    std::ofstream(dir / "a.json") << R"({"num-layers": 24, "hidden-size": 2048, "num-attention-heads": 16,
      "seq-length": 4096, "vocab-size": 131072, "micro-batch-size": 1, "global-batch-size": 192,
      "num-layers-per-virtual-pipeline-stage": null, "tokenizer-type": null})";
    std::ofstream(dir / "a.yaml") << "num-layers: 24\nhidden-size: 2048\nnum-attention-heads: 16\nseq-length: 4096\n"
                                     "vocab-size: 131072\nmicro-batch-size: 1\nglobal-batch-size: 192\n"
                                     "num-layers-per-virtual-pipeline-stage: ~\nrecompute-granularity:\n";
    std::ofstream(dir / "needed.json") << R"({"num-layers": 24, "hidden-size": null, "num-attention-heads": 16})";
    std::ofstream(dir / "unknown.json") << R"({"num-layers": 24, "bogus-key": null})";
    std::ofstream(dir / "version.json") << R"({"sgai_training": null, "num-layers": 24})";
  }
  const TrainingConfig plain = make_config(settings(gpt_1_7b()), 48);
  for (const char* f : {"a.json", "a.yaml"}) {
    const TrainingConfig c = make_config(read_settings(dir / f), 48);
    EXPECT_EQ(c.virtual_stages(), 1u) << f;
    EXPECT_EQ(c.recompute_granularity, plain.recompute_granularity) << f;
    EXPECT_DOUBLE_EQ(megatron_flops(c), megatron_flops(plain)) << f;
  }
  auto error = [&](const char* f) {
    try {
      make_config(read_settings(dir / f), 48);
    } catch (const sgai::InputError& e) {
      return e.place() + ": " + e.message();
    }
    return std::string();
  };
  EXPECT_EQ(error("needed.json"), ": missing hidden-size (a training description needs it)");
  EXPECT_EQ(error("unknown.json").substr(0, 38), "at /bogus-key: unknown key 'bogus-key'");
  EXPECT_EQ(error("version.json"), "at /sgai_training: sgai_training null: this sgai reads version 1");
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
