/* gpu: the same training on another GPU type, by the catalogue's roofline figures (the rule is
 * documented in docs/whatif.md before any comparison). Each kernel keeps its bound
 * (classify_kernel):
 *   - compute-bound: × peak(source, its precision) / peak(target, its precision on the target).
 *     On the target a convolution's kernel (its name says so, or it belongs to a convolution
 *     operator: cuDNN runs some as GEMMs) that ran in FP32 runs in TF32 when the target has TF32
 *     tensor cores (PyTorch's default torch.backends.cudnn.allow_tf32 = True); other GEMMs keep
 *     FP32 (allow_tf32 for matmul is False by default). A move from CUDA cores to tensor cores gains at
 *     most the tensor cap (Daydream's 3×, as amp);
 *   - memory-bound kernels, device copies and sets: × memory bandwidth(source) / (target);
 *   - host copies (PCIe) and collectives: unchanged.
 * The power figures for energy become the target's. */
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/optimizations/common.hpp"
#include "core/whatif/optimizations/list.hpp"
#include "generators/platform/catalogue.hpp"

#include <algorithm>

namespace sgai::whatif::optimizations_list {

namespace {

bool is_convolution(const std::string& n)
{
  for (const char* w : {"conv", "cudnn", "winograd", "fprop", "dgrad", "wgrad", "implicit_gemm", "fft2d", "scudnn"})
    if (n.find(w) != std::string::npos)
      return true;
  return false;
}

bool tensor(const std::string& precision)
{
  return precision == "tf32" || precision == "fp16" || precision == "bf16" || precision == "fp8";
}

void apply_gpu_type(Graph& g, const WhatIfContext& ctx, OptimizationNote& note)
{
  if (not ctx.gpu)
    not_applicable(g, "gpu", "the trace's GPU is not in the catalogue (name it with --gpu)");
  if (not ctx.target)
    not_applicable(g, "gpu", "no target GPU type (--target)");
  const platform::GpuType& from = *ctx.gpu;
  const platform::GpuType& to   = *ctx.target;
  const double cap              = ctx.number("amp.cap", ctx.tensor_cap);
  if (not(from.mem_bw_Bps > 0 && to.mem_bw_Bps > 0))
    not_applicable(g, "gpu", "the catalogue gives no memory bandwidth for " + from.name + " or " + to.name);
  const double memory_speedup = to.mem_bw_Bps / from.mem_bw_Bps;
  const bool target_tf32      = to.peak_flops.count("tf32") > 0;
  for (uint32_t u : g.select([](const Task& t) { return on_gpu(t.kind) && t.kind != TaskKind::comm; })) {
    Task& t              = g.tasks[u];
    const std::string& n = g.name_of(u);
    double speedup       = 1;
    if (t.kind == TaskKind::memcpy) {
      if (n.find("DtoD") == std::string::npos)
        continue; // host <-> device: PCIe
      speedup = memory_speedup;
    } else if (t.kind == TaskKind::memset || kernels::classify_kernel(n, 0, 0, 0, 0) == kernels::KernelBound::memory) {
      speedup = memory_speedup;
    } else {
      std::string p_from = kernel_precision(n, ctx.precision);
      std::string p_to   = p_from;
      bool conv = is_convolution(n) || (t.layer != kNone && (g.layers[t.layer].name.find("conv") != std::string::npos ||
                                                             g.layers[t.layer].name.find("Conv") != std::string::npos));
      if (p_from == "fp32" && target_tf32 && conv)
        p_to = "tf32";
      double a = peak_flops(from, p_from), b = peak_flops(to, p_to);
      if (not(a > 0 && b > 0))
        not_applicable(g, "gpu",
                       "the catalogue gives no " + p_from + " peak for " + from.name + " or " + p_to + " for " +
                           to.name);
      speedup = b / a;
      if (tensor(p_to) && not tensor(p_from))
        speedup = std::min(speedup, cap * peak_flops(to, "fp32") / a);
    }
    g.shrink(u, speedup);
    ++note.tasks_changed;
  }
  g.power.gpu    = to.name;
  g.power.idle_w = to.idle_w;
  g.power.busy_w = to.max_w;
  note.detail    = from.name + " -> " + to.name;
}

} // namespace

Optimization gpu_type()
{
  return {"gpu",
          "another GPU type (--target): compute-bound kernels by the peaks' ratio (FP32 convolutions in TF32 "
          "where the target has it, tensor gains capped at 3×), memory-bound ones by the bandwidths' ratio",
          apply_gpu_type};
}

} // namespace sgai::whatif::optimizations_list
