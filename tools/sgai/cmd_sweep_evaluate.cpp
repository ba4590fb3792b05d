/* sgai sweep evaluate: Copper's evaluation (docs/sweep.md, docs/validation.md): the runs a strategy
 * needs to reach the optimum of a space evaluated in full once. */
#include "generators/util/error.hpp"
#include "plugins/sweep/strategy.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <iostream>

namespace sgai::cli {

namespace {

using namespace sgai::sweep;

struct EvaluateArgs {
  std::string space = "rastrigin";
  std::vector<std::string> strategies{"grasp", "random", "full"};
  int64_t repetitions = 500, seed = 1;
  double beta = 0.5;
};

int run_evaluate(const EvaluateArgs& a)
{
  Landscape l = landscape(a.space);
  std::cout << a.space << ": " << l.space.count() << " points, optimum " << l.value[l.optimum] << " at point "
            << l.optimum << "; runs to reach it, mean of " << a.repetitions << " repetitions (bootstrap 95%)\n";
  for (const auto& name : a.strategies) {
    Strategy s = Strategy::grasp;
    if (not strategy_from_string(name, s))
      throw UsageError("unknown strategy " + quote(name) + " (grasp, random, full)");
    std::vector<double> runs;
    for (int64_t r = 0; r < a.repetitions; ++r)
      runs.push_back(double(runs_to_optimum(l, s, a.beta, uint64_t(a.seed) * 1000003 + uint64_t(r))));
    Interval iv = bootstrap_mean(runs, uint64_t(a.seed));
    std::cout << "  " << name << ": " << iv.mean << " [" << iv.low << ", " << iv.high << "]\n";
  }
  return 0;
}

} // namespace

void add_sweep_evaluate(CLI::App& sweep, Action& action)
{
  auto e   = std::make_shared<EvaluateArgs>();
  auto* ev = sweep.add_subcommand("evaluate", "Copper's evaluation: runs a strategy needs to reach a space's optimum");
  ev->add_option("--space", e->space, "rosenbrock (4-D, 1,296 points), rastrigin (8,800) or branin (900)")
      ->check(CLI::IsMember({"rosenbrock", "rastrigin", "branin"}));
  ev->add_option("--strategy", e->strategies, "grasp, random, full (default: all three)")
      ->check(CLI::IsMember({"grasp", "random", "full"}));
  add_count(ev, "--repetitions", e->repetitions, "Repetitions per strategy (default 500)", 1, 1000000);
  add_seed(ev, e->seed, "The seed (default 1)");
  add_real(ev, "--beta", e->beta, "GRASP's greediness (default 0.5)", 0, 1);
  ev->callback([e, &action]() { action = [e]() { return run_evaluate(*e); }; });
}

} // namespace sgai::cli
