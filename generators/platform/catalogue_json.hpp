/* Internal: catalogue parsing shared by catalogue files and the inline "types" of a platform. */
#ifndef SGAI_PLATFORM_CATALOGUE_JSON_HPP
#define SGAI_PLATFORM_CATALOGUE_JSON_HPP

#include "generators/platform/catalogue.hpp"
#include "generators/util/json.hpp"

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

} // namespace sgai::platform

#endif
