/* libFuzzer target: AI-ops model and experiment files (aiops/), and the synthesizer over what a
 * model file gives. The check (aiops_check.hpp) accepts or rejects the input; a crash, a hang, a
 * memory blow-up or a FuzzBug (a broken property, reported here) is a bug. Run with
 * tools/fuzz.sh aiops. */
#include "aiops_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_aiops_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target aiops: %s\n", e.what());
    std::abort();
  }
  return 0;
}
