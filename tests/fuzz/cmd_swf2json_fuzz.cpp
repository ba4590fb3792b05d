/* libFuzzer target: the whole command sgai workload swf2json, in a forked sgai.
 * The check (cmd_swf2json_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh cmd_swf2json. */
#include "cmd_swf2json_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_cmd_swf2json_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target cmd_swf2json: %s\n", e.what());
    std::abort();
  }
  return 0;
}
