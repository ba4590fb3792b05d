/* The FLOPs of one training iteration as Megatron-LM counts them for its throughput and MFU. */
#ifndef SGAI_CORE_TRAINING_FLOPS_HPP
#define SGAI_CORE_TRAINING_FLOPS_HPP

#include "core/training/config.hpp"

namespace sgai::training {

/** Megatron-LM's count of one iteration's floating-point operations (megatron/training/training.py,
 *  num_floating_point_operations, as of the H100 scaling table of July 2024):
 *  12 B s L h^2 [ (1 + g/a + s/h) (k a / h) + (f / h) e (3/2 if SwiGLU) + V / (2 L h) ]
 *  with global batch B, sequence s, layers L, hidden h, query groups g of a heads, head size k,
 *  FFN size f, e experts routed to (1 for a dense model), padded vocabulary V: forward and
 *  backward (x3) of every GEMM (x2 per multiply-add), attention scores unmasked, the LM head. No
 *  recomputation counted: it is the model's work, not the GPUs'. */
double megatron_flops(const TrainingConfig& c);

/** The FLOPs the GPUs run, recomputation counted (Korthikanti et al. 2022's hardware FLOPs, and
 *  Narayanan et al. 2021's count, 96 B s L h^2 (1 + s/6h + V/16Lh) under full recomputation):
 *  Megatron's count plus the recomputed forward, every layer's (full) or the core attention's score
 *  and context products (selective: 4 B s^2 L k a, unmasked as Megatron counts them). */
double hardware_flops(const TrainingConfig& c);

/** Tokens per iteration: global batch x sequence. */
double tokens_per_iteration(const TrainingConfig& c);

} // namespace sgai::training

#endif
