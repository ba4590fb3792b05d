/* libFuzzer target: synthesis model JSON, as sgai chakra synth --model reads it (chakra/synth.*).
 * The check (synth_model_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh synth_model. */
#include "synth_model_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_synth_model_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target synth_model: %s\n", e.what());
    std::abort();
  }
  return 0;
}
