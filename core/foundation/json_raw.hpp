/* The parser's document behind json.hpp's Document and Value (nlohmann_json), for sgai's own
 * sources that need the raw tree (format converters): not installed, as no public header may
 * include a JSON library. */
#ifndef SGAI_CORE_FOUNDATION_JSON_RAW_HPP
#define SGAI_CORE_FOUNDATION_JSON_RAW_HPP

#include "core/foundation/json.hpp"

#include <nlohmann/json.hpp>

namespace sgai::json {

inline const nlohmann::json& raw(const Value& v)
{
  return *static_cast<const nlohmann::json*>(v.node());
}

inline const nlohmann::json& raw(const Document& d)
{
  return *static_cast<const nlohmann::json*>(d.root.get());
}

} // namespace sgai::json

#endif
