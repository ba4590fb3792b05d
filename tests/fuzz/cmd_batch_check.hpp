/* The `sgai batch run` whole-command check, shared by its fuzz target and the corpus replay test:
 * a fuzzed workload (Batsim JSON; SWF when it starts with ';' or a digit; gzip SWF when it starts
 * with the gzip magic) runs on the tiny flat platform of tests/fixtures (8 cores) in a forked
 * sgai; the backfilling (none, easy, conservative) follows the input's length. The bytes first go
 * through the in-process workload checks, which guide the fuzzer. */
#ifndef SGAI_TESTS_FUZZ_CMD_BATCH_CHECK_HPP
#define SGAI_TESTS_FUZZ_CMD_BATCH_CHECK_HPP

#include "batsim_check.hpp"
#include "command_check.hpp"
#include "swf_check.hpp"

#include <cctype>
#include <string>

namespace sgai::test {

/** True when the run succeeds, false when the command rejects the workload; FuzzBug on a bug. */
inline bool check_cmd_batch_bytes(const std::string& bytes)
{
  const bool gz =
      bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
  auto first     = bytes.find_first_not_of(" \t\r\n");
  const bool swf = gz || (first != std::string::npos &&
                          (bytes[first] == ';' || std::isdigit(static_cast<unsigned char>(bytes[first])) != 0));
  if (swf)
    (void)check_swf_bytes(bytes);
  else
    (void)check_batsim_bytes(bytes);
  Sandbox box;
  auto in                       = box.put(gz ? "fuzz.swf.gz" : swf ? "fuzz.swf" : "fuzz.json", bytes);
  static const char* backfill[] = {"none", "easy", "conservative"};
  auto r                        = run_sgai(box,
                                           {"batch", "run", "--platform", "in/tiny_flat.json", "--workload", in, "--out", "out", "--backfill",
                                            backfill[bytes.size() % 3]},
                                           {"out"});
  return r.status == 0;
}

} // namespace sgai::test

#endif
