/* libFuzzer target: replay log CSV, as sgai chakra timeline reads it (chakra/visualize.*).
 * The check (replay_log_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh replay_log. */
#include "replay_log_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_replay_log_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target replay_log: %s\n", e.what());
    std::abort();
  }
  return 0;
}
