/* Internal: catalogue parsing shared by catalogue files and the inline "types" of a platform. */
#ifndef SGAI_GENERATORS_PLATFORM_CATALOGUE_JSON_HPP
#define SGAI_GENERATORS_PLATFORM_CATALOGUE_JSON_HPP

#include "core/foundation/json.hpp"
#include "core/foundation/units.hpp"
#include "generators/platform/catalogue.hpp"

#include <string>
#include <vector>

namespace sgai::platform {

/** Reads the *_types sections present in `o` into `cat` (the caller calls o.finish()). */
void parse_catalogue_sections(json::Object& o, Catalogue& cat);
/** The section keys: processor_types, node_types, network_types, memory_types, gpu_types, interconnect_types. */
const std::vector<std::string>& catalogue_section_keys();
/** Every type a node type names exists (and interconnects have a fitting kind). */
void check_catalogue_references(const Catalogue& cat);
/** Names of one kind of type ("node", "network", "processor", "gpu", "interconnect", "memory"). */
std::vector<std::string> catalogue_names(const Catalogue& cat, const char* kind);
/** Fails at `v` when a figure is above what any machine has (bandwidth 1e18 B/s, time 1e6 s, speed
 *  1e21 flop/s, size 1e21 B, power 1e9 W, frequency 1e12 Hz), so derived figures stay finite. */
/** Where a JSON object is: its file and JSON pointer (for errors and catalogue entries). */
Origin origin_of(const json::Object& o);

void check_upper_bound(const json::Value& v, double value, units::Quantity q);

} // namespace sgai::platform

#endif
