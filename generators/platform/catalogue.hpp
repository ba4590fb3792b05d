/* Type catalogues of a platform: processors, nodes, networks, memories, GPUs, intra-node
 * interconnects. Plain C++ data; parsed from HDeepRM's *_types.json or sgai catalogue files. */
#ifndef SGAI_GENERATORS_PLATFORM_CATALOGUE_HPP
#define SGAI_GENERATORS_PLATFORM_CATALOGUE_HPP

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
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
/** How NCCL moves data over a network: the net plugin (IB verbs, RoCE, AWS's OFI over EFA/SRD,
 *  Google's TCP-based GPUDirect) and what its provider publishes for it. */
struct TransportType {
  std::string name;
  std::string kind;     ///< ib_verbs, roce, efa, tcp_gpudirect
  double latency_s = 0; ///< the plugin's latency property (NCCL's latencyInter: per network step)
  bool ll = true, ll128 = true, simple = true; ///< the protocols NCCL runs over it
  bool nvls             = true;                ///< NVLink SHARP allowed (the provider's NCCL_NVLS_ENABLE)
  double buffer_bytes   = 4194304;             ///< Simple's buffer per channel (NCCL_BUFFSIZE)
  uint32_t min_channels = 0;                   ///< NCCL_MIN_NCHANNELS (0: NCCL's own)
  /** The NIC reads and writes GPU memory (GPUDirect RDMA); false: NCCL stages the data through host
   *  memory (bounce buffers), each byte crossing the CPU's PCIe path twice. */
  bool gpu_direct = true;
  std::string source;
  Origin origin;
};

struct NetworkType {
  std::string name;
  std::string transport; ///< a transport type (empty: NCCL's model with the link's own latency)
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

/** Measured dense-GEMM throughput of a GPU type, per precision: the fraction of the peak its best
 *  shape reached and that shape (M, N, K), for the kernel model (core/kernels/gemm.hpp). */
struct MatmulMeasure {
  double fraction = 0;
  uint64_t m = 0, n = 0, k = 0;
  /** A boost-clock (burst) figure's share held under a training step's sustained load (the
   *  catalogue's optional "sustained", a measured sustained-over-burst ratio); 1: already sustained. */
  double sustained = 1;
};

/** Published fused-attention throughput of a GPU type at one precision, by sequence length: FLOP/s
 *  as FlashAttention's benchmarks count them (forward 4 s^2 d per head and sequence, halved under a
 *  causal mask; backward 2.5 times the forward's), for the kernel model (core/kernels). */
struct AttentionMeasure {
  std::string kernel;                 ///< which implementation ("cuDNN", "FlashAttention-3", ...)
  uint32_t head_dim = 0;              ///< the head size measured
  std::vector<double> seq;            ///< sequence lengths, increasing
  std::vector<double> forward;        ///< FLOP/s without a mask, per sequence length
  std::vector<double> forward_causal; ///< FLOP/s with a causal mask
  std::vector<double> backward;       ///< FLOP/s of the backward pass without a mask
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
   *  constants on (core/collectives/nccl.hpp). */
  std::string architecture;
  /** Where the figures come from: datasheet or whitepaper and its table (a URL allowed), and which
   *  figures are assumed; empty when the catalogue does not say. */
  std::string source;
  /** The names CUDA or ROCm report for this GPU (cudaDeviceProp::name, hipDeviceProp_t::name), as the
   *  PyTorch profiler writes them in a Kineto trace's deviceProperties; see find_gpu_by_device_name. */
  std::vector<std::string> device_names;
  /** Streaming multiprocessors (NVIDIA) or compute units of one device as ROCm shows it (AMD);
   *  0: not given. */
  int multiprocessors = 0;
  /** precision -> measured best GEMM (the catalogue's "matmul"); empty when not given. */
  std::map<std::string, MatmulMeasure> matmul;
  std::string matmul_source; ///< where the matmul figures come from
  /** The GEMM model's fixed costs (matmul/overheads): per kernel and per wave of output tiles, 0
   *  when not given; where they come from. */
  double matmul_kernel_s = 0, matmul_wave_s = 0;
  std::string matmul_overheads_source;
  /** precision -> published fused-attention throughput (the catalogue's "attention"); empty when
   *  not given (the kernel model then runs attention at the GEMM model's rate). */
  std::map<std::string, AttentionMeasure> attention;
  std::string attention_source;
  /** The attention figures' rate held under a training step's sustained load, as a fraction of the
   *  measured (boost-clock) one (attention/sustained; 1 when not given), and where it comes from. */
  double attention_sustained = 1;
  std::string attention_sustained_source;
  /** Fraction of the HBM bandwidth that streaming kernels (element-wise, normalization, softmax,
   *  optimizer) reach (the catalogue's "stream": {"fraction", "source"}); 0: not given. */
  double stream_fraction = 0;
  std::string stream_source;
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
  /** The node's NICs, one network type: `count` of them, NIC i next to (on the PCIe switch of) GPU
   *  near_gpus[i]; by default NIC i sits next to GPU i x gpus / count. Clos clusters link each NIC to a
   *  leaf switch of its own; the other topologies give a node one port and do not use them. */
  struct Nics {
    std::string type;
    uint32_t count = 0;
    std::vector<uint32_t> near_gpus;
    Origin origin;
  };
  std::optional<Nics> nics;
  Origin origin;
};

/** All type catalogues of a platform, merged from every source. */
struct Catalogue {
  std::map<std::string, ProcessorType> processors;
  std::map<std::string, NodeType> nodes;
  std::map<std::string, NetworkType> networks;
  std::map<std::string, TransportType> transports;
  std::map<std::string, MemoryType> memories;
  std::map<std::string, GpuType> gpus;
  std::map<std::string, InterconnectType> interconnects;
};

/** Precisions a GPU type may list in peak_flops. */
const std::vector<std::string>& known_precisions();

/** The GPU type a device of a profiler trace is, from what CUDA / ROCm report for it (a Kineto
 *  trace's deviceProperties: name, numSms, totalGlobalMem); nullptr when none or several fit.
 *  - A type whose device_names holds `name` (case-insensitive, surrounding blanks ignored) fits unless
 *    a figure given contradicts it: `multiprocessors` (> 0) other than the type's (when it gives
 *    one), or `memory_bytes` (> 0) more than 10% away from its memory_capacity. So a name two
 *    variants share ("AMD Instinct MI250X / MI250": 110 or 104 compute units) is told apart.
 *  - Else a generic name, one without a digit (ROCm's "AMD Radeon Graphics", or empty), names no
 *    model: the types giving multiprocessors fit when both figures are given, the count is theirs
 *    and the memory within 10% of their memory_capacity.
 *  - Else nothing: a catalogue that does not list a model's name has no figures for it (an
 *    "NVIDIA A100 80GB PCIe" is not the SXM4 board though it has its SMs and memory). */
const GpuType* find_gpu_by_device_name(const Catalogue& cat, std::string_view name, int multiprocessors = 0,
                                       double memory_bytes = 0);

/** The GPU type of that name in the catalogue read from `file`; InputError(file, option, ...)
 *  listing the catalogue's types otherwise (`option`: where the name was given, "--gpu"). */
const GpuType& named_gpu(const Catalogue& cat, const std::string& name, const std::string& option,
                         const std::string& file);

} // namespace sgai::platform

#endif
