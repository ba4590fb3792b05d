/* Text checks before a YAML parser reads a file: what yaml-cpp would read without a word. */
#ifndef SGAI_CORE_FOUNDATION_YAML_TEXT_HPP
#define SGAI_CORE_FOUNDATION_YAML_TEXT_HPP

#include <string>

namespace sgai {

/** Rejects what yaml-cpp would read without a word: text that is not UTF-8 (a UTF-16 or UTF-32
 *  byte-order mark, a NUL byte, a malformed sequence) and tabs in a line's indentation, which YAML
 *  forbids (a tab after the first non-blank character, before a comment say, is fine).
 *  InputError(file, "line N", ...). */
void check_yaml_text(const std::string& file, const std::string& text);

} // namespace sgai

#endif
