#include "core/training/traffic.hpp"

#include "core/training/memory.hpp"

namespace sgai::training {

const char* to_string(Group g)
{
  switch (g) {
  case Group::tensor:
    return "tensor";
  case Group::context:
    return "context";
  case Group::expert:
    return "expert";
  case Group::pipeline:
    return "pipeline";
  case Group::data:
    return "data";
  }
  return "?";
}

const char* to_string(Collective c)
{
  switch (c) {
  case Collective::all_gather:
    return "all_gather";
  case Collective::reduce_scatter:
    return "reduce_scatter";
  case Collective::all_reduce:
    return "all_reduce";
  case Collective::all_to_all:
    return "all_to_all";
  case Collective::send_recv:
    return "send_recv";
  }
  return "?";
}

const char* to_string(Phase p)
{
  switch (p) {
  case Phase::forward:
    return "forward";
  case Phase::backward:
    return "backward";
  case Phase::optimizer:
    return "optimizer";
  }
  return "?";
}

namespace {

const char* const kLayer = "layer and micro-batch";

} // namespace

std::vector<Transfer> layer_transfers(const TrainingConfig& c)
{
  std::vector<Transfer> out;
  const uint32_t t = c.tensor_model_parallel_size, cp = c.context_parallel_size, e = c.expert_model_parallel_size;
  const double s = double(c.seq_length) / cp, b = c.micro_batch_size, h = double(c.hidden_size);
  const double act = s * b * h * 2;
  const bool full  = c.recompute_granularity == Recompute::full;
  auto add = [&](Group g, Collective k, Phase p, uint32_t ranks, double bytes, uint32_t count, const char* what) {
    out.push_back({g, k, p, ranks, bytes, count, kLayer, what});
  };
  // the blocks split by TP: attention and the MLP, and a MoE layer's shared experts (their own
  // column- and row-parallel linears)
  const bool moe      = c.num_experts > 0;
  const uint32_t n    = moe && c.moe_shared_expert_intermediate_size > 0 ? 3 : 2;
  const double tokens = s * b / (c.sequence_parallel ? t : 1);
  // (padded to the experts' capacity, every expert's share is sent whole)
  const double pad = c.moe_pad_expert_input_to_capacity ? c.moe_expert_capacity_factor : 1.0;
  if (t > 1 && c.sequence_parallel && moe) {
    // a MoE layer's blocks but the experts as a dense layer's (the router reads the local tokens:
    // nothing gathered before it)
    add(Group::tensor, Collective::all_gather, Phase::forward, t, act, n - 1,
        "attention (and shared experts') inputs (sequence parallel)");
    add(Group::tensor, Collective::reduce_scatter, Phase::forward, t, act, n - 1, "their outputs");
    add(Group::tensor, Collective::reduce_scatter, Phase::backward, t, act, n - 1, "the inputs' gradients");
    add(Group::tensor, Collective::all_gather, Phase::backward, t, act, 2 * (n - 1),
        "the outputs' gradients, and the inputs again for the weight gradients");
    if (full) {
      add(Group::tensor, Collective::all_gather, Phase::backward, t, act, n - 1, "recomputed forward: inputs");
      add(Group::tensor, Collective::reduce_scatter, Phase::backward, t, act, n - 1, "recomputed forward: outputs");
    }
  } else if (t > 1 && c.sequence_parallel) {
    add(Group::tensor, Collective::all_gather, Phase::forward, t, act, n,
        "attention and MLP inputs (sequence parallel)");
    add(Group::tensor, Collective::reduce_scatter, Phase::forward, t, act, n, "attention and MLP outputs");
    add(Group::tensor, Collective::reduce_scatter, Phase::backward, t, act, n, "the inputs' gradients");
    add(Group::tensor, Collective::all_gather, Phase::backward, t, act, 2 * n,
        "the outputs' gradients, and the inputs again for the weight gradients");
    if (full) {
      add(Group::tensor, Collective::all_gather, Phase::backward, t, act, n, "recomputed forward: inputs");
      add(Group::tensor, Collective::reduce_scatter, Phase::backward, t, act, n, "recomputed forward: outputs");
    }
  } else if (t > 1) {
    add(Group::tensor, Collective::all_reduce, Phase::forward, t, act, n, "attention and MLP outputs");
    add(Group::tensor, Collective::all_reduce, Phase::backward, t, act, n, "the inputs' gradients");
    if (full)
      add(Group::tensor, Collective::all_reduce, Phase::backward, t, act, n, "recomputed forward: outputs");
  }
  // selective recomputation's modules (recompute-modules) run their forward's collectives again in
  // the backward: a dense layer's MLP, a MoE layer's shared experts (alone or with the experts)
  const bool again_moe    = moe && c.recomputes(kMoe);
  const bool again_mlp    = not moe && c.recomputes(kMlp);
  const bool again_shared = moe && n == 3 && (again_moe || c.recomputes(kSharedExperts));
  if (const uint32_t blocks = (again_mlp ? 1 : 0) + (again_shared ? 1 : 0); t > 1 && blocks > 0) {
    if (c.sequence_parallel) {
      add(Group::tensor, Collective::all_gather, Phase::backward, t, act, blocks, "recomputed module: inputs");
      add(Group::tensor, Collective::reduce_scatter, Phase::backward, t, act, blocks, "recomputed module: outputs");
    } else {
      add(Group::tensor, Collective::all_reduce, Phase::backward, t, act, blocks, "recomputed module: outputs");
    }
  }
  // the experts, split by their own TP (ETP ranks, TP's by default; Megatron-Core's alltoall
  // dispatcher, dispatch_postprocess and combine_preprocess): the routed copies each rank received
  // gathered over ETP after the dispatch, the experts' outputs scattered back before the combine;
  // top-k x ETP x the rank's tokens. The grouped GEMMs keep their gathered input: nothing gathered
  // again backward. (Without sequence parallelism, TP's all-reduces above stand for them.)
  const uint32_t et = c.etp();
  if (moe && et > 1 && (c.sequence_parallel || t == 1)) {
    const double routed = tokens * c.moe_router_topk * et * h * 2 * pad;
    add(Group::tensor, Collective::all_gather, Phase::forward, et, routed, 1, "the experts' routed tokens");
    add(Group::tensor, Collective::reduce_scatter, Phase::forward, et, routed, 1, "the experts' outputs");
    add(Group::tensor, Collective::reduce_scatter, Phase::backward, et, routed, 1, "the routed tokens' gradients");
    add(Group::tensor, Collective::all_gather, Phase::backward, et, routed, 1, "the experts' outputs' gradients");
    if (full || again_moe) {
      add(Group::tensor, Collective::all_gather, Phase::backward, et, routed, 1, "recomputed forward: routed tokens");
      add(Group::tensor, Collective::reduce_scatter, Phase::backward, et, routed, 1,
          "recomputed forward: the experts' outputs");
    }
  }
  if (cp > 1) {
    const double kv = s * b * double(c.key_width() + c.value_width()) / t * 2; // (MLA's after its up-projection)
    auto after      = [&]() { out.back().after_attention = true; };
    if (c.cp_comm_type == CpComm::all_gather) { // (the gathered K and V are not kept for the backward)
      add(Group::context, Collective::all_gather, Phase::forward, cp, cp * kv, 1, "K and V gathered");
      if (full)
        add(Group::context, Collective::all_gather, Phase::backward, cp, cp * kv, 1, "recomputed forward: K and V");
      add(Group::context, Collective::all_gather, Phase::backward, cp, cp * kv, 1, "K and V gathered again");
      add(Group::context, Collective::reduce_scatter, Phase::backward, cp, cp * kv, 1, "their gradients");
      after();
    } else {
      // a2a over a ranks (a2a: all; a2a+p2p: a group), each rank's buffer, 1/a of it to each peer;
      // the ring over r ranks (p2p: all; a2a+p2p: one a group) passes K and V blocks of the same
      // size (a times the tokens, 1/a of the heads)
      const uint32_t a = c.cp_a2a(), r = c.cp_ring();
      const double q = s * b * double(c.query_width()) / t * 2, o = s * b * double(c.output_width()) / t * 2;
      auto forward = [&](Phase ph, const std::string& redo) {
        if (a > 1)
          out.push_back({Group::context, Collective::all_to_all, ph, a, q + kv, 1, kLayer,
                         redo + "Q, K and V: heads for sequence"});
        if (r > 1)
          out.push_back(
              {Group::context, Collective::send_recv, ph, r, kv, r - 1, kLayer, redo + "K and V around the ring"});
        if (a > 1)
          out.push_back({Group::context, Collective::all_to_all, ph, a, o, 1, kLayer,
                         redo + "the attention's output back", true});
      };
      forward(Phase::forward, "");
      if (full)
        forward(Phase::backward, "recomputed forward: ");
      if (a > 1)
        add(Group::context, Collective::all_to_all, Phase::backward, a, o, 1, "the output's gradient");
      if (r > 1)
        add(Group::context, Collective::send_recv, Phase::backward, r, 2 * kv, r - 1, "K, V and their gradients");
      if (a > 1) {
        add(Group::context, Collective::all_to_all, Phase::backward, a, q + kv, 1, "Q's, K's and V's gradients");
        after();
      }
    }
  }
  if (moe && e > 1) {
    const double bytes = tokens * c.moe_router_topk * h * 2 * pad;
    add(Group::expert, Collective::all_to_all, Phase::forward, e, bytes, 2, "tokens to their experts and back");
    add(Group::expert, Collective::all_to_all, Phase::backward, e, bytes, 2, "the tokens' gradients");
    if (full || again_moe)
      add(Group::expert, Collective::all_to_all, Phase::backward, e, bytes, 2, "recomputed dispatch and combine");
  }
  return out;
}

std::vector<Transfer> iteration_transfers(const TrainingConfig& c)
{
  std::vector<Transfer> out;
  const uint32_t t = c.tensor_model_parallel_size, pp = c.pipeline_model_parallel_size;
  const uint32_t e = c.expert_model_parallel_size;
  const double s = double(c.seq_length) / c.context_parallel_size, b = c.micro_batch_size, h = double(c.hidden_size);
  if (pp > 1) {
    const double act = s * b * h * 2 / (c.sequence_parallel ? t : 1);
    const char* per  = "stage boundary, micro-batch and model chunk";
    out.push_back({Group::pipeline, Collective::send_recv, Phase::forward, 2, act, 1, per, "activations"});
    out.push_back({Group::pipeline, Collective::send_recv, Phase::backward, 2, act, 1, per, "activation gradients"});
  }
  const uint32_t d = c.data_parallel_size * c.context_parallel_size;
  // the GPU's parameters (stage 0), dense and experts
  const ParameterCount p = count_parameters(c);
  const double layers    = c.stage_layers(0);
  const bool moe         = c.num_experts > 0;
  const double moe_l = moe ? c.stage_moe_layers(0) : 0, dense_l = layers - moe_l; // (moe-layer-freq)
  const double experts = moe ? moe_l * (p.mlp_per_layer - h * c.num_experts) / (double(e) * c.etp()) : 0;
  const double dense   = memory_per_stage(c).front().parameters - experts;
  const char* it       = "iteration";
  const char* grads    = c.grad_bytes() == 4 ? "fp32 gradients" : "16-bit gradients";
  // the layers' GEMM weights, gathered in FP8 with fp8-param-gather (a byte each, not two)
  const double dense_gemm = (layers * (p.attention_per_layer + t * p.attention_whole_per_layer) +
                             moe_l * p.shared_per_layer + dense_l * (moe ? p.dense_mlp_per_layer : p.mlp_per_layer)) /
                            t;
  auto gathered = [&](double params, double gemm) { return 2 * params - (c.fp8_param_gather ? gemm : 0); };
  auto data     = [&](uint32_t ranks, double params, double gemm, const char* what) {
    if (ranks <= 1 || params <= 0)
      return;
    if (c.use_torch_fsdp2) {
      double layer = params / layers, bytes = gathered(params, gemm) / layers;
      out.push_back(
              {Group::data, Collective::all_gather, Phase::forward, ranks, bytes, 1, "layer and micro-batch", what});
      out.push_back(
              {Group::data, Collective::all_gather, Phase::backward, ranks, bytes, 1, "layer and micro-batch", what});
      out.push_back({Group::data, Collective::reduce_scatter, Phase::backward, ranks, c.grad_bytes() * layer, 1,
                     "layer and micro-batch", "their gradients"});
    } else if (c.use_distributed_optimizer) {
      out.push_back(
              {Group::data, Collective::reduce_scatter, Phase::backward, ranks, c.grad_bytes() * params, 1, it, grads});
      out.push_back({Group::data, Collective::all_gather, Phase::optimizer, ranks, gathered(params, gemm), 1, it,
                     c.fp8_param_gather ? "updated parameters (the GEMM weights in FP8)" : "updated bf16 parameters"});
    } else {
      out.push_back(
              {Group::data, Collective::all_reduce, Phase::backward, ranks, c.grad_bytes() * params, 1, it, grads});
    }
  };
  data(d, dense, dense_gemm, "parameters");
  data(c.expert_data_parallel_size(), experts, experts, "expert parameters");
  if (pp > 1 && not c.untie_embeddings_and_output_weights)
    out.push_back({Group::pipeline, Collective::all_reduce, Phase::optimizer, 2, 4 * p.embedding / t, 1, it,
                   "the shared embedding's gradients (first and last stage)"});
  return out;
}

} // namespace sgai::training
