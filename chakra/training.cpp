#include "chakra/training.hpp"

#include "chakra/builder.hpp"

#include <cmath>
#include <stdexcept>

namespace sgai::chakra {

ModelSpec transformer(uint32_t layers, uint64_t hidden, uint64_t sequence, uint64_t batch, uint32_t bytes_per_element)
{
  if (layers == 0 || hidden == 0 || sequence == 0 || batch == 0 || bytes_per_element == 0)
    throw std::invalid_argument("transformer: every size must be at least 1");
  ModelSpec m;
  m.name   = "transformer";
  auto h   = static_cast<double>(hidden);
  auto s   = static_cast<double>(sequence);
  auto b   = static_cast<double>(batch);
  double f = 24 * b * s * h * h + 4 * b * s * s * h;
  for (uint32_t i = 0; i < layers; i++)
    m.layers.push_back({"layer" + std::to_string(i), f, 2 * f, (12 * hidden * hidden + 13 * hidden) * bytes_per_element,
                        batch * sequence * hidden * bytes_per_element});
  return m;
}

namespace {

struct RankPlace {
  uint32_t stage, replica, shard;
};

/* Communicator groups are numbered as ASTRA-sim reads them (its comm-group file's keys and the
 * nodes' pg_name go through std::stoi; "0" is every rank): tensor-parallel groups 1 to P x D, one
 * per (stage, replica), then data-parallel groups, one per (stage, shard). */
uint64_t tp_group_id(const Parallelism& p, uint32_t stage, uint32_t replica)
{
  return 1 + uint64_t{stage} * p.data + replica;
}

uint64_t dp_group_id(const Parallelism& p, uint32_t stage, uint32_t shard)
{
  return 1 + uint64_t{p.pipeline} * p.data + uint64_t{stage} * p.tensor + shard;
}

} // namespace

std::vector<Trace> training_iteration(const ModelSpec& model, const Parallelism& p)
{
  if (p.data == 0 || p.tensor == 0 || p.pipeline == 0 || p.microbatches == 0)
    throw std::invalid_argument("parallelism degrees and microbatches must be at least 1");
  if (model.layers.size() < p.pipeline)
    throw std::invalid_argument("the model has " + std::to_string(model.layers.size()) + " layers for " +
                                std::to_string(p.pipeline) + " pipeline stages");
  if (p.bucket_bytes == 0)
    throw std::invalid_argument("bucket_bytes must be at least 1");
  const uint32_t ranks = p.data * p.tensor * p.pipeline;
  auto rank_of         = [&](uint32_t stage, uint32_t replica, uint32_t shard) {
    return (stage * p.data + replica) * p.tensor + shard;
  };
  // contiguous layer groups, the first stages taking one more when they do not divide evenly
  std::vector<size_t> first(p.pipeline + 1, 0);
  for (uint32_t s = 0; s < p.pipeline; s++)
    first[s + 1] = first[s] + model.layers.size() / p.pipeline + (s < model.layers.size() % p.pipeline ? 1 : 0);
  const double mb = p.microbatches;
  const double tp = p.tensor;
  auto ops        = [](double flops) { return static_cast<uint64_t>(std::llround(flops)); };
  auto share      = [&](uint64_t bytes, double parts) { return static_cast<uint64_t>(std::ceil(bytes / parts)); };
  std::vector<Trace> out;
  for (uint32_t rank = 0; rank < ranks; rank++) {
    RankPlace at{rank / (p.tensor * p.data), (rank / p.tensor) % p.data, rank % p.tensor};
    std::string dp_group = std::to_string(dp_group_id(p, at.stage, at.shard));
    std::string tp_group = std::to_string(tp_group_id(p, at.stage, at.replica));
    TraceBuilder b;
    b.metadata().attrs.push_back(Attribute::of_string("generator", "sgai chakra generate training"));
    b.metadata().attrs.push_back(Attribute::of_string("model", model.name));
    b.metadata().attrs.push_back(Attribute::of_int64("rank", rank));
    std::vector<uint64_t> last; // the node the next compute waits for
    auto chain = [&](uint64_t id) { last = {id}; };
    size_t lo = first[at.stage], hi = first[at.stage + 1];
    int32_t prev_rank = at.stage > 0 ? static_cast<int32_t>(rank_of(at.stage - 1, at.replica, at.shard)) : -1;
    int32_t next_rank =
        at.stage + 1 < p.pipeline ? static_cast<int32_t>(rank_of(at.stage + 1, at.replica, at.shard)) : -1;
    // forward, microbatch by microbatch
    for (uint32_t m = 0; m < p.microbatches; m++) {
      if (prev_rank >= 0) {
        uint64_t bytes = share(model.layers[lo - 1].output_bytes, mb * tp);
        chain(b.recv("recv_act_mb" + std::to_string(m), static_cast<uint32_t>(prev_rank), bytes,
                     static_cast<int32_t>(2 * m), last));
      }
      for (size_t l = lo; l < hi; l++) {
        const LayerSpec& layer = model.layers[l];
        chain(b.compute(layer.name + "_fwd_mb" + std::to_string(m), ops(layer.forward_flops / mb / tp),
                        share(layer.output_bytes, mb), last));
        if (p.tensor > 1)
          chain(b.collective(layer.name + "_fwd_tp_allreduce_mb" + std::to_string(m), CollectiveType::all_reduce,
                             share(layer.output_bytes, mb), last, tp_group));
      }
      if (next_rank >= 0)
        b.send("send_act_mb" + std::to_string(m), static_cast<uint32_t>(next_rank),
               share(model.layers[hi - 1].output_bytes, mb * tp), static_cast<int32_t>(2 * m), last);
    }
    // backward, microbatch by microbatch; gradients all-reduced by bucket after the last one
    std::vector<uint64_t> grad_syncs;
    for (uint32_t m = 0; m < p.microbatches; m++) {
      bool last_mb = m + 1 == p.microbatches;
      if (next_rank >= 0) {
        uint64_t bytes = share(model.layers[hi - 1].output_bytes, mb * tp);
        chain(b.recv("recv_grad_mb" + std::to_string(m), static_cast<uint32_t>(next_rank), bytes,
                     static_cast<int32_t>(2 * m + 1), last));
      }
      uint64_t bucket = 0;
      std::vector<std::string> bucket_layers;
      for (size_t l = hi; l-- > lo;) {
        const LayerSpec& layer = model.layers[l];
        chain(b.compute(layer.name + "_bwd_mb" + std::to_string(m), ops(layer.backward_flops / mb / tp),
                        share(layer.output_bytes, mb), last));
        if (p.tensor > 1)
          chain(b.collective(layer.name + "_bwd_tp_allreduce_mb" + std::to_string(m), CollectiveType::all_reduce,
                             share(layer.output_bytes, mb), last, tp_group));
        if (last_mb && p.data > 1) {
          bucket += share(layer.param_bytes, tp);
          bucket_layers.push_back(layer.name);
          if (bucket >= p.bucket_bytes || l == lo) {
            // overlaps with the rest of the backward pass: nothing waits for it but the optimizer
            grad_syncs.push_back(b.collective("grad_allreduce_" + bucket_layers.front() + "_" + bucket_layers.back(),
                                              CollectiveType::all_reduce, bucket, last, dp_group));
            bucket = 0;
            bucket_layers.clear();
          }
        }
      }
      if (prev_rank >= 0)
        b.send("send_grad_mb" + std::to_string(m), static_cast<uint32_t>(prev_rank),
               share(model.layers[lo].output_bytes, mb * tp), static_cast<int32_t>(2 * m + 1), last);
    }
    // optimizer step on this rank's shard of the stage's parameters
    uint64_t params = 0;
    for (size_t l = lo; l < hi; l++)
      params += share(model.layers[l].param_bytes, tp);
    std::vector<uint64_t> deps = last;
    deps.insert(deps.end(), grad_syncs.begin(), grad_syncs.end());
    b.compute("optimizer_step", ops(model.optimizer_flops_per_param_byte * static_cast<double>(params)), params, deps);
    out.push_back(b.take());
  }
  return out;
}

std::map<std::string, std::vector<uint32_t>> training_groups(const Parallelism& p)
{
  std::map<std::string, std::vector<uint32_t>> groups;
  for (uint32_t stage = 0; stage < p.pipeline; stage++)
    for (uint32_t replica = 0; replica < p.data; replica++)
      for (uint32_t shard = 0; shard < p.tensor; shard++) {
        uint32_t rank = (stage * p.data + replica) * p.tensor + shard;
        groups[std::to_string(tp_group_id(p, stage, replica))].push_back(rank);
        groups[std::to_string(dp_group_id(p, stage, shard))].push_back(rank);
      }
  return groups;
}

uint64_t training_node_bound(uint64_t layers, const Parallelism& p)
{
  uint64_t total = 0;
  for (uint64_t s = 0; s < p.pipeline; s++) {
    uint64_t stage_layers = layers / p.pipeline + (s < layers % p.pipeline ? 1 : 0);
    uint64_t pass         = (s > 0 ? 1 : 0) + stage_layers * (p.tensor > 1 ? 2 : 1) + (s + 1 < p.pipeline ? 1 : 0);
    uint64_t trace        = uint64_t{p.microbatches} * 2 * pass + (p.data > 1 ? stage_layers : 0) + 1;
    total += trace * p.data * p.tensor;
  }
  return total;
}

} // namespace sgai::chakra
