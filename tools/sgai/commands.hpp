/* The subcommands of the sgai binary: each registers its options on the CLI11 app and returns
 * the function that runs it once the command line is parsed. */
#ifndef SGAI_TOOLS_SGAI_COMMANDS_HPP
#define SGAI_TOOLS_SGAI_COMMANDS_HPP

#include <CLI/CLI.hpp>

#include <functional>
#include <string>
#include <vector>

namespace sgai::cli {

/** Shared by every subcommand: SimGrid options taken off the command line (--cfg=, --log=). */
struct Globals {
  std::vector<std::string> simgrid_args;
};

using Action = std::function<int()>;

/** Adds "platform generate|inspect|convert|import-machines". */
void add_platform_commands(CLI::App& app, const Globals& globals, Action& action);
/** Adds "workload swf2json|stats". */
void add_workload_commands(CLI::App& app, Action& action);
/** Adds "batch run|plot". */
void add_batch_commands(CLI::App& app, const Globals& globals, Action& action);
/** Adds "chakra jsonize|dejsonize|...". */
void add_chakra_commands(CLI::App& app, Action& action);
/** Adds "replay" and "plot power". */
void add_replay_command(CLI::App& app, const Globals& globals, Action& action);
void add_collective_commands(CLI::App& app, const Globals& globals, Action& action);
/** Adds "run". */
void add_run_command(CLI::App& app, const Globals& globals, Action& action);
/** Adds "whatif graph|predict|list". */
void add_whatif_commands(CLI::App& app, Action& action);
/** sgai train: LLM training described by Megatron-LM's arguments (cmd_train.cpp). */
void add_train_commands(CLI::App& app, Action& action);
/** Adds "aiops fit". */
void add_aiops_commands(CLI::App& app, const Globals& globals, Action& action);
void add_sweep_commands(CLI::App& app, const Globals& globals, Action& action);
/** `sgai sweep evaluate`, added to the `sweep` command (cmd_sweep_evaluate.cpp). */
void add_sweep_evaluate(CLI::App& sweep, Action& action);
/** `sgai sweep suggest|accept|serve` (cmd_sweep_serve.cpp). */
void add_sweep_analyst_commands(CLI::App& sweep, Action& action);
/** Adds "rl" (forwarded to sgai-rl). */
void add_rl_command(CLI::App& app, Action& action);

} // namespace sgai::cli

#endif
