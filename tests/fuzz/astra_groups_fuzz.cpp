/* libFuzzer target: ASTRA-sim communicator-group JSON (plugins/replay/astra_inputs.*).
 * The check (astra_groups_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh astra_groups. */
#include "astra_groups_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_astra_groups_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target astra_groups: %s\n", e.what());
    std::abort();
  }
  return 0;
}
