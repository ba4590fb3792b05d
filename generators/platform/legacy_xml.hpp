/* Older SimGrid/Batsim platform XML, translated for SimGrid 3.32 (Batsim's platforms predate the
 * renamings of SimGrid 3.28 and later). */
#ifndef SGAI_PLATFORM_LEGACY_XML_HPP
#define SGAI_PLATFORM_LEGACY_XML_HPP

#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {

/** The text with AS -> zone, ASroute -> zoneRoute, watt_per_state / watt_off / watt_range ->
 *  wattage_*, and old configuration keys renamed (contexts/stack_size, network/TCP_gamma, ...) or
 *  dropped (network/coordinates); nothing when the text needs no change. `notes` says what changed. */
std::optional<std::string> translate_legacy_xml(const std::string& text, std::vector<std::string>& notes);

} // namespace sgai::platform

#endif
