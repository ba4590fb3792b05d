/* libFuzzer target: the whole command sgai replay on tiny traces, in a forked sgai.
 * The check (cmd_replay_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh cmd_replay. */
#include "cmd_replay_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_cmd_replay_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target cmd_replay: %s\n", e.what());
    std::abort();
  }
  return 0;
}
