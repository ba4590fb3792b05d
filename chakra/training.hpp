/* Synthetic training iterations: a layered model under data (DP), tensor/model (TP) and pipeline
 * (PP) parallelism and their combinations, one Chakra trace per rank, with per-layer compute
 * operations, tensor sizes, gradient buckets and pipeline send/recv between stages. */
#ifndef SGAI_CHAKRA_TRAINING_HPP
#define SGAI_CHAKRA_TRAINING_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <map>
#include <string>
#include <vector>

namespace sgai::chakra {

struct LayerSpec {
  std::string name;
  double forward_flops  = 0; ///< per iteration (the whole global batch), before any split
  double backward_flops = 0; ///< idem (typically twice the forward)
  uint64_t param_bytes  = 0; ///< weights (= gradient size)
  uint64_t output_bytes = 0; ///< activations leaving the layer, whole batch
};

struct ModelSpec {
  std::string name;
  std::vector<LayerSpec> layers;
  double optimizer_flops_per_param_byte = 4; ///< the optimizer step's operations per gradient byte
};

/** A GPT-style decoder: `layers` transformer layers of hidden size h, sequence s, batch b, each
 *  with the usual estimates: forward 24 b s h^2 + 4 b s^2 h FLOPs, backward twice that,
 *  12 h^2 + 13 h parameters, b s h activations out, `bytes_per_element` each. */
ModelSpec transformer(uint32_t layers, uint64_t hidden, uint64_t sequence, uint64_t batch,
                      uint32_t bytes_per_element = 2);

struct Parallelism {
  uint32_t data         = 1; ///< data-parallel replicas (gradients all-reduced)
  uint32_t tensor       = 1; ///< tensor (model) parallel: layers split, activations all-reduced
  uint32_t pipeline     = 1; ///< pipeline stages: contiguous layer groups, activations sent between
  uint32_t microbatches = 1;
  uint64_t bucket_bytes = 25 << 20; ///< gradients all-reduced in buckets of about this size
};

/** Trace nodes training_iteration makes for a model of `layers` layers under `p`, at most (each
 *  layer its own gradient bucket): per rank, every microbatch's forward and backward (a compute and,
 *  under TP, an all-reduce per layer of its stage; a receive and a send between stages), the
 *  buckets and the optimizer step. For bounding the memory a generation takes, before it runs. */
uint64_t training_node_bound(uint64_t layers, const Parallelism& p);

/** One trace per rank (rank = (stage x data + replica) x tensor + shard). std::invalid_argument
 *  when a degree is 0 or the model has fewer layers than pipeline stages. */
std::vector<Trace> training_iteration(const ModelSpec& model, const Parallelism& p);

/** The process groups the iteration's collectives name (pg_name), numbered as ASTRA-sim's
 *  comm-group files need ("0" is every rank): tensor-parallel groups 1 to P x D, the one of
 *  (stage, replica) at 1 + stage x D + replica, then data-parallel groups, (stage, shard) at
 *  1 + P x D + stage x T + shard; with their ranks, for a communicator-group file. Groups of one
 *  rank are included (their collectives are local). */
std::map<std::string, std::vector<uint32_t>> training_groups(const Parallelism& p);

} // namespace sgai::chakra

#endif
