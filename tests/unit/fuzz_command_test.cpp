/* Replays the seeds of the whole-command fuzz targets: each input runs the sgai binary of this
 * build in a forked child (tests/fuzz/command_check.hpp says what is checked: exit status 0, 1 or
 * 2, no signal, no SimGrid or sanitizer report, bounded time, nothing written outside the
 * outputs). */
#include "../fuzz/cmd_batch_check.hpp"
#include "../fuzz/cmd_platform_check.hpp"
#include "../fuzz/cmd_replay_check.hpp"
#include "../fuzz/cmd_run_check.hpp"
#include "../fuzz/cmd_swf2json_check.hpp"
#include "core/foundation/files.hpp"
#include "corpus_replay.hpp"

#include <gtest/gtest.h>

#include <functional>

using sgai::test::replay;

TEST(FuzzCommands, SandboxSeesWritesOutsideTheOutputs)
{
  sgai::test::Sandbox box;
  auto in = box.put("w.json", sgai::read_text_file("tests/fixtures/workloads/tiny.swf"));
  // swf2json told to write out.json, but out.json is not declared as an output
  EXPECT_THROW(sgai::test::run_sgai(box, {"workload", "swf2json", in, "--out", "out.json"}, {}), sgai::test::FuzzBug);
}

TEST(FuzzCommands, PlatformSeeds)
{
  auto c = replay({"tests/fuzz/cmd_platform_seeds"}, sgai::test::check_cmd_platform_bytes);
  EXPECT_GE(c.accepted, 6U);
  EXPECT_GE(c.rejected, 2U);
}

TEST(FuzzCommands, Swf2jsonSeeds)
{
  auto c = replay({"tests/fuzz/cmd_swf2json_seeds"}, sgai::test::check_cmd_swf2json_bytes);
  EXPECT_GE(c.accepted, 3U);
  EXPECT_GE(c.rejected, 1U);
}

TEST(FuzzCommands, BatchSeeds)
{
  auto c = replay({"tests/fuzz/cmd_batch_seeds"}, sgai::test::check_cmd_batch_bytes);
  EXPECT_GE(c.accepted, 2U);
  EXPECT_GE(c.rejected, 1U);
}

TEST(FuzzCommands, ReplaySeeds)
{
  auto c = replay({"tests/fuzz/cmd_replay_seeds"}, sgai::test::check_cmd_replay_bytes);
  EXPECT_GE(c.accepted, 2U);
  EXPECT_GE(c.rejected, 1U);
}

TEST(FuzzCommands, RunSeeds)
{
  auto c = replay({"tests/fuzz/cmd_run_seeds"}, sgai::test::check_cmd_run_bytes);
  EXPECT_GE(c.accepted, 3U);
  EXPECT_GE(c.rejected, 1U);
}
