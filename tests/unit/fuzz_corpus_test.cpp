/* Replays the platform fuzz target's seeds (every platform fixture) and the inputs it once
 * crashed on (tests/fuzz/regressions), without libFuzzer. */
#include "../fuzz/chakra_et_check.hpp"
#include "../fuzz/platform_json_check.hpp"
#include "generators/util/files.hpp"

#include <gtest/gtest.h>

TEST(FuzzCorpus, EveryInputIsAcceptedOrRejectedCleanly)
{
  size_t accepted = 0, rejected = 0;
  for (const char* dir : {"tests/fixtures/platforms", "tests/fuzz/regressions"})
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (not entry.is_regular_file())
        continue;
      bool ok = false;
      EXPECT_NO_THROW(ok = sgai::test::check_platform_text(sgai::read_text_file(entry.path()))) << entry.path();
      (ok ? accepted : rejected)++;
    }
  EXPECT_GE(accepted, 7U);
  EXPECT_GE(rejected, 10U);
}

TEST(FuzzCorpus, EveryChakraSeedIsReadOrRejectedCleanly)
{
  size_t accepted = 0, rejected = 0;
  for (const auto& entry : std::filesystem::directory_iterator("tests/fuzz/chakra_seeds")) {
    bool ok = false;
    EXPECT_NO_THROW(ok = sgai::test::check_et_bytes(sgai::read_text_file(entry.path()))) << entry.path();
    (ok ? accepted : rejected)++;
  }
  EXPECT_GE(accepted, 4U);
  EXPECT_GE(rejected, 1U); // truncated.0.et
}
