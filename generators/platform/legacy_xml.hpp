/* Older SimGrid/Batsim platform XML, translated for SimGrid 3.32 (Batsim's platforms predate the
 * renamings of SimGrid 3.28 and later), and the energy properties SimGrid's plugin would abort on. */
#ifndef SGAI_GENERATORS_PLATFORM_LEGACY_XML_HPP
#define SGAI_GENERATORS_PLATFORM_LEGACY_XML_HPP

#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {

/** The text with AS -> zone, ASroute -> zoneRoute, watt_per_state / watt_off / watt_range ->
 *  wattage_*, and old configuration keys renamed (contexts/stack_size, network/TCP_gamma, ...); in
 *  its <config> elements, the options SimGrid 3.32 no longer has dropped (network/coordinates,
 *  network/sender_gap), the SMPI ones ignored (every smpi/ key but the network model's factors
 *  smpi/bw-factor, smpi/lat-factor and smpi/IB-penalty-factors: sgai runs no MPI code, and SimGrid
 *  rejects smpi/os, smpi/or... when SMPI is not initialised), and those the run sets itself
 *  (`set_by_run` says which, by their current names) left out: the run's value holds, as SimGrid
 *  would keep it, without SimGrid's "already defined by user" line. Comments are left as they are,
 *  line numbers too. Nothing when the text needs no change; `notes` says what changed, one entry
 *  per kind of change ("N x FROM -> TO" for the renamings). */
std::optional<std::string> translate_legacy_xml(const std::string& text, std::vector<std::string>& notes,
                                                const std::function<bool(const std::string&)>& set_by_run = {});

/** Checks what SimGrid's host energy plugin aborts on: a host or cluster whose wattage_per_state
 *  (or the older watt_per_state) has not one group per P-state (value of its speed), or a group
 *  that is not idle:all_cores or idle:one_core:all_cores. InputError(file, "line N", ...) naming the
 *  first such host (and how many more there are). */
void check_xml_wattage(const std::string& text, const std::string& file);

} // namespace sgai::platform

#endif
