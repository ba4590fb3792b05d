/* Child processes of a campaign's runners: programs started without a shell, registered with the
 * signal policy (core/foundation/signals.hpp) so that an interruption signals and waits for them. */
#ifndef SGAI_CORE_SWEEP_PROCESS_HPP
#define SGAI_CORE_SWEEP_PROCESS_HPP

#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::sweep {

/** What a program said: its exit status (nothing when it could not start or did not exit
 *  normally) and what it wrote on its standard output and error. */
struct Captured {
  std::optional<int> status;
  std::string output;
};

/** Runs argv[0] (searched in PATH) with its arguments and waits for it: its status and output
 *  (when it cannot start, the output says so). */
Captured capture_process(const std::vector<std::string>& argv);

/** Starts argv[0] (searched in PATH) without waiting: its standard output and error go to `log`
 *  (created, replaced; empty: this process's own). The child gets SGAI_CHILD=1 in its environment
 *  and the signals that stop a run unblocked; it is signalled and waited for when this process is
 *  interrupted, until wait_any_child (or a wait of the caller's, followed by unregister_child)
 *  collects it. Its pid, or nothing when it could not start. */
std::optional<int> spawn_process(const std::vector<std::string>& argv, const std::string& log);

/** Waits for one child started by spawn_process: (pid, exit status), the status -1 when a signal
 *  ended it; (-1, -1) when there is none. */
std::pair<int, int> wait_any_child();

} // namespace sgai::sweep

#endif
