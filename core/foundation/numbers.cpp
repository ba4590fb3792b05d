#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <limits>

namespace sgai {

std::string format_number(double value)
{
  if (not std::isfinite(value))
    return ""; // no figure: an empty field, never "nan" or "inf"
  std::array<char, 64> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string format_plain(double value)
{
  if (not std::isfinite(value))
    return "";
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    std::array<char, 32> buffer{};
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<int64_t>(value));
    return std::string(buffer.data(), result.ptr);
  }
  return format_number(value);
}

std::string format_intervals(std::vector<uint32_t> ids)
{
  if (not std::is_sorted(ids.begin(), ids.end())) // (most come sorted)
    std::sort(ids.begin(), ids.end());
  std::string out;
  std::array<char, 16> digits{};
  auto put = [&](uint32_t v) {
    out.append(digits.data(), std::to_chars(digits.data(), digits.data() + digits.size(), v).ptr);
  };
  for (size_t i = 0; i < ids.size();) {
    size_t j = i;
    while (j + 1 < ids.size() && ids[j + 1] == ids[j] + 1)
      j++;
    if (not out.empty())
      out += ' ';
    put(ids[i]);
    if (j > i) {
      out += '-';
      put(ids[j]);
    }
    i = j + 1;
  }
  return out;
}

std::string format_fixed(double value, int decimals)
{
  std::array<char, 128> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, decimals);
  if (result.ec != std::errc()) // more digits than the buffer (above ~1e100): the shortest form instead
    return format_number(value);
  return std::string(buffer.data(), result.ptr);
}

double log_sum_exp(const std::vector<double>& v)
{
  if (v.empty())
    return -std::numeric_limits<double>::infinity();
  double m = *std::max_element(v.begin(), v.end());
  if (not std::isfinite(m))
    return m;
  double s = 0;
  for (double x : v)
    s += std::exp(x - m);
  return m + std::log(s);
}

} // namespace sgai
