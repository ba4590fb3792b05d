#include "tools/sgai/process.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/signals.hpp"
#include "core/sweep/process.hpp"

#include <cerrno>
#include <cstdlib>
#include <filesystem>
#include <sys/wait.h>

namespace sgai::cli {

std::optional<int> run_process(const std::vector<std::string>& args)
{
  auto pid = sweep::spawn_process(args, "");
  if (not pid)
    return std::nullopt;
  int status = 0;
  while (waitpid(*pid, &status, 0) < 0)
    if (errno != EINTR) {
      unregister_child(*pid);
      return std::nullopt;
    }
  unregister_child(*pid);
  if (not WIFEXITED(status))
    return std::nullopt;
  return WEXITSTATUS(status);
}

std::string absolute_path(const std::string& p)
{
  return std::filesystem::absolute(p).lexically_normal().string();
}

std::filesystem::path data_home()
{
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* home = std::getenv("SGAI_HOME"); home != nullptr && *home != '\0') {
    if (not fs::is_directory(home, ec))
      throw RunError(std::string("SGAI_HOME names ") + home + ", which is not a folder");
    return home;
  }
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (ec)
    throw RunError("cannot find this program's own path (/proc/self/exe) to find its data: set SGAI_HOME to the "
                   "sgai source tree or to PREFIX/share/sgai");
  fs::path home = (self.parent_path().parent_path() / "share" / "sgai").lexically_normal();
  if (not fs::is_directory(home, ec))
    throw RunError(
        "sgai's data is not at " + home.string() +
        " (beside this program, as installed): set SGAI_HOME to the sgai source tree or to PREFIX/share/sgai");
  return home;
}

std::string default_catalogue()
{
  return (data_home() / "platforms" / "catalogues" / "accelerators.json").string();
}

int run_plot_script(const std::string& name, const std::string& dir)
{
  std::error_code ec;
  std::filesystem::path script = data_home() / "tools" / "plot" / name;
  if (not std::filesystem::exists(script, ec))
    throw RunError("the plotting script " + script.string() + " is missing (set SGAI_HOME to the sgai source tree)");
  // Debian's interpreter first: its python3-matplotlib is what the set-up installs.
  std::string python = std::filesystem::exists("/usr/bin/python3", ec) ? "/usr/bin/python3" : "python3";
  auto status        = run_process({python, script.string(), dir});
  if (not status)
    throw RunError("cannot run " + python + " to plot (is python3 installed?)");
  if (*status == 1)
    return 1; // the script printed its one error line
  if (*status != 0)
    throw RunError("the plotting script " + script.string() + " failed");
  return 0;
}

} // namespace sgai::cli
