#include "tools/sgai/process.hpp"

#include <cerrno>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

namespace sgai::cli {

std::optional<int> run_process(const std::vector<std::string>& args)
{
  std::vector<std::string> copy = args;
  std::vector<char*> argv;
  for (auto& a : copy)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  pid_t pid = 0;
  if (argv.size() < 2 || posix_spawnp(&pid, argv[0], nullptr, nullptr, argv.data(), environ) != 0)
    return std::nullopt;
  int status = 0;
  while (waitpid(pid, &status, 0) < 0)
    if (errno != EINTR)
      return std::nullopt;
  if (not WIFEXITED(status))
    return std::nullopt;
  return WEXITSTATUS(status);
}

} // namespace sgai::cli
