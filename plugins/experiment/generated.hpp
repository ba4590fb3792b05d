/* Experiments that programs build from their own options (sgai batch gpu, sgai replay --platform,
 * the collective bench): run as files are, their errors named after the options. */
#ifndef SGAI_PLUGINS_EXPERIMENT_GENERATED_HPP
#define SGAI_PLUGINS_EXPERIMENT_GENERATED_HPP

#include "plugins/experiment/experiment.hpp"

#include <filesystem>
#include <string>
#include <utility>
#include <vector>

namespace sgai::experiment {

/** Runs the experiment `text` (JSON, built from options: Overrides::generated) into `out`, with
 *  `simgrid_args` after its own; relative paths resolve against the current folder. Its places are
 *  JSON pointers of `source`; an InputError at a place that `by_place` lists as a prefix ("at
 *  /platform/file" -> "--platform") is thrown again as InputError("command line", option), with
 *  the same message. Otherwise as run_experiment_text. */
Result run_generated_experiment(const std::string& text, const std::string& source, const std::filesystem::path& out,
                                const std::vector<std::string>& simgrid_args,
                                const std::vector<std::pair<std::string, std::string>>& by_place);

} // namespace sgai::experiment

#endif
