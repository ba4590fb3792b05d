/* Memory per GPU of each pipeline stage: parameters, gradients and optimizer state under each
 * sharding, activations (Korthikanti et al. 2022) with and without recomputation, in flight as
 * the pipeline schedule keeps them. */
#ifndef SGAI_CORE_TRAINING_MEMORY_HPP
#define SGAI_CORE_TRAINING_MEMORY_HPP

#include "core/training/config.hpp"

#include <cstdint>
#include <vector>

namespace sgai::training {

/** Parameters of the model, by kind (whole model, before any sharding). */
struct ParameterCount {
  double attention_per_layer       = 0; ///< QKV and output projections: 2 h (k a)(1 + g/a); MLA: those split by TP
  double attention_whole_per_layer = 0; ///< MLA: its down-projections and latent norms, whole on each TP rank
  double mlp_per_layer             = 0; ///< dense: 2 h f (x 3/2 SwiGLU); MoE: every routed expert, and the router
  double shared_per_layer          = 0; ///< MoE: the shared experts, 2 h S (x 3/2 SwiGLU), sharded by TP only
  double dense_mlp_per_layer       = 0; ///< a dense layer's FFN, 2 h f (x 3/2 SwiGLU) (a MoE model's dense layers)
  double norms_per_layer           = 0; ///< two norms: 2 h (LayerNorm: weight and bias) or h each (RMSNorm)
  double embedding                 = 0; ///< V h (the LM head shares it unless untied)
  double positions                 = 0; ///< learned positions: max-position-embeddings x h, on the first stage
  /** Multi-token prediction's modules, all depths: each a layer of the last layer's kind, its
   *  projection 2 h^2 and three norms (the embedding and the LM head are the model's); not in total,
   *  as DeepSeek-V3's 671 B leaves its 14 B of MTP out. */
  double mtp   = 0;
  double total = 0;
};
ParameterCount count_parameters(const TrainingConfig& c);

/** Activation bytes one transformer layer keeps for one micro-batch on one GPU, by the formulas of
 *  Korthikanti et al. 2022 (§4.1, Table 2) generalized to grouped-query attention (K and V of g
 *  groups), a SwiGLU FFN (gate and up kept) and the sequence split by CP: with s the local sequence
 *  s / CP, b the micro-batch, t = TP,
 *    kept whole on each TP rank (sharded by t with sequence parallelism): the two norms' inputs
 *    4 sbh, the QKV and FC1 inputs 4 sbh, the two dropout masks 2 sbh (none when hidden-dropout
 *    is 0);
 *    sharded by t: Q and the projection input 4 s b k a, K and V 4 s b k g, FFN activations 4 s b f
 *    (GeLU: its input and FC2's) or 6 s b f (SwiGLU);
 *    without a fused attention kernel: scores' softmax and dropout 5 a s^2 b / t (4 s b a / t
 *    bytes of softmax statistics with one).
 *  Selective recomputation drops the score terms; full recomputation keeps 2 sbh (/t with SP) per
 *  group of recompute-num-layers layers, plus one group's whole activations while it recomputes.
 *  Bytes of 16-bit values (masks one byte). MoE layers hold each token top-k times, times the load
 *  imbalance, in their FFN part; their shared experts, a dense FFN's input (whole) and activations.
 *  Multi-latent attention keeps its queries, keys and values after the up-projections (heads of
 *  score and value dimensions in place of k) and its latents, whole on every TP rank. */
double activation_bytes_per_layer(const TrainingConfig& c);

struct StageMemory {
  uint32_t stage          = 0;
  uint32_t layers         = 0; ///< transformer layers on each GPU of the stage
  double parameters       = 0; ///< on one GPU of the stage, after TP, EP (and FSDP) sharding
  double weight_bytes     = 0; ///< parameters (and, with FSDP, one layer gathered)
  double gradient_bytes   = 0;
  double optimizer_bytes  = 0; ///< fp32 main parameters and Adam's two moments
  uint32_t inflight       = 0; ///< micro-batches whose activations the schedule keeps at once
  double activation_bytes = 0;
  double total_bytes      = 0;
};

/** Each pipeline stage's memory on one of its GPUs, first stage first. Bytes per parameter as
 *  Megatron-LM's distributed-optimizer guide tabulates them (bf16 parameters and fp32 main
 *  gradients: 18, or 6 + 12/d with the distributed optimizer over the d = DP x CP replicas;
 *  fp16: 20, or 4 + 16/d), FSDP sharding all 18 (20) over d; FP8 as bf16 (Transformer Engine
 *  keeps bf16 weights, its FP8 copies are transient). In flight: 1F1B keeps min(p - i, m)
 *  micro-batches on stage i; the interleaved schedule 2 (p - i - 1) + (v - 1) p + 1 model chunks of
 *  L / (p v) layers. The first stage holds the embedding and its output; the last the LM head and
 *  its fp32 logits (4 s b V / t). */
std::vector<StageMemory> memory_per_stage(const TrainingConfig& c);

} // namespace sgai::training

#endif
