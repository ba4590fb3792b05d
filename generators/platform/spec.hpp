/* A platform description as written by the user (JSON hierarchy), checked but not yet expanded. */
#ifndef SGAI_GENERATORS_PLATFORM_SPEC_HPP
#define SGAI_GENERATORS_PLATFORM_SPEC_HPP

#include "generators/platform/catalogue.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {

/** What one SimGrid host stands for on the CPU side. GPUs are always one host each. */
enum class Granularity { core, processor, node };
const char* to_string(Granularity g);
std::optional<Granularity> granularity_from_string(const std::string& s);

/** SimGrid link sharing policies. */
enum class Sharing { shared, splitduplex, fatpipe };
const char* to_string(Sharing s);

/** A link as described in the file: a network type and/or explicit figures, resolved. */
struct LinkSpec {
  std::string type; ///< network type name, may be empty when the figures are explicit
  double bandwidth_Bps = 0;
  double latency_s     = 0;
  std::optional<double> idle_w;
  std::optional<double> busy_w;
  Origin origin;
};

/** clos: each NIC of a node (its node type's nics) on a leaf switch of its own, switch levels above
 *  ("rail_optimized" in a file: a clos with rails). */
enum class TopologyKind { flat, full, fat_tree, torus, dragonfly, clos };
const char* to_string(TopologyKind k);

struct FatTreeLevel {
  unsigned down  = 0; ///< children of a switch of this level
  unsigned up    = 0; ///< parents of a node of the level below
  unsigned links = 1; ///< parallel links between a node and each of its parents
  LinkSpec link;      ///< links between this level and the level below
};

struct DragonflySpec {
  unsigned groups = 0, group_links = 0;    ///< groups, and links between two groups (blue)
  unsigned chassis = 0, chassis_links = 0; ///< chassis per group, links between chassis (black)
  unsigned routers = 0, router_links = 0;  ///< routers per chassis, links between routers (green)
  unsigned nodes_per_router = 0;
};

struct Topology {
  TopologyKind kind = TopologyKind::flat;
  LinkSpec link; ///< flat: each node's NIC; full: each node pair; torus/dragonfly: every link
  /** fat_tree: level 1 (just above the nodes) first. clos: level 1 is the leaves (`down`: NIC ports
   *  of a leaf; its link is the NICs' own), levels 2 and up as a fat tree's (an XGFT). */
  std::vector<FatTreeLevel> levels;
  /** clos: rail-optimized, NIC r of every node of a group of level-1 `down` nodes on the group's leaf
   *  r; otherwise a node's NICs fill the leaves in order. */
  bool rails = false;
  /** clos with rails: NCCL's PXN (NCCL_PXN_DISABLE=0, its default): a GPU's traffic to a GPU of
   *  another node whose NIC is on another rail crosses NVLink to the GPU of its node on that rail and
   *  leaves by that GPU's NIC, so it stays on one rail. */
  bool pxn = true;
  /** fat_tree, clos: the switches reduce (NVIDIA SHARP on InfiniBand), reached by NCCL through its
   *  CollNet plugin (NCCL_COLLNET_ENABLE=1): NCCL's NVLS all-reduce then runs across nodes. */
  bool sharp = false;
  std::vector<unsigned> dimensions; ///< torus
  DragonflySpec dragonfly;          ///< dragonfly
  Sharing sharing = Sharing::splitduplex;
  Origin origin;
};

struct NodeGroup {
  std::string type;
  int64_t count = 0;
  Origin origin;
};

struct ClusterSpec {
  std::string id;
  std::vector<NodeGroup> nodes;
  Topology topology;
  Origin origin;
};

/** One CPU P-state, as factors of the processor's figures. */
struct CpuPState {
  std::string name;
  double speed = 1; ///< fraction of clock_rate x dpflops_per_cycle
  double idle  = 0; ///< power of an idle core (or idle host), fraction of the TDP share
  double busy  = 1; ///< power of a busy core, fraction of the TDP share
};

struct EnergySpec {
  /** HDeepRM's states by default: idle (processor idle: 5%), active (100% speed; idle core 25%,
   *  busy core 100% power), membw_limited (75% speed at full power). The initial state is
   *  emitted as SimGrid P-state 0. */
  std::vector<CpuPState> cpu_pstates;
  std::string initial_pstate = "idle";
  double off_fraction        = 0; ///< wattage_off as a fraction of full power
};
EnergySpec default_energy();

/** A whole platform description. */
struct PlatformSpec {
  std::string name;
  std::string format; ///< "hdeeprm" (no version key) or "sgai-1"
  std::string source_file;
  Granularity granularity = Granularity::core;
  Catalogue catalogue;
  std::vector<ClusterSpec> clusters;
  std::optional<LinkSpec> global_link;
  EnergySpec energy;
  std::string job_limits_json; ///< HDeepRM's job_limits object, passed through verbatim (may be empty)
};

} // namespace sgai::platform

#endif
