/* sgai: one binary, git-style subcommands. Exit status: 0 success, 2 usage error, 1 bad input or
 * failed run, 128 + the signal after SIGINT (130), SIGTERM (143) or SIGHUP (129); errors are one
 * line on stderr. SimGrid's --cfg=... and --log=... pass through. */
#include "core/foundation/error.hpp"
#include "core/foundation/signals.hpp"
#include "plugins/sim/simulation.hpp"
#include "sgai/version.hpp"
#include "tools/sgai/commands.hpp"

#include <cstring>
#include <iostream>

namespace {

bool is_simgrid_arg(const char* a)
{
  return std::strncmp(a, "--cfg=", 6) == 0 || std::strncmp(a, "--log=", 6) == 0;
}

/** The error as one line: control characters (a newline in a file name) are written escaped. */
std::string one_line(const std::string& message)
{
  static const char* hex = "0123456789abcdef";
  std::string out;
  for (unsigned char c : message) {
    if (c == '\n')
      out += "\\n";
    else if (c == '\r')
      out += "\\r";
    else if (c == '\t')
      out += "\\t";
    else if (c < 0x20 || c == 0x7f) {
      out += "\\x";
      out += hex[c >> 4];
      out += hex[c & 15];
    } else
      out += static_cast<char>(c);
  }
  return out;
}

} // namespace

int main(int argc, char** argv)
{
  sgai::install_signal_policy();
  sgai::cli::Globals globals;
  std::vector<char*> args;
  for (int i = 0; i < argc; i++) {
    if (i > 0 && is_simgrid_arg(argv[i]))
      globals.simgrid_args.emplace_back(argv[i]);
    else
      args.push_back(argv[i]);
  }

  // --log settings are checked before anything runs, whatever the command.
  try {
    for (const auto& a : globals.simgrid_args)
      if (a.rfind("--log=", 0) == 0)
        sgai::sim::check_log_setting(a.substr(6));
  } catch (const sgai::UsageError& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
    return 2;
  }

  // --cfg=help anywhere: SimGrid's options, as SimGrid's own programs list them.
  for (const auto& a : globals.simgrid_args)
    if (a == "--cfg=help") {
      try {
        sgai::sim::print_simgrid_options();
        return 0;
      } catch (const std::exception& e) {
        std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
        return 1;
      }
    }

  CLI::App app{"sgai: simulate the machines that run HPC and AI work, on SimGrid.\n"
               "SimGrid options (--cfg=name:value, --log=category.thres:level) may appear anywhere.",
               "sgai"};
  app.set_version_flag("--version", std::string("sgai ") + sgai_VERSION);
  app.require_subcommand(0, 1);
  app.fallthrough(false);

  sgai::cli::Action action;
  sgai::cli::add_platform_commands(app, globals, action);
  sgai::cli::add_workload_commands(app, action);
  sgai::cli::add_batch_commands(app, globals, action);
  sgai::cli::add_chakra_commands(app, action);
  sgai::cli::add_replay_command(app, globals, action);
  sgai::cli::add_collective_commands(app, globals, action);
  sgai::cli::add_run_command(app, globals, action);
  sgai::cli::add_rl_command(app, action);
  sgai::cli::add_whatif_commands(app, action);
  sgai::cli::add_train_commands(app, action);
  sgai::cli::add_aiops_commands(app, globals, action);
  sgai::cli::add_sweep_commands(app, globals, action);

  try {
    app.parse(static_cast<int>(args.size()), args.data());
  } catch (const CLI::CallForHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForAllHelp& e) {
    return app.exit(e);
  } catch (const CLI::CallForVersion& e) {
    return app.exit(e);
  } catch (const CLI::ParseError& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << " (see sgai --help)\n";
    return 2;
  }

  if (not action) {
    // A command group without its command ("sgai", "sgai platform"): name the choices.
    const CLI::App* group = &app;
    while (not group->get_subcommands().empty())
      group = group->get_subcommands().front();
    std::string names;
    for (const auto* s : group->get_subcommands({}))
      names += (names.empty() ? "" : ", ") + s->get_name();
    std::cerr << "sgai: error: a command is required after '" << group->get_name() << "' (" << names
              << "; see sgai --help)\n";
    return 2;
  }

  try {
    return action();
  } catch (const sgai::UsageError& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
    return 2;
  } catch (const sgai::InputError& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const sgai::RunError& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "sgai: error: " << one_line(e.what()) << "\n";
    return 1;
  }
}
