/* A training run described as Megatron-LM users write it: its argument names (num-layers,
 * tensor-model-parallel-size, ...) in a JSON or YAML file or as command-line flags, checked
 * before any work. docs/training.md lists the keys. */
#ifndef SGAI_CORE_TRAINING_CONFIG_HPP
#define SGAI_CORE_TRAINING_CONFIG_HPP

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sgai::training {

enum class Precision { bf16, fp16, fp8 };
enum class Recompute { none, selective, full };
/** How context parallelism exchanges keys and values (Megatron-Core's cp-comm-type, Transformer
 *  Engine's): a ring of K/V blocks overlapped with attention (p2p), K and V all-gathered before the
 *  attention and their gradients reduce-scattered after it (allgather, as Llama 3 trained),
 *  DeepSpeed-Ulysses' all-to-alls of Q, K, V and the output, heads for sequence (a2a), or both
 *  (a2a+p2p): all-to-alls within groups of hierarchical-context-parallel-sizes' first size, a ring
 *  over the groups. */
enum class CpComm { p2p, all_gather, a2a, a2a_p2p };

/** One iteration's model, batch and parallelism, by Megatron-LM's arguments (their dashes become
 *  underscores here). Zero means "not given" where Megatron derives a default. */
/** Megatron-Core's recompute-modules, as bits of TrainingConfig::recompute_modules: the core
 *  attention, the MoE experts' activation function, the two norms, MLA's up-projections, a dense
 *  layer's MLP, a MoE layer's routed experts (with their dispatch and combine), the shared experts. */
enum RecomputeModule : uint32_t {
  kCoreAttn      = 1,
  kMoeAct        = 2,
  kLayernorm     = 4,
  kMlaUpProj     = 8,
  kMlp           = 16,
  kMoe           = 32,
  kSharedExperts = 64,
};

struct TrainingConfig {
  // the model
  uint32_t num_layers          = 0;
  uint64_t hidden_size         = 0;
  uint64_t ffn_hidden_size     = 0; ///< default 4 x hidden_size (Megatron's)
  uint32_t num_attention_heads = 0;
  uint32_t num_query_groups    = 0; ///< grouped-query attention; default: num_attention_heads
  uint64_t kv_channels         = 0; ///< default hidden_size / num_attention_heads
  /** Multi-latent attention (DeepSeek-V2's, Megatron-Core's MLASelfAttention): queries through a
   *  q_lora_rank latent (0: one projection), keys and values through a kv_lora_rank latent and a
   *  shared rotary key of qk_pos_emb_head_dim; heads of qk_head_dim + qk_pos_emb_head_dim for
   *  the scores and v_head_dim for the values. Megatron-LM's defaults. */
  bool multi_latent_attention           = false;
  uint64_t q_lora_rank                  = 0;
  uint64_t kv_lora_rank                 = 32;
  uint64_t qk_head_dim                  = 128;
  uint64_t qk_pos_emb_head_dim          = 64;
  uint64_t v_head_dim                   = 128;
  uint64_t seq_length                   = 0;
  uint64_t vocab_size                   = 0; ///< padded as Megatron pads it unless padded_vocab_size is given
  uint64_t padded_vocab_size            = 0;
  uint32_t make_vocab_size_divisible_by = 128;
  bool swiglu                           = false;
  bool rms_norm                         = false; ///< normalization: RMSNorm (one weight) or LayerNorm
  double hidden_dropout                 = 0.1;   ///< Megatron's defaults; 0 stores no dropout masks
  double attention_dropout              = 0.1;
  /** Megatron's attention-backend: flash, fused or auto (a fused kernel that keeps no s x s
   *  score matrix) or unfused / local (scores, softmax and dropout stored). */
  bool fused_attention                     = true;
  bool untie_embeddings_and_output_weights = false;
  /** Megatron's position-embedding-type: learned_absolute (its default: a table of
   *  max_position_embeddings x hidden parameters on the first stage, whole on every TP rank) or
   *  another kind that holds no parameters (rope, yarn, mrope, relative's few biases, none). */
  bool learned_positions           = true;
  uint64_t max_position_embeddings = 0; ///< the table's rows; default seq_length (Megatron requires it)
  // mixture of experts
  uint32_t num_experts         = 0; ///< 0: a dense model
  uint32_t moe_router_topk     = 2;
  uint64_t moe_ffn_hidden_size = 0; ///< default ffn_hidden_size
  /** The shared experts' FFN size, all of them together (DeepSeekMoE's and Qwen-MoE's experts every
   *  token goes through, beside its routed ones); 0: none. */
  uint64_t moe_shared_expert_intermediate_size = 0;
  /** Which layers are MoE layers, from the first (moe-layer-freq: every N-th from layer 0, or
   *  Megatron's list expression such as "([0]+[1]*15)"); empty: every layer, when num_experts. */
  std::vector<bool> moe_layer_pattern;
  /** Tokens on the busiest expert over the mean (1: balanced); sgai's own, a stated assumption. */
  double moe_load_imbalance = 1.0;
  /** Megatron's token dropping: an expert takes at most this times its mean share (0: no bound);
   *  with moe-pad-expert-input-to-capacity, exactly that many (padded). */
  double moe_expert_capacity_factor     = 0;
  bool moe_pad_expert_input_to_capacity = false;
  /** Tokens the busiest expert processes over the mean: the load imbalance, bounded by the
   *  capacity factor, or the capacity factor itself when inputs are padded to it. */
  double expert_load() const;
  // the batch
  uint32_t micro_batch_size  = 0;
  uint32_t global_batch_size = 0;
  // parallelism
  uint32_t tensor_model_parallel_size   = 1;
  uint32_t pipeline_model_parallel_size = 1;
  uint32_t context_parallel_size        = 1;
  uint32_t expert_model_parallel_size   = 1;
  CpComm cp_comm_type                   = CpComm::p2p;
  /** hierarchical-context-parallel-sizes (a2a+p2p): the all-to-all groups' size and the ring's. */
  uint32_t cp_a2a_size = 0, cp_ring_size = 0;
  /** The CP ranks an all-to-all spans (a2a: all of them; a2a+p2p: a group) and those the ring of
   *  K/V blocks spans (p2p: all; a2a+p2p: one a group, cp_a2a() apart). */
  uint32_t cp_a2a() const
  {
    return cp_comm_type == CpComm::a2a ? context_parallel_size : cp_comm_type == CpComm::a2a_p2p ? cp_a2a_size : 1;
  }
  uint32_t cp_ring() const
  {
    return cp_comm_type == CpComm::p2p ? context_parallel_size : cp_comm_type == CpComm::a2a_p2p ? cp_ring_size : 1;
  }
  /** Multi-token prediction's depths (Megatron-Core's mtp-num-layers, DeepSeek-V3's MTP): each an
   *  extra layer of the last layer's kind on the last pipeline stage, with its projection, norms,
   *  the embedding again and the LM head and loss again. */
  uint32_t mtp_num_layers = 0;
  /** The experts' own tensor parallelism (Megatron-Core's expert-tensor-parallel-size; 0: TP's). */
  uint32_t expert_tensor_parallel_size = 0;
  /** The experts' TP: expert-tensor-parallel-size, or TP when not given. */
  uint32_t etp() const
  {
    return expert_tensor_parallel_size > 0 ? expert_tensor_parallel_size : tensor_model_parallel_size;
  }
  /** The ranks that share an expert's weights and reduce its gradients: TP x CP x DP / (ETP x EP),
   *  Megatron-Core's expert data parallelism. */
  uint32_t expert_data_parallel_size() const;
  uint32_t data_parallel_size                    = 0; ///< derived from the GPU count unless given
  bool sequence_parallel                         = false;
  uint32_t num_layers_per_virtual_pipeline_stage = 0; ///< 0: no interleaving
  /** Megatron's uneven pipeline: the first and last stages' layers (0: as the others, which share
   *  the rest evenly), and the virtual stages per rank given directly (needed with uneven stages). */
  uint32_t decoder_first_pipeline_num_layers    = 0;
  uint32_t decoder_last_pipeline_num_layers     = 0;
  uint32_t num_virtual_stages_per_pipeline_rank = 0;
  /** The embedding and the loss each count as a layer when the layers are split over the pipeline
   *  (the first stage's first chunk and the last stage's last chunk build one layer fewer: the
   *  Llama 3 405B layout, 126 layers in 16 x 8 chunks). */
  /** Megatron-Core's pipeline-model-parallel-layout, parsed: each virtual stage's decoder layers,
   *  in Megatron's order (virtual stage v of rank r at v x PP + r); empty without one. */
  std::vector<uint32_t> layout_layers;
  /** The pipeline rank whose last model chunk holds multi-token prediction (the layout's "m"; the
   *  last rank otherwise). */
  uint32_t mtp_rank                            = 0;
  bool account_for_embedding_in_pipeline_split = false;
  bool account_for_loss_in_pipeline_split      = false;
  bool use_distributed_optimizer               = false;
  bool use_torch_fsdp2                         = false; ///< FSDP / ZeRO-3: parameters sharded too
  bool overlap_grad_reduce                     = false;
  bool overlap_param_gather                    = false;
  /** Parameters a data-parallel gradient bucket holds (ddp-bucket-size); 0: Megatron's default,
   *  max(40 M, 1 M x DP). */
  uint64_t ddp_bucket_size = 0;
  bool tp_comm_overlap     = false;
  // recomputation and precision
  Recompute recompute_granularity = Recompute::none;
  Precision precision             = Precision::bf16;
  /** The data-parallel gradients' type, as Megatron-LM picks it: fp32 under bf16 (unless
   *  grad-reduce-in-bf16), the parameters' under fp16 (unless accumulate-allreduce-grads-in-fp32). */
  bool grad_reduce_in_bf16                = false;
  bool accumulate_allreduce_grads_in_fp32 = false;
  /** Megatron's precision-aware optimizer (use-precision-aware-optimizer, with the distributed
   *  optimizer): bytes of a parameter's main copy (main-params-dtype), gradient buffer
   *  (main-grads-dtype) and Adam moments (exp-avg-dtype, exp-avg-sq-dtype); fp32 (4) otherwise. */
  bool precision_aware_optimizer = false;
  double main_params_bytes = 4, main_grads_bytes = 4, exp_avg_bytes = 4, exp_avg_sq_bytes = 4;
  /** fp8-param-gather: the layers' GEMM weights are FP8 parameters (Transformer Engine's
   *  fp8_model_init), a byte each plus their cached transpose, and gathered in FP8. */
  bool fp8_param_gather = false;

  uint32_t recompute_num_layers = 1; ///< full recomputation: layers per recomputed group
  /** Selective recomputation's modules (Megatron-Core's recompute-modules), a bit each
   *  (RecomputeModule); core attention alone unless given. */
  uint32_t recompute_modules = 1;
  /** Whether selective recomputation runs `module` again in the backward. */
  bool recomputes(uint32_t module) const
  {
    return recompute_granularity == Recompute::selective && (recompute_modules & module) != 0;
  }

  // derived by make_config
  /** Virtual stages per pipeline rank (1 without interleaving). */
  uint32_t virtual_stages() const;
  /** The layers split over the pipeline: num_layers, plus the embedding and the loss where they count. */
  uint32_t split_layers() const;
  /** Pipeline rank `rank`'s share of the split (Megatron-Core's get_num_layers_to_build: the first
   *  and last stages' own counts when given, the rest shared evenly). */
  uint32_t stage_slots(uint32_t rank) const;
  /** The transformer layers of model chunk `chunk` of pipeline rank `rank` (its share of the stage's
   *  slots, one fewer for the embedding or the loss where they count), and of the whole rank. */
  uint32_t chunk_layers(uint32_t rank, uint32_t chunk) const;
  uint32_t stage_layers(uint32_t rank) const;
  /** The model's index of chunk `chunk` of rank `rank`'s first layer: chunks hold the layers in
   *  Megatron's order (model chunk chunk x p + rank after all those before it). */
  uint32_t chunk_first_layer(uint32_t rank, uint32_t chunk) const;
  /** The attention's widths per token over all heads (before TP): queries, keys and values as the
   *  attention kernel reads them (after MLA's up-projections), its output (the projection's
   *  input); and a head's dimension for the scores and for the values. */
  uint64_t query_width() const;
  uint64_t key_width() const;
  uint64_t value_width() const;
  uint64_t output_width() const;
  uint64_t score_head_dim() const;
  uint64_t value_head_dim() const;
  /** Whether layer `layer` (from 0) is a MoE layer. */
  bool moe_layer(uint32_t layer) const;
  /** The MoE layers among those of a chunk, of a stage, of the model. */
  uint32_t chunk_moe_layers(uint32_t rank, uint32_t chunk) const;
  uint32_t stage_moe_layers(uint32_t rank) const;
  uint32_t moe_layer_count() const;
  /** Micro-batches per iteration and data-parallel replica. */
  uint32_t microbatches() const;
  uint64_t gpus() const;
  /** Bytes of a gradient as the data-parallel group reduces it (and the main gradient buffer holds
   *  it): 4 or 2. */
  double grad_bytes() const;

  /** Megatron-LM arguments the description gave that change nothing sgai predicts (data, logging,
   *  checkpoints, learning-rate schedule, ...), in the order given: make_config accepts them. */
  std::vector<std::string> unmodelled;
  /** What make_config took in their place where Megatron-LM derives a value sgai cannot (the
   *  vocabulary of a tokenizer file), one line each. */
  std::vector<std::string> notes;
};

/** Where each setting came from, for messages: a file and a place ("line 4", "at /num-layers") or
 *  the command line ("--num-layers"). */
struct Setting {
  std::string key; ///< Megatron's name, with dashes: "num-layers"
  std::string value;
  std::string file;  ///< empty: the command line
  std::string place; ///< "line 4", "at /num-layers", or the flag
  /** Given as null (JSON null, YAML ~ or nothing): not set, as Megatron-LM's None; the key is
   *  still checked. */
  bool unset = false;
};

/** The most forward passes (micro-batches x pipeline stages x virtual stages) a description may
 *  make: the prediction schedules every one of them. */
constexpr uint64_t kMaxPipelinePasses = 1 << 20;

/** Every key a description may hold, with dashes, in the order docs/training.md lists them. */
const std::vector<std::string>& known_keys();
/** Megatron-LM's arguments that a description may hold and that change nothing sgai predicts, each
 *  with the values it takes on a command line: 0 (a switch), 1, or -1 (one or more). Accepted,
 *  listed in TrainingConfig::unmodelled. */
const std::vector<std::pair<std::string, int>>& unmodelled_keys();
/** Megatron-LM's older or other names for what known keys say (Megatron-LM 2021's
 *  activations-checkpoint-method, use-flash-attn, ...): each alias with its arity as above. */
const std::vector<std::pair<std::string, int>>& alias_keys();
/** Whether a key takes true or false (Megatron's store_true flags: swiglu, sequence-parallel, ...). */
bool is_boolean_key(const std::string& key);
/** Megatron-Core's pipeline-model-parallel-layout unrolled ("Et*3|(tt|)*29,m|L": "(...)*n" and
 *  "x*n" repeated, commas and spaces dropped, split at "|"): each virtual stage's layer letters (E,
 *  t, m, L) in Megatron's order; std::invalid_argument saying what is wrong (a letter, a '*'
 *  without its count or its layer, more than 2^20 letters). */
std::vector<std::string> unroll_layout(const std::string& layout);
/** Whether a known key takes several values (recompute-modules): a list in a file, several words
 *  after the flag, or one string of them separated by spaces or commas. */
bool is_list_key(const std::string& key);

/** The settings of a JSON or YAML file (by extension, else by its first character): one flat
 *  mapping of Megatron's keys (dashes or underscores) to single values; "sgai_training": 1 may
 *  name the format. InputError naming the file and place on anything else (unknown keys listing
 *  the known ones, a key given twice, a list or a mapping as a value). */
std::vector<Setting> read_settings(const std::filesystem::path& file);

/** The description from settings (a file's, then the command line's, which override), checked as
 *  Megatron-LM checks its arguments and more: each value's type and bounds; TP dividing the heads
 *  and the query groups, PP (and the virtual stages) dividing the layers, TP x PP x CP x DP the
 *  GPU count (`gpus`, 0: DP must be given), the global batch a multiple of micro-batch x DP, CP
 *  dividing half the sequence (load-balanced causal attention), EP dividing the experts and DP x
 *  CP. InputError naming the setting's file and place (UsageError for a flag), its key and value. */
TrainingConfig make_config(const std::vector<Setting>& settings, uint64_t gpus);

/** A MoE model's dense layers (moe-layer-freq) as a configuration of their own: the same without
 *  experts, for what one such layer costs (its kernels, activations, TP traffic). */
TrainingConfig dense_layers_of(const TrainingConfig& c);

} // namespace sgai::training

#endif
