#include "core/foundation/signals.hpp"

#include <algorithm>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <sys/wait.h>
#include <thread>
#include <unistd.h>
#include <vector>

namespace sgai {

namespace {

std::recursive_mutex& lock_instance()
{
  static std::recursive_mutex m;
  return m;
}

struct Registry {
  std::vector<std::filesystem::path> paths;
  std::vector<pid_t> children;
};

Registry& registry() // guarded by lock_instance()
{
  static Registry r;
  return r;
}

sigset_t handled_signals()
{
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  sigaddset(&set, SIGHUP);
  return set;
}

const char* signal_name(int sig)
{
  switch (sig) {
  case SIGINT:
    return "SIGINT";
  case SIGTERM:
    return "SIGTERM";
  default:
    return "SIGHUP";
  }
}

void remove_all_registered()
{
  std::error_code ec;
  for (auto it = registry().paths.rbegin(); it != registry().paths.rend(); ++it)
    std::filesystem::remove_all(*it, ec);
  registry().paths.clear();
}

[[noreturn]] void watch()
{
  sigset_t set = handled_signals();
  int sig      = 0;
  while (sigwait(&set, &sig) != 0) {
  }
  // Taken and never given back: the main thread stops at its next output step while we clean.
  auto lock = output_lock();
  remove_all_registered();
  for (pid_t child : registry().children)
    ::kill(child, sig);
  for (pid_t child : registry().children) {
    int status = 0;
    while (::waitpid(child, &status, 0) < 0 && errno == EINTR) {
    }
  }
  if (not is_child_process()) {
    std::string line =
        std::string("sgai: interrupted by ") + signal_name(sig) + ": run stopped, partial outputs removed\n";
    ssize_t ignored = ::write(2, line.data(), line.size());
    (void)ignored;
  }
  ::_exit(128 + sig);
}

} // namespace

void install_signal_policy()
{
  sigset_t set = handled_signals();
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
  std::thread(watch).detach();
}

std::unique_lock<std::recursive_mutex> output_lock()
{
  return std::unique_lock<std::recursive_mutex>(lock_instance());
}

void register_cleanup(const std::filesystem::path& path)
{
  auto lock = output_lock();
  registry().paths.push_back(path);
}

void unregister_cleanup(const std::filesystem::path& path)
{
  auto lock   = output_lock();
  auto& paths = registry().paths;
  auto it     = std::find(paths.rbegin(), paths.rend(), path);
  if (it != paths.rend())
    paths.erase(std::next(it).base());
}

void cleanup_registered()
{
  // No lock: called on fatal paths of the main thread, where waiting could hang.
  remove_all_registered();
}

void register_child(pid_t pid)
{
  auto lock = output_lock();
  registry().children.push_back(pid);
}

void unregister_child(pid_t pid)
{
  auto lock = output_lock();
  auto& c   = registry().children;
  c.erase(std::remove(c.begin(), c.end(), pid), c.end());
}

bool is_child_process()
{
  const char* v = std::getenv("SGAI_CHILD");
  return v != nullptr && std::strcmp(v, "1") == 0;
}

} // namespace sgai
