/* Type catalogues of a platform: processors, nodes, networks, memories, GPUs, intra-node
 * interconnects. Plain C++ data; parsed from HDeepRM's *_types.json or sgai catalogue files. */
#ifndef SGAI_PLATFORM_CATALOGUE_HPP
#define SGAI_PLATFORM_CATALOGUE_HPP

#include <map>
#include <optional>
#include <string>
#include <vector>

namespace sgai::platform {

/** Where a definition came from, for error messages: file and JSON pointer. */
struct Origin {
  std::string file;
  std::string pointer;
};

struct ProcessorType {
  std::string name; ///< catalogue key ("Xeon L5640")
  std::string id;   ///< HDeepRM's short id ("xeon_l5640"), may be empty
  std::string uarch;
  int cores              = 0;
  double clock_hz        = 0;
  double flops_per_cycle = 0; ///< HDeepRM's dpflops_per_cycle
  double mem_bw_Bps      = 0; ///< memory bandwidth shared by the processor's cores
  double llc_bytes       = 0;
  double tdp_w           = 0; ///< HDeepRM's "power": thermal design power, taken as full-load power
  Origin origin;

  double flops_per_core() const { return clock_hz * flops_per_cycle; }
};

struct MemoryType {
  std::string name;
  double latency_s = 0;
  Origin origin;
};

/** A network technology: per-link bandwidth, optional default latency and link power. */
struct NetworkType {
  std::string name;
  double bandwidth_Bps = 0;
  std::optional<double> latency_s;
  std::optional<double> idle_w; ///< link power when idle (wattage_range lower bound)
  std::optional<double> busy_w; ///< link power at full use (wattage_range upper bound)
  Origin origin;
};

struct GpuPState {
  double speed_factor  = 1; ///< compute-clock fraction f: of the peak speed in this state (power cap / DVFS)
  double max_w         = 0; ///< power at full load in this state (the cap)
  double memory_factor = 1; ///< memory-bandwidth fraction m in this state
};

struct GpuType {
  std::string name;
  std::string id;
  std::map<std::string, double> peak_flops; ///< precision ("fp16", "fp64", ...) -> flop/s
  std::string default_precision;            ///< the precision whose peak is the SimGrid host speed
  double memory_bytes = 0;
  double mem_bw_Bps   = 0;
  double idle_w       = 0;
  double max_w        = 0;
  std::vector<GpuPState> pstates; ///< empty: one P-state at full speed and max_w
  /** "volta", "ampere", "hopper", "blackwell" or empty: the generation NCCL's tuning model keys its
   *  constants on (plugins/replay/nccl.hpp). */
  std::string architecture;
  Origin origin;
};

/** Intra-node interconnect technology. */
struct InterconnectType {
  enum class Kind { pcie, nvlink, nvswitch };
  std::string name;
  Kind kind            = Kind::pcie;
  double bandwidth_Bps = 0; ///< per direction, per GPU (pcie, nvswitch) or per GPU pair (nvlink)
  /** The payload rate per direction that transfers reach (NVLink's flits carry headers): NCCL's
   *  per-link figure times the links (topo.h). Set, the SimGrid links run at it. */
  std::optional<double> effective_bandwidth_Bps;
  /** In-switch reduction (NVLink SHARP, NCCL's NVLS) at this fraction of the links' effective rate
   *  (NCCL's nvlsEfficiency); 0: the switch does not reduce. */
  double nvls_efficiency = 0;
  double latency_s       = 0;
  std::optional<double> idle_w;
  std::optional<double> busy_w;
  Origin origin;
};

struct TypeCount {
  std::string type;
  int count = 0;
  Origin origin;
};

struct NodeType {
  std::string name;
  std::string id;
  std::vector<TypeCount> processors;
  std::string memory_type;
  double memory_bytes = 0;
  std::vector<TypeCount> gpus;
  std::string gpu_interconnect;  ///< GPU<->GPU; empty: through the host interconnect
  std::string host_interconnect; ///< CPU<->GPU and GPU<->NIC; required when the node has GPUs
  Origin origin;
};

/** All type catalogues of a platform, merged from every source. */
struct Catalogue {
  std::map<std::string, ProcessorType> processors;
  std::map<std::string, NodeType> nodes;
  std::map<std::string, NetworkType> networks;
  std::map<std::string, MemoryType> memories;
  std::map<std::string, GpuType> gpus;
  std::map<std::string, InterconnectType> interconnects;
};

/** Precisions a GPU type may list in peak_flops. */
const std::vector<std::string>& known_precisions();

} // namespace sgai::platform

#endif
