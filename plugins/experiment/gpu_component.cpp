/* Component "gpu_cluster": training jobs (workload profiles of type training) scheduled on the
 * platform's GPUs by the GPU-cluster manager (plugins/gpu_cluster/gpu_manager.hpp): an order, a placement,
 * 2D-LAS preemption, advancing long jobs at their measured iteration time (docs/gpu-cluster.md). */
#include "core/foundation/error.hpp"
#include "core/foundation/units.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/experiment/component.hpp"
#include "plugins/gpu_cluster/gpu_manager.hpp"

namespace sgai::experiment {

namespace {

class GpuClusterComponent : public Component {
public:
  GpuClusterComponent(workload::Workload w, gpu_cluster::GpuManagerConfig config, std::string where)
      : workload_(std::move(w))
      , config_(std::move(config))
      , where_(std::move(where))
  {
  }

  void setup(RunContext& ctx) override
  {
    if (ctx.platform == nullptr || ctx.platform->gpus.empty())
      throw InputError(ctx.platform_file.string(), "",
                       "the GPU-cluster manager needs an sgai JSON platform with GPUs in its hierarchy: this one has "
                       "none");
    manager_ = std::make_unique<gpu_cluster::GpuManager>(workload_, *ctx.platform, config_);
    manager_->calibrate();
    manager_->start();
    for (const auto& g : ctx.platform->gpus)
      hosts_.push_back(ctx.platform->hosts[g.host].name);
  }

  std::vector<std::string> managed_hosts() const override { return hosts_; }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    if (not manager_->error().empty())
      throw RunError(manager_->error());
    for (const auto& [path, what] : manager_->write_outputs(ctx.output_dir))
      outputs.push_back({path, what});
    return manager_->figures();
  }

private:
  workload::Workload workload_;
  gpu_cluster::GpuManagerConfig config_;
  std::string where_;
  std::unique_ptr<gpu_cluster::GpuManager> manager_;
  std::vector<std::string> hosts_;
};

std::unique_ptr<Component> make_gpu_cluster(json::Object& options, const RunContext& ctx)
{
  gpu_cluster::GpuManagerConfig config;
  auto wv                 = options.required("workload");
  std::filesystem::path p = wv.string();
  if (p.is_relative())
    p = ctx.base_dir / p;
  std::error_code ec;
  if (not std::filesystem::exists(p, ec))
    wv.fail("workload file " + wv.shown() + " not found (looked for " + p.string() + ")");
  auto w                = read_named_file(wv, ctx, "workload", [&p]() { return workload::read_workload(p); });
  config.workload_file  = w.source;
  config.options_source = options.file();
  if (auto v = options.optional("order"))
    scheduling::order_from_string(v->choice(scheduling::order_names()), config.scheduler.order);
  if (auto v = options.optional("placement"))
    scheduling::placement_from_string(v->choice(scheduling::placement_names()), config.scheduler.placement);
  if (auto v = options.optional("backfill"))
    config.scheduler.backfill = v->boolean();
  if (auto v = options.optional("las_threshold"))
    config.scheduler.las_threshold_gpu_s = v->positive();
  if (auto v = options.optional("exact"))
    config.exact = v->boolean();
  if (auto v = options.optional("simulated_iterations"))
    config.simulated_iterations = static_cast<uint32_t>(v->integer(1, 1000000));
  if (auto v = options.optional("measure_error")) {
    config.measure_error = v->non_negative();
    if (config.measure_error > 1)
      v->fail("measure_error " + v->shown() + " must be a fraction from 0 to 1");
  }
  if (auto v = options.optional("restart_cost")) {
    config.restart_s = v->quantity(units::Quantity::time, 1.0);
    if (not(config.restart_s >= 0) || config.restart_s > 1e9)
      v->fail("restart_cost " + v->shown() + " must be a time from 0 to 1e9 s");
  }
  if (auto v = options.optional("pinned")) { // {"job id": [GPU indexes]}
    auto o = v->object();
    for (const auto& id : o.take_all_keys()) {
      auto& gpus = config.pinned[id];
      for (auto& g : o.required(id).array())
        gpus.push_back(static_cast<uint32_t>(g.integer(0, UINT32_MAX)));
    }
  }
  if (auto v = options.optional("nccl"))
    config.nccl = v->boolean();
  if (auto v = options.optional("pstate"))
    config.pstate = static_cast<uint32_t>(v->integer(0, 1000));
  if (auto v = options.optional("node_pstates")) { // {"node name": P-state}
    auto o = v->object();
    for (const auto& node : o.take_all_keys())
      config.node_pstates[node] = static_cast<uint32_t>(o.required(node).integer(0, 1000));
  }
  options.finish({"workload", "order", "placement", "backfill", "las_threshold", "exact", "simulated_iterations",
                  "measure_error", "restart_cost", "pinned", "pstate", "node_pstates", "nccl"});
  return std::make_unique<GpuClusterComponent>(std::move(w), config, options.file());
}

} // namespace

void register_gpu_cluster_component(ComponentRegistry& registry)
{
  registry.add("gpu_cluster",
               "training jobs on the platform's GPUs: order, placement, 2D-LAS preemption, shared links, energy",
               make_gpu_cluster);
}

} // namespace sgai::experiment
