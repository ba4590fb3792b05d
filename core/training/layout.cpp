/* Megatron-Core's pipeline-model-parallel-layout strings (core/transformer/
 * pipeline_parallel_layer_layout.py, parse_str_to_list): unrolled into their virtual stages. */
#include "core/training/config.hpp"

#include <cctype>
#include <cstdlib>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgai::training {

std::vector<std::string> unroll_layout(const std::string& layout)
{
  std::string v;
  for (char ch : layout)
    if (ch != ',' && ch != ' ' && ch != '\t')
      v += ch;
  constexpr size_t kMaxLayout = 1u << 20;
  // unroll "(...)*n" (no nesting, as Megatron's expression), then "x*n"
  for (bool group : {true, false}) {
    for (size_t star; (star = v.find('*')) != std::string::npos;) {
      size_t begin = star - 1, end = star + 1;
      if (star == 0 || (group && v[star - 1] != ')') || (not group && v[star - 1] == ')')) {
        if (group && v.find(")*") == std::string::npos)
          break;
        if (group) {
          star  = v.find(")*") + 1;
          begin = star - 1, end = star + 1;
        } else if (star == 0 || v[star - 1] == ')')
          throw std::invalid_argument("a '*' without a layer or a group before it");
      }
      while (end < v.size() && std::isdigit(static_cast<unsigned char>(v[end])))
        ++end;
      if (end == star + 1)
        throw std::invalid_argument("a '*' without a count after it");
      const uint64_t n = std::strtoull(v.substr(star + 1, end - star - 1).c_str(), nullptr, 10);
      std::string unit;
      if (group) {
        begin = v.rfind('(', star - 1);
        if (begin == std::string::npos)
          throw std::invalid_argument("a ')' without its '('");
        unit = v.substr(begin + 1, star - 2 - begin);
      } else {
        unit = v.substr(star - 1, 1);
      }
      if (n > kMaxLayout || unit.size() * n > kMaxLayout)
        throw std::invalid_argument("unrolls to more than " + std::to_string(kMaxLayout) + " characters");
      std::string rep;
      for (uint64_t i = 0; i < n; ++i)
        rep += unit;
      v = v.substr(0, begin) + rep + v.substr(end);
      if (v.size() > kMaxLayout)
        throw std::invalid_argument("unrolls to more than " + std::to_string(kMaxLayout) + " characters");
    }
  }
  std::vector<std::string> stages(1);
  for (char ch : v) {
    if (ch == '|')
      stages.emplace_back();
    else if (ch == 'E' || ch == 'L' || ch == 't' || ch == 'm')
      stages.back() += ch;
    else
      throw std::invalid_argument("'" + std::string(1, ch) + "' is not a layer (E, t, m, L)");
  }
  return stages;
}

} // namespace sgai::training
