/* libFuzzer target: sgai's handling of SimGrid platform XML (legacy translation, format sniffing).
 * The check (platform_xml_check.hpp) accepts or rejects the input; a crash, a hang, a memory blow-up or
 * a FuzzBug (a broken property, reported here) is a bug. Run with tools/fuzz.sh platform_xml. */
#include "platform_xml_check.hpp"

#include <cstdint>
#include <cstdio>
#include <cstdlib>

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size)
{
  try {
    sgai::test::check_platform_xml_bytes(std::string(reinterpret_cast<const char*>(data), size));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "sgai fuzz target platform_xml: %s\n", e.what());
    std::abort();
  }
  return 0;
}
