/* The `sgai replay` whole-command check, shared by its fuzz target and the corpus replay test.
 * Input starting with 'N' is a fuzzed ASTRA-sim network YAML (the rest of the bytes) for the
 * fixed two-rank all-reduce trace; any other input is a fuzzed Chakra ET replayed as both ranks
 * of the fixed two-NPU ring. System JSON and communicator groups are the fixed ones. The bytes
 * first go through the in-process ET or network check, which guides the fuzzer. */
#ifndef SGAI_TESTS_FUZZ_CMD_REPLAY_CHECK_HPP
#define SGAI_TESTS_FUZZ_CMD_REPLAY_CHECK_HPP

#include "astra_network_check.hpp"
#include "chakra_et_check.hpp"
#include "command_check.hpp"

#include <string>

namespace sgai::test {

/** True when the replay succeeds, false when the command rejects its input; FuzzBug on a bug. */
inline bool check_cmd_replay_bytes(const std::string& bytes)
{
  Sandbox box;
  std::string workload = "in/trace", network = "in/network.yml";
  if (not bytes.empty() && bytes[0] == 'N') {
    (void)check_astra_network_bytes(bytes.substr(1));
    network = box.put("fuzz.yml", bytes.substr(1));
  } else {
    (void)check_et_bytes(bytes);
    box.put("fuzz.0.et", bytes);
    box.put("fuzz.1.et", bytes);
    workload = "in/fuzz";
  }
  auto r = run_sgai(box,
                    {"replay", "--workload", workload, "--system", "in/system.json", "--network", network,
                     "--comm-group", "in/groups.json", "--out", "out"},
                    {"out"});
  return r.status == 0;
}

} // namespace sgai::test

#endif
