/* NPU networks as ASTRA-sim describes them: dimensions, each a Ring, a Switch or FullyConnected
 * of npus_count NPUs with a bandwidth and a latency, NPU id = sum of coord_d x prod(npus of the
 * dimensions before d). Built as a SimGrid zone (Dijkstra routing over the links of every
 * dimension, split-duplex links: full-duplex hardware). */
#ifndef SGAI_PLUGINS_COMMUNICATOR_NETWORK_HPP
#define SGAI_PLUGINS_COMMUNICATOR_NETWORK_HPP

#include "plugins/communicator/shared_flows.hpp"
#include "plugins/sim/lone_flow.hpp"

#include <simgrid/forward.h>

#include <cstdint>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sgai::communicator {

struct Dimension {
  enum class Kind { ring, switch_, fully_connected };
  Kind kind            = Kind::ring;
  uint32_t npus        = 1;
  double bandwidth_Bps = 0;
  double latency_s     = 0;
};
const char* to_string(Dimension::Kind k);

struct NpuOptions {
  double speed_flops = 1e12; ///< the NPU host's speed (peak FLOP/s) in P-state 0
  double idle_w      = 0;    ///< host_energy figures of the NPU (busy 0: no wattage properties)
  double busy_w      = 0;
  /** Lower P-states (power caps, DVFS): speed as a fraction of P-state 0's and busy power. */
  std::vector<std::pair<double, double>> lower_pstates;
  double cpu_speed_flops = 1e12; ///< the CPU host beside each NPU
  double cpu_idle_w      = 0;    ///< its host_energy figures (0 W unless given)
  double cpu_busy_w      = 0;
  double link_idle_w     = 0; ///< link_energy figures of every link (0: none)
  double link_busy_w     = 0;
};

/** Total NPUs: the product of the dimensions' npus. */
uint32_t npu_count(const std::vector<Dimension>& dims);

struct NpuNetwork {
  std::vector<simgrid::s4u::Host*> npus; ///< in id order
  /** One CPU host per NPU ("<prefix>npu<i>_cpu", no links: CPU operators do not communicate),
   *  so that a trace's CPU operators run beside its GPU kernels instead of sharing the NPU. */
  std::vector<simgrid::s4u::Host*> cpus;
};

/** Builds the network in a new zone named `prefix` under the engine's root zone (created when the
 *  platform has none): hosts "<prefix>npu<i>", routers and links named after their dimension.
 *  Call before the simulation starts. */
NpuNetwork build_npu_network(const std::string& prefix, const std::vector<Dimension>& dims,
                             const NpuOptions& options = {});

/** Transfer times on a network where nothing is shared (ASTRA-sim's congestion-unaware analytical
 *  backend): the sum of the route's link latencies plus the bytes at its slowest link's bandwidth,
 *  whatever else is in flight. Routes are looked up once per pair of hosts. */
class UnsharedPaths {
public:
  double seconds(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, double bytes) const;
  /** seconds() of `bytes` on a path whose latency and bandwidth are known. */
  static double seconds(double latency_s, double bandwidth_Bps, double bytes)
  {
    return latency_s + (bandwidth_Bps > 0 ? bytes / bandwidth_Bps : 0);
  }
  /** The path's latency and bandwidth (its slowest link's). */
  std::pair<double, double> latency_and_bandwidth(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst) const;
  /** The route's latency (the sum of its links'). */
  double latency(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst) const;
  /** ASTRA-sim's rule on its multi-dimensional networks (congestion-unaware MultiDimTopology::send):
   *  a transfer between NPUs whose ids differ in several coordinates is costed in the first
   *  dimension where they differ only, as the route to the NPU that keeps the sender's other
   *  coordinates. `npus` in id order, `dims` the dimensions' sizes (their product is npus' size);
   *  hosts not in `npus` keep their own routes. std::invalid_argument when the sizes disagree. */
  void first_differing_dimension(const std::vector<simgrid::s4u::Host*>& npus, std::vector<uint32_t> dims);

private:
  struct Path {
    double latency_s, bandwidth_Bps;
  };
  const Path& path(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst) const;
  mutable std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, Path> paths_;
  std::vector<simgrid::s4u::Host*> npus_;
  std::map<const simgrid::s4u::Host*, uint32_t> npu_id_;
  std::vector<uint32_t> dims_;
};

/** Transfers on a network they have to themselves: each takes what SimGrid's network model gives a
 *  lone flow on its route (sim::isolated_transfer_time: the model's latency and bandwidth factors,
 *  TCP-gamma's window, cross traffic), and the links where it would share SimGrid's bandwidth with
 *  another transfer at the same time are listed (shared and split-duplex links of its route, and of
 *  the reverse route with cross traffic on; fat pipes share nothing), so that a caller can tell when
 *  two transfers overlap. Routes are looked up once per pair of hosts. Construct it while the
 *  simulation runs (it reads the models' configuration). */
class LoneFlows {
public:
  LoneFlows();
  struct Path {
    sim::RouteCost cost;
    /** The links where it may meet another transfer, numbered by this object: those of its route,
     *  and of the reverse route with cross traffic on (fat pipes too: lmm divides one between
     *  flows of different penalties). */
    std::vector<uint32_t> links;
    /** The shared links with what a transfer on the route consumes of each per byte per second:
     *  1 on its route, 0.05 on the reverse route with cross traffic on (SimGrid's lmm weights). */
    std::vector<std::pair<uint32_t, double>> weights;
    double min_bandwidth = 0; ///< the least bandwidth of the route's links, fat pipes included
    /** SimGrid's sharing penalty: the route's latency, plus network/weight-S over each link's
     *  bandwidth when weight-S is set (LV08); 1 without latency. */
    double penalty = 1;
    /** false: its time is not what SimGrid would give (a model other than CM02 or LV08, a Wi-Fi
     *  link) or running it matters beyond its time (a link with wattage while SimGrid's link-energy
     *  plugin measures). */
    bool exact = true;
  };
  const Path& path(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst) const;
  /** A lone transfer's time on `p`: latency x the latency factor, plus bytes at its rate (SimGrid
   *  charges the latency of an empty transfer too). */
  double seconds(const Path& p, double bytes) const;
  size_t link_count() const { return link_ids_.size(); }
  /** A transfer of `bytes` on `p` for shared_finish_times (plugins/communicator/shared_flows.hpp):
   *  its latency x the latency factor, penalty, links and weights, and its own bound (the bandwidth
   *  factor x the lesser of the route's least bandwidth and TCP-gamma's window, as a lone flow). */
  SharedFlow shared_flow(const Path& p, double bytes) const;
  /** The links for shared_finish_times, by the numbers of Path::links: each one's capacity
   *  (bandwidth x the bandwidth factor of `bytes`) and whether it is a fat pipe. */
  const SharedLinks& capacities(double bytes) const;
  /** The bandwidth factor of a transfer of `bytes`. */
  double bandwidth_factor(double bytes) const { return factors_.bandwidth_factor(bytes); }
  /** maxmin/precision. */
  double precision() const { return precision_; }
  /** Whether shared_finish_times times transfers sharing a fat pipe as SimGrid does: checked under
   *  CM02 (no latency or bandwidth factor, no weight-S); under LV08, 7 of 1,900 random transfers
   *  crossing a shared fat pipe differed (tests/sim/shared_flows_test.cpp), so the replay does not
   *  work those out. */
  bool fat_pipes_exact() const
  {
    return weight_s_ == 0 && factors_.latency_factor(1) == 1 && factors_.bandwidth_factor(1) == 1;
  }
  bool fat_pipe(uint32_t link) const { return capacities_.fatpipe.at(link) != 0; }

private:
  sim::NetworkFactors factors_;
  bool model_exact_ = false;
  bool link_energy_ = false;
  double weight_s_  = 0; ///< network/weight-S
  double precision_ = 1e-5;
  mutable std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, Path> paths_;
  mutable std::map<const simgrid::s4u::Link*, uint32_t> link_ids_;
  mutable std::vector<double> bandwidths_; ///< by link number
  mutable SharedLinks capacities_;
  mutable double capacities_factor_ = -1;
};

/** Bytes each link carried: every transfer adds its bytes to the links of its route (looked up
 *  once per pair of hosts). links.csv reads it: SimGrid's link_load plugin would look a route up at
 *  every communication's start and end (a sixth of a replay's time). */
class LinkTraffic {
public:
  void add(const simgrid::s4u::Host* src, const simgrid::s4u::Host* dst, double bytes);
  double bytes(const simgrid::s4u::Link* link) const;
  /** Every link that carried bytes, with them. */
  std::vector<std::pair<const simgrid::s4u::Link*, double>> links() const;
  /** The bytes of every transfer added (each counted once, whatever its route). */
  double total() const { return total_; }

private:
  double total_ = 0;
  mutable std::map<std::pair<const simgrid::s4u::Host*, const simgrid::s4u::Host*>, std::vector<size_t>> routes_;
  std::map<const simgrid::s4u::Link*, size_t> index_;
  std::vector<double> bytes_;
};

} // namespace sgai::communicator

#endif
