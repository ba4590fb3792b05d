/* Running helper programs (python3 for plots, Graphviz's dot) without a shell. */
#ifndef SGAI_TOOLS_PROCESS_HPP
#define SGAI_TOOLS_PROCESS_HPP

#include <optional>
#include <string>
#include <vector>

namespace sgai::cli {

/** Runs argv[0] (searched in PATH) with its arguments and waits: its exit status, or nothing when
 *  it could not start or did not exit normally. */
std::optional<int> run_process(const std::vector<std::string>& argv);

/** Runs tools/plot/`script` of the source tree (SGAI_HOME overrides it) with Debian's python3 on
 *  `dir`: 0, or 1 when the script printed its one error line; RunError when it is missing, cannot
 *  start or fails otherwise. */
int run_plot_script(const std::string& script, const std::string& dir);

} // namespace sgai::cli

#endif
