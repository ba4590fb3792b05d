/* Running helper programs (python3 for plots, Graphviz's dot) without a shell (the campaign
 * runners' child processes: core/sweep/process.hpp). */
#ifndef SGAI_TOOLS_SGAI_PROCESS_HPP
#define SGAI_TOOLS_SGAI_PROCESS_HPP

#include <filesystem>
#include <optional>
#include <string>
#include <vector>

namespace sgai::cli {

/** Runs argv[0] (searched in PATH) with its arguments and waits: its exit status, or nothing when
 *  it could not start or did not exit normally. */
std::optional<int> run_process(const std::vector<std::string>& argv);

/** sgai's data: the shipped experiments (deploy/), platforms, workloads and plotting scripts
 *  (tools/plot), laid out as in the source tree. SGAI_HOME names it (a source tree will do);
 *  otherwise share/sgai beside the program's folder (PREFIX/bin/sgai -> PREFIX/share/sgai; the
 *  build tree has build/share/sgai, links into the source tree). RunError when neither exists. */
std::filesystem::path data_home();
/** `p` made absolute and normal (paths written into generated experiments, which run elsewhere). */
std::string absolute_path(const std::string& p);
/** The shipped GPU catalogue: data_home()/platforms/catalogues/accelerators.json. */
std::string default_catalogue();

/** Runs tools/plot/`script` of data_home() with Debian's python3 on `dir`: 0, or 1 when the
 *  script printed its one error line; RunError when it is missing, cannot start or fails
 *  otherwise. */
int run_plot_script(const std::string& script, const std::string& dir);

} // namespace sgai::cli

#endif
