/* The `sgai workload swf2json` whole-command check, shared by its fuzz target and the corpus
 * replay test: a fuzzed SWF log (gzip when it starts with the gzip magic) is converted in a forked
 * sgai; when that succeeds, `sgai workload stats` must read the Batsim JSON it wrote. The bytes
 * first go through the in-process SWF check, which guides the fuzzer. */
#ifndef SGAI_TESTS_FUZZ_CMD_SWF2JSON_CHECK_HPP
#define SGAI_TESTS_FUZZ_CMD_SWF2JSON_CHECK_HPP

#include "command_check.hpp"
#include "swf_check.hpp"

#include <string>

namespace sgai::test {

/** True when the command accepts the log, false when it rejects it; FuzzBug on a bug. */
inline bool check_cmd_swf2json_bytes(const std::string& bytes)
{
  (void)check_swf_bytes(bytes);
  const bool gz =
      bytes.size() >= 2 && static_cast<unsigned char>(bytes[0]) == 0x1f && static_cast<unsigned char>(bytes[1]) == 0x8b;
  Sandbox box;
  auto in = box.put(gz ? "fuzz.swf.gz" : "fuzz.swf", bytes);
  auto r  = run_sgai(box, {"workload", "swf2json", in, "--out", "out.json", "--walltime"}, {"out.json"});
  if (r.status != 0)
    return false;
  auto s = run_sgai(box, {"workload", "stats", "out.json", "size"}, {});
  if (s.status != 0)
    throw FuzzBug("sgai workload stats rejects the workload swf2json wrote:\n" + s.err);
  return true;
}

} // namespace sgai::test

#endif
