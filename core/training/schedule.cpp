#include "core/training/schedule.hpp"

#include <algorithm>
#include <limits>
#include <stdexcept>
#include <string>

namespace sgai::training {

namespace {

/** Forward or backward k of the interleaved schedule (Megatron-Core's get_model_chunk_id and
 *  get_microbatch_id_in_model_chunk). */
PipelineOp interleaved_op(uint32_t k, uint32_t p, uint32_t v, Pass pass)
{
  uint32_t in_group = k % (p * v);
  uint32_t chunk    = in_group / p;
  if (pass == Pass::backward)
    chunk = v - 1 - chunk;
  return {k / (p * v) * p + k % p, chunk, pass};
}

} // namespace

std::vector<PipelineOp> pipeline_order(uint32_t p, uint32_t rank, uint32_t m, uint32_t v)
{
  if (p == 0 || m == 0 || v == 0 || rank >= p)
    throw std::invalid_argument("pipeline_order: p, m and v must be positive and rank below p");
  if (v > 1 && m % p != 0)
    throw std::invalid_argument("pipeline_order: with virtual stages, the micro-batches (" + std::to_string(m) +
                                ") must be a multiple of the pipeline size (" + std::to_string(p) + ")");
  const uint32_t total = m * v;
  uint32_t warmup      = 0;
  if (v == 1)
    warmup = std::min(p - rank - 1, m);
  else if (m == p)
    warmup = total; // Megatron-Core: all forwards, then all backwards
  else
    warmup = std::min((p - rank - 1) * 2 + (v - 1) * p, total);
  auto forward = [&](uint32_t k) {
    return v == 1 ? PipelineOp{k, 0, Pass::forward} : interleaved_op(k, p, v, Pass::forward);
  };
  auto backward = [&](uint32_t k) {
    return v == 1 ? PipelineOp{k, 0, Pass::backward} : interleaved_op(k, p, v, Pass::backward);
  };
  std::vector<PipelineOp> out;
  out.reserve(2 * size_t(total));
  for (uint32_t k = 0; k < warmup; ++k)
    out.push_back(forward(k));
  for (uint32_t k = 0; k + warmup < total; ++k) {
    out.push_back(forward(k + warmup));
    out.push_back(backward(k));
  }
  for (uint32_t k = total - warmup; k < total; ++k)
    out.push_back(backward(k));
  return out;
}

std::vector<double> pipeline_ends(uint32_t p, uint32_t m, uint32_t v, const PassTimes& t)
{
  std::vector<std::vector<PipelineOp>> order(p);
  for (uint32_t r = 0; r < p; ++r)
    order[r] = pipeline_order(p, r, m, v);
  // end time of each pass: [rank][chunk][microbatch], forward and backward
  const double unset = -1;
  auto index         = [&](uint32_t r, uint32_t c, uint32_t mb) { return (size_t(r) * v + c) * m + mb; };
  std::vector<double> fwd(size_t(p) * v * m, unset), bwd(size_t(p) * v * m, unset);
  std::vector<size_t> next(p, 0);
  std::vector<double> free_at(p, 0);
  size_t left = 2 * size_t(p) * v * m;
  while (left > 0) {
    bool progress = false;
    for (uint32_t r = 0; r < p; ++r) {
      while (next[r] < order[r].size()) {
        const PipelineOp& op = order[r][next[r]];
        double ready         = 0;
        if (op.pass == Pass::forward) {
          if (r > 0)
            ready = fwd[index(r - 1, op.chunk, op.microbatch)] == unset
                        ? unset
                        : fwd[index(r - 1, op.chunk, op.microbatch)] + t.p2p_s;
          else if (op.chunk > 0)
            ready = fwd[index(p - 1, op.chunk - 1, op.microbatch)] == unset
                        ? unset
                        : fwd[index(p - 1, op.chunk - 1, op.microbatch)] + (p > 1 ? t.p2p_s : 0);
        } else {
          if (r + 1 < p)
            ready = bwd[index(r + 1, op.chunk, op.microbatch)] == unset
                        ? unset
                        : bwd[index(r + 1, op.chunk, op.microbatch)] + t.p2p_s;
          else if (op.chunk + 1 < v)
            ready = bwd[index(0, op.chunk + 1, op.microbatch)] == unset
                        ? unset
                        : bwd[index(0, op.chunk + 1, op.microbatch)] + (p > 1 ? t.p2p_s : 0);
          else
            ready = fwd[index(r, op.chunk, op.microbatch)];
        }
        if (ready == unset)
          break;
        double start = std::max(free_at[r], ready);
        double end   = start + (op.pass == Pass::forward ? t.forward_s : t.backward_s);
        (op.pass == Pass::forward ? fwd : bwd)[index(r, op.chunk, op.microbatch)] = end;
        free_at[r]                                                                = end;
        ++next[r];
        --left;
        progress = true;
      }
    }
    if (not progress && left > 0)
      throw std::logic_error("pipeline_ends: the pipeline orders deadlock");
  }
  return free_at;
}

double ideal_bubble_fraction(uint32_t p, uint32_t m, uint32_t v)
{
  return double(p - 1) / (double(v) * m + p - 1);
}

} // namespace sgai::training
