/* libFuzzer target: any bytes given as a Chakra ET are read (and replayed through the Feeder) or
 * rejected with an InputError; a crash, another exception, a hang or a memory blow-up is a bug.
 * Run with tools/fuzz.sh chakra_et. */
#include "chakra_et_check.hpp"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  sgai::test::check_et_bytes(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
