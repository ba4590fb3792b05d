/* What the communicator-group fuzz target checks for one input, shared with the corpus replay
 * test: ASTRA-sim's {"<id>": [ranks...]} file (`sgai replay --comm-group`) is accepted with
 * non-empty groups of distinct ranks, or rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_ASTRA_GROUPS_CHECK_HPP
#define SGAI_TESTS_FUZZ_ASTRA_GROUPS_CHECK_HPP

#include "chakra/synth.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "plugins/replay/astra_inputs.hpp"

#include <set>
#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. Accepted groups
 *  are written back (as `sgai chakra synth` writes them) and must read the same. */
inline bool check_astra_groups_bytes(const std::string& bytes)
{
  std::map<std::string, std::vector<uint32_t>> groups;
  try {
    groups = replay::read_comm_groups(write_input("fuzz.json", bytes));
  } catch (const InputError&) {
    return false;
  }
  for (const auto& [id, ranks] : groups) {
    if (ranks.empty())
      throw FuzzBug("an empty communicator group was accepted");
    if (std::set<uint32_t>(ranks.begin(), ranks.end()).size() != ranks.size())
      throw FuzzBug("a communicator group with a repeated rank was accepted");
  }
  decltype(groups) again;
  try {
    again = replay::read_comm_groups(write_input("again.json", chakra::comm_groups_json(groups)));
  } catch (const InputError& e) {
    throw FuzzBug(std::string("sgai rejects the communicator groups it wrote: ") + e.what());
  }
  if (again != groups)
    throw FuzzBug("communicator groups written and read back differ");
  return true;
}

} // namespace sgai::test

#endif
