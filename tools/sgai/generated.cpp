#include "tools/sgai/generated.hpp"

#include "core/foundation/error.hpp"

#include <iostream>

namespace sgai::cli {

experiment::Result run_generated_experiment(const std::string& text, const std::string& source,
                                            const std::filesystem::path& out, const Globals& globals,
                                            const std::vector<std::pair<std::string, std::string>>& by_place)
{
  experiment::Overrides o;
  o.output       = out;
  o.simgrid_args = globals.simgrid_args;
  o.generated    = true;
  try {
    return experiment::run_experiment_text(text, source, ".", o);
  } catch (const InputError& err) {
    if (err.file() != source)
      throw;
    for (const auto& [place, option] : by_place)
      if (err.place().rfind(place, 0) == 0)
        throw InputError("command line", option, err.message());
    throw;
  }
}

void print_outputs(const experiment::Result& result)
{
  std::cout << "Results in " << result.output_dir.string() << ":\n";
  for (const auto& f : result.outputs)
    std::cout << "  " << f.path << "  (" << f.what << ")\n";
}

} // namespace sgai::cli
