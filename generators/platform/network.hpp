/* Internal: the network layout shared by the XML writer and the S4U builder, so that both give
 * every pair of hosts the same sequence of links. */
#ifndef SGAI_GENERATORS_PLATFORM_NETWORK_HPP
#define SGAI_GENERATORS_PLATFORM_NETWORK_HPP

#include "generators/platform/model.hpp"

#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {

/** One link of a route; `up` picks the _UP side of a split-duplex link. */
struct Hop {
  int32_t link;
  bool up;
};

/** A symmetrical route between two netpoints of a node zone, by name. */
struct LocalRoute {
  std::string src;
  std::string dst;
  std::vector<Hop> hops;
};

/** Links declared inside a node zone: memory bus, PCIe, NVLink. */
std::vector<int32_t> node_links(const Platform& p, const NodeDesc& nd);
/** Every route inside a node zone (each unordered pair of hosts, and each host to the router):
 *  CPU-CPU through the memory bus, CPU-GPU through bus and PCIe, GPU-GPU through the NVSwitch,
 *  the NVLink mesh or PCIe, and anything to the router through its bus or PCIe link. */
std::vector<LocalRoute> node_routes(const Platform& p, const NodeDesc& nd);
/** Hops between two hosts of one node (index in the node: CPU hosts first, then GPUs). */
std::vector<Hop> node_pair_hops(const Platform& p, const NodeDesc& nd, uint32_t a, uint32_t b);

/** Clos clusters. The NIC (index in p.nics) a host sends through towards the host `towards` of another
 *  node (its index in that node): a GPU's own NIC (several: spread by destination; none: the one of its
 *  share of the node's NICs), a CPU host's node's first. */
uint32_t nic_of(const Platform& p, uint32_t host, uint32_t towards);
/** The switch links between two NIC ports of a clos (positions): up to the lowest level joining their
 *  leaves, choosing each parent and parallel link by the destination NIC (destination-mod-k), and
 *  down; nothing on one leaf. */
std::vector<Hop> clos_fabric_hops(const ClusterDesc& c, uint64_t from_position, uint64_t to_position);
/** Every link between two hosts of a clos cluster: inside a node its fabric (node_pair_hops); else
 *  the host's PCIe or memory bus, the sender's NIC, the switches, the receiver's NIC and its bus. */
std::vector<Hop> clos_hops(const Platform& p, uint32_t from, uint32_t to);

/** Hops from one host of a node zone to the node's router. */
std::vector<Hop> hops_to_router(const Platform& p, const NodeDesc& nd, uint32_t host_in_node);

/** Name of the netpoint linking a cluster to the others: its router for flat clusters, node 0's
 *  gateway (router or host) for full, fat-tree, torus and dragonfly clusters. */
std::string cluster_gateway(const Platform& p, uint32_t cluster);
/** Whether the cluster's global link sits on its gateway's own route (flat clusters of CPU
 *  nodes) rather than on the routes between clusters. */
bool global_link_inside_cluster(const Platform& p, uint32_t cluster);

/** Links between the gateways of two clusters: their global links (unless on the gateways' own
 *  routes) around the central switch. */
std::vector<Hop> inter_cluster_hops(const Platform& p, uint32_t from, uint32_t to);

/** SimGrid's name of one hop ("x" or "x_UP" / "x_DOWN" for split-duplex links). */
std::string simgrid_link_name(const Platform& p, const Hop& hop);
/** The links SimGrid must put on the route between two hosts (by index in p.hosts), derived from
 *  the model alone; nothing for routes through SimGrid's fat-tree, torus or dragonfly zones, whose
 *  inner links SimGrid names itself. Used to check both builders against the description. */
std::optional<std::vector<std::string>> expected_route(const Platform& p, uint32_t from, uint32_t to);

/** A fat tree's per-level counts in SimGrid's order: down (m_i), up (w_i), parallel links (p_i). */
struct FatTreeColumns {
  std::vector<unsigned> down, up, links;
};
FatTreeColumns fat_tree_columns(const Topology& t);

/** SimGrid's topology name and topo_parameters string for a fat-tree, torus or dragonfly. */
const char* simgrid_topology_name(TopologyKind k);
std::string simgrid_topology_parameters(const Topology& t);

/** SimGrid host attributes: "s0f,s1f,..." and wattage_per_state. */
std::string speeds_text(const HostClass& c);
std::string wattage_text(const HostClass& c);

} // namespace sgai::platform

#endif
