/* libFuzzer target: any text given as a platform JSON is either accepted (it expands and writes
 * XML and hierarchy) or rejected with an InputError; a crash, another exception, a hang or a
 * memory blow-up is a bug. Run with tools/fuzz.sh. */
#include "platform_json_check.hpp"

#include <cstdint>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  sgai::test::check_platform_text(std::string(reinterpret_cast<const char*>(data), size));
  return 0;
}
