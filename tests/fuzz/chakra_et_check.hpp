/* What the Chakra ET fuzz target checks, shared with the unit test that replays its corpus: any
 * bytes are read to the end (and replayed through the Feeder) or rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_CHAKRA_ET_CHECK_HPP
#define SGAI_TESTS_FUZZ_CHAKRA_ET_CHECK_HPP

#include "chakra/et_io.hpp"
#include "chakra/feeder.hpp"
#include "core/foundation/error.hpp"

#include <deque>
#include <string>

namespace sgai::test {

/** True when the bytes are a valid trace, false when rejected with an InputError. */
inline bool check_et_bytes(const std::string& bytes)
{
  try {
    chakra::EtReader r(bytes, "fuzz.et");
    chakra::Node n;
    while (r.next(n)) {
      (void)n.collective();
      (void)n.comm_size();
      (void)n.num_ops();
    }
    chakra::Feeder::Options o;
    o.window    = 64;
    o.lookahead = 16;
    chakra::Feeder f(chakra::EtReader(bytes, "fuzz.et"), o);
    std::deque<uint64_t> running;
    for (;;) {
      while (running.size() < 4)
        if (const chakra::Node* node = f.next_issuable())
          running.push_back(node->id);
        else
          break;
      if (running.empty())
        break;
      f.complete(running.front());
      running.pop_front();
    }
    return true;
  } catch (const InputError&) {
    return false;
  }
}

} // namespace sgai::test

#endif
