/* What the ASTRA-sim network YAML fuzz target checks for one input, shared with the corpus replay
 * test: the analytical network file `sgai replay --network` reads is accepted with dimensions
 * that make sense, or rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_ASTRA_NETWORK_CHECK_HPP
#define SGAI_TESTS_FUZZ_ASTRA_NETWORK_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "plugins/replay/astra_inputs.hpp"

#include <cmath>
#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_astra_network_bytes(const std::string& bytes)
{
  std::vector<communicator::Dimension> dims;
  try {
    dims = replay::read_network_yaml(write_input("fuzz.yml", bytes));
  } catch (const InputError&) {
    return false;
  }
  if (dims.empty())
    throw FuzzBug("a network with no dimension was accepted");
  for (const auto& d : dims)
    if (d.npus < 1 || not(d.bandwidth_Bps > 0) || not std::isfinite(d.bandwidth_Bps) || not(d.latency_s >= 0) ||
        not std::isfinite(d.latency_s))
      throw FuzzBug(std::string("a dimension was accepted with NPUs, bandwidth or latency out of range (") +
                    communicator::to_string(d.kind) + ")");
  return true;
}

} // namespace sgai::test

#endif
