/* Replays the seeds of every in-process fuzz target (the TARGET_seeds folders of tests/fuzz, the
 * platform fixtures) and the inputs they once crashed on (tests/fuzz/regressions, or the seeds),
 * without libFuzzer: each input is accepted or rejected with an InputError, never a crash, another
 * exception or a broken property (FuzzBug). */
#include "../fuzz/aiops_check.hpp"
#include "../fuzz/astra_groups_check.hpp"
#include "../fuzz/astra_network_check.hpp"
#include "../fuzz/astra_system_check.hpp"
#include "../fuzz/batsim_check.hpp"
#include "../fuzz/batsim_reply_check.hpp"
#include "../fuzz/chakra_et_check.hpp"
#include "../fuzz/chakra_json_check.hpp"
#include "../fuzz/experiment_check.hpp"
#include "../fuzz/gpu_trace_check.hpp"
#include "../fuzz/kineto_check.hpp"
#include "../fuzz/platform_json_check.hpp"
#include "../fuzz/platform_xml_check.hpp"
#include "../fuzz/pytorch_et_check.hpp"
#include "../fuzz/replay_log_check.hpp"
#include "../fuzz/slurm_conf_check.hpp"
#include "../fuzz/swf_check.hpp"
#include "../fuzz/synth_model_check.hpp"
#include "../fuzz/training_check.hpp"
#include "core/foundation/files.hpp"
#include "corpus_replay.hpp"

#include <gtest/gtest.h>

#include <functional>

using sgai::test::replay;

TEST(FuzzCorpus, EveryInputIsAcceptedOrRejectedCleanly)
{
  auto c = replay({"tests/fixtures/platforms", "tests/fuzz/regressions"}, sgai::test::check_platform_text);
  EXPECT_GE(c.accepted, 7U);
  EXPECT_GE(c.rejected, 10U);
}

TEST(FuzzCorpus, EveryChakraSeedIsReadOrRejectedCleanly)
{
  auto c = replay({"tests/fuzz/chakra_seeds"}, sgai::test::check_et_bytes);
  EXPECT_GE(c.accepted, 4U);
  EXPECT_GE(c.rejected, 1U); // truncated.0.et
}

TEST(FuzzCorpus, SwfSeeds)
{
  auto c = replay({"tests/fuzz/swf_seeds"}, sgai::test::check_swf_bytes);
  EXPECT_GE(c.accepted, 6U); // tiny, tiny.gz, the excerpts of four real logs
  EXPECT_GE(c.rejected, 4U); // bogus_*, wagap (extended SWF: 21 fields)
}

TEST(FuzzCorpus, SwfGzipPathReadsWhatThePlainPathReads)
{
  auto text = sgai::read_text_file("tests/fixtures/workloads/tiny.swf");
  EXPECT_TRUE(sgai::test::check_swf_bytes(sgai::test::gzip_bytes(text)));
  // a gzip stream cut short is rejected, not read as a shorter log
  auto gz = sgai::test::gzip_bytes(text);
  EXPECT_FALSE(sgai::test::check_swf_bytes(gz.substr(0, gz.size() / 2)));
}

TEST(FuzzCorpus, GpuTraceSeeds)
{
  auto c = replay({"tests/fuzz/gpu_trace_seeds"}, sgai::test::check_gpu_trace_bytes);
  EXPECT_GE(c.accepted, 3U); // heads of Tiresias' trace and Alibaba's pod list, a Gavel trace
  EXPECT_GE(c.rejected, 2U); // bogus_*
}

TEST(FuzzCorpus, AiopsSeeds)
{
  auto c = replay({"tests/fuzz/aiops_seeds"}, sgai::test::check_aiops_bytes);
  EXPECT_GE(c.accepted, 3U); // the default model, a small model, the health-care week
  EXPECT_GE(c.rejected, 4U); // bogus_*
}

TEST(FuzzCorpus, KinetoSeeds)
{
  auto c = replay({"tests/fuzz/kineto_seeds"}, sgai::test::check_kineto_bytes);
  EXPECT_GE(c.accepted, 2U); // HTA's trace_compare base, a tiny step with a NCCL kernel
}

TEST(FuzzCorpus, BatsimSeeds)
{
  auto c = replay({"tests/fuzz/batsim_seeds"}, sgai::test::check_batsim_bytes);
  // tiny, interference, and Batsim's own workloads (DelayProfile, ptask_homogeneous, compositions,
  // storage, trace replay, ...)
  EXPECT_GE(c.accepted, 10U);
  EXPECT_GE(c.rejected, 3U); // bogus_*
}

TEST(FuzzCorpus, BatsimReplySeeds)
{
  auto c = replay({"tests/fuzz/batsim_reply_seeds"}, sgai::test::check_batsim_reply_bytes);
  EXPECT_GE(c.accepted, 4U); // every decision kind
  EXPECT_GE(c.rejected, 3U); // bogus_*
}

TEST(FuzzCorpus, SlurmConfSeeds)
{
  auto c = replay({"tests/fuzz/slurm_conf_seeds"}, sgai::test::check_slurm_conf_bytes);
  EXPECT_GE(c.accepted, 5U); // a site's file, minimal, builtin; a node or association the setup refuses
  EXPECT_GE(c.rejected, 2U); // bogus_range, bogus_window
}

TEST(FuzzCorpus, PlatformXmlSeeds)
{
  auto c = replay({"tests/fuzz/platform_xml_seeds"}, sgai::test::check_platform_xml_bytes);
  EXPECT_GE(c.accepted, 5U); // all are XML
  EXPECT_FALSE(sgai::test::check_platform_xml_bytes("{ \"sgai_platform\": 1 }"));
}

TEST(FuzzCorpus, ExperimentSeeds)
{
  auto c = replay({"tests/fuzz/experiment_seeds"}, sgai::test::check_experiment_bytes);
  EXPECT_GE(c.accepted, 4U);
  EXPECT_GE(c.rejected, 2U);
}

TEST(FuzzCorpus, AstraNetworkSeeds)
{
  auto c = replay({"tests/fuzz/astra_network_seeds"}, sgai::test::check_astra_network_bytes);
  EXPECT_GE(c.accepted, 4U);
  EXPECT_GE(c.rejected, 4U);
}

TEST(FuzzCorpus, TrainingSeeds)
{
  auto c = replay({"tests/fuzz/training_seeds"}, sgai::test::check_training_bytes);
  EXPECT_GE(c.accepted, 1U);
  EXPECT_GE(c.rejected, 15U);
}

TEST(FuzzCorpus, AstraSystemSeeds)
{
  auto c = replay({"tests/fuzz/astra_system_seeds"}, sgai::test::check_astra_system_bytes);
  EXPECT_GE(c.accepted, 4U);
  EXPECT_GE(c.rejected, 3U);
}

TEST(FuzzCorpus, AstraGroupsSeeds)
{
  auto c = replay({"tests/fuzz/astra_groups_seeds"}, sgai::test::check_astra_groups_bytes);
  EXPECT_GE(c.accepted, 2U);
  EXPECT_GE(c.rejected, 3U);
}

TEST(FuzzCorpus, ChakraJsonSeeds)
{
  auto c = replay({"tests/fuzz/chakra_json_seeds"}, sgai::test::check_chakra_json_bytes);
  EXPECT_GE(c.accepted, 3U);
  EXPECT_GE(c.rejected, 1U);
}

TEST(FuzzCorpus, PytorchEtSeeds)
{
  auto c = replay({"tests/fuzz/pytorch_et_seeds"}, sgai::test::check_pytorch_et_bytes);
  EXPECT_GE(c.accepted, 4U);
  EXPECT_GE(c.rejected, 1U); // the parent cycle
}

TEST(FuzzCorpus, ReplayLogSeeds)
{
  auto c = replay({"tests/fuzz/replay_log_seeds"}, sgai::test::check_replay_log_bytes);
  EXPECT_GE(c.accepted, 3U);
  EXPECT_GE(c.rejected, 2U);
}

TEST(FuzzCorpus, SynthModelSeeds)
{
  auto c = replay({"tests/fuzz/synth_model_seeds"}, sgai::test::check_synth_model_bytes);
  EXPECT_GE(c.accepted, 2U);
}
