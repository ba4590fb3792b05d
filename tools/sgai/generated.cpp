#include "tools/sgai/generated.hpp"

#include "plugins/experiment/generated.hpp"

#include <iostream>

namespace sgai::cli {

experiment::Result run_generated_experiment(const std::string& text, const std::string& source,
                                            const std::filesystem::path& out, const Globals& globals,
                                            const std::vector<std::pair<std::string, std::string>>& by_place)
{
  return experiment::run_generated_experiment(text, source, out, globals.simgrid_args, by_place);
}

void print_outputs(const experiment::Result& result)
{
  std::cout << "Results in " << result.output_dir.string() << ":\n";
  for (const auto& f : result.outputs)
    std::cout << "  " << f.path << "  (" << f.what << ")\n";
  for (const std::string& note : result.energy_notes)
    std::cout << "Note: " << note << ".\n";
}

} // namespace sgai::cli
