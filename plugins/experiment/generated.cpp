#include "plugins/experiment/generated.hpp"

#include "core/foundation/error.hpp"

namespace sgai::experiment {

Result run_generated_experiment(const std::string& text, const std::string& source, const std::filesystem::path& out,
                                const std::vector<std::string>& simgrid_args,
                                const std::vector<std::pair<std::string, std::string>>& by_place)
{
  Overrides o;
  o.output       = out;
  o.simgrid_args = simgrid_args;
  o.generated    = true;
  try {
    return run_experiment_text(text, source, ".", o);
  } catch (const InputError& err) {
    if (err.file() != source)
      throw;
    for (const auto& [place, option] : by_place)
      if (err.place().rfind(place, 0) == 0)
        throw InputError("command line", option, err.message());
    throw;
  }
}

} // namespace sgai::experiment
