/* Chakra trace replay on SimGrid. Each rank is driven by three stream actors on its hosts: a
 * compute stream (GPU kernels and memory nodes, in order), a communication stream (collectives,
 * sends and receives, in order) and a CPU thread (is_cpu_op nodes). The rank's feeder releases
 * nodes as their parents complete and each goes to the stream of its kind, so computation and
 * communication overlap as on a GPU. Kernels are executions on the GPU host (recorded duration,
 * or a roofline estimate from num_ops and tensor_size), so host_energy accounts them;
 * collectives match across the ranks of their group (k-th collective of each member) and run as
 * CollectiveRun schedules of S4U communications, so links are shared with every other transfer.
 * Several jobs can replay together on one platform. */
#ifndef SGAI_PLUGINS_REPLAY_REPLAY_HPP
#define SGAI_PLUGINS_REPLAY_REPLAY_HPP

#include "core/collectives/nccl.hpp"
#include "plugins/communicator/communicator.hpp"
#include "plugins/replay/astra_inputs.hpp"

#include <simgrid/forward.h>

#include <filesystem>
#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

namespace sgai::replay {

struct ReplayOptions {
  SystemConfig system;
  /** Network dimension sizes: collectives over every rank of a job whose size is their product
   *  run dimension by dimension (make_multidim_schedule). Empty: flat. */
  std::vector<uint32_t> dims;
  double gpu_peak_flops = 0; ///< roofline peak (0: the GPU host's speed)
  double gpu_mem_bw_Bps = 0; ///< memory nodes and roofline (0: system.local_mem_bw_Bps, else free)
  /** Compute nodes with a recorded duration replay it; others (and all when false) use num_ops. */
  bool recorded_durations = true;
  /** false: transfers share no link (ASTRA-sim's congestion-unaware backend): each takes its
   *  path's latency plus its bytes at the path's slowest bandwidth, as a delay. */
  bool congestion_aware = true;
  /** With congestion_aware false on an ASTRA-sim network: its NPUs in id order and its dimensions'
   *  sizes. Transfers between NPUs that differ in several coordinates are then costed in the first
   *  dimension where they differ, as ASTRA-sim's congestion-unaware backend does
   *  (UnsharedPaths::first_differing_dimension). Empty: every transfer takes its route. */
  std::vector<simgrid::s4u::Host*> unaware_npus;
  std::vector<uint32_t> unaware_dims;
  /** true: a send runs on the rank's communication stream, in turn with its collectives, and a
   *  receive beside them (ASTRA-sim's hardware resource: one GPU communication in flight, receives
   *  exempt); false: each point-to-point operation on a stream of its own (NCCL's). */
  bool sends_on_comm_stream = false;
  /** NCCL's channels over rails: a ring collective over a job's whole world runs as this many rings,
   *  each entering the nodes of `channel_block` consecutive ranks at a different rank
   *  (algorithms::ring_channels); 1: one ring. */
  uint32_t channels      = 1;
  uint32_t channel_block = 0;
  /** Set: collectives run as NCCL runs them on this system (core/collectives/nccl.hpp): the algorithm
   *  and protocol NCCL's tuning model picks for each one's type, size, ranks and nodes (ring, its
   *  double binary tree, NVLS; LL, LL128, Simple), with the protocol's costs; rings across nodes
   *  run one channel per GPU of a node, over the nodes' rails. Collectives the system file gives an
   *  implementation for keep it (ring, double_binary_tree and nvls still get NCCL's protocol);
   *  all-to-all and multi-dimensional layouts run as without it. */
  std::optional<collectives::nccl::System> nccl;
  /** Per collective type, NCCL's algorithm ("ring", "tree", "nvls") or protocol ("LL", "LL128",
   *  "Simple") to use instead of the tuning model's choice (a user's NCCL_ALGO / NCCL_PROTO). */
  std::map<chakra::CollectiveType, collectives::nccl::Algo> nccl_algorithm;
  std::map<chakra::CollectiveType, collectives::nccl::Proto> nccl_protocol;
  /** Set: the bytes every transfer puts on its route's links are counted here (links.csv). */
  class communicator::LinkTraffic* traffic = nullptr;
  /** The feeder waits for control parents (true) or data parents only (false); unset: data only
   *  for traces converted from PyTorch (chakra::pytorch_converted), all otherwise. */
  std::optional<bool> control_deps;
  size_t window     = 1 << 16;
  std::ostream* log = nullptr; ///< replay log CSV (rank,node_id,event,time_us,type,name)
  /** false: collectives() stays empty (a replay of many iterations need not hold every record). */
  bool keep_collectives = true;
  /** true: nothing outside this replay sends on the platform's network (the caller's word: `sgai
   *  replay`, an experiment whose only component is the replay). A congestion-aware collective of a
   *  job's whole world that then has the network to itself until its end (every running rank of the
   *  replay is one of its ranks, and none can send meanwhile) is worked out at once when SimGrid's
   *  sharing would give it the same times (CollectiveRun::work_out_alone): no link carries two of its
   *  transfers at once and its ranks all end together. */
  bool network_to_itself = false;
};

struct RankResult;

struct JobSpec {
  std::string name;
  std::vector<std::filesystem::path> files;            ///< rank i's ET
  std::vector<simgrid::s4u::Host*> gpus;               ///< rank i's GPU
  std::vector<simgrid::s4u::Host*> cpus;               ///< rank i's CPU host (empty: the GPU host)
  std::map<std::string, std::vector<uint32_t>> groups; ///< communicator groups by pg_name
  std::vector<uint32_t> nodes;                         ///< rank i's node (NCCL's model); empty: one node
  /** Called once every rank has replayed its whole trace (from the last rank's actor), with the
   *  job's ranks' results. */
  std::function<void(const std::vector<RankResult>&)> on_end;
};

struct RankResult {
  std::string job;
  uint32_t rank = 0, global = 0;
  std::string host;
  double end_s = 0, compute_s = 0, comm_s = 0, cpu_s = 0;
  uint64_t nodes = 0, untyped_collectives = 0;
  bool data_deps_auto = false; ///< control dependencies not followed: a PyTorch trace, control_deps unset
};

struct CollectiveRecord {
  std::string job, group;
  chakra::CollectiveType type = chakra::CollectiveType::all_reduce;
  uint64_t bytes              = 0;
  std::string algorithm;
  std::string protocol; ///< NCCL's protocol it ran with (empty: no protocol model)
  uint32_t ranks = 0;
  double start_s = 0, end_s = 0;
  /** NCCL's bus bandwidth factor on comm_size: 2(n-1)/n for all-reduce, (n-1)/n for
   *  reduce-scatter and all-to-all, n-1 for all-gather (whose comm_size is one rank's part:
   *  (n-1)/n of the n parts gathered), 1 otherwise. */
  static double bus_factor(chakra::CollectiveType t, uint32_t n);
};

/** ranks.csv and collectives.csv, the same for `sgai replay` and experiment replays (times in ns,
 *  as ASTRA-sim reports them; docs/replay.md lists the columns). */
void write_ranks_csv(std::ostream& out, const std::vector<RankResult>& ranks);
void write_collectives_csv(std::ostream& out, const std::vector<CollectiveRecord>& collectives);

class Replay {
public:
  explicit Replay(ReplayOptions options);
  ~Replay();
  Replay(const Replay&)            = delete;
  Replay& operator=(const Replay&) = delete;

  /** Opens the job's traces (InputError on bad ones or a bad mapping) and creates its actors;
   *  call before the simulation runs. */
  void add_job(JobSpec job);
  /** After the run: the first error an actor met (InputError naming the file, rank and node),
   *  or RunError naming the blocked ranks and their pending nodes when the trace deadlocked. */
  void check() const;
  /** Whether an actor met an error (check() raises it). */
  bool failed() const;

  const std::vector<RankResult>& ranks() const;
  const std::vector<CollectiveRecord>& collectives() const;
  uint64_t nodes_replayed() const;
  /** Congestion-aware collectives that had the network to themselves and were worked out at once
   *  (ReplayOptions::network_to_itself), and of their transfers those that shared links with others
   *  starting at the same instant (timed by max-min sharing as SimGrid shares them:
   *  plugins/communicator/shared_flows.hpp). */
  struct WorkedOut {
    uint64_t collectives = 0, transfers_sharing_links = 0;
  };
  WorkedOut worked_out_at_once() const;
  /** Forgets the jobs whose ranks have all ended and whose actors have all exited (their ranks
   *  leave ranks()); returns how many jobs are left. For a caller adding jobs as it goes. */
  size_t drop_ended_jobs();

  struct Impl;

private:
  std::unique_ptr<Impl> impl_;
};

} // namespace sgai::replay

#endif
