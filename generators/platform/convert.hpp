/* Converters producing self-contained sgai platform files (version 1). */
#ifndef SGAI_GENERATORS_PLATFORM_CONVERT_HPP
#define SGAI_GENERATORS_PLATFORM_CONVERT_HPP

#include <filesystem>
#include <vector>

namespace sgai::platform {

/** HDeepRM platform + catalogues (found next to it when none is given) -> one sgai platform file
 *  holding the type entries it uses, copied unchanged. The output is checked before it is written. */
void convert_hdeeprm(const std::filesystem::path& file, const std::vector<std::filesystem::path>& catalogues,
                     const std::filesystem::path& out);

/** AccaSim machine description ("groups": cores and memory in KB per node; "resources": node
 *  counts) + an sgai machine map (processors of each group, link types) -> sgai platform file
 *  with one cluster per group. Core counts must match. */
void import_accasim(const std::filesystem::path& config, const std::filesystem::path& map,
                    const std::filesystem::path& out);

} // namespace sgai::platform

#endif
