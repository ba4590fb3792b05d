#include "core/training/platform_inputs.hpp"

#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/error.hpp"
#include "core/kernels/gemm.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"

#include <optional>

namespace sgai::training {

PlatformInputs platform_inputs(const platform::Platform& p, Precision precision, const std::string& file,
                               const std::string& gpu_type)
{
  size_t first = 0;
  while (first < p.gpus.size() && not gpu_type.empty() && p.gpus[first].type != gpu_type)
    ++first;
  if (first == p.gpus.size())
    throw InputError(file, "",
                     gpu_type.empty() ? "the platform has no GPUs to train on"
                                      : "the platform has no GPU of type " + quote(gpu_type));
  PlatformInputs in;
  const platform::GpuDesc& gpu = p.gpus[first];
  const platform::GpuType& g   = p.catalogue.gpus.at(gpu.type);
  in.type                      = &g;
  const std::string prec       = precision == Precision::fp8 ? "fp8" : precision == Precision::fp16 ? "fp16" : "bf16";
  auto need                    = [&](bool ok, const std::string& what) {
    if (not ok)
      throw InputError(file, "",
                                          "GPU type " + quote(g.name) + " has no " + what +
                                              " in its catalogue entry (the kernel model needs it: docs/training.md)");
  };
  const std::string mm_prec = g.matmul.count(prec) ? prec : (prec == "fp16" ? "bf16" : prec);
  need(g.peak_flops.count(prec) && g.matmul.count(mm_prec), "peak_flops and matmul figures for " + prec);
  need(g.stream_fraction > 0, "stream fraction");
  need(g.peak_flops.count("bf16") > 0, "bf16 peak");
  const platform::MatmulMeasure& mm = g.matmul.at(mm_prec);
  in.gpu.name                       = g.name;
  in.gpu.matmul.sms                 = g.multiprocessors;
  in.gpu.matmul.peak_flops          = g.peak_flops.at(prec);
  in.gpu.matmul.memory_Bps          = g.mem_bw_Bps;
  in.gpu.matmul.kernel_s            = g.matmul_kernel_s;
  in.gpu.matmul.wave_s              = g.matmul_wave_s;
  in.gpu.matmul.tile_fraction =
      kernels::tile_fraction_from(mm.fraction * mm.sustained, mm.m, mm.n, mm.k, in.gpu.matmul);
  in.gpu.stream_Bps = g.mem_bw_Bps * g.stream_fraction;
  in.gpu.peak_bf16  = g.peak_flops.at("bf16");
  // Transformer Engine runs attention in 16 bits under FP8 unless told otherwise
  auto att = g.attention.find(prec == "fp8" ? "bf16" : prec);
  if (att != g.attention.end()) {
    in.gpu.attention = {att->second.kernel, att->second.seq, att->second.forward, att->second.forward_causal,
                        att->second.backward};
    for (auto* rates : {&in.gpu.attention.forward, &in.gpu.attention.forward_causal, &in.gpu.attention.backward})
      for (double& r : *rates)
        r *= g.attention_sustained;
  }
  auto sys = collectives::nccl_system(p);
  if (not sys)
    throw InputError(file, "", "GPU type " + quote(g.name) + " names no architecture NCCL's model knows");
  in.fabric.nccl                 = *sys;
  in.fabric.gpus_per_node        = p.nodes[gpu.node].gpu_count;
  const platform::Topology& topo = p.clusters[p.nodes[gpu.node].cluster].topology;
  const platform::NodeDesc& node = p.nodes[gpu.node];
  in.gpu_busy_w                  = g.pstates.empty() ? g.max_w : g.pstates[0].max_w;
  in.gpu_idle_w                  = g.idle_w;
  for (uint32_t i = 0; i < node.processor_count; ++i)
    in.node_cpu_w += p.processors[node.first_processor + i].tdp_w;
  std::optional<double> nic_idle, nic_busy;
  if (node.nic_link != platform::kNone) {
    nic_idle = p.links[size_t(node.nic_link)].idle_w;
    nic_busy = p.links[size_t(node.nic_link)].busy_w;
  } else if (topo.kind == platform::TopologyKind::fat_tree && not topo.levels.empty()) {
    const auto& l0 = topo.levels[0];
    if (l0.link.idle_w)
      nic_idle = *l0.link.idle_w * l0.links * l0.up;
    if (l0.link.busy_w)
      nic_busy = *l0.link.busy_w * l0.links * l0.up;
  } else
    for (uint32_t i = 0; i < node.nic_count; ++i) { // a NIC per GPU (clos): all of the node's
      const auto& l = p.links[size_t(p.nics[node.first_nic + i].link)];
      if (l.idle_w)
        nic_idle = nic_idle.value_or(0) + *l.idle_w;
      if (l.busy_w)
        nic_busy = nic_busy.value_or(0) + *l.busy_w;
    }
  in.nic_idle_w = nic_idle.value_or(0);
  in.nic_busy_w = nic_busy.value_or(in.nic_idle_w);
  if (p.nodes[gpu.node].nic_link == platform::kNone && topo.kind == platform::TopologyKind::fat_tree &&
      not topo.levels.empty()) {
    const auto& l0            = topo.levels[0];
    in.fabric.nccl.inter_GBps = l0.link.bandwidth_Bps * l0.links * l0.up / 1e9;
    if (in.fabric.nccl.transport.empty()) // (a transport gives NCCL's network latency itself)
      in.fabric.nccl.net_latency_us = l0.link.latency_s * 1e6;
  }
  return in;
}

} // namespace sgai::training
