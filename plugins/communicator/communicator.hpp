/* One collective executed on SimGrid: the schedule's transfers become host-to-host S4U
 * communications (Comm::sendto_async) between the ranks' hosts, created only when the sender
 * reaches them; a received piece costs the endpoint delay and, when reduced, 3 bytes per byte at
 * the receiver's local memory bandwidth, on the collective's path (pieces of one step handled side
 * by side), not as an execution that would slow the host's compute kernels.
 *
 * The message is cut in chunks. A chunk runs the schedule's phases in turn (a phase: the steps of
 * one dimension; a one-dimensional schedule is one phase). Each rank keeps, per dimension, a
 * first-come first-served queue of chunks where at most `channels` run at once (ASTRA-sim's
 * active-chunks-per-dimension, one queue per dimension): every chunk enters its first dimension's
 * queue at the start, and a chunk that leaves a phase joins the queue of its next one, so chunks
 * overlap across dimensions (a chunk is in dimension 1 while the next one is in dimension 0).
 *
 * Each rank's part runs in the actor that calls run_rank(), with helper actors it starts and
 * joins (as many as phases can run at once: channels per dimension); the collective is complete
 * when every rank's run_rank() has returned. */
#ifndef SGAI_PLUGINS_COMMUNICATOR_COMMUNICATOR_HPP
#define SGAI_PLUGINS_COMMUNICATOR_COMMUNICATOR_HPP

#include "core/collectives/nccl_plan.hpp"
#include "core/collectives/schedule.hpp"

#include <simgrid/forward.h>

#include <memory>
#include <vector>

namespace sgai::communicator {

struct CollectiveOptions {
  uint32_t chunks   = 1; ///< pieces the message is cut into (ASTRA-sim's preferred-dataset-splits)
  uint32_t channels = 1; ///< chunks in flight per rank (active-chunks-per-dimension)
  /** Local memory bandwidth of a rank, bytes per second: reducing b received bytes reads the
   *  two operands and writes the result, 3 b / reduce_Bps (ASTRA-sim's cost); 0: free. */
  double reduce_Bps = 0;
  /** Delay of every crossing between the network and a rank's memory (ASTRA-sim's endpoint
   *  delay): once when a chunk starts, and after each received piece. */
  double endpoint_delay_s = 0;
  /** Set: transfers share nothing (ASTRA-sim's congestion-unaware network) and take the time these
   *  paths give instead of SimGrid communications. Every rank must then call run_rank() at the same
   *  instant (the replay starts a collective once all its ranks have come): the whole collective is
   *  worked out when the first one does, with run_phase's steps, queues and rounding, and each rank
   *  sleeps once, until its own end (no SimGrid activity per transfer). */
  const class UnsharedPaths* unshared = nullptr;
  /** Set: every transfer's bytes are added to the links of its route (links.csv). */
  class LinkTraffic* traffic = nullptr;
  /** Set: the collective runs with an NCCL protocol's costs (core/collectives/nccl.hpp): its base
   *  latency at the start, bytes on the wire per payload byte, a rate bound on each rank's sending,
   *  each received piece's step latency beyond its path's, and reductions fused with transfers. */
  const collectives::nccl::ProtocolCosts* protocol = nullptr;
};

/** `base` with a plan's lanes and protocol: NCCL's channels each run their own chunks (chunks and
 *  chunks in flight multiplied by the plan's lanes) under its protocol's costs (owned by the plan,
 *  or by whoever takes them from it: they must outlive the run). */
CollectiveOptions options_for(const collectives::NcclPlan& plan, CollectiveOptions base = {});

class CollectiveRun {
public:
  /** `hosts[i]` runs group rank i. std::invalid_argument when the sizes disagree. */
  CollectiveRun(std::shared_ptr<const collectives::Schedule> schedule, std::vector<simgrid::s4u::Host*> hosts,
                double bytes, CollectiveOptions options);
  ~CollectiveRun();
  CollectiveRun(const CollectiveRun&)            = delete;
  CollectiveRun& operator=(const CollectiveRun&) = delete;

  /** Runs rank r's part; call from an actor (any host). Returns once r has sent and received all
   *  its pieces. */
  void run_rank(uint32_t r);

  /** For a congestion-aware collective whose ranks all start now and that has the network to itself
   *  until its end (the caller knows that nothing else can send before then): works the whole
   *  collective out at once, as the congestion-unaware one is, with its transfers on a FlowNetwork
   *  that times them as SimGrid's sharing does (a transfer that meets no other takes a lone flow's
   *  time on its route, `flows`). That holds when every transfer's time is exact
   *  (LoneFlows::Path::exact), the flows can be worked out (FlowNetwork::next_event), the transfers
   *  have one bandwidth factor, and every rank ends at the same instant unless `uneven_ends` (the
   *  caller knows that no rank can send after its end before the last rank's end); then true, and
   *  each rank's run_rank() is one sleep until its end. Otherwise false, and run_rank() runs the
   *  transfers on SimGrid. Call before any run_rank(). */
  bool work_out_alone(const class LoneFlows& flows, bool uneven_ends = false);
  /** After work_out_alone() succeeded: its transfers that shared links with others under way. */
  uint64_t transfers_sharing_links() const { return sharing_; }

  const collectives::Schedule& schedule() const { return *schedule_; }
  double bytes() const { return bytes_; }

  /** Time of one reduction of `bytes` at `reduce_Bps`: 3 bytes / bandwidth (0 when free). */
  static double reduction_time(double bytes, double reduce_Bps);

private:
  struct Op;
  struct Chunk;
  struct RankQueues;
  void run_phase(uint32_t r, uint32_t c, size_t phase);
  // what run_phase and evaluate_unshared share: one rule each
  double send_rate(uint32_t r, size_t k) const; ///< a protocol's bound on r's sends of step k (-1: none)
  bool rate_bound(uint32_t r, const collectives::Transfer& t) const;
  /** The earliest a transfer of `size` wire bytes posted at `posted_at` can have arrived: the
   *  protocol's packing bound (`rate`, from send_rate) and, across nodes, NCCL's proxy pipeline
   *  when it (or staging in host memory) leaves less than the NIC's rate: rank r's transfers across
   *  nodes pass through it one after another, in the order they are posted (0: no floor). */
  double not_before(uint32_t r, const collectives::Transfer& t, double rate, double size, double posted_at) const;
  /** Per rank: when its proxy pipeline across nodes is free again (not_before; reset by
   *  evaluate_unshared and when work_out_alone falls back to SimGrid). */
  mutable std::vector<double> net_free_;
  uint64_t wire_bytes(const collectives::Transfer& t) const;
  double handled_at(uint32_t r, const collectives::Transfer& t, double arrived, double posted_at) const;
  bool waits_for_sends(size_t phase, size_t k) const;
  /** Every rank's end when all start at `start` (fills ends_; the bytes to options_.traffic), each
   *  transfer taking its congestion-unaware time, or with `lone` its lone-flow time; false (ends_
   *  left empty, no traffic counted) when, with `lone`, a link would carry two transfers at once, a
   *  path is not exact or the ranks do not all end together. */
  bool evaluate_unshared(double start, const LoneFlows* lone = nullptr, bool uneven_ends = false);
  class Evaluation; ///< evaluate_unshared's events, queues and clocks (unshared.cpp)
  /** Where a wait for `t` from `now` leaves the clock (SimGrid's 1 ns resolution). */
  static double after_wait(double now, double t);
  std::vector<double> ends_;  ///< worked out at once: each rank's end, once evaluated
  double started_at_ = -1;    ///< worked out at once: when the ranks started
  bool alone_        = false; ///< work_out_alone() succeeded
  uint64_t sharing_  = 0;     ///< (transfers_sharing_links)
  Chunk& chunk(uint32_t c);
  void release(uint32_t c);

  std::shared_ptr<const collectives::Schedule> schedule_;
  std::vector<simgrid::s4u::Host*> hosts_;
  double bytes_;
  CollectiveOptions options_;
  std::vector<size_t> step_offset_; ///< first op of step k in a chunk's ops
  std::vector<size_t> phase_first_; ///< first step of each phase, then the step count
  std::vector<uint32_t> phase_dim_; ///< dimension of each phase
  uint32_t dims_ = 1;
  std::vector<std::unique_ptr<Chunk>> chunks_;
};

} // namespace sgai::communicator

#endif
