#include "core/training/report.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "core/training/flops.hpp"
#include "generators/platform/model.hpp"

#include <sstream>

namespace sgai::training {

namespace {
std::string gb(double bytes)
{
  return format_fixed(bytes / 1e9, 2) + " GB";
}
} // namespace

const StageMemory& check_memory(const std::vector<StageMemory>& stages, double capacity_bytes,
                                const std::string& gpu_name)
{
  if (stages.empty())
    throw std::invalid_argument("no pipeline stage");
  const StageMemory* worst = &stages.front();
  for (const auto& st : stages)
    if (st.total_bytes > worst->total_bytes)
      worst = &st;
  if (worst->total_bytes > capacity_bytes)
    throw RunError("stage " + std::to_string(worst->stage) + " needs " + gb(worst->total_bytes) + " per GPU (" +
                   gb(worst->weight_bytes + worst->gradient_bytes + worst->optimizer_bytes) +
                   " of parameters, gradients and optimizer state, " + gb(worst->activation_bytes) +
                   " of activations), more than the " + gb(capacity_bytes) + " of a " + gpu_name);
  return *worst;
}

Report report(const TrainingConfig& c, const PlatformInputs& in, bool spans)
{
  Report r;
  r.stages     = memory_per_stage(c);
  r.largest    = check_memory(r.stages, in.type->memory_bytes, in.gpu.name);
  r.prediction = predict_iteration(c, in.gpu, in.fabric, spans);
  r.energy     = iteration_energy(c, r.prediction, in.fabric.gpus_per_node, in.gpu_busy_w, in.gpu_idle_w, in.node_cpu_w,
                                  in.nic_idle_w, in.nic_busy_w);
  return r;
}

std::string report_json(const TrainingConfig& c, const Report& rep, const PlatformInputs& in)
{
  const Prediction& r = rep.prediction;
  const Energy& e     = rep.energy;
  std::ostringstream text;
  json::Writer w(text);
  w.begin_object();
  w.key("sgai_training_prediction").value(1u);
  w.key("gpu").value(in.gpu.name);
  w.key("gpus").value(uint64_t(c.gpus()));
  w.key("iteration_s").value(r.iteration_s);
  w.key("tokens_per_s").value(r.tokens_per_s);
  w.key("tflops_per_gpu").value(r.tflops_per_gpu);
  w.key("mfu").value(r.mfu);
  w.key("hardware_tflops_per_gpu").value(r.hardware_tflops_per_gpu);
  w.key("hfu").value(r.hfu);
  w.key("slowest_stage").value(r.slowest_stage);
  w.key("largest_stage_memory_bytes").value(rep.largest.total_bytes);
  w.key("memory_per_stage").begin_array();
  for (const auto& st : rep.stages) {
    w.begin_object().key("stage").value(st.stage).key("layers").value(st.layers);
    w.key("parameters").value(st.parameters).key("weight_bytes").value(st.weight_bytes);
    w.key("gradient_bytes").value(st.gradient_bytes).key("optimizer_bytes").value(st.optimizer_bytes);
    w.key("activation_bytes").value(st.activation_bytes).key("micro_batches_in_flight").value(st.inflight);
    w.key("total_bytes").value(st.total_bytes).end_object();
  }
  w.end_array();
  const auto& b = r.breakdown;
  w.key("breakdown_s").begin_object();
  w.key("compute").value(b.compute_s).key("tp").value(b.tp_s).key("cp").value(b.cp_s).key("ep").value(b.ep_s);
  w.key("bubble").value(b.bubble_s).key("dp").value(b.dp_s).key("optimizer").value(b.optimizer_s);
  w.end_object();
  auto layer = [&](const char* key, const LayerTimes& l) {
    w.key(key).begin_object();
    w.key("gemm_fwd").value(l.gemm_fwd).key("gemm_bwd").value(l.gemm_bwd);
    w.key("attention_fwd").value(l.attention_fwd).key("attention_bwd").value(l.attention_bwd);
    w.key("stream_fwd").value(l.stream_fwd).key("stream_bwd").value(l.stream_bwd);
    w.key("tp_fwd").value(l.tp_fwd).key("tp_bwd").value(l.tp_bwd);
    w.key("cp_fwd").value(l.cp_fwd).key("cp_bwd").value(l.cp_bwd);
    w.key("ep_fwd").value(l.ep_fwd).key("ep_bwd").value(l.ep_bwd);
    w.end_object();
  };
  layer("layer_s", r.layer); // (a MoE model's MoE layer)
  if (c.num_experts > 0 && c.moe_layer_count() < c.num_layers)
    layer("dense_layer_s", r.dense_layer); // its dense layers (moe-layer-freq)
  w.key("p2p_s").value(r.p2p_s).key("dp_reduce_s").value(r.dp_reduce_s).key("dp_gather_s").value(r.dp_gather_s);
  w.key("dp_sm_share").value(r.dp_sm_share);
  w.key("energy_j").begin_object();
  w.key("gpus").value(e.gpu_j).key("processors").value(e.cpu_j).key("network").value(e.network_j);
  w.key("total").value(e.total()).end_object();
  w.key("energy_per_token_j").value(e.total() / tokens_per_iteration(c));
  w.end_object();
  return text.str() + "\n";
}

} // namespace sgai::training
