/* What the experiment fuzz target checks for one input, shared with the corpus replay test: an
 * experiment file is parsed and its components configured (their options checked, their input
 * files read) as `sgai run` does before the simulation, in-process and without a SimGrid Engine
 * (experiment::check_experiment_text), or rejected with an InputError. Relative paths resolve
 * in a folder holding the fixed inputs (tiny_flat.json, tiny_gpu.json, tiny.json, tiny.swf,
 * network.yml, system.json, groups.json, trace.{0,1}.et; see command_check.hpp). */
#ifndef SGAI_TESTS_FUZZ_EXPERIMENT_CHECK_HPP
#define SGAI_TESTS_FUZZ_EXPERIMENT_CHECK_HPP

#include "command_check.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "plugins/experiment/experiment.hpp"

#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_experiment_bytes(const std::string& bytes)
{
  static const std::filesystem::path base = [] {
    auto dir = input_dir() / "inputs";
    put_fixed_inputs(dir);
    return dir;
  }();
  try {
    experiment::check_experiment_text(bytes, "fuzz.json", base);
  } catch (const InputError&) {
    return false;
  }
  return true;
}

} // namespace sgai::test

#endif
