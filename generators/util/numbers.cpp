#include "generators/util/numbers.hpp"

#include <array>
#include <charconv>
#include <cmath>
#include <cstdint>

namespace sgai {

std::string format_number(double value)
{
  std::array<char, 64> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value);
  return std::string(buffer.data(), result.ptr);
}

std::string format_plain(double value)
{
  if (value == std::floor(value) && std::fabs(value) < 9007199254740992.0) {
    std::array<char, 32> buffer{};
    auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), static_cast<int64_t>(value));
    return std::string(buffer.data(), result.ptr);
  }
  return format_number(value);
}

std::string format_fixed(double value, int decimals)
{
  std::array<char, 128> buffer{};
  auto result = std::to_chars(buffer.data(), buffer.data() + buffer.size(), value, std::chars_format::fixed, decimals);
  return std::string(buffer.data(), result.ptr);
}

} // namespace sgai
