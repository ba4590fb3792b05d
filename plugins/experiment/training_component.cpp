/* Component "training": one iteration of an LLM training run predicted on the experiment's platform
 * as `sgai train predict` predicts it (docs/training.md). Options: "description" (a training
 * description, Megatron-LM's argument names, relative to the experiment), "settings" (an object of
 * Megatron-LM arguments over the description's: what a campaign's parameters point at, so that
 * `sgai sweep` runs a configuration search locally or on Slurm), "gpus" (default: every GPU of the
 * platform), "algorithm" and "protocol" (NCCL_ALGO and NCCL_PROTO for every collective, as the replay
 * component takes them; "auto", the default: NCCL's tuning model chooses). A configuration Megatron-LM refuses, or one
 * whose largest stage does not fit the GPU, is the run's error. Outputs: training.json (`train predict --json`'s
 * document) and its figures. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/report.hpp"
#include "plugins/experiment/component.hpp"

namespace sgai::experiment {

namespace {

class TrainingComponent : public Component {
public:
  TrainingComponent(std::vector<training::Setting> settings, uint64_t gpus, std::string file, std::string place,
                    std::optional<collectives::nccl::Algo> algo, std::optional<collectives::nccl::Proto> proto)
      : settings_(std::move(settings))
      , gpus_(gpus)
      , file_(std::move(file))
      , place_(std::move(place))
      , algo_(algo)
      , proto_(proto)
  {
  }

  void setup(RunContext& ctx) override
  {
    if (ctx.platform == nullptr || ctx.platform->gpus.empty())
      throw InputError(file_, place_, "the training component needs a JSON platform with GPUs in its hierarchy");
    const uint64_t gpus = gpus_ > 0 ? gpus_ : ctx.platform->gpus.size();
    if (gpus > ctx.platform->gpus.size())
      throw InputError(file_, place_ + (gpus_ > 0 ? "/gpus" : ""),
                       "the platform has " + std::to_string(ctx.platform->gpus.size()) + " GPUs, the run asks " +
                           std::to_string(gpus));
    config_              = training::make_config(settings_, gpus);
    inputs_              = training::platform_inputs(*ctx.platform, config_.precision, ctx.platform_file.string());
    inputs_.fabric.algo  = algo_;
    inputs_.fabric.proto = proto_;
    try {
      report_ = training::report(config_, inputs_);
    } catch (const std::invalid_argument& e) { // (the algorithm or protocol forced: NCCL cannot run a collective so)
      if (not algo_ && not proto_)
        throw;
      throw InputError(file_, place_ + (algo_ ? "/algorithm" : "/protocol"), e.what());
    }
  }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    const auto path = ctx.output_dir / "training.json";
    write_file_atomically(path, training::report_json(config_, report_, inputs_));
    outputs.push_back({path.string(), "training: the predicted iteration, its breakdown, memory and energy"});
    const training::Prediction& r = report_.prediction;
    const training::Breakdown& b  = r.breakdown;
    return {{"gpus", double(config_.gpus())},
            {"iteration_s", r.iteration_s},
            {"tokens_per_s", r.tokens_per_s},
            {"tflops_per_gpu", r.tflops_per_gpu},
            {"mfu", r.mfu},
            {"largest_stage_gb", report_.largest.total_bytes / 1e9},
            {"energy_per_token_j", report_.energy.total() / training::tokens_per_iteration(config_)},
            {"compute_s", b.compute_s},
            {"tp_s", b.tp_s},
            {"cp_s", b.cp_s},
            {"ep_s", b.ep_s},
            {"bubble_s", b.bubble_s},
            {"dp_s", b.dp_s},
            {"optimizer_s", b.optimizer_s}};
  }

private:
  std::vector<training::Setting> settings_;
  uint64_t gpus_ = 0;
  std::string file_, place_;                      ///< the experiment, and "at /components/N/options"
  std::optional<collectives::nccl::Algo> algo_;   ///< NCCL_ALGO forced ("algorithm")
  std::optional<collectives::nccl::Proto> proto_; ///< NCCL_PROTO forced ("protocol")
  training::TrainingConfig config_;
  training::PlatformInputs inputs_;
  training::Report report_;
};

std::unique_ptr<Component> make_training(json::Object& options, const RunContext& ctx)
{
  std::vector<training::Setting> settings;
  if (auto v = options.optional("description")) {
    std::filesystem::path p = v->string();
    if (p.is_relative())
      p = ctx.base_dir / p;
    settings = read_named_file(*v, ctx, "training description", [&]() { return training::read_settings(p); });
  }
  // the experiment's own settings come after the description's: theirs win (a campaign's points)
  if (auto v = options.optional("settings")) {
    json::Object o = v->object();
    for (const std::string& key : o.take_all_keys()) {
      std::optional<json::Value> given = o.optional(key);
      if (not given || given->is_object() || given->is_array())
        o.fail_at(key, quote(key) + " must be a single value, not a list, an object or null");
      const json::Value& x = *given;
      settings.push_back({key, x.is_string() ? x.string() : x.dump(), x.file(), "at " + x.pointer()});
    }
  }
  if (settings.empty())
    options.fail("a training component needs a \"description\" or \"settings\"");
  uint64_t gpus = 0;
  if (auto v = options.optional("gpus"))
    gpus = uint64_t(v->integer(1, 1 << 24));
  // NCCL_ALGO / NCCL_PROTO for every collective, as the replay component names them
  std::optional<collectives::nccl::Algo> algo;
  std::optional<collectives::nccl::Proto> proto;
  if (auto v = options.optional("algorithm"))
    if (std::string n = v->choice({"auto", "ring", "tree", "nvls", "nvls_tree"}); n != "auto")
      collectives::nccl::algo_from_string(n, algo.emplace());
  if (auto v = options.optional("protocol"))
    if (std::string n = v->choice({"auto", "LL", "LL128", "Simple"}); n != "auto")
      collectives::nccl::proto_from_string(n, proto.emplace());
  return std::make_unique<TrainingComponent>(std::move(settings), gpus, options.file(), "at " + options.pointer(), algo,
                                             proto);
}

} // namespace

void register_training_component(ComponentRegistry& registry)
{
  registry.add("training",
               "one LLM training iteration predicted on the platform's GPUs from Megatron-LM's arguments: time, "
               "tokens/s, MFU, breakdown, memory, energy (docs/training.md)",
               make_training);
}

} // namespace sgai::experiment
