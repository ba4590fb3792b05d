/* What a training description implies (TrainingConfig's derived quantities): its pipeline's layers
 * and virtual stages, where MoE layers sit, the attention's widths, the batch's micro-batches, the
 * GPUs and the gradients' bytes. The description's reading and checks are config.cpp's. */
#include "core/training/config.hpp"

#include <algorithm>

namespace sgai::training {

namespace {

/** The sum of f(chunk) over a pipeline rank's virtual stages. */
template <typename F>
uint32_t over_chunks(const TrainingConfig& c, F f)
{
  uint32_t n = 0;
  for (uint32_t ch = 0; ch < c.virtual_stages(); ++ch)
    n += f(ch);
  return n;
}

} // namespace

uint32_t TrainingConfig::virtual_stages() const
{
  if (num_virtual_stages_per_pipeline_rank > 0)
    return num_virtual_stages_per_pipeline_rank;
  if (num_layers_per_virtual_pipeline_stage == 0)
    return 1;
  return split_layers() / pipeline_model_parallel_size / num_layers_per_virtual_pipeline_stage;
}

uint32_t TrainingConfig::split_layers() const
{
  return num_layers + (account_for_embedding_in_pipeline_split ? 1 : 0) + (account_for_loss_in_pipeline_split ? 1 : 0);
}

uint32_t TrainingConfig::stage_slots(uint32_t rank) const
{
  const uint32_t p = pipeline_model_parallel_size, first = decoder_first_pipeline_num_layers,
                 last = decoder_last_pipeline_num_layers;
  if (p <= 1)
    return split_layers();
  if (rank == 0 && first > 0)
    return first;
  if (rank + 1 == p && last > 0)
    return last;
  const uint32_t left = p - (first > 0 ? 1 : 0) - (last > 0 ? 1 : 0);
  return left > 0 ? (split_layers() - first - last) / left : 0;
}

uint32_t TrainingConfig::chunk_layers(uint32_t rank, uint32_t chunk) const
{
  const uint32_t p = pipeline_model_parallel_size, v = virtual_stages();
  if (not layout_layers.empty())
    return layout_layers[size_t(chunk) * p + rank];
  uint32_t n = stage_slots(rank) / v;
  if (account_for_embedding_in_pipeline_split && rank == 0 && chunk == 0 && n > 0)
    n--;
  if (account_for_loss_in_pipeline_split && rank + 1 == p && chunk + 1 == v && n > 0)
    n--;
  return n;
}

uint32_t TrainingConfig::chunk_first_layer(uint32_t rank, uint32_t chunk) const
{
  const uint32_t p = pipeline_model_parallel_size;
  uint32_t first   = 0;
  for (uint32_t g = 0; g < chunk * p + rank; ++g)
    first += chunk_layers(g % p, g / p);
  return first;
}

bool TrainingConfig::moe_layer(uint32_t layer) const
{
  return num_experts > 0 &&
         (moe_layer_pattern.empty() || (layer < moe_layer_pattern.size() && moe_layer_pattern[layer]));
}

uint32_t TrainingConfig::chunk_moe_layers(uint32_t rank, uint32_t chunk) const
{
  const uint32_t first = chunk_first_layer(rank, chunk), n = chunk_layers(rank, chunk);
  uint32_t moe = 0;
  for (uint32_t l = first; l < first + n; ++l)
    moe += moe_layer(l) ? 1 : 0;
  return moe;
}

uint32_t TrainingConfig::stage_moe_layers(uint32_t rank) const
{
  return over_chunks(*this, [&](uint32_t ch) { return chunk_moe_layers(rank, ch); });
}

uint32_t TrainingConfig::moe_layer_count() const
{
  uint32_t n = 0;
  for (uint32_t l = 0; l < num_layers; ++l)
    n += moe_layer(l) ? 1 : 0;
  return n;
}

uint64_t TrainingConfig::score_head_dim() const
{
  return multi_latent_attention ? qk_head_dim + qk_pos_emb_head_dim : kv_channels;
}

uint64_t TrainingConfig::value_head_dim() const
{
  return multi_latent_attention ? v_head_dim : kv_channels;
}

uint64_t TrainingConfig::query_width() const
{
  return uint64_t(num_attention_heads) * score_head_dim();
}

uint64_t TrainingConfig::key_width() const
{
  return multi_latent_attention ? query_width() : uint64_t(num_query_groups) * kv_channels;
}

uint64_t TrainingConfig::value_width() const
{
  return multi_latent_attention ? uint64_t(num_attention_heads) * v_head_dim : uint64_t(num_query_groups) * kv_channels;
}

uint64_t TrainingConfig::output_width() const
{
  return uint64_t(num_attention_heads) * value_head_dim();
}

uint32_t TrainingConfig::expert_data_parallel_size() const
{
  const uint64_t ranks = uint64_t(tensor_model_parallel_size) * context_parallel_size * data_parallel_size;
  return uint32_t(std::max<uint64_t>(1, ranks / (uint64_t(etp()) * expert_model_parallel_size)));
}

double TrainingConfig::expert_load() const
{
  if (moe_expert_capacity_factor <= 0)
    return moe_load_imbalance;
  return moe_pad_expert_input_to_capacity ? moe_expert_capacity_factor
                                          : std::min(moe_load_imbalance, moe_expert_capacity_factor);
}

TrainingConfig dense_layers_of(const TrainingConfig& c)
{
  TrainingConfig d                      = c;
  d.num_experts                         = 0;
  d.moe_shared_expert_intermediate_size = 0;
  d.expert_model_parallel_size          = 1;
  d.moe_layer_pattern.clear();
  return d;
}

uint32_t TrainingConfig::stage_layers(uint32_t rank) const
{
  return over_chunks(*this, [&](uint32_t ch) { return chunk_layers(rank, ch); });
}

uint32_t TrainingConfig::microbatches() const
{
  return global_batch_size / (micro_batch_size * data_parallel_size);
}

uint64_t TrainingConfig::gpus() const
{
  return uint64_t(tensor_model_parallel_size) * pipeline_model_parallel_size * context_parallel_size *
         data_parallel_size;
}

double TrainingConfig::grad_bytes() const
{
  if (precision_aware_optimizer)
    return main_grads_bytes;
  if (precision == Precision::fp16)
    return accumulate_allreduce_grads_in_fp32 ? 4 : 2;
  return grad_reduce_in_bf16 ? 2 : 4;
}

} // namespace sgai::training
