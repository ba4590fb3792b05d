#include "core/collectives/nccl.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <limits>

namespace sgai::collectives::nccl {

using chakra::CollectiveType;

namespace {

// NCCL 2.30's published tuning constants (src/graph/tuning.cc, ncclTunerConstantsDefaults), in
// sgai's order: algorithms ring, tree, nvls, nvls_tree; protocols LL, LL128, Simple. Latencies in
// us, bandwidths in GB/s.
constexpr double kBaseLat[kAlgos][kProtos] = {{6.6, 14.0, 8.4}, {6.8, 14.0, 8.4}, {0, 0, 0}, {0, 0, 0}};
enum Hw { kNvlink, kPci, kNet };
constexpr double kHwLat[3][kAlgos][kProtos] = {
    {{0.6, 1.9, 3.4}, {0.6, 1.25, 4.0}, {0, 0, 25}, {0, 0, 25}},    // NVLink
    {{1.0, 2.5, 5.7}, {1.0, 1.9, 4.0}, {0, 0, 0}, {0, 0, 0}},       // PCI
    {{2.7, 4.0, 14.0}, {5.0, 8.5, 14.0}, {0, 0, 18}, {0, 0, 20.9}}, // network
};
// [generation or CPU row][nodes: 1, 2, more]
constexpr double kLlMaxBw[4][3] = {
    {39.0, 39.0, 20.4}, {87.7, 22.5, 19.0}, {141.0, 45.0, 35.0}, {2 * 141.0, 2 * 45.0, 2 * 35.0}};
constexpr double kPerChRingLl128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 36.7}, {40, 40, 40}};
constexpr double kPerChTreeLl128[4][3] = {{20, 20, 20}, {20, 20, 20}, {36.7, 36.7, 29.0}, {55.6, 31.67, 20.0}};
constexpr double kPerChTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {38.7, 41.4, 36.0}, {70.0, 42.8, 24.0}};
constexpr double kPerChNvlsTree[4][3] = {{26.5, 18.5, 10.0}, {24.0, 23.6, 17.8}, {0, 57.7, 45.5}, {0, 96.0, 80.0}};
constexpr double kTreeCorrection[kProtos][24] = {
    {1.0, 1.0, 1.0, 1.0, .9, .8, .7, .7, .7, .7, .6, .5, .4, .4, .5, .6, .7, .8, .9, 1.0, 1.0, 1.0, 1.0, 1.0},
    {1.0, 1.0, 1.0, 1.0, 1.0, .9, .8, .8, .8, .7, .6, .6, .6, .6, .6, .6, .8, .9, .9, .9, .9, 1.0, 1.0, 1.0},
    {.9, .9, .9, .9, .9, .9, .9, .8, .7, .6, .6, .5, .5, .5, .5, .6, .7, .8, .7, .7, .8, .9, .9, .9}};

int log2i(double x)
{
  int l = -1;
  while (x >= 1) {
    x /= 2;
    l++;
  }
  return l;
}

size_t idx(Algo a)
{
  return static_cast<size_t>(a);
}
size_t idx(Proto p)
{
  return static_cast<size_t>(p);
}
size_t idx(Arch a)
{
  return static_cast<size_t>(a);
}

bool same_text(std::string_view a, std::string_view b)
{
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
         });
}

uint32_t steps_of(CollectiveType t, uint32_t n)
{
  if (t == CollectiveType::all_reduce)
    return 2 * (n - 1);
  if (t == CollectiveType::reduce_scatter || t == CollectiveType::reduce_scatter_block ||
      t == CollectiveType::all_gather)
    return n - 1;
  return n;
}

/** Per-step latency of the ring (us): inside a node, and across nodes (with the flush NCCL adds
 *  to Simple). */
struct RingLatency {
  double intra = 0, inter = 0;
};

/** A node's network rate as its GPUs reach it (GB/s per direction): its NICs', or what host
 *  memory's staging lets `ppn` GPUs through. */
double net_GBps(const System& s, double ppn)
{
  return s.staged_GBps > 0 ? std::min(s.inter_GBps, s.staged_GBps * ppn) : s.inter_GBps;
}

RingLatency step_latency(const System& s, Algo a, Proto p, uint32_t ranks, uint32_t nodes)
{
  const Hw intra_hw = s.nvlink ? kNvlink : kPci;
  const bool ppn1   = ranks == nodes;
  RingLatency l;
  l.intra = kHwLat[intra_hw][idx(a)][idx(p)];
  l.inter = (ppn1 ? kHwLat[kNet][idx(Algo::tree)][idx(p)] : kHwLat[kNet][idx(a)][idx(p)]) + s.net_latency_us;
  if (p == Proto::simple)
    l.inter += s.net_latency_us; // the flush
  if (a == Algo::ring && nodes > 1) {
    // inter-node rings still launch a network operation per step (getNetOverhead)
    double overhead = (s.intel_cpu ? 1.0 : 2.0) * (p == Proto::simple ? 3 : 1);
    l.intra         = std::max(l.intra, overhead);
  }
  return l;
}

} // namespace

const char* to_string(Algo a)
{
  switch (a) {
  case Algo::ring:
    return "ring";
  case Algo::tree:
    return "tree";
  case Algo::nvls:
    return "nvls";
  case Algo::nvls_tree:
    return "nvls_tree";
  }
  return "?";
}

const char* to_string(Proto p)
{
  switch (p) {
  case Proto::ll:
    return "LL";
  case Proto::ll128:
    return "LL128";
  case Proto::simple:
    return "Simple";
  }
  return "?";
}

bool algo_from_string(std::string_view s, Algo& out)
{
  for (Algo a : {Algo::ring, Algo::tree, Algo::nvls, Algo::nvls_tree})
    if (same_text(s, to_string(a))) {
      out = a;
      return true;
    }
  if (same_text(s, "nvlstree")) { // NCCL_ALGO's spelling
    out = Algo::nvls_tree;
    return true;
  }
  return false;
}

bool proto_from_string(std::string_view s, Proto& out)
{
  for (Proto p : {Proto::ll, Proto::ll128, Proto::simple})
    if (same_text(s, to_string(p))) {
      out = p;
      return true;
    }
  return false;
}

bool arch_from_string(std::string_view s, Arch& out)
{
  const std::pair<const char*, Arch> names[] = {
      {"volta", Arch::volta}, {"ampere", Arch::ampere}, {"hopper", Arch::hopper}, {"blackwell", Arch::blackwell}};
  for (const auto& [name, a] : names)
    if (same_text(s, name)) {
      out = a;
      return true;
    }
  return false;
}

void default_channels(System& s)
{
  // NCCL's NVLS channels (src/transport/nvls.cc: NVLS_NCHANNELS_SM90 16, SM100 24 inside an NVLink
  // domain); ring and tree: 16 channels on NVSwitch systems, 2 over PCIe
  s.nvls_channels = s.arch == Arch::blackwell ? 24 : 16;
  s.ring_channels = s.nvlink ? 16 : 2;
}

Model model(const System& s, CollectiveType type, uint32_t ranks, uint32_t nodes)
{
  Model m;
  m.type  = type;
  m.ranks = ranks;
  m.nodes = nodes = std::clamp<uint32_t>(nodes, 1, std::max<uint32_t>(1, ranks));
  if (ranks <= 1)
    return m;
  const bool ar    = type == CollectiveType::all_reduce;
  const bool rs_ag = type == CollectiveType::reduce_scatter || type == CollectiveType::reduce_scatter_block ||
                     type == CollectiveType::all_gather;
  const bool bc_red = type == CollectiveType::broadcast || type == CollectiveType::reduce;
  if (not ar && not rs_ag && not bc_red)
    return m; // all-to-all and the rest: point-to-point in NCCL, no tuning
  const uint32_t nsteps = steps_of(type, ranks);
  const size_t n2       = nodes <= 2 ? nodes - 1 : 2;
  const size_t row      = nodes == 1 ? idx(s.arch) : (s.intel_cpu ? 0 : 1);
  const double ppn      = static_cast<double>(ranks) / nodes;
  const double ll_max   = kLlMaxBw[row][n2];
  const double nch      = s.ring_channels;
  // a channel's share of the busiest path: the GPU's links inside a node, the node's NICs across
  const double net      = net_GBps(s, ppn);
  const double ring_bus = nodes > 1 ? std::min(s.intra_GBps, net) : s.intra_GBps;

  m.nvls_tree_correction = s.arch == Arch::blackwell; // NCCL: compute capability 10 on x86
  for (Algo a : {Algo::ring, Algo::tree, Algo::nvls, Algo::nvls_tree}) {
    if (bc_red && a != Algo::ring)
      continue;
    if (rs_ag && a != Algo::ring)
      continue; // (NVLS reduce-scatter and all-gather are not modelled)
    // NVLS: in-switch reduction inside one NVSwitch domain; across nodes it needs CollNet (the
    // network's switches reduce: SHARP), all-reduce only (CollNet's all-gather and reduce-scatter
    // need registered buffers); NVIDIA states that partitions of at most 4 GPUs gain nothing from
    // multicast, and NCCL picks ring there
    if (a == Algo::nvls && (s.nvls_efficiency <= 0 || ranks <= 4 || not s.nvlink))
      continue;
    if (a == Algo::nvls && nodes > 1 && (not s.collnet || not ar || ppn <= 4))
      continue;
    // NVLS-tree: NVLS inside each node (the same conditions on the GPUs of a node), a tree of nodes
    if (a == Algo::nvls_tree && (s.nvls_efficiency <= 0 || nodes <= 1 || ppn <= 4 || not s.nvlink || not ar))
      continue;
    if ((a == Algo::nvls || a == Algo::nvls_tree) && not s.nvls_allowed)
      continue;
    for (Proto p : {Proto::ll, Proto::ll128, Proto::simple}) {
      if ((a == Algo::nvls || a == Algo::nvls_tree) && p != Proto::simple)
        continue;
      if (not s.protocols[idx(p)])
        continue; // the transport does not run it (TCP-based GPUDirect: Simple only)
      double bus = ring_bus;
      if (a == Algo::nvls && nodes == 1) {
        double per_ch = s.intra_GBps / s.nvls_channels;
        double intra =
            per_ch * s.nvls_efficiency * (s.nvls_channels - 1) / s.nvls_channels * (ar ? 2.0 : (ppn - 1) / ppn);
        bus = s.nvls_channels * std::min(intra, per_ch);
      }
      if (a == Algo::nvls && nodes > 1) {
        // per channel: the switch's reduction (all-reduce pipelines two operations), the node's NICs
        double nc    = s.nvls_channels;
        double intra = s.intra_GBps / nc * s.nvls_efficiency * (nc - 1) / nc * 2.0;
        bus          = nc * std::min(intra, net / nc);
      }
      if (a == Algo::nvls_tree) {
        // per channel: the switch's reduction (all-reduce pipelines two operations), the node's
        // NICs (twice their share between two nodes: each half of the tree crosses once), NCCL's cap
        double nc    = s.nvls_channels;
        double intra = s.intra_GBps / nc * s.nvls_efficiency * (nc - 1) / nc * 2.0;
        double inter = net / nc * (nodes <= 2 ? 2.0 : 1.0);
        bus          = nc * std::min({intra, inter, kPerChNvlsTree[idx(s.arch)][n2]});
      }
      if (a == Algo::ring && p == Proto::ll)
        bus = std::min(ll_max, bus * .5);
      if (a == Algo::ring && p == Proto::ll128)
        bus = std::min(bus * 0.92, nch * kPerChRingLl128[idx(s.arch)][n2]);
      if (a == Algo::tree && ar)
        bus = std::min(bus * .92, nch * kPerChTree[idx(s.arch)][n2]);
      if (a == Algo::tree && p == Proto::ll)
        bus = std::min(bus / 3.8, ll_max);
      if (a == Algo::tree && p == Proto::ll128)
        bus = std::min(bus * (nodes == 1 ? 7.0 / 9.0 : 120.0 / 128.0), nch * kPerChTreeLl128[idx(s.arch)][n2]);
      // LL128 needs NVLink inside nodes
      if (p == Proto::ll128 && not s.nvlink)
        bus = 0;
      // bus bandwidth to algorithm bandwidth
      double ratio                     = (a == Algo::tree) ? .5 : static_cast<double>(ranks) / nsteps;
      m.bandwidth_GBps[idx(a)][idx(p)] = bus * ratio;

      double lat = kBaseLat[idx(a)][idx(p)];
      auto sl    = step_latency(s, a, p, ranks, nodes);
      if (a == Algo::ring) {
        if (bc_red) {
          double hop = kHwLat[nodes == 1 ? (s.nvlink ? kNvlink : kPci) : kNet][idx(Algo::ring)][idx(p)];
          if (p == Proto::simple)
            hop = kHwLat[nodes == 1 ? (s.nvlink ? kNvlink : kPci) : kNet][idx(Algo::tree)][idx(p)];
          lat += nsteps * hop;
        } else {
          uint32_t inter = nodes == 1 ? 0 : (ar ? 2 * (nodes - 1) : nodes - 1);
          lat += (nsteps - inter) * sl.intra + inter * sl.inter;
        }
      } else if (a == Algo::tree) {
        lat += 2 * ((ppn - 1) * sl.intra + log2i(nodes) * sl.inter);
      } else if (a == Algo::nvls) {
        lat = sl.intra + (nodes > 1 ? sl.inter : 0.0);
      } else { // nvls_tree
        lat += sl.intra + 2 * log2i(nodes) * sl.inter;
      }
      m.latency_us[idx(a)][idx(p)] = lat;
    }
  }
  return m;
}

double Model::time_us(Algo a, Proto p, double bytes) const
{
  double bw  = bandwidth_GBps[idx(a)][idx(p)];
  double lat = latency_us[idx(a)][idx(p)];
  if (bw <= 0)
    return -1;
  int log_size = log2i(std::floor(bytes / 64));
  if (a == Algo::tree && type == CollectiveType::all_reduce && log_size >= 0 && log_size < 23)
    bw *= kTreeCorrection[idx(p)][log_size];
  if (a == Algo::nvls_tree && nvls_tree_correction && type == CollectiveType::all_reduce && log_size >= 0 &&
      log_size < 24)
    bw *= kTreeCorrection[idx(p)][log_size];
  if (a == Algo::ring && p == Proto::simple && nodes > 1 && type == CollectiveType::all_reduce &&
      bytes / (16.0 * ranks) >= 64)
    lat *= 1.4; // the ring's plateau effect (compute capability 8.0 and later)
  return lat + bytes / (1000 * bw);
}

std::optional<Choice> choose(const Model& m, double bytes, std::optional<Algo> algo, std::optional<Proto> proto)
{
  std::optional<Choice> best;
  for (Algo a : {Algo::ring, Algo::tree, Algo::nvls, Algo::nvls_tree}) {
    if (algo && *algo != a)
      continue;
    // NCCL's trees across nodes need the ranks to fill their nodes in order (else the replay runs
    // sgai's double binary tree over all ranks): only when asked for
    if (not algo && (a == Algo::tree || a == Algo::nvls_tree || a == Algo::nvls) && m.nodes > 1 && not m.regular_nodes)
      continue;
    for (Proto p : {Proto::ll, Proto::ll128, Proto::simple}) {
      if (proto && *proto != p)
        continue;
      double t = m.time_us(a, p, bytes);
      if (t >= 0 && (not best || t < best->time_us))
        best = Choice{a, p, t};
    }
  }
  return best;
}

double Pipeline::sustained_Bps() const
{
  if (rate_Bps <= 0 || slot_bytes <= 0)
    return rate_Bps;
  double cycle = slot_bytes / rate_Bps + 2 * latency_s;
  return std::min(rate_Bps, slots * slot_bytes / cycle);
}

double Pipeline::time_s(double bytes) const
{
  double r = sustained_Bps();
  return latency_s + (r > 0 ? bytes / r : 0);
}

Pipeline pipeline(const System& s, CollectiveType type, Proto p, double latency_s, double rate_Bps)
{
  constexpr uint32_t kSteps = 8; // NCCL_STEPS
  Pipeline pl;
  pl.latency_s = latency_s;
  pl.rate_Bps  = rate_Bps;
  pl.slots     = kSteps;
  if (p == Proto::ll) // NCCL_LL_LINES_PER_THREAD 8 x NCCL_LL_MAX_NTHREADS 512 x 16 B lines per step
    pl.slot_bytes = 8.0 * 512 * 16;
  else if (p == Proto::ll128) // NCCL_LL128_ELEMS_PER_THREAD 120 x NCCL_LL128_MAX_NTHREADS 640 x 8 B per step
    pl.slot_bytes = 120.0 * 640 * 8;
  else {
    // Simple: slices of ALLREDUCE/ALLGATHER/REDUCESCATTER_SLICESTEPS (NCCL_STEPS / 4) steps, one step
    // for the others (src/include/collectives.h)
    const bool sliced = type == CollectiveType::all_reduce || type == CollectiveType::all_gather ||
                        type == CollectiveType::reduce_scatter || type == CollectiveType::reduce_scatter_block;
    const uint32_t slice = sliced ? kSteps / 4 : 1;
    pl.slot_bytes        = s.simple_buffer_bytes / kSteps * slice;
    pl.slots             = kSteps / slice;
  }
  return pl;
}

Pipeline ring_pipeline(const System& s, const Model& m, Proto p, uint32_t channels, double path_inter_s)
{
  const double nodes = std::max<uint32_t>(1, m.nodes);
  const double ppn   = std::max(1.0, static_cast<double>(m.ranks) / nodes);
  double rate        = s.inter_GBps * 1e9 / ppn;
  if (s.staged_GBps > 0) // through host memory: the CPU's path bounds it
    rate = std::min(rate, s.staged_GBps * 1e9);
  auto pl            = pipeline(s, m.type, p, path_inter_s + s.net_latency_us * 1e-6, rate);
  const double nc    = std::max<uint32_t>(1, channels);
  const double rings = m.regular_nodes && ppn > 1 ? std::min(ppn, nc) : 1.0;
  pl.slots *= static_cast<uint32_t>(std::max(1.0, std::floor(nc / rings)));
  return pl;
}

uint32_t channels(const System& s, Algo a, Proto p, uint32_t ranks, double bytes)
{
  if (a == Algo::nvls || a == Algo::nvls_tree)
    return std::max<uint32_t>(1, s.nvls_channels);
  // per thread before NCCL adds a channel (src/include/comm.h), threads per channel (device.h)
  const double threshold = p == Proto::simple ? 64.0 : 8.0;
  const double threads   = p == Proto::ll128 ? 640.0 : 512.0;
  const double per_ch    = threads * threshold * (a == Algo::ring && p == Proto::ll ? std::max<uint32_t>(1, ranks) : 1);
  uint32_t nc            = std::max<uint32_t>(1, s.ring_channels);
  while (nc >= 2 && bytes < nc * per_ch)
    nc--;
  return nc;
}

ProtocolCosts costs(const System& s, const Model& m, const Choice& c, double path_intra_s, double path_inter_s,
                    uint32_t channels)
{
  ProtocolCosts k;
  k.name                     = to_string(c.proto);
  k.wire_factor              = c.proto == Proto::ll ? 2.0 : c.proto == Proto::ll128 ? 128.0 / 120.0 : 1.0;
  const uint32_t nodes       = std::max<uint32_t>(1, m.nodes);
  const size_t n2            = nodes <= 2 ? nodes - 1 : 2;
  const size_t row           = nodes == 1 ? idx(s.arch) : (s.intel_cpu ? 0 : 1);
  const double nch           = s.ring_channels;
  const bool ar              = m.type == CollectiveType::all_reduce;
  double plateau             = (c.algo == Algo::ring && c.proto == Proto::simple && nodes > 1 && ar) ? 1.4 : 1.0;
  auto sl                    = step_latency(s, c.algo, c.proto, m.ranks, nodes);
  k.start_s                  = kBaseLat[idx(c.algo)][idx(c.proto)] * plateau * 1e-6;
  k.intra_step_s             = std::max(0.0, sl.intra * plateau * 1e-6 - path_intra_s);
  k.inter_step_s             = std::max(0.0, sl.inter * plateau * 1e-6 - path_inter_s);
  const bool across_switches = c.algo == Algo::nvls && nodes > 1; // NVLS with SHARP
  if (c.algo == Algo::nvls_tree || across_switches || (c.algo == Algo::tree && m.regular_nodes)) {
    // NCCL's trees run as one step of concurrent transfers (algorithms/nccl_trees.cpp): their
    // pipeline's latency, NCCL's, comes up front, less the longest path the simulation charges
    k.start_s = std::max(0.0, m.latency_us[idx(c.algo)][idx(c.proto)] * 1e-6 - std::max(path_intra_s, path_inter_s));
    k.intra_step_s = 0;
    k.inter_step_s = 0;
  }
  const bool nvls = c.algo == Algo::nvls || c.algo == Algo::nvls_tree;
  // NCCL's channels for this size: a channel's share of the bus bandwidth each
  const double nc    = nvls ? s.nvls_channels : (channels > 0 ? std::min<double>(channels, nch) : nch);
  k.channels         = static_cast<uint32_t>(nc);
  const double share = nvls ? 1.0 : nc / nch;
  const double bus =
      nodes > 1 ? std::min(s.intra_GBps, net_GBps(s, static_cast<double>(m.ranks) / nodes)) : s.intra_GBps;
  double cap = 0; // bus bandwidth the protocol's packing (or the channels in use) allows, GB/s
  if (c.proto == Proto::ll)
    cap = share < 1 ? std::min(kLlMaxBw[row][n2], 0.5 * bus * share) : kLlMaxBw[row][n2];
  else if (c.proto == Proto::ll128)
    cap = nc * (c.algo == Algo::tree ? kPerChTreeLl128 : kPerChRingLl128)[idx(s.arch)][n2];
  else if (c.algo == Algo::tree && ar)
    cap = nc * kPerChTree[idx(s.arch)][n2];
  else if (nvls) // the switch reduces and multicasts at this share
    cap = s.nvls_efficiency * s.intra_GBps;
  else if (share < 1) // Simple's ring on fewer channels than the links need
    cap = bus * share;
  k.rank_rate_cap_Bps = cap * 1e9;
  k.cap_intra_only    = c.algo == Algo::nvls_tree || across_switches;
  if (nodes > 1 && s.inter_GBps > 0) {
    // one channel's slots across nodes, at its GPU's share of the node's NICs
    auto pl = ring_pipeline(s, m, c.proto, k.channels, path_inter_s);
    // a bound where the slots or the host's staging leave less than the GPU's share of the NICs
    const double nic_share = s.inter_GBps * 1e9 / std::max(1.0, static_cast<double>(m.ranks) / nodes);
    k.net_pipeline_Bps     = pl.sustained_Bps() < nic_share ? pl.sustained_Bps() : 0;
  }
  return k;
}

} // namespace sgai::collectives::nccl
