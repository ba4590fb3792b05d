#include "core/kernels/kernel_model.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <stdexcept>

namespace sgai::kernels {

double KernelTime::at(double f, double m) const
{
  double c = compute_s > 0 ? compute_s / f : 0;
  double b = memory_s > 0 ? memory_s / m : 0;
  return std::max(c, b);
}

KernelBound classify_kernel(const std::string& name, double ops, double bytes, double peak_flops, double mem_bw_Bps)
{
  if (ops > 0 && bytes > 0 && peak_flops > 0 && mem_bw_Bps > 0)
    return ops / bytes >= peak_flops / mem_bw_Bps ? KernelBound::compute : KernelBound::memory;
  std::string n(name.size(), ' ');
  std::transform(name.begin(), name.end(), n.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  // GEMMs, convolutions and attention first: "gemm" in a name outweighs an element-wise epilogue
  for (const char* w : {"gemm", "conv", "matmul", "addmm", "bmm", "aten::mm", "linear", "xmma", "flash", "attention",
                        "fft", "wgrad", "dgrad", "fprop", "scudnn", "hcudnn", "winograd"})
    if (n.find(w) != std::string::npos)
      return KernelBound::compute;
  // then the memory-bound families, whatever library runs them (cuDNN's batch norm, layouts)
  for (const char* w : {"memcpy", "memset",    "copy",    "fill",    "elementwise", "vectorized", "unrolled",  "reduce",
                        "norm",   "softmax",   "dropout", "adam",    "sgd",         "optimizer",  "transpose", "cat_",
                        "index",  "embedding", "gather",  "scatter", "cast",        "relu",       "gelu",      "add",
                        "mul",    "bn_fw",     "bn_bw",   "pool",    "nchwtonhwc",  "nhwctonchw"})
    if (n.find(w) != std::string::npos)
      return KernelBound::memory;
  return KernelBound::compute;
}

double capped_clock_fraction(double cap_w, double idle_w, double max_w)
{
  if (not(idle_w >= 0 && cap_w > idle_w && cap_w <= max_w))
    throw std::invalid_argument("a power cap must lie above the idle power and at most the maximum power");
  return std::cbrt((cap_w - idle_w) / (max_w - idle_w));
}

double roofline_seconds(double ops, double bytes, double peak_flops, double mem_bw_Bps, bool roofline)
{
  double t = ops > 0 && peak_flops > 0 ? ops / peak_flops : 0;
  if (roofline && mem_bw_Bps > 0 && bytes > 0)
    t = std::max(t, bytes / mem_bw_Bps);
  return t;
}

} // namespace sgai::kernels
