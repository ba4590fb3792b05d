/* ET <-> JSON, exact both ways: every field, the encoding of every attribute, unknown fields
 * (base64), non-finite floats ("NaN", "Infinity"). ET -> JSON -> ET gives the same bytes. */
#ifndef SGAI_CHAKRA_ET_JSON_HPP
#define SGAI_CHAKRA_ET_JSON_HPP

#include <cstdint>
#include <filesystem>
#include <ostream>

namespace sgai::chakra {

/** Streams the ET file as JSON (one node per line); memory stays at one node. Returns the nodes. */
uint64_t jsonize(const std::filesystem::path& et, std::ostream& out);
/** jsonize into a file written atomically. Returns the number of nodes. */
uint64_t jsonize_file(const std::filesystem::path& et, const std::filesystem::path& json);
/** Reads the JSON form (strictly: unknown keys are errors) and writes the ET. Returns the nodes. */
uint64_t dejsonize_file(const std::filesystem::path& json, const std::filesystem::path& et);

} // namespace sgai::chakra

#endif
