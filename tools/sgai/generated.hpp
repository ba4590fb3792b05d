/* Experiments that commands build from their options (sgai batch run, sgai replay --platform,
 * sgai collective bench): one way to run them and to name their errors after the options. */
#ifndef SGAI_TOOLS_SGAI_GENERATED_HPP
#define SGAI_TOOLS_SGAI_GENERATED_HPP

#include "plugins/experiment/experiment.hpp"
#include "tools/sgai/commands.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace sgai::cli {

/** Runs the experiment `text` (JSON) into `out` with the command line's SimGrid options. Its places
 *  are JSON pointers of `source`; an error at one that `by_place` lists ("at /platform/file" ->
 *  "--platform") is reported against the command-line option instead
 *  (experiment::run_generated_experiment). */
experiment::Result run_generated_experiment(const std::string& text, const std::string& source,
                                            const std::filesystem::path& out, const Globals& globals,
                                            const std::vector<std::pair<std::string, std::string>>& by_place);

/** "Results in DIR:", each output with what it holds, and the energy notes ("Note: ...", one line each). */
void print_outputs(const experiment::Result& result);

} // namespace sgai::cli

#endif
