/* Replays a fuzz target's corpus without libFuzzer (shared by fuzz_corpus_test.cpp and
 * fuzz_command_test.cpp): every file of the folders goes through the target's check, which says
 * accepted or rejected; a throw (a crash caught as an exception, a broken property) fails the
 * test, naming the file. */
#ifndef SGAI_TESTS_UNIT_CORPUS_REPLAY_HPP
#define SGAI_TESTS_UNIT_CORPUS_REPLAY_HPP

#include "core/foundation/files.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <functional>
#include <string>
#include <vector>

namespace sgai::test {

struct Counts {
  size_t accepted = 0, rejected = 0;
};

inline Counts replay(const std::vector<std::string>& dirs, const std::function<bool(const std::string&)>& check)
{
  Counts c;
  for (const auto& dir : dirs)
    for (const auto& entry : std::filesystem::directory_iterator(dir)) {
      if (not entry.is_regular_file())
        continue;
      bool ok = false;
      try {
        ok = check(sgai::read_text_file(entry.path()));
      } catch (const std::exception& e) {
        ADD_FAILURE() << entry.path() << ": " << e.what();
      }
      (ok ? c.accepted : c.rejected)++;
    }
  return c;
}

} // namespace sgai::test

#endif
