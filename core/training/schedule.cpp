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

double PipelineTimeline::chunk_done(uint32_t rank, uint32_t chunk) const
{
  double end = 0;
  for (uint32_t mb = 0; mb < m; ++mb)
    end = std::max(end, backward(rank, chunk, mb));
  return end;
}

std::vector<double> pipeline_ends(uint32_t p, uint32_t m, uint32_t v, const PassTimes& t)
{
  auto time = [&](uint32_t, uint32_t, Pass pass) { return pass == Pass::forward ? t.forward_s : t.backward_s; };
  return pipeline_timeline(p, m, v, time, t.p2p_s).rank_end;
}

PipelineTimeline pipeline_timeline(uint32_t p, uint32_t m, uint32_t v, const PassTime& time, double p2p_s,
                                   const std::vector<double>& first_ready)
{
  std::vector<std::vector<PipelineOp>> order(p);
  for (uint32_t r = 0; r < p; ++r)
    order[r] = pipeline_order(p, r, m, v);
  if (not first_ready.empty() && first_ready.size() != size_t(p) * v)
    throw std::invalid_argument("pipeline_timeline: first_ready needs one value per rank and chunk");
  PipelineTimeline tl;
  tl.p = p, tl.m = m, tl.v = v;
  const double unset = -1;
  auto index         = [&](uint32_t r, uint32_t c, uint32_t mb) { return (size_t(r) * v + c) * m + mb; };
  auto& fwd          = tl.forward_end;
  auto& bwd          = tl.backward_end;
  fwd.assign(size_t(p) * v * m, unset);
  bwd.assign(size_t(p) * v * m, unset);
  std::vector<size_t> next(p, 0);
  tl.rank_end.assign(p, 0);
  auto& free_at = tl.rank_end;
  // a pass's input: the same micro-batch's pass before it, plus the transfer when it comes from
  // another rank; `unset` while that pass has not run
  auto after  = [&](double end, bool remote) { return end == unset ? unset : end + (remote ? p2p_s : 0); };
  size_t left = 2 * size_t(p) * v * m;
  while (left > 0) {
    bool progress = false;
    for (uint32_t r = 0; r < p; ++r) {
      while (next[r] < order[r].size()) {
        const PipelineOp& op = order[r][next[r]];
        double ready         = 0;
        if (op.pass == Pass::forward) {
          if (r > 0)
            ready = after(fwd[index(r - 1, op.chunk, op.microbatch)], true);
          else if (op.chunk > 0)
            ready = after(fwd[index(p - 1, op.chunk - 1, op.microbatch)], p > 1);
          if (ready != unset && op.microbatch == 0 && not first_ready.empty())
            ready = std::max(ready, first_ready[size_t(r) * v + op.chunk]);
        } else {
          if (r + 1 < p)
            ready = after(bwd[index(r + 1, op.chunk, op.microbatch)], true);
          else if (op.chunk + 1 < v)
            ready = after(bwd[index(0, op.chunk + 1, op.microbatch)], p > 1);
          else
            ready = fwd[index(r, op.chunk, op.microbatch)];
        }
        if (ready == unset)
          break;
        double end = std::max(free_at[r], ready) + time(r, op.chunk, op.pass);
        (op.pass == Pass::forward ? fwd : bwd)[index(r, op.chunk, op.microbatch)] = end;
        free_at[r]                                                                = end;
        ++next[r];
        --left;
        progress = true;
      }
    }
    if (not progress && left > 0)
      throw std::logic_error("pipeline_timeline: the pipeline orders deadlock");
  }
  return tl;
}

double ideal_bubble_fraction(uint32_t p, uint32_t m, uint32_t v)
{
  return double(p - 1) / (double(v) * m + p - 1);
}

} // namespace sgai::training
