/* What the ASTRA-sim system JSON fuzz target checks for one input, shared with the corpus replay
 * test: the system file `sgai replay --system` reads is accepted with values in range, or
 * rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_ASTRA_SYSTEM_CHECK_HPP
#define SGAI_TESTS_FUZZ_ASTRA_SYSTEM_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "plugins/replay/astra_inputs.hpp"

#include <cmath>
#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_astra_system_bytes(const std::string& bytes)
{
  replay::SystemConfig c;
  try {
    c = replay::read_system_json(write_input("fuzz.json", bytes));
  } catch (const InputError&) {
    return false;
  }
  if (c.chunks < 1 || c.active_chunks < 1)
    throw FuzzBug("a system with no chunk was accepted");
  for (double v : {c.endpoint_delay_s, c.local_mem_bw_Bps, c.peak_flops})
    if (not(v >= 0) || not std::isfinite(v))
      throw FuzzBug("a system was accepted with a negative or non-finite delay, bandwidth or peak");
  return true;
}

} // namespace sgai::test

#endif
