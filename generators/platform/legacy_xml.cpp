#include "generators/platform/legacy_xml.hpp"

#include <regex>
#include <utility>

namespace sgai::platform {

namespace {

/** Replaces every occurrence; returns how many. */
size_t replace_all(std::string& text, const std::string& from, const std::string& to)
{
  size_t n = 0;
  for (size_t pos = text.find(from); pos != std::string::npos; pos = text.find(from, pos + to.size())) {
    text.replace(pos, from.size(), to);
    n++;
  }
  return n;
}

} // namespace

std::optional<std::string> translate_legacy_xml(const std::string& text, std::vector<std::string>& notes)
{
  std::string out                                                = text;
  const std::vector<std::pair<std::string, std::string>> renames = {
      {"<AS ", "<zone "},
      {"<AS>", "<zone>"},
      {"</AS>", "</zone>"},
      {"<ASroute ", "<zoneRoute "},
      {"</ASroute>", "</zoneRoute>"},
      {"<bypassASroute ", "<bypassZoneRoute "},
      {"</bypassASroute>", "</bypassZoneRoute>"},
      {"\"watt_per_state\"", "\"wattage_per_state\""},
      {"\"watt_off\"", "\"wattage_off\""},
      {"\"watt_range\"", "\"wattage_range\""},
      {"\"contexts/stack_size\"", "\"contexts/stack-size\""},
      {"\"contexts/guard_size\"", "\"contexts/guard-size\""},
      {"\"network/TCP_gamma\"", "\"network/TCP-gamma\""},
      {"\"network/bandwidth_factor\"", "\"network/bandwidth-factor\""},
      {"\"network/latency_factor\"", "\"network/latency-factor\""},
      {"\"network/weight_S\"", "\"network/weight-S\""},
      {"\"smpi/bw_factor\"", "\"smpi/bw-factor\""},
      {"\"smpi/lat_factor\"", "\"smpi/lat-factor\""},
      {"<platform version=\"4\">", "<platform version=\"4.1\">"},
  };
  for (const auto& [from, to] : renames)
    if (size_t n = replace_all(out, from, to))
      notes.push_back(std::to_string(n) + " x " + from + " -> " + to);
  // Options SimGrid 3.32 no longer has (host coordinates are always read now).
  for (const char* key : {"network/coordinates", "network/sender_gap"}) {
    std::regex prop("<prop[^>]*id=\"" + std::string(key) + "\"[^>]*/>|<prop[^>]*id=\"" + std::string(key) +
                    "\"[^>]*>\\s*</prop>");
    std::string before = out;
    out                = std::regex_replace(out, prop, "");
    if (out != before)
      notes.push_back(std::string("dropped the option ") + key);
  }
  if (notes.empty())
    return std::nullopt;
  return out;
}

} // namespace sgai::platform
