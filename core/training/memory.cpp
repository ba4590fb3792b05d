#include "core/training/memory.hpp"

#include <algorithm>

namespace sgai::training {

namespace {

double gated(const TrainingConfig& c)
{
  return c.swiglu ? 1.5 : 1.0;
}

/** Tokens a GPU's MoE layer processes for each local token: top-k copies, the busiest share. */
double expert_copies(const TrainingConfig& c)
{
  return double(c.moe_router_topk) * c.expert_load();
}

} // namespace

ParameterCount count_parameters(const TrainingConfig& c)
{
  ParameterCount p;
  const double h = double(c.hidden_size), qproj = double(c.kv_channels) * c.num_attention_heads;
  if (c.multi_latent_attention) {
    // Megatron-Core's MLA: the queries' up-projection (or their one projection), the keys' and
    // values' up-projection and the output projection split by TP; the down-projections (the
    // latents and the shared rotary key) and the latents' norms whole
    const double a = c.num_attention_heads, q = double(c.q_lora_rank), kv = double(c.kv_lora_rank);
    const double norm_size = c.rms_norm ? 1 : 2;
    p.attention_per_layer  = (q > 0 ? q : h) * double(c.query_width()) + kv * a * double(c.qk_head_dim + c.v_head_dim) +
                            double(c.output_width()) * h;
    p.attention_whole_per_layer =
        (q > 0 ? h * q + norm_size * q : 0) + h * (kv + double(c.qk_pos_emb_head_dim)) + norm_size * kv;
  } else
    p.attention_per_layer = 2 * h * qproj * (1 + double(c.num_query_groups) / c.num_attention_heads);
  p.dense_mlp_per_layer = 2 * h * double(c.ffn_hidden_size) * gated(c);
  if (c.num_experts > 0) {
    p.mlp_per_layer    = double(c.num_experts) * 2 * h * double(c.moe_ffn_hidden_size) * gated(c) + h * c.num_experts;
    p.shared_per_layer = 2 * h * double(c.moe_shared_expert_intermediate_size) * gated(c);
  } else
    p.mlp_per_layer = 2 * h * double(c.ffn_hidden_size) * gated(c);
  double norm       = c.rms_norm ? h : 2 * h;
  p.norms_per_layer = 2 * norm;
  p.embedding       = double(c.padded_vocab_size) * h;
  p.positions       = c.learned_positions ? double(c.max_position_embeddings) * h : 0.0;
  // every layer's attention and norms; the MoE layers' experts, the dense layers' FFN
  const double moe = c.num_experts > 0 ? double(c.moe_layer_count()) : 0.0, dense = double(c.num_layers) - moe;
  p.total = double(c.num_layers) * (p.attention_per_layer + p.attention_whole_per_layer + p.norms_per_layer) +
            moe * (p.mlp_per_layer + p.shared_per_layer) + dense * p.dense_mlp_per_layer + norm +
            p.embedding * (c.untie_embeddings_and_output_weights ? 2 : 1) + p.positions;
  // multi-token prediction: per depth a layer of the last layer's kind, the projection of the
  // joined hidden state and embedding (2 h x h) and three norms (Megatron-Core's MTP layer)
  const bool last_moe = c.num_experts > 0 && c.moe_layer(c.num_layers - 1);
  const double layer  = p.attention_per_layer + p.attention_whole_per_layer + p.norms_per_layer +
                       (last_moe ? p.mlp_per_layer + p.shared_per_layer : p.dense_mlp_per_layer);
  p.mtp = double(c.mtp_num_layers) * (layer + 2 * h * h + 3 * norm);
  return p;
}

double activation_bytes_per_layer(const TrainingConfig& c)
{
  const double t = c.tensor_model_parallel_size;
  const double s = double(c.seq_length) / c.context_parallel_size, b = c.micro_batch_size;
  const double h = double(c.hidden_size), a = c.num_attention_heads;
  // keys and values (after MLA's up-projections)
  const double kv = double(c.key_width() + c.value_width());
  const bool moe  = c.num_experts > 0;
  const double f  = moe ? double(c.moe_ffn_hidden_size) * expert_copies(c) : double(c.ffn_hidden_size);
  // whole on each TP rank unless sequence parallel: norm inputs, QKV input, FC1 input, dropout
  // masks; a MoE layer's experts read the routed copies their rank received (top-k of the TP
  // group's local tokens), gathered over the experts' TP: s b / t x top-k x ETP tokens whatever SP
  // Transformer Engine keeps the inputs of the weight gradients' GEMMs in FP8 (its Linear saves
  // the FP8 cast, or its transpose): a byte an element, not two, for QKV's, FC1's, the
  // projection's and FC2's inputs
  const double fp8     = c.precision == Precision::fp8 ? 0.5 : 1.0;
  const double norm_in = 4 * s * b * h, qkv_in = 2 * s * b * h * fp8;
  const double fc1_in = moe ? 0 : 2 * s * b * h * fp8;
  const double masks  = c.hidden_dropout > 0 ? 2 * s * b * h : 0;
  double routed       = moe ? 2 * s * b * h * expert_copies(c) * c.etp() / t * fp8 : 0;
  // sharded by TP: Q and the output projection's input, K and V, the FFN's activations (FC1's
  // output, and the activation's, FC2's input)
  const double query = 2 * s * b * double(c.query_width()), out_in = 2 * s * b * double(c.output_width()) * fp8;
  const double keys_values = 2 * s * b * kv;
  double fc1_out = (c.swiglu ? 4 : 2) * s * b * f, fc2_in = 2 * s * b * f * fp8;
  // shared experts: a dense FFN of their size on every token (its input, the norm's output, whole)
  const double shared = moe ? double(c.moe_shared_expert_intermediate_size) : 0;
  double shared_in    = shared > 0 ? 2 * s * b * h * fp8 : 0;
  double shared_act   = shared > 0 ? (c.swiglu ? 4 : 2) * s * b * shared + 2 * s * b * shared * fp8 : 0;
  double scores       = 0;
  if (not c.recomputes(kCoreAttn)) {
    if (c.fused_attention)
      scores = 4 * s * b * a; // fp32 softmax statistics per query row and head
    else
      scores = (2 + (c.attention_dropout > 0 ? 3 : 0)) * a * s * s * b;
  }
  // selective recomputation's modules (recompute-modules) keep less: the norms' outputs (QKV's,
  // FC1's and the shared experts' inputs), MLA's up-projected queries, keys and values, the
  // experts' activation output, a dense MLP's activations (its input kept), a MoE layer's routed
  // copies and expert activations and its shared experts' (its input kept), the shared experts'
  double up = 0;
  if (c.recomputes(kMlaUpProj) && c.multi_latent_attention)
    up = query + keys_values;
  const bool layernorm = c.recomputes(kLayernorm);
  if (moe && c.recomputes(kMoe)) {
    routed = fc1_out = fc2_in = 0;
    shared_in = shared_act = 0;
  }
  if (moe && c.recomputes(kSharedExperts))
    shared_act = 0;
  if (moe && c.recomputes(kMoeAct))
    fc2_in = 0;
  if (not moe && c.recomputes(kMlp))
    fc1_out = fc2_in = 0;
  const double whole   = norm_in + (layernorm ? 0 : qkv_in + fc1_in + shared_in) + masks;
  const double sharded = query + out_in + keys_values - up + fc1_out + fc2_in + shared_act;
  // MLA's latents: the down-projections' outputs, on the gathered sequence on every TP rank
  const double latents =
      c.multi_latent_attention ? 2 * s * b * double(c.q_lora_rank + c.kv_lora_rank + c.qk_pos_emb_head_dim) : 0;
  return (c.sequence_parallel ? whole / t : whole) + (sharded + scores) / t + latents + routed;
}

std::vector<StageMemory> memory_per_stage(const TrainingConfig& c)
{
  const ParameterCount p = count_parameters(c);
  const uint32_t pp = c.pipeline_model_parallel_size, v = c.virtual_stages(), m = c.microbatches();
  const double t  = c.tensor_model_parallel_size;
  const double d  = double(c.data_parallel_size) * c.context_parallel_size; // the optimizer's replicas
  const double ep = c.expert_model_parallel_size;
  const bool moe  = c.num_experts > 0;
  const double s = double(c.seq_length) / c.context_parallel_size, b = c.micro_batch_size;
  const double h = double(c.hidden_size);

  // bytes per parameter: weights, main gradients, optimizer state (Megatron's table)
  const bool fp16      = c.precision == Precision::fp16;
  const double w_bytes = 2;
  const double g_bytes = c.grad_bytes();
  // (the precision-aware optimizer's main parameters and two moments in their own types)
  const double opt_bytes = c.precision_aware_optimizer ? c.main_params_bytes + c.exp_avg_bytes + c.exp_avg_sq_bytes
                           : fp16                      ? 16
                                                       : 12;
  const double layer_act = activation_bytes_per_layer(c);
  // a MoE model's dense layers (moe-layer-freq) keep a dense layer's activations
  const double dense_act =
      moe && c.moe_layer_count() < c.num_layers ? activation_bytes_per_layer(dense_layers_of(c)) : layer_act;

  std::vector<StageMemory> out;
  for (uint32_t i = 0; i < pp; ++i) {
    StageMemory st;
    const uint32_t layers = c.stage_layers(i);
    st.stage              = i;
    st.layers             = layers;
    // dense parameters (sharded by TP, norms and routers whole) and expert parameters (sharded by
    // EP and TP); a MoE model's dense layers hold a dense FFN
    const uint32_t moe_layers = moe ? c.stage_moe_layers(i) : 0, dense_layers = layers - moe_layers;
    const double router = moe ? h * c.num_experts : 0;
    const double expert = moe ? p.mlp_per_layer - router : 0;
    // multi-token prediction's depths on the last stage: a layer of the last layer's kind each, its
    // projection (split by TP) and three norms
    const double mtp    = i == c.mtp_rank ? double(c.mtp_num_layers) : 0.0;
    const bool last_moe = moe && c.moe_layer(c.num_layers - 1);
    const double norm   = c.rms_norm ? h : 2 * h;
    const double split  = layers * p.attention_per_layer + moe_layers * p.shared_per_layer +
                         dense_layers * (moe ? p.dense_mlp_per_layer : p.mlp_per_layer) +
                         mtp * (p.attention_per_layer + 2 * h * h +
                                (last_moe ? p.shared_per_layer
                                 : moe    ? p.dense_mlp_per_layer
                                          : p.mlp_per_layer));
    const double kept = layers * (p.norms_per_layer + p.attention_whole_per_layer) + moe_layers * router +
                        mtp * (p.norms_per_layer + p.attention_whole_per_layer + 3 * norm + (last_moe ? router : 0));
    double dense = split / t + kept; // (sharded by TP; whole on each rank)
    if (i == 0) // (learned positions whole on every TP rank, as Megatron-Core's embedding holds them)
      dense += p.embedding / t + p.positions;
    if (i + 1 == pp) {
      dense += (c.rms_norm ? h : 2 * h); // the final norm
      if (c.untie_embeddings_and_output_weights || pp > 1)
        dense += p.embedding / t; // the LM head (a copy of the embedding when tied)
    }
    // multi-token prediction's embedding: the LM head's copy serves when tied on the same stage
    if (mtp > 0 && pp > 1 && (c.untie_embeddings_and_output_weights || i + 1 != pp))
      dense += p.embedding / t;
    double experts        = (moe_layers + (last_moe ? mtp : 0)) * expert / (ep * c.etp());
    st.parameters         = dense + experts;
    const double expert_d = c.expert_data_parallel_size(); // (TP x CP x DP / (ETP x EP))
    if (c.use_torch_fsdp2) {
      double layer_params = (p.attention_per_layer + p.mlp_per_layer) / t; // one layer gathered at a time
      st.weight_bytes     = w_bytes * (dense / d + experts / expert_d + layer_params);
      st.gradient_bytes   = g_bytes * (dense / d + experts / expert_d);
      st.optimizer_bytes  = opt_bytes * (dense / d + experts / expert_d);
    } else {
      // under FP8, Transformer Engine caches each GEMM weight's FP8 copy and its transpose between
      // micro-batches (weight1_fp8, weight1_t_fp8): 2 bytes more a layer parameter. With
      // fp8-param-gather the GEMM weights are FP8 parameters themselves: a byte each and the
      // cached transpose's byte, the 2 bytes counted above, and no copy.
      const double fp8_cache = c.precision == Precision::fp8 && not c.fp8_param_gather
                                   ? 2 * (split / t + layers * p.attention_whole_per_layer + experts)
                                   : 0; // (MLA's whole down-projections too)
      st.weight_bytes        = w_bytes * st.parameters + fp8_cache;
      st.gradient_bytes      = g_bytes * st.parameters;
      st.optimizer_bytes =
          c.use_distributed_optimizer ? opt_bytes * (dense / d + experts / expert_d) : opt_bytes * st.parameters;
    }
    // activations in flight
    double per_microbatch = 0;
    if (c.recompute_granularity == Recompute::full) {
      double input   = 2 * s * b * h / (c.sequence_parallel ? t : 1);
      per_microbatch = double(layers) / c.recompute_num_layers * input;
    } else {
      per_microbatch = moe_layers * layer_act + dense_layers * dense_act;
    }
    double act = 0;
    if (v > 1) {
      uint64_t chunks = std::min<uint64_t>(2ull * (pp - i - 1) + uint64_t(v - 1) * pp + 1, uint64_t(m) * v);
      st.inflight     = uint32_t((chunks + v - 1) / v);
      act             = double(chunks) * per_microbatch / v;
    } else {
      st.inflight = pp == 1 ? 1 : std::min(pp - i, m);
      act         = st.inflight * per_microbatch;
    }
    if (c.recompute_granularity == Recompute::full)
      act += c.recompute_num_layers * std::max(layer_act, dense_act); // the group being recomputed
    if (i + 1 == pp)
      act += 4 * s * b * double(c.padded_vocab_size) / t; // fp32 logits for the loss
    // multi-token prediction: each depth's layer with the micro-batches in flight, its inputs
    // (the embedding's and the hidden state's norms and their joined 2 h, the final norm's), and
    // its own logits for its loss
    act += mtp * (st.inflight * (last_moe ? layer_act : dense_act) + 10 * s * b * h / (c.sequence_parallel ? t : 1) +
                  4 * s * b * double(c.padded_vocab_size) / t);
    st.activation_bytes = act;
    st.total_bytes      = st.weight_bytes + st.gradient_bytes + st.optimizer_bytes + st.activation_bytes;
    out.push_back(st);
  }
  return out;
}

} // namespace sgai::training
