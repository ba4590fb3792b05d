/* Megatron-LM's argument names that a training description may hold beyond the modelled ones
 * (config.cpp's keys()): those that change nothing sgai predicts, their arities, the older names of
 * modelled ones, and which keys are switches. */
#include "core/training/config.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace sgai::training {

namespace {

/** Megatron-LM's arguments before 2025 that change nothing sgai predicts (unmodelled_keys). */
std::vector<std::pair<std::string, int>> classic_unmodelled()
{
  // Megatron-LM's arguments.py: the learning-rate schedule and optimizer hyperparameters, loss
  // scaling, initialization, run length, evaluation, logging, checkpoints, data and tokenizer,
  // process setup; kernel fusions, rotary settings and bias switches (their kernels' cost is
  // not priced apart); FP8 bookkeeping; the MoE router's losses and kernels (the all-to-all
  // dispatcher and per-expert GEMMs are what is priced)
  return {
      {"lr", 1},
      {"min-lr", 1},
      {"lr-decay-style", 1},
      {"lr-decay-iters", 1},
      {"lr-decay-samples", 1},
      {"lr-warmup-fraction", 1},
      {"lr-warmup-iters", 1},
      {"lr-warmup-samples", 1},
      {"lr-warmup-init", 1},
      {"decoupled-lr", 1},
      {"decoupled-min-lr", 1},
      {"weight-decay", 1},
      {"start-weight-decay", 1},
      {"end-weight-decay", 1},
      {"weight-decay-incr-style", 1},
      {"clip-grad", 1},
      {"adam-beta1", 1},
      {"adam-beta2", 1},
      {"adam-eps", 1},
      {"sgd-momentum", 1},
      {"loss-scale", 1},
      {"initial-loss-scale", 1},
      {"min-loss-scale", 1},
      {"loss-scale-window", 1},
      {"hysteresis", 1},
      {"init-method-std", 1},
      {"init-method-xavier-uniform", 0},
      {"seed", 1},
      {"train-iters", 1},
      {"train-samples", 1},
      {"step-batch-size-schedule", 1},
      {"rampup-batch-size", -1},
      {"exit-interval", 1},
      {"exit-duration-in-mins", 1},
      {"exit-signal-handler", 0},
      {"eval-iters", 1},
      {"eval-interval", 1},
      {"log-interval", 1},
      {"log-throughput", 0},
      {"log-params-norm", 0},
      {"log-num-zeros-in-grad", 0},
      {"log-timers-to-tensorboard", 0},
      {"log-validation-ppl-to-tensorboard", 0},
      {"log-memory-to-tensorboard", 0},
      {"log-world-size-to-tensorboard", 0},
      {"tensorboard-dir", 1},
      {"tensorboard-log-interval", 1},
      {"timing-log-level", 1},
      {"wandb-project", 1},
      {"wandb-exp-name", 1},
      {"wandb-save-dir", 1},
      {"wandb-entity", 1},
      {"save", 1},
      {"load", 1},
      {"save-interval", 1},
      {"no-save-optim", 0},
      {"no-save-rng", 0},
      {"no-load-optim", 0},
      {"no-load-rng", 0},
      {"finetune", 0},
      {"use-checkpoint-args", 0},
      {"ckpt-format", 1},
      {"use-dist-ckpt", 0},
      {"auto-detect-ckpt-format", 0},
      {"no-ckpt-fully-parallel-save", 0},
      {"async-save", 0},
      {"data-path", -1},
      {"train-data-path", -1},
      {"valid-data-path", -1},
      {"test-data-path", -1},
      {"data-cache-path", 1},
      {"split", 1},
      {"mock-data", 0},
      {"vocab-file", 1},
      {"merge-file", 1},
      {"tokenizer-type", 1},
      {"tokenizer-model", 1},
      {"tiktoken-pattern", 1},
      {"num-workers", 1},
      {"dataloader-type", 1},
      {"no-mmap-bin-files", 0},
      {"no-create-attention-mask-in-dataloader", 0},
      {"reset-position-ids", 0},
      {"reset-attention-mask", 0},
      {"eod-mask-loss", 0},
      {"distributed-backend", 1},
      {"distributed-timeout-minutes", 1},
      {"use-mcore-models", 0},
      {"transformer-impl", 1},
      {"rotary-base", 1},
      {"rotary-percent", 1},
      {"rotary-seq-len-interpolation-factor", 1},
      {"group-query-attention", 0},
      {"disable-bias-linear", 0},
      {"apply-layernorm-1p", 0},
      {"apply-query-key-layer-scaling", 0},
      {"attention-softmax-in-fp32", 0},
      {"no-masked-softmax-fusion", 0},
      {"no-bias-gelu-fusion", 0},
      {"no-bias-dropout-fusion", 0},
      {"no-bias-swiglu-fusion", 0},
      {"no-rope-fusion", 0},
      {"no-gradient-accumulation-fusion", 0},
      {"no-persist-layer-norm", 0},
      {"cross-entropy-loss-fusion", 0},
      {"calculate-per-token-loss", 0},
      {"manual-gc", 0},
      {"manual-gc-interval", 1},
      {"empty-unused-memory-level", 1},
      {"profile", 0},
      {"profile-step-start", 1},
      {"profile-step-end", 1},
      {"profile-ranks", -1},
      {"no-check-for-nan-in-loss-and-grad", 0},
      {"no-overlap-p2p-communication", 0},
      {"fp8-amax-history-len", 1},
      {"fp8-amax-compute-algo", 1},
      {"moe-aux-loss-coeff", 1},
      {"mtp-loss-scaling-factor", 1},
      {"moe-z-loss-coeff", 1},
      {"moe-input-jitter-eps", 1},
      {"moe-router-load-balancing-type", 1},
      {"moe-router-topk-scaling-factor", 1},
      {"moe-router-score-function", 1},
      {"moe-router-enable-expert-bias", 0},
      {"moe-router-bias-update-rate", 1},
      {"moe-router-dtype", 1},
      {"moe-grouped-gemm", 0},
      {"moe-token-dispatcher-type", 1},
      {"moe-shared-expert-overlap", 0},
      {"moe-shared-expert-gate", 0},
      {"moe-permute-fusion", 0},
      {"use-rope-scaling", 0},
      {"rope-scaling-factor", 1},
      {"qk-layernorm", 0},
      {"use-legacy-models", 0},
  };
}

/** Megatron-LM's 2025 switches that sgai takes and does not price (unmodelled_keys). */
std::vector<std::pair<std::string, int>> recent_unmodelled()
{
  return {
      // Megatron-LM's 2025 switches a real run feels and sgai does not price (docs/training.md):
      // numerics and RoPE scaling, the router's grouping and drop policy, FP8 recipes and the
      // layers kept in bf16, CUDA graphs, DeepEP's dispatcher and the EP overlap, the deferred
      // weight gradients, the interleaved schedule's micro-batch groups, the DDP's alignment and
      // averaging, the context-parallel communication's kind, partial distributed optimizers,
      // recomputation modules, the optimizer's CPU offload
      {"norm-epsilon", 1},
      {"rotary-scaling-factor", 1},
      {"mscale", 1},
      {"mscale-all-dim", 1},
      {"moe-router-pre-softmax", 0},
      {"moe-token-drop-policy", 1},
      {"moe-router-num-groups", 1},
      {"moe-router-group-topk", 1},
      {"moe-enable-deepep", 0},
      {"overlap-moe-expert-parallel-comm", 0},
      {"moe-apply-probs-on-input", 0},
      {"fp8-recipe", 1},
      {"first-last-layers-bf16", 0},
      {"num-layers-at-start-in-bf16", 1},
      {"num-layers-at-end-in-bf16", 1},
      {"tp-comm-overlap-cfg", 1},
      {"enable-cuda-graph", 0},
      {"external-cuda-graph", 0},
      {"cuda-graph-scope", 1},
      {"cuda-graph-warmup-steps", 1},
      {"defer-embedding-wgrad-compute", 0},
      {"wgrad-deferral-limit", 1},
      {"delay-wgrad-compute", 0},
      {"microbatch-group-size-per-virtual-pipeline-stage", 1},
      {"no-align-grad-reduce", 0},
      {"no-align-param-gather", 0},
      {"ddp-average-in-collective", 0},
      {"num-distributed-optimizer-instances", 1},
      {"optimizer-cpu-offload", 0},
      {"optimizer-offload-fraction", 1},
      // Megatron-LM's functional tests (tests/functional_tests): deterministic kernels (a real run
      // feels them: cuDNN attention's deterministic backward) and checkpointing's workers and checks
      {"deterministic-mode", 0},
      {"use-persistent-ckpt-worker", 0},
      {"dist-ckpt-strictness", 1},
  };
}

} // namespace

const std::vector<std::pair<std::string, int>>& unmodelled_keys()
{
  static const std::vector<std::pair<std::string, int>> table = [] {
    auto t = classic_unmodelled(), r = recent_unmodelled();
    t.insert(t.end(), r.begin(), r.end());
    return t;
  }();
  return table;
}

const std::vector<std::pair<std::string, int>>& alias_keys()
{
  static const std::vector<std::pair<std::string, int>> table = {
      {"checkpoint-activations", 0},            // Megatron-LM 2021: full recomputation, uniform, 1 layer
      {"activations-checkpoint-method", 1},     // uniform or block: full recomputation so
      {"activations-checkpoint-num-layers", 1}, // recompute-num-layers
      {"recompute-activations", 0},             // selective recomputation
      {"use-flash-attn", 0},                    // attention-backend flash
  };
  return table;
}

bool is_list_key(const std::string& key)
{
  return key == "recompute-modules" || key == "cp-comm-type" || key == "hierarchical-context-parallel-sizes";
}

bool is_boolean_key(const std::string& key)
{
  static const std::vector<std::string> flags = {"swiglu",
                                                 "untie-embeddings-and-output-weights",
                                                 "sequence-parallel",
                                                 "account-for-embedding-in-pipeline-split",
                                                 "account-for-loss-in-pipeline-split",
                                                 "use-distributed-optimizer",
                                                 "use-torch-fsdp2",
                                                 "overlap-grad-reduce",
                                                 "overlap-param-gather",
                                                 "tp-comm-overlap",
                                                 "bf16",
                                                 "fp16",
                                                 "grad-reduce-in-bf16",
                                                 "fp8-param-gather",
                                                 "use-precision-aware-optimizer",
                                                 "multi-latent-attention",
                                                 "moe-pad-expert-input-to-capacity",
                                                 "accumulate-allreduce-grads-in-fp32",
                                                 "use-rotary-position-embeddings",
                                                 "no-position-embedding"};
  return std::find(flags.begin(), flags.end(), key) != flags.end();
}

} // namespace sgai::training
