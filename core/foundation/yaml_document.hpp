/* A YAML text loaded with yaml-cpp after check_yaml_text, its parse errors one InputError at their
 * line. Header-only: the modules that read YAML (replay's network files, training descriptions) link
 * yaml-cpp themselves. */
#ifndef SGAI_CORE_FOUNDATION_YAML_DOCUMENT_HPP
#define SGAI_CORE_FOUNDATION_YAML_DOCUMENT_HPP

#include "core/foundation/error.hpp"
#include "core/foundation/yaml_text.hpp"

#include <yaml-cpp/yaml.h>

#include <string>

namespace sgai {

/** The document of `text` (read from `file`): InputError(file, "line N", ...) when the text is not
 *  UTF-8, indents with tabs, or is not valid YAML. */
inline YAML::Node load_yaml(const std::string& file, const std::string& text)
{
  check_yaml_text(file, text);
  try {
    return YAML::Load(text);
  } catch (const YAML::Exception& e) {
    throw InputError(file, "line " + std::to_string(e.mark.line + 1), "not valid YAML: " + e.msg);
  }
}

} // namespace sgai

#endif
