/* libFuzzer target: the whole command sgai batch run on a tiny platform, in a forked sgai.
 * The check (cmd_batch_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh cmd_batch. */
#include "cmd_batch_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_cmd_batch_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target cmd_batch: %s\n", e.what());
    std::abort();
  }
  return 0;
}
