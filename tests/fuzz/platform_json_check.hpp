/* What the platform fuzz target checks for one input, shared with the corpus replay test. */
#ifndef SGAI_TESTS_FUZZ_PLATFORM_JSON_CHECK_HPP
#define SGAI_TESTS_FUZZ_PLATFORM_JSON_CHECK_HPP

#include "core/foundation/error.hpp"
#include "generators/platform/platform.hpp"

#include <sstream>
#include <string>

namespace sgai::test {

/** Parses, expands and writes a platform given as JSON text. Returns true when accepted, false
 *  when rejected with an InputError; anything else escapes (a bug). Catalogue paths in the text
 *  resolve against tests/fixtures/platforms. */
inline bool check_platform_text(const std::string& text)
{
  try {
    auto spec = platform::parse_spec(text, "fuzz.json", "tests/fixtures/platforms");
    auto p    = platform::resolve(spec);
    if (platform::xml_limitation(p).empty()) {
      std::ostringstream out;
      platform::write_xml(p, out);
    }
    std::ostringstream h;
    platform::write_hierarchy_json(p, h);
    return true;
  } catch (const InputError&) {
    return false;
  }
}

} // namespace sgai::test

#endif
