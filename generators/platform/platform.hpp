/* Public entry points of the platform generator: read a JSON hierarchy (HDeepRM's format or
 * sgai's versioned extension), expand it, and write SimGrid XML, the resource hierarchy and a
 * deployment. The S4U builder (plugins/platform_sim) builds the same platform in an Engine. */
#ifndef SGAI_GENERATORS_PLATFORM_PLATFORM_HPP
#define SGAI_GENERATORS_PLATFORM_PLATFORM_HPP

#include "generators/platform/model.hpp"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sgai::platform {

struct LoadOptions {
  /** Extra type catalogues: HDeepRM data folders (node_types.json, processor_types.json, ...)
   *  or sgai catalogue files. HDeepRM platforms without any look for ../hdeeprm/data. */
  std::vector<std::filesystem::path> catalogues;
  /** Overrides the file's granularity. */
  std::optional<Granularity> granularity;
};

/** Reads and checks a platform description; InputError on any problem. */
PlatformSpec load_spec(const std::filesystem::path& file, const LoadOptions& options = {});
/** Same, for JSON text in memory; relative catalogue paths resolve against `base_dir`. */
PlatformSpec parse_spec(const std::string& text, const std::string& file_name, const std::filesystem::path& base_dir,
                        const LoadOptions& options = {});

/** Reads a catalogue: an HDeepRM data folder or an sgai catalogue file, with the catalogues its
 *  "include" names (relative to it). */
Catalogue load_catalogue(const std::filesystem::path& path);
/** Same, skipping the files in `loaded` (canonical paths; those read are added to it): a catalogue
 *  included twice, or listed beside one that includes it, is read once. */
Catalogue load_catalogue(const std::filesystem::path& path, std::set<std::string>& loaded);
/** Adds `from` to `into`; a type defined in both is an InputError naming both places. */
void merge_catalogue(Catalogue& into, const Catalogue& from);

/** Expands a checked description into hosts, links and the resource hierarchy. */
Platform resolve(const PlatformSpec& spec);
/** load_spec + resolve. */
Platform generate(const std::filesystem::path& file, const LoadOptions& options = {});

/** Why a platform cannot be written as SimGrid XML (empty when it can). SimGrid 3.32's XML
 *  cannot put node zones below a fat-tree, torus or dragonfly, nor give such a cluster
 *  heterogeneous hosts; the S4U builder can. */
std::string xml_limitation(const Platform& p);
/** Writes the SimGrid XML (platform version 4.1). Throws InputError when xml_limitation() is set. */
void write_xml(const Platform& p, std::ostream& out);
std::string to_xml(const Platform& p);

/** The resource hierarchy JSON (clusters, nodes, processors, core ranges, GPUs, SimGrid hosts). */
void write_hierarchy_json(const Platform& p, std::ostream& out);

/** A SimGrid deployment: one actor running `function` on every compute host, with its host
 *  index as argument. */
void write_deployment_xml(const Platform& p, const std::string& function, std::ostream& out);

/** Whether `function` is one of sgai's actor functions (sgai_workload_manager, sgai_collective,
 *  sgai_trace_replay: docs/library.md), which write_sgai_deployment_xml writes. */
bool is_sgai_actor_function(const std::string& function);
/** A SimGrid deployment starting one of sgai's actors on `p` with `args` (key=value, in order):
 *  sgai_collective and sgai_trace_replay on the first GPU host with hosts= every GPU of the
 *  platform in order (every host when it has none; sgai_collective: bytes=1GiB unless given),
 *  sgai_workload_manager on the first host. std::invalid_argument naming what is missing
 *  (sgai_trace_replay's trace=, sgai_workload_manager's workload=) or given twice. */
void write_sgai_deployment_xml(const Platform& p, const std::string& function, const std::vector<std::string>& args,
                               std::ostream& out);

} // namespace sgai::platform

#endif
