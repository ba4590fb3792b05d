/* libFuzzer target: PyTorch execution traces with Kineto traces (chakra/convert.*).
 * The check (pytorch_et_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh pytorch_et. */
#include "pytorch_et_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_pytorch_et_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target pytorch_et: %s\n", e.what());
    std::abort();
  }
  return 0;
}
