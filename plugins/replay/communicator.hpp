/* One collective executed on SimGrid: the schedule's transfers become host-to-host S4U
 * communications (Comm::sendto_async) between the ranks' hosts, created only when the sender
 * reaches them; the message is cut in chunks processed by `channels` actors per rank (NCCL's
 * channels), so that at most channels chunks per rank are in flight; a received piece that is
 * reduced costs an execution on the receiver's host (its local memory bandwidth).
 *
 * Each rank's part runs in the actor that calls run_rank() (plus channels-1 helper actors it
 * starts and joins); the collective is complete when every rank's run_rank() has returned. */
#ifndef SGAI_REPLAY_COMMUNICATOR_HPP
#define SGAI_REPLAY_COMMUNICATOR_HPP

#include "plugins/replay/schedule.hpp"

#include <simgrid/forward.h>

#include <memory>
#include <vector>

namespace sgai::replay {

struct CollectiveOptions {
  uint32_t chunks   = 1; ///< pieces the message is cut into (ASTRA-sim's preferred-dataset-splits)
  uint32_t channels = 1; ///< chunks in flight per rank (active-chunks-per-dimension)
  /** Local memory bandwidth of a rank, bytes per second: reducing b received bytes reads the
   *  two operands and writes the result, 3 b / reduce_Bps (ASTRA-sim's cost); 0: free. */
  double reduce_Bps = 0;
  /** Delay of every crossing between the network and a rank's memory (ASTRA-sim's endpoint
   *  delay): once when a chunk starts, and after each receive. */
  double endpoint_delay_s = 0;
};

class CollectiveRun {
public:
  /** `hosts[i]` runs group rank i. std::invalid_argument when the sizes disagree. */
  CollectiveRun(std::shared_ptr<const Schedule> schedule, std::vector<simgrid::s4u::Host*> hosts, double bytes,
                CollectiveOptions options);
  ~CollectiveRun();
  CollectiveRun(const CollectiveRun&)            = delete;
  CollectiveRun& operator=(const CollectiveRun&) = delete;

  /** Runs rank r's part; call from an actor (any host). Returns once r has sent and received all
   *  its pieces. */
  void run_rank(uint32_t r);

  const Schedule& schedule() const { return *schedule_; }
  double bytes() const { return bytes_; }

  /** Time of one reduction of `bytes` at `reduce_Bps`: 3 bytes / bandwidth (0 when free). */
  static double reduction_time(double bytes, double reduce_Bps);

private:
  struct Op;
  struct Chunk;
  void run_chunk(uint32_t r, uint32_t c);
  Chunk& chunk(uint32_t c);
  void release(uint32_t c);

  std::shared_ptr<const Schedule> schedule_;
  std::vector<simgrid::s4u::Host*> hosts_;
  double bytes_;
  CollectiveOptions options_;
  std::vector<size_t> step_offset_; ///< first op of step k in a chunk's ops
  std::vector<std::unique_ptr<Chunk>> chunks_;
};

} // namespace sgai::replay

#endif
