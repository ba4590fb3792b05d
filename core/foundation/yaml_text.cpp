#include "core/foundation/yaml_text.hpp"

#include "core/foundation/error.hpp"

#include <algorithm>
#include <string_view>

namespace sgai {

void check_yaml_text(const std::string& file, const std::string& text)
{
  auto at_line = [&](size_t offset) {
    return "line " + std::to_string(1 + std::count(text.begin(), text.begin() + offset, '\n'));
  };
  auto starts = [&](std::string_view bom) { return text.compare(0, bom.size(), bom) == 0; };
  using namespace std::string_view_literals;
  if (starts("\xff\xfe"sv) || starts("\xfe\xff"sv) || starts("\0\0\xfe\xff"sv))
    throw InputError(file, "byte 0", "not UTF-8 text (a UTF-16 or UTF-32 byte-order mark): save it as UTF-8");
  for (size_t i = 0; i < text.size();) {
    auto c = static_cast<unsigned char>(text[i]);
    if (c == 0)
      throw InputError(file, at_line(i), "not UTF-8 text (a NUL byte at byte " + std::to_string(i) + ")");
    size_t n = c < 0x80 ? 1 : (c >> 5) == 0x6 ? 2 : (c >> 4) == 0xe ? 3 : (c >> 3) == 0x1e ? 4 : 0;
    bool ok  = n > 0 && i + n <= text.size() && not(n == 2 && c < 0xc2) && not(n == 4 && c > 0xf4);
    for (size_t k = 1; ok && k < n; k++)
      ok = (static_cast<unsigned char>(text[i + k]) & 0xc0) == 0x80;
    if (ok && n == 3) { // no overlong forms, no surrogates
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok      = not(c == 0xe0 && c1 < 0xa0) && not(c == 0xed && c1 >= 0xa0);
    }
    if (ok && n == 4) {
      auto c1 = static_cast<unsigned char>(text[i + 1]);
      ok      = not(c == 0xf0 && c1 < 0x90) && not(c == 0xf4 && c1 >= 0x90);
    }
    if (not ok)
      throw InputError(file, at_line(i),
                       "not UTF-8 text (a malformed byte sequence at byte " + std::to_string(i) + ")");
    i += n;
  }
  size_t line = 1;
  for (size_t begin = 0; begin < text.size(); line++) {
    size_t end   = std::min(text.find('\n', begin), text.size());
    size_t first = text.find_first_not_of(" \t\r", begin);
    if (first < end && text[first] != '#' && text.find('\t', begin) < first)
      throw InputError(file, "line " + std::to_string(line),
                       "a tab in the indentation (YAML indents with spaces only)");
    begin = end + 1;
  }
}

} // namespace sgai
