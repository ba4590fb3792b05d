/* The signal policy of the sgai command: SIGINT, SIGTERM and SIGHUP stop the run, remove what it
 * was building (staging folders, temporary files), pass the signal to child processes and wait
 * for them, print one line and exit 128 + the signal (130 after SIGINT, 143 after SIGTERM).
 *
 * The signals are blocked in every thread and taken by one watcher thread, so the simulation
 * never sees them (SimGrid's own SIGINT handler, which lists actors, never runs). Paths being
 * built register themselves here (files.hpp does it for StagingDir and AtomicFile); code that
 * creates or moves outputs holds output_lock(), so that the watcher never removes a folder while
 * it is being filled in, nor lets it be created again after removal. */
#ifndef SGAI_CORE_FOUNDATION_SIGNALS_HPP
#define SGAI_CORE_FOUNDATION_SIGNALS_HPP

#include <filesystem>
#include <mutex>
#include <sys/types.h>

namespace sgai {

/** Blocks SIGINT, SIGTERM and SIGHUP in this thread (and so in threads started after) and starts
 *  the watcher. Call first thing in main(), before any other thread exists. */
void install_signal_policy();

/** Held while outputs are created, moved or removed (recursive: nested holders are fine). */
std::unique_lock<std::recursive_mutex> output_lock();

/** Paths (files or folders) removed if the process is interrupted or aborts while loading. */
void register_cleanup(const std::filesystem::path& path);
void unregister_cleanup(const std::filesystem::path& path);

/** Removes every registered path now (best effort): for fatal paths such as SimGrid's abort. */
void cleanup_registered();

/** Child processes signalled and waited for on interruption. */
void register_child(pid_t pid);
void unregister_child(pid_t pid);

/** Whether this process was started by another sgai (run_process sets SGAI_CHILD): the parent
 *  then prints the one interruption line. */
bool is_child_process();

} // namespace sgai

#endif
