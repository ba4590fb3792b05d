#include "chakra/et_json.hpp"
#include "tools/sgai/commands.hpp"

#include <iostream>

namespace sgai::cli {

namespace {

struct ConvertArgs {
  std::string in;
  std::string out;
};

} // namespace

void add_chakra_commands(CLI::App& app, Action& action)
{
  auto* chakra = app.add_subcommand("chakra", "Chakra execution traces: convert, inspect, generate");
  {
    auto a    = std::make_shared<ConvertArgs>();
    auto* cmd = chakra->add_subcommand("jsonize", "ET -> JSON (exact: dejsonize gives the same bytes back)");
    cmd->add_option("et", a->in, "Chakra ET file")->required();
    cmd->add_option("--out", a->out, "JSON file to write")->required();
    cmd->callback([a, &action]() {
      action = [a]() {
        uint64_t n = chakra::jsonize_file(a->in, a->out);
        std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
        return 0;
      };
    });
  }
  {
    auto a    = std::make_shared<ConvertArgs>();
    auto* cmd = chakra->add_subcommand("dejsonize", "JSON (as written by jsonize) -> ET");
    cmd->add_option("json", a->in, "JSON file")->required();
    cmd->add_option("--out", a->out, "Chakra ET file to write")->required();
    cmd->callback([a, &action]() {
      action = [a]() {
        uint64_t n = chakra::dejsonize_file(a->in, a->out);
        std::cout << "Wrote " << a->out << " (" << n << " nodes)\n";
        return 0;
      };
    });
  }
}

} // namespace sgai::cli
