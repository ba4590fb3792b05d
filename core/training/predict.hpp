/* One training iteration predicted from its description, a GPU's kernel figures and NCCL's model of
 * the platform's collectives: each GPU's kernels per layer (GEMMs by tile and wave, fused attention
 * at published throughput, streaming kernels at a fraction of HBM bandwidth), tensor, context and
 * expert communication per layer, Megatron-Core's pipeline schedule, the data-parallel gradient
 * reduction and parameter gathering with their overlap, and the optimizer step. Analytic: no
 * SimGrid, no contention between groups (docs/training.md says what is simplified). */
#ifndef SGAI_CORE_TRAINING_PREDICT_HPP
#define SGAI_CORE_TRAINING_PREDICT_HPP

#include "core/collectives/nccl.hpp"
#include "core/kernels/gemm.hpp"
#include "core/training/config.hpp"
#include "core/training/traffic.hpp"

#include <optional>
#include <string>
#include <vector>

namespace sgai::training {

/** Published fused-attention throughput by sequence length (FLOP/s as FlashAttention counts them). */
struct AttentionRates {
  std::string kernel;
  std::vector<double> seq, forward, forward_causal, backward;
};

/** One GPU's kernel figures at the run's precision. */
struct GpuKernels {
  std::string name;
  kernels::MatmulDevice matmul; ///< SMs, dense peak at the precision, tile fraction, HBM bandwidth
  double stream_Bps = 0;        ///< what streaming kernels reach: HBM bandwidth x the stream fraction
  double peak_bf16  = 0;        ///< for MFU (Megatron states MFU against the BF16 dense peak)
  AttentionRates attention;     ///< empty seq: attention priced as GEMMs
};

/** The platform as the prediction sees it: NCCL's view of a node and the GPUs per node, and the
 *  algorithm and protocol a run forces on NCCL's ring collectives (NCCL_ALGO, NCCL_PROTO; unset:
 *  NCCL's tuning model chooses). */
struct Fabric {
  collectives::nccl::System nccl;
  uint32_t gpus_per_node = 8;
  std::optional<collectives::nccl::Algo> algo;
  std::optional<collectives::nccl::Proto> proto;
};

/** Times of one transformer layer's passes for one micro-batch on one GPU. */
struct LayerTimes {
  double gemm_fwd = 0, gemm_bwd = 0;           ///< dense or expert GEMMs
  double attention_fwd = 0, attention_bwd = 0; ///< the fused attention kernel
  double stream_fwd = 0, stream_bwd = 0;       ///< norms, dropout-adds, activation, router
  double tp_fwd = 0, tp_bwd = 0;               ///< exposed tensor-parallel communication
  double cp_fwd = 0, cp_bwd = 0;               ///< exposed ring-attention transfers
  double ep_fwd = 0, ep_bwd = 0;               ///< MoE dispatch and combine all-to-alls
  double forward() const { return gemm_fwd + attention_fwd + stream_fwd + tp_fwd + cp_fwd + ep_fwd; }
  double backward() const { return gemm_bwd + attention_bwd + stream_bwd + tp_bwd + cp_bwd + ep_bwd; }
};

/** Where one iteration's time goes on the GPU that finishes last. */
struct Breakdown {
  double compute_s   = 0; ///< kernels
  double tp_s        = 0; ///< exposed TP communication
  double cp_s        = 0;
  double ep_s        = 0;
  double bubble_s    = 0; ///< the pipeline's idle time (fill, drain, waits for neighbours)
  double dp_s        = 0; ///< exposed data-parallel communication (gradients, parameters)
  double optimizer_s = 0;
};

/** What one pipeline rank does with one of its model chunks (model chunk c p + r holds L / (p v)
 *  layers; the first stage's first chunk also the embedding, the last stage's last the LM head). */
struct ChunkPlan {
  double fwd = 0, bwd = 0;       ///< pass times of one micro-batch: kernels and exposed TP / CP / EP
  double kernels = 0;            ///< its kernels alone, forward + backward
  double tp = 0, cp = 0, ep = 0; ///< its exposed per-layer communication, forward + backward
  double params    = 0;          ///< parameters on one GPU
  double gathered  = 0;          ///< their bytes as the distributed optimizer gathers them
  uint32_t buckets = 1;          ///< gradient buckets (Megatron's DDP buckets the first stage's first chunk)
};

/** A span of one pipeline stage's timeline: a pass (lane 0) or a data-parallel collective (lane 1). */
struct Span {
  uint32_t stage = 0;
  uint8_t lane   = 0;
  double start_s = 0, duration_s = 0;
  std::string name; ///< "F3.1" (forward, micro-batch 3, chunk 1), "B3.1", "reduce-scatter", ...
};

/** Energy of one iteration, by part, with how each is counted (docs/training.md). */
struct Energy {
  double gpu_j     = 0; ///< kernels at the P-state's full-load power, the rest of the iteration idle
  double cpu_j     = 0; ///< the nodes' processors at their rated power (HDeepRM's "power")
  double network_j = 0; ///< the nodes' network links: busy while their GPUs communicate, idle otherwise
  double total() const { return gpu_j + cpu_j + network_j; }
};

struct Prediction {
  double iteration_s    = 0;
  double tokens_per_s   = 0;
  double tflops_per_gpu = 0; ///< Megatron's FLOP count over GPUs and time, 1e12
  double mfu            = 0; ///< of the BF16 dense peak
  /** The same with the recomputed forward counted (hardware FLOPs; equal without recomputation). */
  double hardware_tflops_per_gpu = 0;
  double hfu                     = 0;
  uint32_t slowest_stage         = 0;
  Breakdown breakdown;
  LayerTimes layer;       ///< a transformer layer (a MoE model's: a MoE layer)
  LayerTimes dense_layer; ///< a MoE model's dense layer (moe-layer-freq); otherwise `layer`
  double embedding_fwd = 0, embedding_bwd = 0;
  double head_fwd = 0, head_bwd = 0; ///< LM head GEMMs and the cross-entropy, per micro-batch
  /** Multi-token prediction's depths on the last stage, per micro-batch: each its layer, its
   *  embedding lookup, norms and projection, and the LM head and loss again (their kernels: mtp_kernels). */
  double mtp_fwd = 0, mtp_bwd = 0, mtp_kernels = 0;
  double p2p_s       = 0;                  ///< one activation across a pipeline boundary
  double dp_reduce_s = 0, dp_gather_s = 0; ///< the first stage's whole gradient reduction and parameter gathering
  /** How much slower the layers' GEMMs and attention run for the SMs the overlapped data-parallel
   *  collectives take (dp_sm_share in predict.cpp; included in `layer`): 0.05 is 5% */
  double dp_sm_share = 0;
  std::vector<double> stage_end_s;       ///< each pipeline stage's end of its last pass
  std::vector<double> stage_busy_s;      ///< each stage's kernel time (its GPUs' energy)
  std::vector<double> stage_comm_s;      ///< each stage's time in DP collectives and exposed TP/CP/EP
  std::vector<Span> spans;               ///< every pass and DP collective of every stage (when asked)
  std::vector<ChunkPlan> chunks;         ///< [stage v + chunk]
  std::vector<double> stage_optimizer_s; ///< each stage's optimizer step
};

/** The iteration's energy on a platform of `gpus_per_node` GPUs a node: every GPU of stage r busy
 *  at `gpu_busy_w` for stage_busy_s[r], at `gpu_idle_w` the rest; each node's processors at
 *  `node_cpu_w`; each node's network links at `nic_busy_w` while its GPUs communicate (the
 *  stage's stage_comm_s), `nic_idle_w` otherwise. */
Energy iteration_energy(const TrainingConfig& c, const Prediction& p, uint32_t gpus_per_node, double gpu_busy_w,
                        double gpu_idle_w, double node_cpu_w, double nic_idle_w, double nic_busy_w);

/** A collective's time by NCCL's model on the fabric, for `ranks` GPUs `per_node` to a node
 *  (rail-optimized: across nodes each GPU has its share of the node's NICs), with the fabric's
 *  forced algorithm and protocol (std::invalid_argument naming them when NCCL could not run the
 *  collective so); all-to-all and send/receive, which NCCL does not tune, at the slowest path's
 *  rate plus its latency. */
double collective_time(const Fabric& f, Collective type, uint32_t ranks, uint32_t per_node, double bytes);

/** GPUs of one group per node under Megatron's rank order (tensor, context, data, pipeline
 *  innermost first): a group of `size` ranks `stride` apart. */
uint32_t ranks_per_node(uint32_t size, uint32_t stride, uint32_t gpus_per_node);

/** A transformer layer's pass times (kernels and exposed per-layer communication). */
LayerTimes layer_times(const TrainingConfig& c, const GpuKernels& g, const Fabric& f);

/** The whole iteration; `spans` also lists every pass and DP collective (for a timeline).
 *  std::invalid_argument when the GPU has no figures for the run's precision. */
Prediction predict_iteration(const TrainingConfig& c, const GpuKernels& g, const Fabric& f, bool spans = false);

} // namespace sgai::training

#endif
