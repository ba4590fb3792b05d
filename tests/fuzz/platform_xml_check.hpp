/* What the platform XML fuzz target checks for one input, shared with the corpus replay test:
 * sgai's own handling of SimGrid XML before SimGrid reads it: the format sniffing of a platform
 * file without extension and the translation of older SimGrid/Batsim XML (AS -> zone, watt_* ->
 * wattage_*, renamed or dropped options). SimGrid's own loading is fuzzed by the forked
 * cmd_platform target. */
#ifndef SGAI_TESTS_FUZZ_PLATFORM_XML_CHECK_HPP
#define SGAI_TESTS_FUZZ_PLATFORM_XML_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "generators/platform/legacy_xml.hpp"
#include "plugins/sim/simulation.hpp"

#include <string>
#include <vector>

namespace sgai::test {

/** True when sgai would hand the text to SimGrid as XML, false otherwise; throws only on a bug. */
inline bool check_platform_xml_bytes(const std::string& bytes)
{
  bool xml = sim::is_xml_platform(write_input("fuzz-platform", bytes));
  std::vector<std::string> notes;
  auto translated = platform::translate_legacy_xml(bytes, notes);
  if (translated.has_value() == notes.empty())
    throw FuzzBug("the legacy XML translation changed the text without saying so, or the reverse");
  if (translated) {
    // The translated text has no legacy element left: translating it again renames nothing.
    std::vector<std::string> again;
    (void)platform::translate_legacy_xml(*translated, again);
    for (const auto& n : again)
      if (n.find(" -> ") != std::string::npos)
        throw FuzzBug("the legacy XML translation is not complete: a second pass does " + n);
  }
  return xml;
}

} // namespace sgai::test

#endif
