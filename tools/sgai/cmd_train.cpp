/* sgai train: LLM training described by Megatron-LM's arguments (docs/training.md).
 *   check [DESCRIPTION] [--gpus N] [--gpu TYPE] [--catalogue C] [--KEY VALUE]...
 *     the description checked, its parameters, Megatron's FLOP count, each pipeline stage's memory
 *     per GPU and what one GPU sends; exit 1 when a stage does not fit in the GPU's memory.
 *   predict [DESCRIPTION] --platform P [--gpus N] [--json FILE] [--timeline FILE] [--KEY VALUE]...
 *     one iteration predicted on the platform's GPUs and fabric (core/training/predict.hpp): time,
 *     tokens/s, TFLOP/s per GPU, MFU, where the time goes, energy; exit 1 when a stage does not fit.
 *   chakra [DESCRIPTION] --platform P [--gpus N] --out DIR [--prefix NAME] [--KEY VALUE]...
 *     the predicted iteration as one Chakra ET per GPU and its communicator groups, for sgai replay.
 *   search [DESCRIPTION] --platform P [--gpus N] [--top K] [--threads J] [--csv FILE] [--KEY VALUE]...
 *     every parallelism, micro-batch and recomputation of the model that fits, predicted and ranked
 *     (core/training/search.hpp). */
#include "chakra/et_io.hpp"
#include "chakra/synth.hpp"
#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "core/kernels/gemm.hpp"
#include "core/training/chakra_out.hpp"
#include "core/training/config.hpp"
#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "core/training/platform_inputs.hpp"
#include "core/training/predict.hpp"
#include "core/training/report.hpp"
#include "core/training/search.hpp"
#include "core/training/traffic.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <functional>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <thread>
#include <tuple>

namespace sgai::cli {

namespace {

struct TrainArgs {
  std::string description, gpu = "H100 SXM5 80GB", catalogue, platform, json, timeline, out, prefix = "training";
  std::optional<int64_t> gpus;
  std::map<std::string, std::string> flags;    ///< Megatron's keys given on the command line
  int64_t top = 10, threads = 0;               ///< search: rows shown, worker threads (0: every core)
  double reserve_gb = 0;                       ///< search: memory per GPU kept free
  std::string csv;                             ///< search: every candidate written here
  std::string nccl_algo_name, nccl_proto_name; ///< predict, search: NCCL_ALGO, NCCL_PROTO (empty: NCCL chooses)
};

std::string gb(double bytes)
{
  return format_fixed(bytes / 1e9, 2) + " GB";
}

/** The algorithm and protocol the command line forces on NCCL (--nccl-algo, --nccl-proto). */
void force_nccl(const TrainArgs& a, training::Fabric& f)
{
  if (collectives::nccl::Algo x;
      not a.nccl_algo_name.empty() && collectives::nccl::algo_from_string(a.nccl_algo_name, x))
    f.algo = x;
  if (collectives::nccl::Proto x;
      not a.nccl_proto_name.empty() && collectives::nccl::proto_from_string(a.nccl_proto_name, x))
    f.proto = x;
}

/** "NCCL_ALGO Ring with NCCL_PROTO LL", as the command line forces them. */
std::string nccl_forced(const TrainArgs& a)
{
  std::string s = a.nccl_algo_name.empty() ? "" : "NCCL_ALGO " + a.nccl_algo_name;
  if (not a.nccl_proto_name.empty())
    s += (s.empty() ? "" : " with ") + std::string("NCCL_PROTO ") + a.nccl_proto_name;
  return s;
}

/** --nccl-algo and --nccl-proto, checked against NCCL's names. */
void add_nccl_options(CLI::App* cmd, const std::shared_ptr<TrainArgs>& p)
{
  add_nccl_algo(cmd, p->nccl_algo_name,
                "The algorithm NCCL runs every all-reduce, all-gather and reduce-scatter with, as NCCL_ALGO forces it");
  add_nccl_proto(cmd, p->nccl_proto_name, "The protocol NCCL runs them with, as NCCL_PROTO forces it");
}

training::TrainingConfig read_config(const TrainArgs& a, uint64_t gpus)
{
  std::vector<training::Setting> settings;
  if (not a.description.empty())
    settings = training::read_settings(a.description);
  for (const auto& [key, value] : a.flags)
    settings.push_back({key, value, "", "--" + key});
  training::TrainingConfig c = training::make_config(settings, gpus);
  if (not c.unmodelled.empty()) {
    std::string names;
    for (const std::string& k : c.unmodelled)
      names += (names.empty() ? "" : ", ") + k;
    std::cerr << "sgai: note: Megatron-LM arguments taken but not modelled (docs/training.md): " << names << "\n";
  }
  for (const std::string& n : c.notes)
    std::cerr << "sgai: note: " << n << "\n";
  return c;
}

void print_description(const training::TrainingConfig& c)
{
  auto params = training::count_parameters(c);
  const std::string heads =
      c.multi_latent_attention ? "multi-latent, KV latent " + std::to_string(c.kv_lora_rank) +
                                     (c.q_lora_rank > 0 ? ", Q latent " + std::to_string(c.q_lora_rank) : std::string())
                               : std::to_string(c.num_query_groups) + " query groups";
  std::cout << "Model: " << c.num_layers << " layers, hidden " << c.hidden_size << ", " << c.num_attention_heads
            << " heads (" << heads << "), FFN " << c.ffn_hidden_size << (c.swiglu ? " SwiGLU" : "") << ", sequence "
            << c.seq_length << ", vocabulary " << c.padded_vocab_size
            << (c.num_experts > 0
                    ? ", " + std::to_string(c.num_experts) + " experts of FFN " +
                          std::to_string(c.moe_ffn_hidden_size) + " (top " + std::to_string(c.moe_router_topk) + ")"
                    : std::string())
            << (c.num_experts > 0 && c.moe_shared_expert_intermediate_size > 0
                    ? ", shared experts of FFN " + std::to_string(c.moe_shared_expert_intermediate_size)
                    : std::string())
            << ": " << format_fixed(params.total / 1e9, 3) << " B parameters"
            << (c.mtp_num_layers > 0
                    ? " (and " + format_fixed(params.mtp / 1e9, 3) + " B of multi-token prediction, " +
                          std::to_string(c.mtp_num_layers) + " depth" + (c.mtp_num_layers > 1 ? "s)" : ")")
                    : std::string())
            << "\n";
  std::cout << "Parallelism: TP " << c.tensor_model_parallel_size << " x PP " << c.pipeline_model_parallel_size
            << " x CP " << c.context_parallel_size
            << (c.context_parallel_size == 1 || c.cp_comm_type == training::CpComm::p2p ? ""
                : c.cp_comm_type == training::CpComm::all_gather                        ? " (all-gather)"
                                                                                        : " (all-to-all)")
            << " x DP " << c.data_parallel_size << " = " << c.gpus() << " GPUs"
            << (c.expert_model_parallel_size > 1 ? ", EP " + std::to_string(c.expert_model_parallel_size) : "") << "; "
            << c.microbatches() << (c.microbatches() == 1 ? " micro-batch of " : " micro-batches of ")
            << c.micro_batch_size << " per replica"
            << (c.virtual_stages() > 1 ? ", " + std::to_string(c.virtual_stages()) + " virtual stages" : "")
            << (c.sequence_parallel ? ", sequence parallel" : "")
            << (c.use_distributed_optimizer ? ", distributed optimizer" : "") << (c.use_torch_fsdp2 ? ", FSDP" : "")
            << (c.recompute_granularity == training::Recompute::full        ? ", full recomputation"
                : c.recompute_granularity == training::Recompute::selective ? ", selective recomputation"
                                                                            : "")
            << "\n";
  std::cout << "Work per iteration: " << format_fixed(training::megatron_flops(c) / 1e15, 3)
            << " PFLOP (Megatron's count), " << format_plain(training::tokens_per_iteration(c)) << " tokens\n";
}

/** Prints each stage's memory; RunError naming the stage and the bytes when one does not fit. */
/** Each stage's memory per GPU, printed; the stages. */
std::vector<training::StageMemory> print_memory(const training::TrainingConfig& c, const platform::GpuType& gpu)
{
  std::cout << "Memory per GPU (" << gpu.name << ", " << gb(gpu.memory_bytes) << "):\n";
  std::cout << "  stage  layers  parameters     weights   gradients   optimizer  activations (in flight)       total\n";
  const std::vector<training::StageMemory> stages = training::memory_per_stage(c);
  for (const auto& st : stages)
    std::cout << "  " << std::left << std::setw(5) << st.stage << std::right << std::setw(8) << st.layers
              << std::setw(12) << format_fixed(st.parameters / 1e9, 3) + " B" << std::setw(12) << gb(st.weight_bytes)
              << std::setw(12) << gb(st.gradient_bytes) << std::setw(12) << gb(st.optimizer_bytes) << std::setw(13)
              << gb(st.activation_bytes) << " (" << std::setw(3) << st.inflight << ")" << std::setw(17)
              << gb(st.total_bytes) << "\n";
  return stages;
}

int run_check(const TrainArgs& a)
{
  const std::string cat_file   = a.catalogue.empty() ? default_catalogue() : a.catalogue;
  platform::Catalogue cat      = platform::load_catalogue(cat_file);
  const platform::GpuType& gpu = platform::named_gpu(cat, a.gpu, "--gpu", cat_file);
  training::TrainingConfig c   = read_config(a, a.gpus ? uint64_t(*a.gpus) : 0);
  print_description(c);
  const std::vector<training::StageMemory> stages = print_memory(c, gpu);
  const training::StageMemory* worst              = &training::check_memory(stages, gpu.memory_bytes, gpu.name);
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

std::string ms(double s)
{
  return format_fixed(s * 1e3, 3) + " ms";
}

/** Every stage's passes and DP collectives as a Chrome trace (ui.perfetto.dev): a process per pipeline
 *  stage (its first GPU), a thread for the passes and one for the DP collectives. */
void write_timeline(const std::string& path, const training::TrainingConfig& c, const training::Prediction& r)
{
  std::ostringstream text;
  json::Writer w(text);
  w.begin_object().key("traceEvents").begin_array();
  const uint64_t per_stage = uint64_t(c.tensor_model_parallel_size) * c.context_parallel_size * c.data_parallel_size;
  for (uint32_t st = 0; st < c.pipeline_model_parallel_size; ++st) {
    w.begin_object(true).field("name", "process_name").field("ph", "M").field("pid", st);
    w.key("args").begin_object(true).field("name", "stage " + std::to_string(st) + " (GPU " +
                                                       std::to_string(st * per_stage) + ")");
    w.end_object().end_object();
    for (auto [tid, name] : {std::pair{0, "passes"}, std::pair{1, "data-parallel collectives"}}) {
      w.begin_object(true).field("name", "thread_name").field("ph", "M").field("pid", st).field("tid", tid);
      w.key("args").begin_object(true).field("name", name).end_object().end_object();
    }
  }
  for (const training::Span& sp : r.spans)
    w.begin_object(true)
        .field("name", sp.name)
        .field("ph", "X")
        .field("pid", sp.stage)
        .field("tid", unsigned(sp.lane))
        .field("ts", sp.start_s * 1e6)
        .field("dur", sp.duration_s * 1e6)
        .end_object();
  w.end_array().end_object();
  write_file_atomically(path, text.str() + "\n");
}

int run_predict(const TrainArgs& a)
{
  const platform::Platform plat = platform::generate(a.platform);
  const uint64_t gpus           = a.gpus ? uint64_t(*a.gpus) : 0;
  training::TrainingConfig c    = read_config(a, gpus);
  if (c.gpus() > plat.gpus.size())
    throw InputError(a.platform, "",
                     "the platform has " + std::to_string(plat.gpus.size()) + " GPUs, the run needs " +
                         std::to_string(c.gpus()));
  training::PlatformInputs in = training::platform_inputs(plat, c.precision, a.platform);
  force_nccl(a, in.fabric);
  std::cout << "Platform: " << plat.name << " (" << in.gpu.name << ", " << in.fabric.gpus_per_node
            << " a node; NCCL sees " << format_fixed(in.fabric.nccl.intra_GBps, 1) << " GB/s per GPU in a node, "
            << format_fixed(in.fabric.nccl.inter_GBps, 1) << " GB/s per node across)\n";
  if (in.fabric.algo || in.fabric.proto)
    std::cout << "NCCL forced: " << nccl_forced(a) << " on every all-reduce, all-gather and reduce-scatter\n";
  print_description(c);
  print_memory(c, *in.type); // report() checks the largest stage against the GPU
  const training::Report rep    = training::report(c, in, not a.timeline.empty());
  const training::Prediction& r = rep.prediction;
  std::cout << "Iteration: " << format_fixed(r.iteration_s, 4) << " s, " << format_fixed(r.tokens_per_s, 0)
            << " tokens/s, " << format_fixed(r.tflops_per_gpu, 1) << " TFLOP/s per GPU, MFU "
            << format_fixed(r.mfu * 100, 1) << "%\n";
  if (c.recompute_granularity != training::Recompute::none)
    std::cout << "With the recomputation counted (hardware FLOPs, as Narayanan et al. 2021 count them): "
              << format_fixed(r.hardware_tflops_per_gpu, 1) << " TFLOP/s per GPU, HFU " << format_fixed(r.hfu * 100, 1)
              << "%\n";
  const auto& b = r.breakdown;
  std::cout << "Where the time goes (stage " << r.slowest_stage << ", the last to finish):\n";
  for (auto [name, v] : {std::pair{"compute (kernels)", b.compute_s}, std::pair{"exposed TP communication", b.tp_s},
                         std::pair{"exposed CP communication", b.cp_s}, std::pair{"exposed EP communication", b.ep_s},
                         std::pair{"pipeline bubble", b.bubble_s}, std::pair{"exposed DP communication", b.dp_s},
                         std::pair{"optimizer step", b.optimizer_s}})
    std::cout << "  " << std::left << std::setw(26) << name << std::right << std::setw(14) << ms(v) << std::setw(8)
              << format_fixed(v / r.iteration_s * 100, 1) << "%\n";
  auto layer = [&](const char* which, const training::LayerTimes& l) {
    std::cout << which << ", one micro-batch: forward " << ms(l.forward()) << " (GEMMs " << ms(l.gemm_fwd)
              << ", attention " << ms(l.attention_fwd) << ", streaming " << ms(l.stream_fwd) << ", exposed TP "
              << ms(l.tp_fwd) << "), backward " << ms(l.backward()) << " (GEMMs " << ms(l.gemm_bwd) << ", attention "
              << ms(l.attention_bwd) << ", streaming " << ms(l.stream_bwd) << ", exposed TP " << ms(l.tp_bwd) << ")\n";
  };
  const bool mixed = c.num_experts > 0 && c.moe_layer_count() < c.num_layers; // (moe-layer-freq)
  layer(mixed ? "A MoE layer" : "A layer", r.layer);
  if (mixed)
    layer("A dense layer", r.dense_layer);
  const training::Energy& e = rep.energy;
  std::cout << "Energy per iteration: " << format_fixed(e.total() / 1e6, 3) << " MJ (GPUs "
            << format_fixed(e.gpu_j / 1e6, 3) << ", processors " << format_fixed(e.cpu_j / 1e6, 3) << ", network "
            << format_fixed(e.network_j / 1e6, 3) << "), "
            << format_fixed(e.total() / training::tokens_per_iteration(c), 3) << " J per token; "
            << format_fixed(e.total() / r.iteration_s / 1e3 / std::ceil(double(c.gpus()) / in.fabric.gpus_per_node), 2)
            << " kW per node\n";
  std::cout << "Data parallel: gradients reduced in " << ms(r.dp_reduce_s) << ", parameters gathered in "
            << ms(r.dp_gather_s) << " (stage 0); pipeline transfer " << ms(r.p2p_s);
  if (r.dp_sm_share > 0) // (NCCL's channels' SMs, taken while the overlapped collectives run)
    std::cout << "; the overlapped collectives' SMs slow the GEMMs and attention by "
              << format_fixed(100 * r.dp_sm_share, 2) << "%";
  std::cout << "\n";
  if (not a.json.empty())
    write_file_atomically(a.json, training::report_json(c, rep, in));
  if (not a.timeline.empty())
    write_timeline(a.timeline, c, r);
  return 0;
}

/** The most trace nodes `train chakra` writes (one rank at a time; about 2 GB of ETs at the bound). */
constexpr uint64_t kMaxTraceNodes = 20'000'000;

int run_chakra(const TrainArgs& a)
{
  const platform::Platform plat = platform::generate(a.platform);
  training::TrainingConfig c    = read_config(a, a.gpus ? uint64_t(*a.gpus) : 0);
  if (c.gpus() > plat.gpus.size())
    throw InputError(a.platform, "",
                     "the platform has " + std::to_string(plat.gpus.size()) + " GPUs, the run needs " +
                         std::to_string(c.gpus()));
  training::PlatformInputs in = training::platform_inputs(plat, c.precision, a.platform);
  training::memory_per_stage(c); // (checked by predict)
  const training::Prediction r = training::predict_iteration(c, in.gpu, in.fabric);
  uint64_t nodes               = 0;
  for (const auto& k : r.chunks)
    nodes += 2 * k.buckets;
  nodes = (nodes / c.pipeline_model_parallel_size + 6ull * c.microbatches() * c.virtual_stages() + 2) * c.gpus();
  if (nodes > kMaxTraceNodes)
    throw UsageError("--gpus: " + std::to_string(c.gpus()) + " GPUs make about " + std::to_string(nodes) +
                     " trace nodes, above the " + std::to_string(kMaxTraceNodes) + " sgai writes");
  check_output_dir(a.out);
  ensure_directory(a.out);
  const std::filesystem::path dir(a.out);
  for (uint32_t rank = 0; rank < c.gpus(); ++rank)
    chakra::write_trace(dir / (a.prefix + "." + std::to_string(rank) + ".et"), training::iteration_trace(c, r, rank));
  write_file_atomically(dir / (a.prefix + ".groups.json"), chakra::comm_groups_json(training::iteration_groups(c)));
  std::cout << "Wrote " << c.gpus() << " ranks: " << (dir / a.prefix).string() << ".{0.." << c.gpus() - 1 << "}.et and "
            << a.prefix << ".groups.json; predicted iteration " << format_fixed(r.iteration_s, 4)
            << " s\nReplay: sgai replay --workload " << (dir / a.prefix).string() << " --comm-group "
            << (dir / (a.prefix + ".groups.json")).string() << " --platform " << a.platform << " --out DIR\n";
  return 0;
}

void write_search_csv(const std::string& path, const training::SearchResult& r)
{
  std::ostringstream o;
  o << "rank,tp,pp,virtual_stages,cp,ep,dp,micro_batch,recompute,fits,largest_stage_gb,iteration_s,tokens_per_s,"
       "tflops_per_gpu,mfu,energy_per_token_j,compute_s,tp_s,cp_s,ep_s,bubble_s,dp_s,optimizer_s\n";
  size_t rank = 0;
  for (const auto& row : r.rows) {
    const auto& c     = row.config;
    const char* rc    = c.recompute_granularity == training::Recompute::full
                            ? "full"
                            : (c.recompute_granularity == training::Recompute::selective ? "selective" : "none");
    const bool ranked = row.fits && row.runs;
    o << (ranked ? std::to_string(++rank) : "") << ',' << c.tensor_model_parallel_size << ','
      << c.pipeline_model_parallel_size << ',' << c.virtual_stages() << ',' << c.context_parallel_size << ','
      << c.expert_model_parallel_size << ',' << c.data_parallel_size << ',' << c.micro_batch_size << ',' << rc << ','
      << (row.fits ? 1 : 0) << ',' << format_number(row.worst_bytes / 1e9);
    if (ranked) {
      const auto& b = row.breakdown;
      for (double v : {row.iteration_s, row.tokens_per_s, row.tflops_per_gpu, row.mfu, row.energy_per_token_j,
                       b.compute_s, b.tp_s, b.cp_s, b.ep_s, b.bubble_s, b.dp_s, b.optimizer_s})
        o << ',' << format_number(v);
    } else {
      o << ",,,,,,,,,,,,";
    }
    o << "\n";
  }
  write_file_atomically(path, o.str());
}

/** Where the description's own configuration ranks, when it gives one that runs here; and where its
 *  layout (TP, PP, CP, EP, DP) ranks at its best virtual stages, micro-batch and recomputation (what
 *  a published run's layout fixes, and its unpublished settings do not). */
void print_own_rank(const TrainArgs& a, uint64_t gpus, const training::SearchResult& r)
{
  training::TrainingConfig own;
  try {
    own = read_config(a, gpus);
  } catch (const std::exception&) { // the description gives no complete configuration for these GPUs
    return;
  }
  auto layout = [](const training::TrainingConfig& c) {
    return std::make_tuple(c.tensor_model_parallel_size, c.pipeline_model_parallel_size, c.context_parallel_size,
                           c.expert_model_parallel_size, c.data_parallel_size);
  };
  auto ranked = [&](size_t i) {
    return " ranks " + std::to_string(i + 1) + " of " + std::to_string(r.fitting) + ": " +
           format_fixed(r.rows[i].tokens_per_s, 0) + " tokens/s, the best " +
           format_fixed(r.rows[0].tokens_per_s / r.rows[i].tokens_per_s, 3) + "x as fast\n";
  };
  const std::string mine = training::describe_parallelism(own);
  for (size_t i = 0; i < r.rows.size(); i++)
    if (training::describe_parallelism(r.rows[i].config) == mine) {
      if (r.rows[i].fits && r.rows[i].runs)
        std::cout << "The description's own configuration (" << mine << ")" << ranked(i);
      else if (r.rows[i].fits)
        std::cout << "The description's own configuration (" << mine << ") does not run: " << nccl_forced(a)
                  << " cannot run one of its collectives\n";
      else
        std::cout << "The description's own configuration (" << mine << ") does not fit: " << gb(r.rows[i].worst_bytes)
                  << " per GPU\n";
      break;
    }
  for (size_t i = 0; i < r.fitting; i++) // the rows are ranked, the fitting ones first
    if (layout(r.rows[i].config) == layout(own)) {
      if (training::describe_parallelism(r.rows[i].config) != mine)
        std::cout << "Its layout at its best (" << training::describe_parallelism(r.rows[i].config) << ")" << ranked(i);
      break;
    }
}

int run_search(const TrainArgs& a)
{
  const platform::Platform plat = platform::generate(a.platform);
  std::vector<training::Setting> settings;
  if (not a.description.empty())
    settings = training::read_settings(a.description);
  for (const auto& [key, value] : a.flags)
    settings.push_back({key, value, "", "--" + key});
  training::SearchOptions o;
  o.gpus = a.gpus ? uint64_t(*a.gpus) : plat.gpus.size();
  if (o.gpus == 0 || o.gpus > plat.gpus.size())
    throw InputError(a.platform, "",
                     "the platform has " + std::to_string(plat.gpus.size()) + " GPUs, the search asks " +
                         std::to_string(o.gpus));
  o.threads       = a.threads > 0 ? unsigned(a.threads) : std::max(1U, std::thread::hardware_concurrency());
  o.reserve_bytes = a.reserve_gb * 1e9;
  const training::Precision precision = training::model_alone(settings).precision;
  training::PlatformInputs in         = training::platform_inputs(plat, precision, a.platform);
  force_nccl(a, in.fabric);
  const training::SearchResult r = training::search_configurations(settings, in, o);
  std::cout << "Searched " << r.tried << " combinations for " << o.gpus << " GPUs of " << plat.name << " ("
            << in.gpu.name << ", " << gb(in.type->memory_bytes)
            << (a.reserve_gb > 0 ? ", " + gb(o.reserve_bytes) + " kept free" : std::string()) << "): " << r.fitting
            << " fit, " << (r.rows.size() - r.fitting - r.unrunnable) << " need more memory than a GPU has, "
            << r.invalid << " are not configurations Megatron-LM accepts"
            << (r.unrunnable > 0 ? ", " + std::to_string(r.unrunnable) + " fit but " + nccl_forced(a) +
                                       " cannot run one of their collectives"
                                 : std::string())
            << "\n";
  if (r.fitting == 0 && r.unrunnable > 0)
    throw RunError("no configuration runs: " + std::to_string(r.unrunnable) + " fit, but " + nccl_forced(a) +
                   " cannot run one of their collectives in sgai's model of NCCL (docs/replay.md says which it has)");
  if (r.fitting == 0)
    throw RunError("no configuration fits: the smallest needs " +
                   (r.rows.empty() ? std::string("?") : gb(r.rows.front().worst_bytes)) + " per GPU, more than the " +
                   gb(in.type->memory_bytes - o.reserve_bytes) + " a " + in.gpu.name + " has to give");
  std::cout << "rank  tokens/s  TFLOP/s/GPU    MFU  iteration  memory  configuration    (compute, bubble, exposed "
               "TP, DP: % of the iteration)\n";
  for (size_t i = 0; i < r.fitting && i < size_t(a.top); i++) {
    const auto& row = r.rows[i];
    const auto& b   = row.breakdown;
    auto pct        = [&](double v) { return format_fixed(v / row.iteration_s * 100, 0); };
    std::cout << std::setw(4) << i + 1 << std::setw(10) << format_fixed(row.tokens_per_s, 0) << std::setw(13)
              << format_fixed(row.tflops_per_gpu, 1) << std::setw(7) << format_fixed(row.mfu * 100, 1) << "%"
              << std::setw(10) << format_fixed(row.iteration_s, 3) << " s" << std::setw(8)
              << format_fixed(row.worst_bytes / 1e9, 1) << "  " << training::describe_parallelism(row.config) << "  ("
              << pct(b.compute_s) << ", " << pct(b.bubble_s) << ", " << pct(b.tp_s) << ", " << pct(b.dp_s) << ")\n";
  }
  print_own_rank(a, o.gpus, r);
  if (not a.csv.empty())
    write_search_csv(a.csv, r);
  return 0;
}

/** What a flag of several words stores: the words, separated by spaces, as `key`'s setting. */
std::function<void(const std::vector<std::string>&)> joined_into(const std::shared_ptr<TrainArgs>& a,
                                                                 const std::string& key)
{
  return [a, key](const std::vector<std::string>& v) {
    std::string joined;
    for (const std::string& x : v)
      joined += (joined.empty() ? "" : " ") + x;
    a->flags[key] = joined;
  };
}

void add_description_flags(CLI::App* cmd, const std::shared_ptr<TrainArgs>& a)
{
  for (const std::string& key : training::known_keys()) {
    if (training::is_list_key(key)) { // several words: --recompute-modules mlp moe
      cmd->add_option_function<std::vector<std::string>>("--" + key, joined_into(a, key),
                                                         "Megatron-LM's --" + key + " (overrides the description)")
          ->expected(1, -1);
      continue;
    }
    auto* o = cmd->add_option_function<std::string>(
        "--" + key, [a, key](const std::string& v) { a->flags[key] = v; },
        "Megatron-LM's --" + key + " (overrides the description)");
    if (training::is_boolean_key(key))
      o->expected(0, 1)->default_str("true");
  }
  // Megatron-LM's other names for those, and its arguments that change nothing predicted: taken
  // as Megatron-LM takes them (a switch, a value, or several), so that a launch script's arguments
  // can be given as they are
  for (const auto* table : {&training::alias_keys(), &training::unmodelled_keys()})
    for (const auto& entry : *table) { // (not a structured binding: lambdas capture it; clang 14)
      const std::string key = entry.first;
      const int arity       = entry.second;
      const bool alias      = table == &training::alias_keys();
      auto* o               = cmd->add_option_function<std::vector<std::string>>(
          "--" + key, joined_into(a, key),
          alias ? "Megatron-LM's --" + key + " (another name; docs/training.md)"
                              : "Megatron-LM's --" + key + " (taken, not modelled)");
      if (arity == 0)
        o->expected(0, 1)->default_str("true");
      else if (arity < 0)
        o->expected(1, -1);
      o->group("Megatron-LM arguments taken as given");
    }
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
  add_description_flags(cmd, a);
  cmd->callback([a, &action]() { action = [a]() { return run_check(*a); }; });

  auto p    = std::make_shared<TrainArgs>();
  auto* pre = train->add_subcommand("predict", "One iteration predicted on a platform: time, TFLOP/s, MFU, breakdown");
  pre->add_option("description", p->description, "Megatron-LM's arguments in a JSON or YAML file (optional)");
  add_path(pre, "--platform", p->platform, "The platform (sgai JSON): its GPU type and fabric")->required();
  add_count(pre, "--gpus", p->gpus, "GPUs (TP x PP x CP x DP; default: data-parallel-size given)", 1, 1 << 24);
  pre->add_option("--json", p->json, "Also write the prediction as JSON to this file");
  pre->add_option("--timeline", p->timeline,
                  "Also write every stage's passes and DP collectives as a Chrome trace (ui.perfetto.dev)");
  add_nccl_options(pre, p);
  add_description_flags(pre, p);
  pre->callback([p, &action]() { action = [p]() { return run_predict(*p); }; });

  auto e    = std::make_shared<TrainArgs>();
  auto* cha = train->add_subcommand("chakra", "The predicted iteration as Chakra ETs, one per GPU, for sgai replay");
  cha->add_option("description", e->description, "Megatron-LM's arguments in a JSON or YAML file (optional)");
  add_path(cha, "--platform", e->platform, "The platform (sgai JSON): its GPU type and fabric")->required();
  add_count(cha, "--gpus", e->gpus, "GPUs (TP x PP x CP x DP; default: data-parallel-size given)", 1, 1 << 24);
  cha->add_option("--out", e->out, "Output folder")->required();
  cha->add_option("--prefix", e->prefix, "Trace file prefix (default: training)");
  add_description_flags(cha, e);
  cha->callback([e, &action]() { action = [e]() { return run_chakra(*e); }; });

  auto s    = std::make_shared<TrainArgs>();
  auto* sea = train->add_subcommand(
      "search", "Every parallelism, micro-batch and recomputation that fits, predicted and ranked by tokens/s");
  sea->add_option("description", s->description, "Megatron-LM's arguments in a JSON or YAML file (optional)");
  add_path(sea, "--platform", s->platform, "The platform (sgai JSON): its GPU type and fabric")->required();
  add_count(sea, "--gpus", s->gpus, "GPUs (default: the platform's)", 1, 1 << 24);
  add_count(sea, "--top", s->top, "Configurations shown (default 10)", 1, 1 << 20);
  add_count(sea, "--threads", s->threads, "Worker threads (default: every core)", 0, 1024);
  sea->add_option("--csv", s->csv, "Also write every candidate, ranked, to this CSV file");
  sea->add_option("--reserve", s->reserve_gb,
                  "GB of each GPU's memory kept free (CUDA context, NCCL's buffers, fragmentation; default 0)")
      ->check(CLI::NonNegativeNumber);
  add_nccl_options(sea, s);
  add_description_flags(sea, s);
  sea->callback([s, &action]() { action = [s]() { return run_search(*s); }; });
}

} // namespace sgai::cli
