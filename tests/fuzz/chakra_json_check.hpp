/* What the Chakra JSON fuzz target checks for one input, shared with the corpus replay test: the
 * JSON form `sgai chakra dejsonize` reads becomes an ET, or is rejected with an InputError; an ET
 * written that way goes back to JSON and to the same ET bytes (the exact round trip jsonize and
 * dejsonize promise), and sgai's ET reader takes it or rejects it cleanly. */
#ifndef SGAI_TESTS_FUZZ_CHAKRA_JSON_CHECK_HPP
#define SGAI_TESTS_FUZZ_CHAKRA_JSON_CHECK_HPP

#include "chakra/et_json.hpp"
#include "chakra_et_check.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"

#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_chakra_json_bytes(const std::string& bytes)
{
  auto et = input_dir() / "fuzz.et";
  try {
    (void)chakra::dejsonize_file(write_input("fuzz.json", bytes), et);
  } catch (const InputError&) {
    return false;
  }
  auto first = read_back(et);
  auto json  = input_dir() / "again.json";
  auto et2   = input_dir() / "again.et";
  try {
    (void)chakra::jsonize_file(et, json);
    (void)chakra::dejsonize_file(json, et2);
  } catch (const InputError& e) {
    throw FuzzBug(std::string("an ET written by dejsonize does not go back and forth: ") + e.what());
  }
  if (read_back(et2) != first)
    throw FuzzBug("ET -> JSON -> ET changed the bytes of an ET written by dejsonize");
  (void)check_et_bytes(first);
  return true;
}

} // namespace sgai::test

#endif
