/* libFuzzer target: a scheduler's replies in Batsim's protocol (core/scheduling/batsim_protocol.*).
 * The check (batsim_reply_check.hpp) accepts or rejects the input; a crash, a hang, a memory
 * blow-up or a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh
 * batsim_reply. */
#include "batsim_reply_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_batsim_reply_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target batsim_reply: %s\n", e.what());
    std::abort();
  }
  return 0;
}
