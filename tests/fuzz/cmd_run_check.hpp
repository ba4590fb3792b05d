/* The `sgai run EXPERIMENT` whole-command check, shared by its fuzz target and the corpus replay
 * test: a fuzzed experiment file, next to the fixed inputs (experiment_check.hpp lists them), runs
 * in a forked sgai with --out out. The bytes first go through the in-process experiment check,
 * which guides the fuzzer; when that rejects the file, the command must reject it too. */
#ifndef SGAI_TESTS_FUZZ_CMD_RUN_CHECK_HPP
#define SGAI_TESTS_FUZZ_CMD_RUN_CHECK_HPP

#include "command_check.hpp"
#include "experiment_check.hpp"

#include <string>

namespace sgai::test {

/** True when the run succeeds, false when the command rejects the experiment; FuzzBug on a bug. */
inline bool check_cmd_run_bytes(const std::string& bytes)
{
  bool parsed = check_experiment_bytes(bytes);
  Sandbox box;
  auto in = box.put("experiment.json", bytes);
  auto r  = run_sgai(box, {"run", in, "--out", "out"}, {"out"});
  if (not parsed && r.status == 0)
    throw FuzzBug("sgai run accepts an experiment its own checks reject");
  return r.status == 0;
}

} // namespace sgai::test

#endif
