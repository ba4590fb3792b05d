/* NCCL's choice of algorithm and protocol, and what a protocol costs. NCCL (src/graph/tuning.cc)
 * predicts each (algorithm, protocol)'s time as a latency plus bytes over a bus bandwidth, from
 * published constants (base and per-hop latencies, per-channel bandwidth caps, NVLS efficiency)
 * and the topology it detected, and runs the fastest. This model does the same for the
 * algorithms sgai runs (ring, NCCL's double binary tree, NVLS in one NVSwitch domain) and the
 * three protocols; the replay then simulates the chosen pair on the platform's links, with the
 * protocol's costs (ProtocolCosts): bytes on the wire per payload byte, bandwidth caps, the
 * collective's base latency and each step's latency beyond the path's own. Pure domain code. */
#ifndef SGAI_CORE_COLLECTIVES_NCCL_HPP
#define SGAI_CORE_COLLECTIVES_NCCL_HPP

#include "chakra/trace.hpp"

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::collectives::nccl {

/** NCCL's algorithms sgai runs: ring; tree (across nodes: a chain through each node's GPUs under a
 *  double binary tree of nodes; in one node sgai's double binary tree); NVLS (in-switch reduction in
 *  one NVSwitch domain; across nodes with CollNet, the network's switches reducing between nodes:
 *  SHARP); NVLS-tree (NVLS in each node, a double binary tree of nodes between them). */
enum class Algo { ring, tree, nvls, nvls_tree };
enum class Proto { ll, ll128, simple };
constexpr size_t kAlgos  = 4;
constexpr size_t kProtos = 3;
const char* to_string(Algo a);                          ///< "ring", "tree", "nvls", "nvls_tree"
const char* to_string(Proto p);                         ///< "LL", "LL128", "Simple" (NCCL's names)
bool algo_from_string(std::string_view s, Algo& out);   ///< also NCCL's "NVLSTree"
bool proto_from_string(std::string_view s, Proto& out); ///< case-insensitive

/** GPU generations NCCL keys its constants on. */
enum class Arch { volta, ampere, hopper, blackwell };
bool arch_from_string(std::string_view s, Arch& out);

/** What NCCL's topology detection finds on a platform, per GPU and per node. */
struct System {
  Arch arch              = Arch::hopper;
  bool nvlink            = true; ///< a node's GPUs talk over NVLink (else PCIe)
  double intra_GBps      = 0;    ///< a GPU's rate to its node's other GPUs per direction (NVLink effective), 1e9 B/s
  double inter_GBps      = 0;    ///< a node's network rate per direction, all its NICs
  double net_latency_us  = 0;    ///< the network's latency between two nodes (NCCL's latencyInter)
  double nvls_efficiency = 0;    ///< in-switch reduction (NVSwitch with NVLink SHARP); 0: none
  uint32_t ring_channels = 16;   ///< NCCL's ring and tree channels
  uint32_t nvls_channels = 16;   ///< NVLS channels (NVLS_NCHANNELS_SM90 16, SM100 24 in one node)
  bool intel_cpu         = true; ///< the hosts' CPU vendor (multi-node LL bandwidth, network overhead)
  /** What the network's transport allows (the catalogue's transport_types): protocols, NVLS, Simple's
   *  buffer per channel (NCCL_BUFFSIZE) and a floor on the channels (NCCL_MIN_NCHANNELS). */
  std::array<bool, kProtos> protocols{{true, true, true}};
  bool nvls_allowed = true;
  /** In-network reduction across nodes (NCCL's CollNet: SHARP in the switches, with its plugin and
   *  NCCL_COLLNET_ENABLE=1): NVLS then runs across nodes, the switches reducing between them. */
  bool collnet               = false;
  double simple_buffer_bytes = 4194304;
  uint32_t min_channels      = 0;
  /** Host-staged transport (no GPUDirect RDMA): a GPU's rate across nodes through host memory, per
   *  direction, GB/s (each byte crosses its CPU path twice: half the path's rate); 0: GPUDirect. */
  double staged_GBps = 0;
  std::string transport; ///< its name, empty when the network names none
};

/** NCCL's proxy pipeline on one channel across nodes: slots of `slot_bytes` (the protocol's step, or
 *  Simple's slice of slice_steps steps), NCCL_STEPS / slice steps of them in flight; a slot returns to
 *  the sender once its message has crossed and the receiver has posted it again: a cycle of the
 *  message's own time (slot_bytes / rate) and two crossings of `latency_s`. */
struct Pipeline {
  double slot_bytes = 0;
  uint32_t slots    = 8;
  double latency_s  = 0; ///< one crossing: the path's latency and the transport's
  double rate_Bps   = 0; ///< the NIC's rate
  /** The rate the slots sustain: rate, or slots x slot_bytes per cycle when that is less
   *  (latency-bound). */
  double sustained_Bps() const;
  bool latency_bound() const { return sustained_Bps() < rate_Bps; }
  /** One channel's time to move `bytes` across: a crossing, then the bytes at the sustained rate. */
  double time_s(double bytes) const;
};

/** The pipeline of a protocol for a collective type: NCCL's buffer per protocol (LL: 8 x 64 KiB
 *  lines of 16 B, half flags; LL128: 8 x 614,400 B; Simple: NCCL_BUFFSIZE), split in NCCL_STEPS
 *  slots, Simple's all-reduce, all-gather and reduce-scatter sending slices of 2 steps (4 in flight). */
Pipeline pipeline(const System& s, chakra::CollectiveType type, Proto p, double latency_s, double rate_Bps);

/** NCCL's channel counts for a GPU generation: ring channels, NVLS channels in one node. */
void default_channels(System& s);

/** The channels NCCL runs one collective of `bytes` on (src/enqueue.cc, topoGetAlgoInfo; `bytes` as
 *  NCCL counts them: an all-gather's output, a reduce-scatter's input). Ring and tree start from the
 *  ring channels and drop one at a time, down to 1, while bytes < channels x threads x the protocol's
 *  bytes per thread (NCCL_SIMPLE_THREAD_THRESHOLD 64, NCCL_LL_THREAD_THRESHOLD and
 *  NCCL_LL128_THREAD_THRESHOLD 8, ring LL's times the ranks; threads NCCL_SIMPLE_MAX_NTHREADS and
 *  NCCL_LL_MAX_NTHREADS 512, NCCL_LL128_MAX_NTHREADS 640); NVLS and NVLS-tree keep the NVLS channels. */
uint32_t channels(const System& s, Algo a, Proto p, uint32_t ranks, double bytes);

/** The model of one collective type over `ranks` GPUs on `nodes` nodes: latency (us) and
 *  algorithm bandwidth (GB/s, NCCL's) of each (algorithm, protocol); bandwidth 0: not available. */
struct Model {
  chakra::CollectiveType type = chakra::CollectiveType::all_reduce;
  uint32_t ranks = 0, nodes = 0;
  /** The ranks fill their nodes in order, as many on each (NCCL's trees across nodes need it;
   *  model() assumes so, the replay clears it for other layouts and the trees across nodes are
   *  then not chosen unless asked for). */
  bool regular_nodes        = true;
  bool nvls_tree_correction = false; ///< NCCL corrects NVLS-tree's bandwidth by size on Blackwell
  std::array<std::array<double, kProtos>, kAlgos> latency_us{}, bandwidth_GBps{};
  /** NCCL's predicted time in us (ncclTopoGetAlgoTime, one operation); negative: not available. */
  double time_us(Algo a, Proto p, double bytes) const;
};

Model model(const System& s, chakra::CollectiveType type, uint32_t ranks, uint32_t nodes);

/** The proxy pipeline of one ring's crossing between nodes (m.nodes > 1) with `channels` in use: at
 *  its GPU's share of the node's NICs, the channels spread over the rings (a ring per GPU of a node
 *  when the nodes are regular, else one), each ring's crossing carrying its channels' slots side by
 *  side; `path_inter_s` the platform's path latency between two nodes. */
Pipeline ring_pipeline(const System& s, const Model& m, Proto p, uint32_t channels, double path_inter_s);

struct Choice {
  Algo algo      = Algo::ring;
  Proto proto    = Proto::simple;
  double time_us = 0; ///< NCCL's predicted time
};

/** The fastest available pair by NCCL's model, among `algos` (all when unset) and `protos` (all
 *  when unset); none when nothing is available (such as NVLS across nodes). Trees across nodes
 *  are left out, unless asked for, when the nodes are not regular. */
std::optional<Choice> choose(const Model& m, double bytes, std::optional<Algo> algo = std::nullopt,
                             std::optional<Proto> proto = std::nullopt);

/** What the replay charges a collective run with a protocol (CollectiveOptions::protocol). */
struct ProtocolCosts {
  std::string name;        ///< the protocol, for collectives.csv
  double wire_factor  = 1; ///< bytes on the wire per payload byte (LL: a flag per 8 B; LL128: 8 B per 128)
  double start_s      = 0; ///< once per collective: NCCL's base latency
  double intra_step_s = 0; ///< per received piece between GPUs of one node, beyond the path's latency
  double inter_step_s = 0; ///< per received piece between nodes, beyond the path's latency
  /** Payload rate bound of one rank's sending (LL, LL128: what the SMs can pack), spread over the
   *  rank's transfers of a step; 0: none. */
  double rank_rate_cap_Bps = 0;
  /** The cap bounds the rank's sends to GPUs of its node only (NVLS-tree: the switch's rate; its
   *  transfers between nodes leave through the network, not the switch). */
  bool cap_intra_only = false;
  /** Reductions fused in the kernels: a received piece's reduction streams with its transfer and
   *  costs only what the memory cannot keep up with (true); false: after it (ASTRA-sim's). */
  bool fused_reductions = true;
  /** Across nodes: the proxy pipeline's sustained rate per ring when latency-bound (wire bytes per
   *  second; 0: bandwidth-bound, no bound). */
  double net_pipeline_Bps = 0;
  uint32_t channels       = 0; ///< NCCL's channels for this collective (nccl::channels)
  std::vector<uint32_t> node;  ///< node of each group rank (intra- or inter-node steps)
};

/** The costs of running `c` as NCCL does, with `path_intra_s` and `path_inter_s` the latencies of
 *  the platform's paths between two GPUs of a node and of two nodes (already simulated), on
 *  `channels` of NCCL's channels (0: all the ring channels). The protocols' packing caps are per
 *  channel (NCCL's bus bandwidth is channels x a channel's); across nodes the channels spread over the
 *  node's GPUs (a ring each, rails), each GPU's ring carrying channels / GPUs of them, each with its
 *  own proxy pipeline. */
ProtocolCosts costs(const System& s, const Model& m, const Choice& c, double path_intra_s, double path_inter_s,
                    uint32_t channels = 0);

} // namespace sgai::collectives::nccl

#endif
