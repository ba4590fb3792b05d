/* The communication of one training iteration on one GPU, by parallelism: which collectives each
 * transformer layer, pipeline boundary and optimizer step issues, over which group, with how many
 * bytes (Megatron-Core's tensor, sequence, context, expert, pipeline and data parallelism). */
#ifndef SGAI_CORE_TRAINING_TRAFFIC_HPP
#define SGAI_CORE_TRAINING_TRAFFIC_HPP

#include "core/training/config.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::training {

enum class Group : uint8_t { tensor, context, expert, pipeline, data };
enum class Collective : uint8_t { all_gather, reduce_scatter, all_reduce, all_to_all, send_recv };
enum class Phase : uint8_t { forward, backward, optimizer };

const char* to_string(Group g);
const char* to_string(Collective c);
const char* to_string(Phase p);

/** One kind of communication: `count` of them per `per`, each moving `bytes` as nccl-tests counts
 *  them (an all-gather's gathered output, a reduce-scatter's input, an all-reduce's or all-to-all's
 *  buffer, a send's message), over a group of `ranks`. */
struct Transfer {
  Group group           = Group::tensor;
  Collective collective = Collective::all_gather;
  Phase phase           = Phase::forward;
  uint32_t ranks        = 1;
  double bytes          = 0;
  uint32_t count        = 1;
  std::string per;  ///< "layer and micro-batch", "stage boundary and micro-batch", "iteration"
  std::string what; ///< what moves: "layer input (sequence parallel)", "gradients", ...
  /** A context-parallel exchange that follows the attention (its output's or its gradients'); the
   *  others precede it, or (p2p) run beside it. */
  bool after_attention = false;
};

/** What one GPU's transformer layer sends for one micro-batch, with s the local sequence
 *  (seq / CP), b the micro-batch, h the hidden size, 2-byte values:
 *  - TP t with sequence parallelism: forward, the attention and MLP inputs all-gathered and their
 *    outputs reduce-scattered (2 + 2 of s b h x 2 bytes over t ranks); backward, the reverse of each
 *    (2 reduce-scatters, 2 all-gathers) and the inputs all-gathered again for the weight gradients
 *    (2 more); full recomputation repeats the forward's four in the backward. Without sequence
 *    parallelism, 2 all-reduces of s b h x 2 bytes forward and 2 backward (Megatron's f and g).
 *  - CP c: ring attention (cp-comm-type p2p) passes each rank's K and V (2 s b (k g / t) x 2
 *    bytes) c - 1 times forward, and K, V and their gradients (twice that) c - 1 times backward;
 *    allgather gathers K and V before the attention (c x that), again backward, and
 *    reduce-scatters their gradients after it; a2a exchanges Q, K and V before the attention and
 *    its output after it (all-to-alls of the rank's buffer), backward the output's gradient before
 *    and Q's, K's and V's after.
 *  - EP e (MoE layers): a dispatch and a combine all-to-all of the tokens' top-k copies
 *    (s b / t with SP, x top-k x h x 2 bytes) forward, the same two backward.
 *  Groups of one rank send nothing and are left out. */
std::vector<Transfer> layer_transfers(const TrainingConfig& c);

/** What one GPU sends per iteration outside its layers: the activation (forward) and its gradient
 *  (backward) across each pipeline boundary, s b h x 2 bytes (/ t with SP), per micro-batch and
 *  model chunk; the data-parallel gradients and parameters over DP x CP ranks: with the
 *  distributed optimizer a reduce-scatter of fp32 gradients (4 bytes a parameter) and an
 *  all-gather of bf16 parameters (2), without it an all-reduce of the gradients; with FSDP each
 *  layer's parameters all-gathered in forward and backward and its gradients reduce-scattered.
 *  Expert parameters reduce over DP x CP / EP ranks. Parameter counts are the GPU's (stage 0). */
std::vector<Transfer> iteration_transfers(const TrainingConfig& c);

} // namespace sgai::training

#endif
