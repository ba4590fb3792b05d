#include "core/sweep/process.hpp"

#include "core/foundation/signals.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sgai::sweep {

namespace {

/** Starts argv[0] (searched in PATH), registered with the signal policy; `log`: where its standard
 *  output and error go (empty: ours). The child is told it is one (it then leaves the interruption
 *  line to us) and gets the signals that stop a run unblocked, as a process started from a shell
 *  would. */
std::optional<pid_t> spawn(const std::vector<std::string>& args, const std::string& log)
{
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  std::vector<std::string> env_copy;
  for (char** e = environ; *e != nullptr; ++e)
    if (std::strncmp(*e, "SGAI_CHILD=", 11) != 0)
      env_copy.emplace_back(*e);
  env_copy.emplace_back("SGAI_CHILD=1");
  std::vector<char*> envp;
  for (auto& e : env_copy)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  posix_spawnattr_t attr;
  posix_spawnattr_init(&attr);
  sigset_t none;
  sigemptyset(&none);
  posix_spawnattr_setsigmask(&attr, &none);
  posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETSIGMASK);
  posix_spawn_file_actions_t files;
  posix_spawn_file_actions_init(&files);
  if (not log.empty()) {
    posix_spawn_file_actions_addopen(&files, 1, log.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
    posix_spawn_file_actions_adddup2(&files, 1, 2);
  }
  pid_t pid = 0;
  // Registered under the output lock: an interruption either finds the child or stops us first.
  auto lock = output_lock();
  int rc    = argv.size() < 2 ? -1 : posix_spawnp(&pid, argv[0], &files, &attr, argv.data(), envp.data());
  posix_spawn_file_actions_destroy(&files);
  posix_spawnattr_destroy(&attr);
  if (rc != 0)
    return std::nullopt;
  register_child(pid);
  return pid;
}

} // namespace

Captured capture_process(const std::vector<std::string>& args)
{
  char name[] = "/tmp/sgai-capture-XXXXXX";
  int fd      = mkstemp(name);
  if (fd < 0)
    return {};
  close(fd);
  Captured c;
  if (auto pid = spawn(args, name)) {
    int status = 0;
    pid_t got  = 0;
    while ((got = waitpid(*pid, &status, 0)) < 0 && errno == EINTR) {
    }
    unregister_child(*pid);
    if (got == *pid && WIFEXITED(status))
      c.status = WEXITSTATUS(status);
  } else {
    c.output = "cannot run " + (args.empty() ? std::string("nothing") : args[0]) + " (not found, or not a program)\n";
  }
  if (FILE* f = std::fopen(name, "r")) {
    char buf[4096];
    size_t n = 0;
    while ((n = std::fread(buf, 1, sizeof buf, f)) > 0)
      c.output.append(buf, n);
    std::fclose(f);
  }
  std::remove(name);
  return c;
}

std::optional<int> spawn_process(const std::vector<std::string>& args, const std::string& log)
{
  auto pid = spawn(args, log);
  if (not pid)
    return std::nullopt;
  return int(*pid);
}

std::pair<int, int> wait_any_child()
{
  int status = 0;
  pid_t pid  = 0;
  while ((pid = waitpid(-1, &status, 0)) < 0)
    if (errno != EINTR)
      return {-1, -1};
  unregister_child(pid);
  return {int(pid), WIFEXITED(status) ? WEXITSTATUS(status) : -1};
}

} // namespace sgai::sweep
