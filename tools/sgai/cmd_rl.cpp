/* sgai rl ...: forwarded to sgai-rl (beside this program), which links libtorch; sgai itself does
 * not, so that its other commands start quickly. */
#include "core/foundation/error.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/process.hpp"

#include <filesystem>
#include <unistd.h>

namespace sgai::cli {

void add_rl_command(CLI::App& app, Action& action)
{
  auto* rl = app.add_subcommand("rl", "Agents that learn to choose the workload manager's policies: train, "
                                      "evaluate, plot (sgai rl --help)");
  rl->prefix_command();
  rl->set_help_flag(); // its help is sgai-rl's
  rl->callback([rl, &action]() {
    action = [rl]() {
      namespace fs = std::filesystem;
      std::error_code ec;
      fs::path self = fs::read_symlink("/proc/self/exe", ec);
      fs::path tool = self.parent_path() / "sgai-rl";
      if (ec || not fs::exists(tool, ec))
        throw RunError("sgai rl needs sgai-rl beside sgai (" + tool.string() +
                       "): it is built when libtorch-dev is installed (tools/setup.sh test installs it)");
      std::vector<std::string> argv = {tool.string()};
      for (const auto& x : rl->remaining())
        argv.push_back(x);
      auto status = run_process(argv);
      if (not status)
        throw RunError("cannot run " + tool.string());
      return *status;
    };
  });
}

} // namespace sgai::cli
