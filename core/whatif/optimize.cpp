#include "core/whatif/optimize.hpp"

#include "core/foundation/error.hpp"
#include "core/whatif/optimizations/list.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>

namespace sgai::whatif {

double WhatIfContext::number(const std::string& key, double fallback) const
{
  auto it = params.find(key);
  if (it == params.end())
    return fallback;
  char* end = nullptr;
  double v  = std::strtod(it->second.c_str(), &end);
  if (it->second.empty() || *end != '\0' || not std::isfinite(v))
    throw InputError("command line", "--param " + key, "not a number: " + quote(it->second));
  return v;
}

const std::vector<Optimization>& optimizations()
{
  static const std::vector<Optimization> all = [] {
    namespace o = optimizations_list;
    std::vector<Optimization> v{o::amp_daydream(), o::amp(), o::fused_optimizer(), o::gpu_type(), o::power_cap(),
                                o::bandwidth(),    o::ddp(), o::blueconnect(),     o::p3(),       o::dgc(),
                                o::vdnn(),         o::gist()};
    std::sort(v.begin(), v.end(), [](const Optimization& a, const Optimization& b) { return a.name < b.name; });
    return v;
  }();
  return all;
}

const Optimization* find_optimization(std::string_view name)
{
  for (const Optimization& o : optimizations())
    if (o.name == name)
      return &o;
  return nullptr;
}

std::vector<OptimizationNote> apply_optimizations(Graph& g, const std::vector<std::string>& names,
                                                  const WhatIfContext& ctx)
{
  std::vector<OptimizationNote> notes;
  for (const std::string& n : names) {
    const Optimization* o = find_optimization(n);
    if (not o) {
      std::string known;
      for (const Optimization& x : optimizations())
        known += (known.empty() ? "" : ", ") + x.name;
      throw InputError("command line", "--apply", "unknown optimization " + quote(n) + " (known: " + known + ")");
    }
    OptimizationNote note;
    note.name = n;
    o->apply(g, ctx, note);
    notes.push_back(std::move(note));
  }
  return notes;
}

std::string kernel_precision(const std::string& name, const std::string& fallback)
{
  std::string n(name.size(), ' ');
  std::transform(name.begin(), name.end(), n.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  if (n.find("tf32") != std::string::npos)
    return "tf32";
  if (n.find("bf16") != std::string::npos || n.find("bfloat16") != std::string::npos)
    return "bf16";
  for (const char* w : {"fp16", "half", "hgemm", "h884", "h1688", "h16816", "f16f16", "s16816", "s884", "s1688"})
    if (n.find(w) != std::string::npos)
      return "fp16";
  return fallback;
}

void not_applicable(const Graph& g, const std::string& optimization, const std::string& why)
{
  throw InputError(g.ranks.empty() ? std::string("the graph") : g.ranks.front().file, optimization,
                   "cannot apply " + quote(optimization) + ": " + why);
}

} // namespace sgai::whatif
