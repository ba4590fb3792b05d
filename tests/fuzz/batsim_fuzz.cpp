/* libFuzzer target: Batsim workload JSON (generators/workload/batsim.*).
 * The check (batsim_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh batsim. */
#include "batsim_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_batsim_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target batsim: %s\n", e.what());
    std::abort();
  }
  return 0;
}
