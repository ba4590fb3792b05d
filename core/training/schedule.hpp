/* Pipeline schedules as Megatron-Core runs them: each pipeline rank's order of forward and backward
 * passes (1F1B, and interleaved with virtual stages), and the iteration they make with given pass
 * times (core/pipeline_parallel/schedules.py: forward_backward_pipelining_without_interleaving and
 * _with_interleaving; Narayanan et al. 2021, §2.2). */
#ifndef SGAI_CORE_TRAINING_SCHEDULE_HPP
#define SGAI_CORE_TRAINING_SCHEDULE_HPP

#include <cstdint>
#include <functional>
#include <vector>

namespace sgai::training {

enum class Pass : uint8_t { forward, backward };

/** One pass of one micro-batch through one model chunk (virtual stage) of a pipeline rank. */
struct PipelineOp {
  uint32_t microbatch = 0;
  uint32_t chunk      = 0;
  Pass pass           = Pass::forward;
};

/** The order in which pipeline rank `rank` of `p` runs its passes over `m` micro-batches with `v`
 *  model chunks per rank (v = 1: 1F1B). 1F1B: min(p - rank - 1, m) forwards to warm up, then one
 *  forward and one backward in turn, then the remaining backwards. Interleaved (v > 1): forward k
 *  is micro-batch (k / (p v)) p + k % p of chunk (k / p) % v, backward k the same micro-batch of
 *  chunk v - 1 - (k / p) % v; (p - rank - 1) 2 + (v - 1) p forwards warm up (all when m v is not
 *  more), then 1F1B, then the remaining backwards. std::invalid_argument when p, m or v is 0, or
 *  when v > 1 and m is not a multiple of p (Megatron-Core's requirement then). */
std::vector<PipelineOp> pipeline_order(uint32_t p, uint32_t rank, uint32_t m, uint32_t v);

/** Pass times of one micro-batch through one model chunk (the same on every rank), and the
 *  point-to-point time of an activation or gradient between consecutive ranks. */
struct PassTimes {
  double forward_s  = 0;
  double backward_s = 0;
  double p2p_s      = 0;
};

/** Each rank's passes run in pipeline_order; a forward waits for the same micro-batch's forward of
 *  the chunk before it (on the previous rank, or the previous chunk's on the last rank for rank 0),
 *  a backward for the chunk after it (on the next rank, the next chunk's on rank 0 for the last
 *  rank, its own forward for the model's last chunk), plus p2p_s when that comes from another
 *  rank. Returns each rank's end; std::logic_error if the orders deadlock (they never do for the
 *  schedules above). */
std::vector<double> pipeline_ends(uint32_t p, uint32_t m, uint32_t v, const PassTimes& t);

/** Every pass's end on every rank, when pass times may differ by rank and chunk. */
struct PipelineTimeline {
  uint32_t p = 0, m = 0, v = 0;
  std::vector<double> forward_end, backward_end; ///< [(rank v + chunk) m + micro-batch]
  std::vector<double> rank_end;                  ///< each rank's last pass's end
  double forward(uint32_t rank, uint32_t chunk, uint32_t mb) const
  {
    return forward_end[(size_t(rank) * v + chunk) * m + mb];
  }
  double backward(uint32_t rank, uint32_t chunk, uint32_t mb) const
  {
    return backward_end[(size_t(rank) * v + chunk) * m + mb];
  }
  /** When a rank's last backward of a chunk ends (its gradients are complete). */
  double chunk_done(uint32_t rank, uint32_t chunk) const;
};

/** A pass's time on a rank for a model chunk. */
using PassTime = std::function<double(uint32_t rank, uint32_t chunk, Pass pass)>;

/** pipeline_ends' rules with pass times by rank and chunk, and `first_ready` (empty, or p v values
 *  [rank v + chunk]) the earliest start of each chunk's first forward on each rank (its parameters
 *  gathered). std::invalid_argument as pipeline_order; std::logic_error on a deadlock. */
PipelineTimeline pipeline_timeline(uint32_t p, uint32_t m, uint32_t v, const PassTime& time, double p2p_s,
                                   const std::vector<double>& first_ready = {});

/** The schedule's bubble: Narayanan et al.'s (p - 1) / (v m + p - 1) of the iteration when passes
 *  take constant times and p2p_s is 0. */
double ideal_bubble_fraction(uint32_t p, uint32_t m, uint32_t v);

} // namespace sgai::training

#endif
