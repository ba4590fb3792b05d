/* Component "aiops": an AI-ops platform (docs/aiops.md) on the experiment's platform. Its options
 * are the keys of an AI-ops experiment file but its version and platform; the seed, when not given,
 * is the experiment's. Outputs: aiops.sqlite, aiops_summary.csv's figures in the run summary, and
 * the CSV summaries of `sgai aiops run`. */
#include "core/aiops/experiment.hpp"
#include "plugins/aiops_sim/simulator.hpp"
#include "plugins/experiment/component.hpp"

namespace sgai::experiment {

namespace {

class AiopsComponent : public Component {
public:
  AiopsComponent(aiops::ExperimentSpec spec, bool database)
      : spec_(std::move(spec))
      , database_(database)
  {
  }

  std::vector<std::string> simgrid_args() const override { return aiops_sim::default_simgrid_args({}); }

  void setup(RunContext& ctx) override
  {
    spec_.platform = ctx.platform_file;
    aiops_sim::RunOptions o;
    o.output_dir = ctx.output_dir;
    o.database   = database_;
    run_         = std::make_unique<aiops_sim::Run>(spec_, ctx.platform, o);
  }

  std::vector<std::string> managed_hosts() const override { return run_->hosts(); }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    auto s    = run_->finish();
    auto& dir = ctx.output_dir;
    if (database_)
      outputs.push_back({(dir / "aiops.sqlite").string(), "aiops: pipelines, tasks, model versions, hourly tables"});
    outputs.push_back({(dir / "summary.csv").string(), "aiops: the run's figures"});
    outputs.push_back({(dir / "resources.csv").string(), "aiops: per pool and the store"});
    if (spec_.deployed.models > 0)
      outputs.push_back({(dir / "deployed.csv").string(), "aiops: per deployed model, staleness and retrainings"});
    Figures f;
    for (const auto& [k, v] : s.figures)
      f.emplace_back("aiops_" + k, v);
    return f;
  }

private:
  aiops::ExperimentSpec spec_;
  bool database_ = true;
  std::unique_ptr<aiops_sim::Run> run_;
};

std::unique_ptr<Component> make_aiops(json::Object& options, const RunContext& ctx)
{
  bool database = true;
  if (auto v = options.optional("database"))
    database = v->boolean();
  bool seeded = options.has("seed");
  auto spec   = aiops::parse_experiment_object(options, options.file(), ctx.base_dir);
  if (not seeded)
    spec.seed = ctx.seed;
  return std::make_unique<AiopsComponent>(std::move(spec), database);
}

} // namespace

void register_aiops_component(ComponentRegistry& registry)
{
  registry.add("aiops",
               "an AI-ops platform (PipeSim): pipelines arriving by an hour-of-week profile, pools, store traffic, "
               "deployed models drifting and retrained (docs/aiops.md)",
               make_aiops);
}

} // namespace sgai::experiment
