/* One predicted training iteration as Chakra execution traces, one per GPU, for sgai's replay on
 * SimGrid (or ASTRA-sim): each pipeline pass a compute node lasting what the prediction prices it
 * (kernels and exposed TP / CP / EP), the activations and their gradients as sends and receives
 * between pipeline stages, the data-parallel gradient reductions and parameter gatherings as
 * collectives where Megatron-Core issues them, the optimizer step. */
#ifndef SGAI_CORE_TRAINING_CHAKRA_OUT_HPP
#define SGAI_CORE_TRAINING_CHAKRA_OUT_HPP

#include "chakra/trace.hpp"
#include "core/training/config.hpp"
#include "core/training/predict.hpp"

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <vector>

namespace sgai::training {

/** The GPU of Megatron's rank order (tensor, context, data, pipeline, innermost first). */
uint32_t megatron_rank(const TrainingConfig& c, uint32_t tp, uint32_t cp, uint32_t dp, uint32_t stage);

/** The DP groups the traces' collectives name: "1 + stage x TP + tensor rank", every context- and
 *  data-parallel rank of that stage and tensor rank. */
std::map<std::string, std::vector<uint32_t>> iteration_groups(const TrainingConfig& c);

/** GPU `rank`'s trace of the iteration `p` predicts for `c` (predict_iteration's chunks and
 *  optimizer times). Per rank, in Megatron-Core's pass order (pipeline_order): a forward receives
 *  its input from the previous stage (or the last stage's previous chunk), runs, sends its output on;
 *  a backward the reverse. With --overlap-param-gather the parameters are all-gathered bucket by
 *  bucket from the start and the first micro-batch's forward of each chunk runs in as many pieces,
 *  each after its bucket; with --overlap-grad-reduce each chunk's last backward runs in as many
 *  pieces as the chunk has buckets, each piece's gradients reduce-scattered (all-reduced without the
 *  distributed optimizer) as it ends, the collectives one after the other. Without overlap the
 *  reductions follow the last pass, the gathering the optimizer step. Sizes as ASTRA-sim reads
 *  comm_size: a reduce-scatter's whole buffer, an all-gather's contribution of one rank. Durations
 *  in whole microseconds (Chakra's duration_micros). */
chakra::Trace iteration_trace(const TrainingConfig& c, const Prediction& p, uint32_t rank);

} // namespace sgai::training

#endif
