/* sgai train: LLM training described by Megatron-LM's arguments (docs/training.md).
 *   check [DESCRIPTION] [--gpus N] [--gpu TYPE] [--catalogue C] [--KEY VALUE]...
 *     the description checked, its parameters, Megatron's FLOP count, each pipeline stage's memory
 *     per GPU and what one GPU sends; exit 1 when a stage does not fit in the GPU's memory. */
#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "core/training/traffic.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <iomanip>
#include <iostream>
#include <map>
#include <memory>

namespace sgai::cli {

namespace {

struct TrainArgs {
  std::string description, gpu = "H100 SXM5 80GB", catalogue;
  std::optional<int64_t> gpus;
  std::map<std::string, std::string> flags; ///< Megatron's keys given on the command line
};

std::string gb(double bytes)
{
  return format_fixed(bytes / 1e9, 2) + " GB";
}

int run_check(const TrainArgs& a)
{
  std::vector<training::Setting> settings;
  if (not a.description.empty())
    settings = training::read_settings(a.description);
  for (const auto& [key, value] : a.flags)
    settings.push_back({key, value, "", "--" + key});
  const std::string cat_file   = a.catalogue.empty() ? default_catalogue() : a.catalogue;
  platform::Catalogue cat      = platform::load_catalogue(cat_file);
  const platform::GpuType& gpu = platform::named_gpu(cat, a.gpu, "--gpu", cat_file);
  training::TrainingConfig c   = training::make_config(settings, a.gpus ? uint64_t(*a.gpus) : 0);

  auto params = training::count_parameters(c);
  std::cout << "Model: " << c.num_layers << " layers, hidden " << c.hidden_size << ", " << c.num_attention_heads
            << " heads (" << c.num_query_groups << " query groups), FFN " << c.ffn_hidden_size
            << (c.swiglu ? " SwiGLU" : "") << ", sequence " << c.seq_length << ", vocabulary " << c.padded_vocab_size
            << (c.num_experts > 0
                    ? ", " + std::to_string(c.num_experts) + " experts (top " + std::to_string(c.moe_router_topk) + ")"
                    : std::string())
            << ": " << format_fixed(params.total / 1e9, 3) << " B parameters\n";
  std::cout << "Parallelism: TP " << c.tensor_model_parallel_size << " x PP " << c.pipeline_model_parallel_size
            << " x CP " << c.context_parallel_size << " x DP " << c.data_parallel_size << " = " << c.gpus() << " GPUs"
            << (c.expert_model_parallel_size > 1 ? ", EP " + std::to_string(c.expert_model_parallel_size) : "") << "; "
            << c.microbatches() << " micro-batches of " << c.micro_batch_size << " per replica"
            << (c.virtual_stages() > 1 ? ", " + std::to_string(c.virtual_stages()) + " virtual stages" : "")
            << (c.sequence_parallel ? ", sequence parallel" : "")
            << (c.use_distributed_optimizer ? ", distributed optimizer" : "") << (c.use_torch_fsdp2 ? ", FSDP" : "")
            << "\n";
  std::cout << "Work per iteration: " << format_fixed(training::megatron_flops(c) / 1e15, 3)
            << " PFLOP (Megatron's count), " << format_plain(training::tokens_per_iteration(c)) << " tokens\n";
  std::cout << "Memory per GPU (" << gpu.name << ", " << gb(gpu.memory_bytes) << "):\n";
  std::cout << "  stage  layers  parameters     weights   gradients   optimizer  activations (in flight)       total\n";
  const std::vector<training::StageMemory> stages = training::memory_per_stage(c);
  const training::StageMemory* worst              = nullptr;
  for (const auto& st : stages) {
    std::cout << "  " << std::left << std::setw(5) << st.stage << std::right << std::setw(8) << st.layers
              << std::setw(12) << format_fixed(st.parameters / 1e9, 3) + " B" << std::setw(12) << gb(st.weight_bytes)
              << std::setw(12) << gb(st.gradient_bytes) << std::setw(12) << gb(st.optimizer_bytes) << std::setw(13)
              << gb(st.activation_bytes) << " (" << std::setw(3) << st.inflight << ")" << std::setw(17)
              << gb(st.total_bytes) << "\n";
    if (worst == nullptr || st.total_bytes > worst->total_bytes)
      worst = &st;
  }
  if (worst->total_bytes > gpu.memory_bytes)
    throw RunError("stage " + std::to_string(worst->stage) + " needs " + gb(worst->total_bytes) + " per GPU (" +
                   gb(worst->weight_bytes + worst->gradient_bytes + worst->optimizer_bytes) +
                   " of parameters, gradients and optimizer state, " + gb(worst->activation_bytes) +
                   " of activations), more than the " + gb(gpu.memory_bytes) + " of a " + gpu.name);
  std::cout << "Communication per GPU (nccl-tests' bytes):\n";
  auto show = [](const training::Transfer& t) {
    std::cout << "  " << std::left << std::setw(9) << training::to_string(t.group) << std::setw(15)
              << training::to_string(t.collective) << std::setw(10) << training::to_string(t.phase) << std::right
              << std::setw(3) << t.count << " x " << std::setw(12) << format_fixed(t.bytes / 1e6, 3) << " MB over "
              << t.ranks << " ranks per " << t.per << ": " << t.what << "\n";
  };
  for (const auto& t : training::layer_transfers(c))
    show(t);
  for (const auto& t : training::iteration_transfers(c))
    show(t);
  std::cout << "Fits: the largest stage (" << worst->stage << ") needs " << gb(worst->total_bytes) << " of "
            << gb(gpu.memory_bytes) << " (no CUDA context, workspace or fragmentation counted)\n";
  return 0;
}

} // namespace

void add_train_commands(CLI::App& app, Action& action)
{
  auto* train = app.add_subcommand("train", "LLM training described by Megatron-LM's arguments (docs/training.md)");
  train->require_subcommand(1);
  auto a    = std::make_shared<TrainArgs>();
  auto* cmd = train->add_subcommand("check", "A training description checked: parameters, FLOPs, memory per stage");
  cmd->add_option("description", a->description, "Megatron-LM's arguments in a JSON or YAML file (optional)");
  add_count(cmd, "--gpus", a->gpus, "GPUs (TP x PP x CP x DP; default: data-parallel-size given)", 1, 1 << 24);
  cmd->add_option("--gpu", a->gpu, "The GPU type in the catalogue (default: H100 SXM5 80GB)");
  add_path(cmd, "--catalogue", a->catalogue, "GPU catalogue (default: platforms/catalogues/accelerators.json)");
  for (const std::string& key : training::known_keys()) {
    auto* o = cmd->add_option_function<std::string>(
        "--" + key, [a, key](const std::string& v) { a->flags[key] = v; },
        "Megatron-LM's --" + key + " (overrides the description)");
    if (training::is_boolean_key(key))
      o->expected(0, 1)->default_str("true");
  }
  cmd->callback([a, &action]() { action = [a]() { return run_check(*a); }; });
}

} // namespace sgai::cli
