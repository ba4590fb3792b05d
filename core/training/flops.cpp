#include "core/training/flops.hpp"

namespace sgai::training {

namespace {

/** 12 B s L h^2 times each part of Megatron's count (forward and backward of the layers' GEMMs). */
struct Parts {
  double scale, attention, scores, mlp, logit;
};

Parts parts(const TrainingConfig& c)
{
  const double h = double(c.hidden_size), s = double(c.seq_length), L = double(c.num_layers);
  const double a = double(c.num_attention_heads), g = double(c.num_query_groups);
  const double query_ratio = double(c.kv_channels) * a / h;
  const double gated       = c.swiglu ? 1.5 : 1.0;
  double attention = (1 + g / a + s / h) * query_ratio, scores = s / h * query_ratio;
  if (c.multi_latent_attention) {
    // Megatron's count for MLA (training.py): per token and layer 6 x (the q and kv projections
    // through their latents, the rotary key, the output projection, and the core attention with
    // its causal half), over 12 h^2
    const double qk = double(c.qk_head_dim), rope = double(c.qk_pos_emb_head_dim), v = double(c.v_head_dim);
    const double q = double(c.q_lora_rank), kv = double(c.kv_lora_rank);
    const double q_term = q > 0 ? q * (h + a * (qk + rope) + 1) : h * a * (qk + rope);
    const double core   = s * a * (qk + rope) / 2 + s * a * v / 2;
    attention           = 6 * (q_term + kv * (h + a * (qk + v) + 1) + h * rope + a * v * h + core) / (12 * h * h);
    scores              = 6 * core / (12 * h * h);
  }
  // Megatron's count: the dense layers' FFN, the MoE layers' top-k routed experts and shared ones;
  // multi-token prediction's depths as that many more layers of the last layer's kind, their
  // norms and projections (6 (3 h + 2 h^2) a token each) and their logits (training.py)
  const double mtp       = double(c.mtp_num_layers);
  const bool last_moe    = c.num_experts > 0 && c.moe_layer(c.num_layers - 1);
  const double moe_n     = double(c.num_experts > 0 ? c.moe_layer_count() : 0) + (last_moe ? mtp : 0);
  const double dense_n   = L + mtp - moe_n;
  const double routed    = c.num_experts > 0 ? double(c.moe_ffn_hidden_size) * c.moe_router_topk +
                                                double(c.moe_shared_expert_intermediate_size)
                                             : 0.0;
  const double mlp       = (double(c.ffn_hidden_size) * dense_n + routed * moe_n) / L / h * gated;
  const double with_mtp  = (L + mtp) / L;
  const double mtp_extra = mtp * (3 * h + 2 * h * h) / (2 * L * h * h);
  const double logit     = double(c.padded_vocab_size) / (2 * L * h) * (1 + mtp);
  return {12 * double(c.global_batch_size) * s * L * h * h, attention * with_mtp + mtp_extra, scores * with_mtp, mlp,
          logit};
}

} // namespace

double megatron_flops(const TrainingConfig& c)
{
  const Parts p = parts(c);
  return p.scale * (p.attention + p.mlp + p.logit);
}

double hardware_flops(const TrainingConfig& c)
{
  const Parts p = parts(c);
  // the forward is a third of a layer's forward and backward
  double again = 0;
  if (c.recompute_granularity == Recompute::full)
    again = (p.attention + p.mlp) / 3;
  else if (c.recompute_granularity == Recompute::selective) {
    // the modules run again (recompute-modules): the core attention's scores, a dense layer's
    // MLP, a MoE layer's routed and shared experts or its shared ones alone (MLA's up-projections
    // and the element-wise modules are not counted)
    const double L = double(c.num_layers), moe = c.num_experts > 0 ? double(c.moe_layer_count()) / L : 0.0;
    const double h = double(c.hidden_size), gated = c.swiglu ? 1.5 : 1.0;
    if (c.recomputes(kCoreAttn))
      again += p.scores / 3;
    if (c.recomputes(kMlp))
      again += double(c.ffn_hidden_size) * (1 - moe) / h * gated / 3;
    if (c.recomputes(kMoe))
      again += (double(c.moe_ffn_hidden_size) * c.moe_router_topk + double(c.moe_shared_expert_intermediate_size)) *
               moe / h * gated / 3;
    else if (c.recomputes(kSharedExperts))
      again += double(c.moe_shared_expert_intermediate_size) * moe / h * gated / 3;
  }
  return p.scale * (p.attention + p.mlp + p.logit + again);
}

double tokens_per_iteration(const TrainingConfig& c)
{
  return double(c.global_batch_size) * double(c.seq_length);
}

} // namespace sgai::training
