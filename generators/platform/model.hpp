/* A platform expanded from its description: every cluster, node, processor, core range, GPU,
 * SimGrid host and link, with names. Plain data shared by the XML writer, the S4U builder and
 * the actors that load the resource hierarchy. No SimGrid or JSON types here. */
#ifndef SGAI_GENERATORS_PLATFORM_MODEL_HPP
#define SGAI_GENERATORS_PLATFORM_MODEL_HPP

#include "generators/platform/spec.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::platform {

inline constexpr int32_t kNone = -1;

/** Speed and power of a host in one P-state, as SimGrid's wattage_per_state "idle:epsilon:all_cores":
 *  an idle host draws idle_w; at load l in (0, 1] (the fraction of its cores busy) it draws
 *  epsilon_w + l * (all_cores_w - epsilon_w). */
struct PStateDesc {
  double speed_flops = 0; ///< per core
  double idle_w      = 0;
  double epsilon_w   = 0;
  double all_cores_w = 0;
};

/** What many hosts share: core count, P-states, power, SimGrid properties. */
struct HostClass {
  int cores = 1;
  std::vector<PStateDesc> pstates;
  int initial_pstate = 0; ///< always 0 for generated platforms (see Resolver)
  double off_w       = 0;
  std::vector<std::pair<std::string, std::string>> properties; ///< extra properties (GPU figures)
};

enum class HostKind { cpu, gpu };

struct HostDesc {
  std::string name;
  uint32_t host_class = 0;
  HostKind kind       = HostKind::cpu;
  uint32_t node       = 0;
};

struct LinkDesc {
  std::string name;
  double bandwidth_Bps = 0;
  double latency_s     = 0;
  Sharing sharing      = Sharing::splitduplex;
  std::optional<double> idle_w;
  std::optional<double> busy_w;
};

struct ProcessorDesc {
  uint32_t node          = 0;
  uint32_t index_in_node = 0;
  std::string type;
  uint64_t first_core   = 0; ///< global core index (the resource ids of a workload manager)
  uint32_t cores        = 0;
  uint32_t first_host   = 0; ///< host of core k: first_host + k when host_per_core, else first_host
  bool host_per_core    = false;
  double flops_per_core = 0;
  double mem_bw_Bps     = 0;
  double tdp_w          = 0;

  uint32_t host_of_core(uint32_t k) const { return host_per_core ? first_host + k : first_host; }
};

struct GpuDesc {
  uint32_t node          = 0;
  uint32_t index_in_node = 0;
  std::string type;
  uint32_t host       = 0;
  int32_t pcie_link   = kNone; ///< GPU <-> host bridge
  int32_t switch_link = kNone; ///< GPU <-> NVSwitch (nvswitch interconnect)
};

/** A NIC of a clos cluster's node: its link to its leaf switch (split-duplex, up towards the leaf). */
struct NicDesc {
  uint32_t node          = 0;
  uint32_t index_in_node = 0;
  uint32_t near_gpu      = 0; ///< the GPU (index in the node) whose PCIe switch it sits on
  int32_t link           = kNone;
  uint64_t position      = 0; ///< its port among the clos's leaves: leaf position / levels[0].down
};

/** A level of a clos above the leaves (level i >= 2 of the XGFT): the links from each element of
 *  level i - 1 to its `up` parents, `links` in parallel, at links[first_link + (x * up + k) * links + q]. */
struct ClosLevel {
  uint32_t down = 0, up = 0, links = 1;
  uint64_t below       = 0; ///< elements of level i - 1 (leaves for level 2)
  uint64_t width_below = 1; ///< W(i - 1): product of `up` from level 2 to i - 1 (1 for leaves)
  uint64_t switches    = 0; ///< switches of this level
  int32_t first_link   = kNone;
};

struct NodeDesc {
  uint32_t cluster          = 0;
  uint32_t index_in_cluster = 0;
  std::string name;
  std::string type;
  double memory_bytes      = 0;
  uint32_t first_processor = 0, processor_count = 0;
  uint32_t first_gpu = 0, gpu_count = 0;
  uint32_t first_cpu_host = 0, cpu_host_count = 0;
  int32_t nic_link   = kNone;            ///< flat and full topologies: the node's link to the cluster switch
  uint32_t first_nic = 0, nic_count = 0; ///< clos: the node's NICs in Platform::nics
  int32_t membus_link = kNone;           ///< node zones: CPU hosts <-> node port
  /** A node zone groups the node's hosts behind a router (GPU nodes; multi-host nodes in a
   *  fat-tree, torus or dragonfly). Other nodes put their hosts straight into the cluster zone. */
  bool zoned = false;
  std::string router; ///< gateway of the node zone
  InterconnectType::Kind gpu_fabric = InterconnectType::Kind::pcie;
  /** nvlink mesh: link between GPU a and b (a < b) at mesh_links[a * gpu_count + b]. */
  std::vector<int32_t> mesh_links;

  uint32_t host_count() const { return cpu_host_count + gpu_count; }
};

struct ClusterDesc {
  std::string id;
  uint32_t first_node = 0, node_count = 0;
  Topology topology;
  int32_t global_link = kNone; ///< link to the platform's central switch (several clusters only)
  std::string router;          ///< gateway router of the cluster zone
  /** full topology: link between nodes a and b (a < b) at pair_links[a * node_count + b]. */
  std::vector<int32_t> pair_links;
  /** clos: leaves, then the levels above them (ClosLevel); the leaf of a NIC is position / leaf_ports. */
  uint64_t leaves     = 0;
  uint32_t leaf_ports = 0;
  std::vector<ClosLevel> clos;
};

/** The expanded platform. Hosts of a node are contiguous: CPU hosts first, then GPUs. */
struct Platform {
  std::string name;
  std::string source_file;
  Granularity granularity = Granularity::core;
  std::vector<std::string> cpu_pstate_names;
  std::vector<ClusterDesc> clusters;
  std::vector<NodeDesc> nodes;
  std::vector<ProcessorDesc> processors;
  std::vector<GpuDesc> gpus;
  std::vector<NicDesc> nics; ///< clos clusters' NICs, node by node
  std::vector<HostClass> host_classes;
  std::vector<HostDesc> hosts;
  std::vector<LinkDesc> links;
  /** Several clusters: a FATPIPE link standing for the central switch, on every route between
   *  clusters (non-blocking, at the global links' bandwidth). */
  int32_t switch_link = kNone;
  std::string job_limits_json;
  Catalogue catalogue; ///< the types actually used, for the resource hierarchy

  uint64_t core_count() const;
  /** Sum over hosts of cores x speed in the initial P-state... at full speed (P-state 0 speed factor). */
  double total_flops() const;
  /** Sum of idle power in the initial P-state and of full-load power in P-state 0. */
  std::pair<double, double> power_range_w() const;
  const HostClass& class_of(const HostDesc& h) const { return host_classes[h.host_class]; }
};

} // namespace sgai::platform

#endif
