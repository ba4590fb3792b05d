#include "core/training/predict.hpp"

#include "core/training/flops.hpp"
#include "core/training/memory.hpp"
#include "core/training/schedule.hpp"
#include "core/training/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <optional>
#include <stdexcept>
#include <tuple>

namespace sgai::training {

namespace cn = collectives::nccl;

namespace {

/** Bytes of a 16-bit value. */
constexpr double kHalf = 2;

/** Linear interpolation in log2 of the sequence, clamped to the measured range. */
double rate_at(const std::vector<double>& seq, const std::vector<double>& rate, double s)
{
  if (s <= seq.front())
    return rate.front();
  if (s >= seq.back())
    return rate.back();
  size_t i = 1;
  while (seq[i] < s)
    ++i;
  double x = (std::log2(s) - std::log2(seq[i - 1])) / (std::log2(seq[i]) - std::log2(seq[i - 1]));
  return rate[i - 1] + x * (rate[i] - rate[i - 1]);
}

/** Forward and backward of one GEMM (m x n, inner k): the forward, the data gradient (m x k, inner
 *  n) and the weight gradient (k x n, inner m), `times` of them. */
struct GemmPasses {
  double fwd = 0, bwd = 0;
  void add(uint64_t m, uint64_t n, uint64_t k, const kernels::MatmulDevice& d, double times = 1)
  {
    if (m == 0 || n == 0 || k == 0)
      return;
    fwd += times * kernels::gemm_time(m, n, k, kHalf, d).seconds;
    bwd += times * (kernels::gemm_time(m, k, n, kHalf, d).seconds + kernels::gemm_time(k, n, m, kHalf, d).seconds);
  }
  /** `batch` of them in one batched GEMM each pass (attention's products: a sequence and a head each). */
  void add_batched(uint64_t m, uint64_t n, uint64_t k, const kernels::MatmulDevice& d, uint64_t batch)
  {
    if (m == 0 || n == 0 || k == 0 || batch == 0)
      return;
    fwd += kernels::gemm_time(m, n, k, kHalf, d, batch).seconds;
    bwd += kernels::gemm_time(m, k, n, kHalf, d, batch).seconds + kernels::gemm_time(k, n, m, kHalf, d, batch).seconds;
  }
};

cn::System rails(const Fabric& f, uint32_t per_node, uint32_t nodes)
{
  cn::System s = f.nccl;
  if (nodes > 1) // rail-optimized: the group's GPUs use their own NICs only
    s.inter_GBps *= std::min(1.0, double(per_node) / std::max<uint32_t>(1, f.gpus_per_node));
  return s;
}

/** The device with `sms` of its SMs (the rest left to communication kernels). */
kernels::MatmulDevice with_sms(const kernels::MatmulDevice& d, int sms)
{
  kernels::MatmulDevice out = d;
  out.sms                   = std::max(1, sms);
  out.peak_flops            = d.peak_flops * out.sms / d.sms;
  return out;
}

/** Transformer Engine's userbuffers overlap of the TP collectives with a dense layer's GEMMs
 *  (Megatron's --tp-comm-overlap; TE's initialize_ub defaults, transformer_engine/pytorch/module/
 *  base.py): the all-gathers before QKV and FC1 (and of the output gradient before the projection's
 *  and FC2's data gradients) by ring exchange, the GEMM split in t pieces, each piece's input passed
 *  on to the next rank by the copy engines while the GEMM runs; the reduce-scatters after the
 *  projection and FC2 by "pipeline", the GEMM in 4 pieces on all SMs but 16, each piece's
 *  reduce-scatter on those 16 while the next piece computes; the backward's remaining all-gather
 *  (the norm's output, for the weight gradient) and reduce-scatter (the input gradient) in "bulk",
 *  beside the QKV's and FC1's data and weight gradient GEMMs, which leave 16 SMs to them. */
struct TeOverlap {
  const kernels::MatmulDevice& d;
  const Fabric& f;
  uint32_t t, tp_node;
  static constexpr int kCommSms = 16; ///< TE's num_sm for the pipeline and bulk methods
  static constexpr int kSplits  = 4;  ///< TE's num_splits for the pipeline method

  double gemm(uint64_t m, uint64_t n, uint64_t k, int sms) const
  {
    return kernels::gemm_time(m, n, k, kHalf, with_sms(d, sms)).seconds;
  }
  /** m x n x k behind a ring-exchange all-gather of its m x k input. */
  double ring(uint64_t m, uint64_t n, uint64_t k) const
  {
    const double piece = gemm(m / t, n, k, d.sms);
    const double step =
        collective_time(f, Collective::send_recv, 2, std::min<uint32_t>(tp_node, 2), double(m / t) * k * kHalf);
    return piece + (t - 1) * std::max(piece, step);
  }
  /** m x n x k followed by a pipelined reduce-scatter of its m x n output. */
  double pipeline(uint64_t m, uint64_t n, uint64_t k) const
  {
    const double piece = gemm(m / kSplits, n, k, d.sms - kCommSms);
    const double rs    = collective_time(f, Collective::reduce_scatter, t, tp_node, double(m / kSplits) * n * kHalf);
    return piece + (kSplits - 1) * std::max(piece, rs) + rs;
  }
  /** A GEMM beside a bulk collective. */
  double bulk(uint64_t m, uint64_t n, uint64_t k, Collective c, double bytes) const
  {
    return std::max(gemm(m, n, k, d.sms - kCommSms), collective_time(f, c, t, tp_node, bytes));
  }
  /** A column-parallel GEMM (QKV, FC1: M x n x h) and the row-parallel one after it (projection,
   *  FC2: M x h x n_in), forward and backward with their collectives. */
  std::pair<double, double> block(uint64_t M, uint64_t h, uint64_t n, uint64_t n_in) const
  {
    const double act = double(M) * h * kHalf;
    double fwd       = ring(M, n, h) + pipeline(M, h, n_in);
    double bwd       = ring(M, n_in, h) + gemm(n_in, h, M, d.sms)  // row-parallel: data, weight gradients
                 + bulk(M, h, n, Collective::all_gather, act)      // column-parallel data gradient
                 + bulk(h, n, M, Collective::reduce_scatter, act); // and its weight gradient
    return {fwd, bwd};
  }
};

} // namespace

uint32_t ranks_per_node(uint32_t size, uint32_t stride, uint32_t gpus_per_node)
{
  if (size <= 1 || stride >= gpus_per_node)
    return 1;
  return std::max<uint32_t>(1, std::min(size, gpus_per_node / stride));
}

namespace {

/** A group of `ranks`, `per_node` of them a node (clamped to the group): its nodes and the NCCL
 *  system it runs on. */
struct Placed {
  uint32_t per_node, nodes;
  cn::System system;
};
Placed place(const Fabric& f, uint32_t ranks, uint32_t per_node)
{
  per_node             = std::clamp<uint32_t>(per_node, 1, ranks);
  const uint32_t nodes = (ranks + per_node - 1) / per_node;
  return {per_node, nodes, rails(f, per_node, nodes)};
}

/** NCCL's algorithm and protocol for a ring collective (all-gather, reduce-scatter, all-reduce) of
 *  `bytes`, among those the fabric forces (NCCL_ALGO, NCCL_PROTO); none for the others or when
 *  NCCL's model has none. Forced ones that cannot run the collective: std::invalid_argument. */
std::optional<cn::Choice> nccl_choice(const Fabric& f, const Placed& g, Collective type, uint32_t ranks, double bytes)
{
  if (type != Collective::all_gather && type != Collective::reduce_scatter && type != Collective::all_reduce)
    return std::nullopt;
  auto ct           = type == Collective::all_gather       ? chakra::CollectiveType::all_gather
                      : type == Collective::reduce_scatter ? chakra::CollectiveType::reduce_scatter
                                                           : chakra::CollectiveType::all_reduce;
  const cn::Model m = cn::model(g.system, ct, ranks, g.nodes);
  if (not f.algo && not f.proto)
    return cn::choose(m, bytes);
  auto forced = cn::choose(m, bytes, f.algo, f.proto);
  if (not forced && cn::choose(m, bytes)) { // (NCCL fails such a call: no algorithm/protocol available)
    std::string what = f.algo ? std::string("NCCL_ALGO ") + cn::to_string(*f.algo) : "";
    if (f.proto)
      what += (what.empty() ? "" : " with ") + std::string("NCCL_PROTO ") + cn::to_string(*f.proto);
    const char* name = type == Collective::all_gather       ? "all-gather"
                       : type == Collective::reduce_scatter ? "reduce-scatter"
                                                            : "all-reduce";
    throw std::invalid_argument(what + ": sgai's model of NCCL has no such algorithm/protocol for the " + name +
                                " of " + std::to_string(ranks) + " ranks on " + std::to_string(g.nodes) + " node" +
                                (g.nodes == 1 ? "" : "s") + " (docs/replay.md says which it has)");
  }
  return forced;
}

} // namespace

double collective_time(const Fabric& f, Collective type, uint32_t ranks, uint32_t per_node, double bytes)
{
  if (ranks <= 1 || bytes <= 0)
    return 0;
  const Placed g = place(f, ranks, per_node);
  if (auto choice = nccl_choice(f, g, type, ranks, bytes))
    return choice->time_us * 1e-6;
  per_node             = g.per_node;
  const uint32_t nodes = g.nodes;
  const cn::System& s  = g.system;
  // point to point: NVLink inside a node, the GPU's share of the node's NICs across
  const double intra = s.intra_GBps * 1e9;
  const double nic   = s.inter_GBps * 1e9 / per_node;
  const double lat   = (nodes > 1 ? s.net_latency_us : 1.0) * 1e-6;
  if (type == Collective::send_recv)
    return lat + bytes / (per_node >= ranks ? intra : nic);
  // all-to-all (and a fallback for the rest): each rank keeps 1/ranks, sends the rest to its peers
  double in_node  = bytes * double(per_node - 1) / ranks / intra;
  double off_node = nodes > 1 ? bytes * double(ranks - per_node) / ranks / nic : 0;
  return lat + std::max(in_node, off_node);
}

namespace {

/** A layer's GEMMs on one GPU, forward and backward, all of them and the parts selective
 *  recomputation may run again; the FFN activations' elements. */
struct LayerGemms {
  GemmPasses all;
  GemmPasses up_proj; ///< MLA's up-projections
  GemmPasses mlp;     ///< a dense layer's FC1 and FC2
  GemmPasses experts; ///< the router and the routed experts
  GemmPasses shared;  ///< the shared experts
  double act_elements = 0, expert_act_elements = 0, shared_act_elements = 0;
  void add(GemmPasses* part, uint64_t m, uint64_t n, uint64_t k, const kernels::MatmulDevice& d, double times = 1)
  {
    GemmPasses one;
    one.add(m, n, k, d, times);
    all.fwd += one.fwd, all.bwd += one.bwd;
    if (part != nullptr)
      part->fwd += one.fwd, part->bwd += one.bwd;
  }
};

/** The attention's projections (MLA's latents and up-projections), the FFN or the router, experts
 *  and shared experts. */
LayerGemms layer_gemms(const TrainingConfig& c, const kernels::MatmulDevice& d, uint64_t M)
{
  const uint32_t t = c.tensor_model_parallel_size, ep = c.expert_model_parallel_size;
  const uint64_t h = c.hidden_size, k = c.kv_channels, a = c.num_attention_heads, q = c.num_query_groups;
  const bool sw = c.swiglu;
  LayerGemms g;
  if (c.multi_latent_attention) { // Megatron-Core's MLA: the down-projections whole on each TP rank, the up-projections
                                  // split
    const uint64_t ql = c.q_lora_rank, kvl = c.kv_lora_rank;
    if (ql > 0) {
      g.add(nullptr, M, ql, h, d);                      // queries' latent
      g.add(&g.up_proj, M, c.query_width() / t, ql, d); // their up-projection
    } else {
      g.add(nullptr, M, c.query_width() / t, h, d); // queries
    }
    g.add(nullptr, M, kvl + c.qk_pos_emb_head_dim, h, d); // keys' and values' latent, rotary key
    g.add(&g.up_proj, M, uint64_t(a) * (c.qk_head_dim + c.v_head_dim) / t, kvl, d); // their up-projection
  } else {
    g.add(nullptr, M, (a + 2 * q) * k / t, h, d); // QKV
  }
  g.add(nullptr, M, h, c.output_width() / t, d); // attention output projection
  if (c.num_experts == 0) {
    g.add(&g.mlp, M, c.ffn_hidden_size * (sw ? 2 : 1) / t, h, d);
    g.add(&g.mlp, M, h, c.ffn_hidden_size / t, d);
    g.act_elements = double(M) * c.ffn_hidden_size / t;
  } else {
    // the routed copies this GPU's experts take (on the busiest): top-k of the TP group's tokens
    // over TP, gathered over the experts' TP, each expert's FFN split by it
    const uint32_t local = c.num_experts / ep, et = c.etp();
    const double tokens = double(M) * c.moe_router_topk * c.expert_load() * et / t;
    const auto per_exp  = uint64_t(std::ceil(tokens / local));
    g.add(&g.experts, M, c.num_experts, h, d); // router
    g.add(&g.experts, per_exp, c.moe_ffn_hidden_size * (sw ? 2 : 1) / et, h, d, local);
    g.add(&g.experts, per_exp, h, c.moe_ffn_hidden_size / et, d, local);
    g.expert_act_elements = tokens * c.moe_ffn_hidden_size / et;
    if (const uint64_t shared = c.moe_shared_expert_intermediate_size; shared > 0) { // every token
      g.add(&g.shared, M, shared * (sw ? 2 : 1) / t, h, d);
      g.add(&g.shared, M, h, shared / t, d);
      g.shared_act_elements = double(M) * shared / t;
    }
    g.act_elements = g.expert_act_elements + g.shared_act_elements;
  }
  return g;
}

/** Bytes a MoE layer's routed copies move through memory, forward (the backward the same), for
 *  `tokens` local tokens: Megatron-Core's alltoall dispatcher permutes each copy's 2 h-byte row
 *  before the dispatch (read, write), sorts the gathered copies by local expert and back when a
 *  rank holds several (read, write each), and unpermutes after the combine, weighting each and
 *  summing it into its token (read the row, read and write the sum). 0 for a dense layer. */
double routed_moves(const TrainingConfig& c, double tokens)
{
  if (c.num_experts == 0)
    return 0;
  const double row = 2.0 * double(c.hidden_size), local = tokens * c.moe_router_topk * c.expert_load();
  const double gathered = local * c.etp();
  return local * 5 * row + (c.num_experts / c.expert_model_parallel_size > 1 ? gathered * 4 * row : 0);
}

/** What selective recomputation's modules run again in the backward (Megatron-Core's
 *  recompute-modules; the core attention is layer_times' own): MLA's up-projections, a dense
 *  layer's MLP, a MoE layer's router and experts (with the shared ones), the shared experts, the
 *  norms and the experts' activation function, each its forward's kernels. */
void recomputed_modules(const TrainingConfig& c, const LayerGemms& g, double norm_elements, const GpuKernels& k,
                        LayerTimes& lt)
{
  const double act_b = c.swiglu ? 6 : 4; // an activation's forward bytes an element
  const bool moe     = c.num_experts > 0;
  if (c.recomputes(kMlaUpProj))
    lt.gemm_bwd += g.up_proj.fwd;
  if (c.recomputes(kMlp) && not moe) {
    lt.gemm_bwd += g.mlp.fwd;
    lt.stream_bwd += g.act_elements * act_b / k.stream_Bps;
  }
  if (c.recomputes(kMoe) && moe) {
    lt.gemm_bwd += g.experts.fwd + g.shared.fwd;
    lt.stream_bwd += g.act_elements * act_b / k.stream_Bps;
  } else {
    if (c.recomputes(kSharedExperts) && moe) {
      lt.gemm_bwd += g.shared.fwd;
      lt.stream_bwd += g.shared_act_elements * act_b / k.stream_Bps;
    }
    if (c.recomputes(kMoeAct) && moe)
      lt.stream_bwd += g.expert_act_elements * act_b / k.stream_Bps;
  }
  if (c.recomputes(kLayernorm)) // the two norms' forward: read x, write y
    lt.stream_bwd += 2 * norm_elements * 4 / k.stream_Bps;
}

} // namespace

LayerTimes layer_times(const TrainingConfig& c, const GpuKernels& g, const Fabric& f)
{
  const uint32_t t = c.tensor_model_parallel_size, cp = c.context_parallel_size, ep = c.expert_model_parallel_size;
  const uint64_t h = c.hidden_size, k = c.kv_channels, a = c.num_attention_heads, q = c.num_query_groups;
  const uint64_t M = c.seq_length / cp * c.micro_batch_size; // tokens of a micro-batch on one GPU
  const bool sw    = c.swiglu;
  const auto& d    = g.matmul;
  LayerTimes lt;

  const LayerGemms gemms    = layer_gemms(c, d, M);
  const GemmPasses& gemm    = gemms.all;
  const double act_elements = gemms.act_elements;
  const bool mla            = c.multi_latent_attention;
  lt.gemm_fwd               = gemm.fwd;
  lt.gemm_bwd               = gemm.bwd;

  // attention: local queries against all keys, half of them under the causal mask, counted as
  // FlashAttention counts (forward 4 s_q s_k d per head, backward 2.5 times that)
  const uint64_t dqk = c.score_head_dim(), dv = c.value_head_dim();
  const double att_flops = 2.0 * c.micro_batch_size * (double(a) / t) * double(dqk + dv) *
                           double(M / c.micro_batch_size) * double(c.seq_length) / 2;
  const auto& ar = g.attention;
  // attention's products as batched GEMMs: each sequence's queries against its keys, a head an instance
  const uint64_t queries = M / c.micro_batch_size, pairs = uint64_t(c.micro_batch_size) * (a / t);
  if (not c.fused_attention) {
    // Megatron's unfused path: the full score matrix by batched GEMMs per head, then its fused
    // scale-mask-softmax (reads and writes the scores: 4 bytes an element) and dropout (4 + a
    // 1-byte mask); backward dropout (2 + 1 + 2) and softmax (6)
    GemmPasses att;
    att.add_batched(queries, c.seq_length, dqk, d, pairs);
    att.add_batched(queries, dv, c.seq_length, d, pairs);
    const double scores = double(M) * c.seq_length * double(a) / t;
    const double drop   = c.attention_dropout > 0 ? 1 : 0;
    lt.attention_fwd    = att.fwd + scores * (4 + drop * 5) / g.stream_Bps;
    lt.attention_bwd    = att.bwd + scores * (6 + drop * 5) / g.stream_Bps;
  } else if (not ar.seq.empty()) {
    const double s    = double(c.seq_length);
    double causal_fwd = rate_at(ar.seq, ar.forward_causal, s);
    // the backward is published without a mask: the mask costs it what it costs the forward
    double causal_bwd = rate_at(ar.seq, ar.backward, s) * causal_fwd / rate_at(ar.seq, ar.forward, s);
    lt.attention_fwd  = att_flops / causal_fwd;
    lt.attention_bwd  = 2.5 * att_flops / causal_bwd;
  } else {
    // no published figure: the two products as GEMMs, per head
    GemmPasses att;
    att.add_batched(queries, c.seq_length / 2, dqk, d, pairs);
    att.add_batched(queries, dv, c.seq_length / 2, d, pairs);
    lt.attention_fwd = att.fwd;
    lt.attention_bwd = att.bwd * 2.5 / 2; // 5 products backward against 2 forward (FlashAttention-2)
  }

  // streaming kernels, bytes per element: a norm reads x and writes y (4), backward reads x and dy
  // and writes dx (6); a dropout-add reads two inputs, writes the sum and a one-byte mask (6 + 1),
  // backward reads dy and the mask, writes the branch's gradient, and the residual's gradients are
  // summed (2 + 1 + 2 + 6); GeLU reads and writes (4), backward reads input and dy, writes (6);
  // SwiGLU reads two and writes one (6), backward reads three and writes two (10)
  const double mask  = c.hidden_dropout > 0 ? 1 : 0;
  const double norm  = double(M) * h / (c.sequence_parallel ? t : 1);
  const double fwd_b = norm * 2 * (4 + 6 + mask) + act_elements * (sw ? 6 : 4);
  const double bwd_b = norm * 2 * (6 + 2 + mask + 2 + 6) + act_elements * (sw ? 10 : 6);
  lt.stream_fwd      = fwd_b / g.stream_Bps;
  lt.stream_bwd      = bwd_b / g.stream_Bps;
  const double moved = routed_moves(c, norm / h); // (MoE: the dispatcher's token moves)
  lt.stream_fwd += moved / g.stream_Bps;
  lt.stream_bwd += moved / g.stream_Bps;
  if (c.precision == Precision::fp8) {
    // Transformer Engine's FP8 GEMMs: a Linear's input cast to FP8 with a transposed copy for the
    // weight gradient (its fused cast-transpose reads 2 bytes an element and writes 1 + 1); a norm's
    // output (QKV's and FC1's inputs) is written in FP8 by the norm itself (a byte less) and
    // transposed (1 + 1); in the backward each output gradient is cast and transposed (4). The
    // weights' casts, once an iteration, are left out.
    double normed = 2.0 * M * h, linear = double(M) * double(c.output_width()) / t;
    double grads = double(M) * (2.0 * h + double((a + 2 * q) * k) / t);
    if (mla) { // the up-projections read the latents (cast), the gradients of every projection's output
      linear += double(M) * double(c.q_lora_rank + c.kv_lora_rank);
      grads = double(M) * (2.0 * h + double(c.query_width() + uint64_t(a) * (c.qk_head_dim + c.v_head_dim)) / t +
                           double(c.q_lora_rank + c.kv_lora_rank + c.qk_pos_emb_head_dim));
    }
    if (c.num_experts == 0) {
      linear += double(M) * c.ffn_hidden_size / t;
      grads += double(M) * c.ffn_hidden_size * (sw ? 2 : 1) / t;
    } else { // the experts' FC1 reads the dispatched tokens, not a norm's output (the shared experts' does)
      const double et = c.etp(), tokens = double(M) * c.moe_router_topk * c.expert_load() * et / t;
      const double shared = double(c.moe_shared_expert_intermediate_size);
      if (shared == 0)
        normed -= double(M) * h;
      linear += tokens * (double(h) + double(c.moe_ffn_hidden_size) / et) + double(M) * shared / t;
      grads += tokens * (double(h) + double(c.moe_ffn_hidden_size) * (sw ? 2 : 1) / et) - double(M) * h +
               double(M) * shared * (sw ? 2 : 1) / t;
    }
    lt.stream_fwd += (normed + 4 * linear) / g.stream_Bps;
    lt.stream_bwd += 4 * grads / g.stream_Bps;
  }
  // activation recomputation runs again in the backward what it did not keep: the core attention
  // (selective, Korthikanti et al.) or the whole layer's forward (full; its TP collectives are in
  // layer_transfers' backward)
  if (c.recomputes(kCoreAttn))
    lt.attention_bwd += lt.attention_fwd;
  recomputed_modules(c, gemms, norm, g, lt);
  if (c.recompute_granularity == Recompute::full) {
    lt.gemm_bwd += lt.gemm_fwd;
    lt.attention_bwd += lt.attention_fwd;
    lt.stream_bwd += lt.stream_fwd;
  }

  // per-layer communication, exposed where Megatron-Core cannot hide it
  const uint32_t tp_node = ranks_per_node(t, 1, f.gpus_per_node);
  const uint32_t ep_node = ranks_per_node(ep, c.etp(), f.gpus_per_node); // (expert ranks: ETP innermost)
  double tp[2] = {0, 0}, cp_c[2] = {0, 0}, cp_step[2] = {0, 0};
  for (const Transfer& x : layer_transfers(c)) {
    const int ph = x.phase == Phase::forward ? 0 : 1;
    if (x.group == Group::tensor) { // (the experts' own TP group, ETP ranks, beside TP's)
      tp[ph] +=
          x.count * collective_time(f, x.collective, x.ranks, ranks_per_node(x.ranks, 1, f.gpus_per_node), x.bytes);
    } else if (x.group == Group::context && x.collective == Collective::send_recv) { // the ring's steps
      // (a2a+p2p: the ring's peers are a group of all-to-alls apart)
      const uint32_t node = ranks_per_node(x.ranks, t * (cp / x.ranks), f.gpus_per_node);
      double one          = collective_time(f, x.collective, 2, std::min<uint32_t>(node, 2), x.bytes);
      cp_c[ph] += x.count * one;
      cp_step[ph] = std::max(cp_step[ph], one);
    } else if (x.group == Group::context) { // allgather, a2a: before or after the attention, exposed
      const uint32_t node = ranks_per_node(x.ranks, t, f.gpus_per_node);
      (ph == 0 ? lt.cp_fwd : lt.cp_bwd) += x.count * collective_time(f, x.collective, x.ranks, node, x.bytes);
    } else if (x.group == Group::expert)
      (ph == 0 ? lt.ep_fwd : lt.ep_bwd) += x.count * collective_time(f, x.collective, x.ranks, ep_node, x.bytes);
  }
  // Transformer Engine's overlap on dense layers: the exposed TP time is what the overlapped GEMMs
  // and collectives take beyond the GEMMs alone on all SMs
  double overlapped[2] = {-1, -1};
  if (c.tp_comm_overlap && c.sequence_parallel && t > 1 && c.num_experts == 0 && not mla) {
    TeOverlap te{d, f, t, tp_node};
    auto att      = te.block(M, h, (a + 2 * q) * k / t, a * k / t);
    auto mlp      = te.block(M, h, c.ffn_hidden_size * (sw ? 2 : 1) / t, c.ffn_hidden_size / t);
    overlapped[0] = att.first + mlp.first - lt.gemm_fwd;
    overlapped[1] = att.second + mlp.second - lt.gemm_bwd;
    if (c.recompute_granularity == Recompute::full) // the forward's blocks again
      overlapped[1] += att.first + mlp.first;
  }
  for (int ph = 0; ph < 2; ++ph) {
    (ph == 0 ? lt.tp_fwd : lt.tp_bwd) = overlapped[ph] >= 0 ? overlapped[ph] : tp[ph];
    // ring attention: the local block's attention first, then each block received while the one
    // before computes: c - 1 transfers, each exposed by what it takes beyond a block's attention
    const double att = ph == 0 ? lt.attention_fwd : lt.attention_bwd;
    if (const double r = c.cp_ring(); cp_c[ph] > 0)
      (ph == 0 ? lt.cp_fwd : lt.cp_bwd) += (r - 1) * std::max(0.0, cp_step[ph] - att / r);
  }
  return lt;
}

namespace {

double kernel_part(const LayerTimes& l)
{
  return l.gemm_fwd + l.gemm_bwd + l.attention_fwd + l.attention_bwd + l.stream_fwd + l.stream_bwd;
}

/** The first stage's embedding, the last stage's LM head and loss, a pipeline transfer. */
void edge_passes(const TrainingConfig& c, const GpuKernels& g, const Fabric& f, Prediction& out)
{
  const uint32_t t = c.tensor_model_parallel_size, p = c.pipeline_model_parallel_size;
  const uint64_t M = c.seq_length / c.context_parallel_size * c.micro_batch_size;
  const uint64_t h = c.hidden_size, V = c.padded_vocab_size;
  // the embedding: a gather forward; backward a dense V/t x h gradient zeroed, scattered into and
  // added to the fp32 main gradient (2 + 2 + 4 + 4 bytes an element)
  out.embedding_fwd = double(M) * h * 4 / g.stream_Bps;
  out.embedding_bwd = double(V) / t * h * 12 / g.stream_Bps;
  if (c.learned_positions) {
    // learned positions: their gather (2 + 2) and the sum (2 + 2 + 2) forward; backward the table's
    // gradient as the embedding's (2 + 2 + 4 + 4 bytes a row element) and the tokens' rows read (2)
    const double rows = double(c.max_position_embeddings) * h;
    out.embedding_fwd += double(M) * h * 10 / g.stream_Bps;
    out.embedding_bwd += (rows * 12 + double(M) * h * 2) / g.stream_Bps;
  }
  // the LM head's GEMM and Megatron's vocab-parallel cross-entropy on fp32 logits
  // (core/tensor_parallel/cross_entropy.py): forward casts (2 + 4), takes the max (4), subtracts,
  // exponentiates and divides in place (8 each) and sums (4); backward scales in place (8) and
  // casts back (6)
  GemmPasses head;
  head.add(M, V / t, h, g.matmul);
  const double logits    = double(M) * V / t;
  out.head_fwd           = head.fwd + logits * 38 / g.stream_Bps;
  out.head_bwd           = head.bwd + logits * 14 / g.stream_Bps;
  const uint32_t tp_node = ranks_per_node(t, 1, f.gpus_per_node);
  if (c.sequence_parallel && t > 1) { // the head's input gathered, its gradient scattered
    double bytes = double(M) * h * kHalf;
    out.head_fwd += collective_time(f, Collective::all_gather, t, tp_node, bytes);
    out.head_bwd += collective_time(f, Collective::reduce_scatter, t, tp_node, bytes);
  }
  // multi-token prediction (Megatron-Core's MTP layers, on the last stage): per depth the
  // embedding's lookup, the two norms and the projection of the joined 2 h to h (split by TP), a
  // layer of the last layer's kind, the final norm, the LM head and the loss again; backward the
  // same, and the embedding's gradient once
  if (const double mtp = c.mtp_num_layers; mtp > 0) {
    const bool last_moe = c.num_experts > 0 && c.moe_layer(c.num_layers - 1);
    const LayerTimes& l = last_moe ? out.layer : out.dense_layer;
    GemmPasses proj;
    proj.add(M, h / t, 2 * h, g.matmul);
    const double norms     = 3 * double(M) * h / (c.sequence_parallel ? t : 1);
    const double extra_fwd = out.embedding_fwd + proj.fwd + norms * 4 / g.stream_Bps + out.head_fwd;
    const double extra_bwd = proj.bwd + norms * 6 / g.stream_Bps + out.head_bwd;
    out.mtp_fwd            = mtp * (l.forward() + extra_fwd);
    out.mtp_bwd            = mtp * (l.backward() + extra_bwd) + out.embedding_bwd;
    out.mtp_kernels        = mtp * (kernel_part(l) + extra_fwd + extra_bwd) + out.embedding_bwd;
  }
  const uint32_t pp_node = ranks_per_node(p, t * c.context_parallel_size * c.data_parallel_size, f.gpus_per_node);
  out.p2p_s              = p > 1 ? collective_time(f, Collective::send_recv, 2, std::min<uint32_t>(pp_node, 2),
                                                   double(M) * h * kHalf / (c.sequence_parallel ? t : 1))
                                 : 0;
}

/** Each pipeline rank's model chunks ([rank v + chunk]): rank r's chunks hold its stage's layers over
 *  v each (L / (p v), or the uneven first and last stages'). */
std::vector<ChunkPlan> chunk_costs(const TrainingConfig& c, const Prediction& out)
{
  const uint32_t t = c.tensor_model_parallel_size, p = c.pipeline_model_parallel_size, v = c.virtual_stages();
  const LayerTimes &lt = out.layer, &dl = out.dense_layer;
  const ParameterCount pc = count_parameters(c);
  const bool moe          = c.num_experts > 0;
  // a layer's parameters on one GPU: a MoE layer's (its experts over EP), a MoE model's dense layer's
  const double layer_params = (pc.attention_per_layer + pc.shared_per_layer) / t +
                              pc.mlp_per_layer / (moe ? double(c.expert_model_parallel_size) * c.etp() : t) +
                              pc.norms_per_layer + pc.attention_whole_per_layer;
  const double dense_params =
      moe ? (pc.attention_per_layer + pc.dense_mlp_per_layer) / t + pc.norms_per_layer + pc.attention_whole_per_layer
          : layer_params;
  // gathered in 16 bits; with fp8-param-gather the GEMM weights (their biases with them) in FP8
  auto gathered = [&](double params) {
    return kHalf * params - (c.fp8_param_gather ? (kHalf - 1) * (params - pc.norms_per_layer) : 0);
  };
  const double bucket = c.ddp_bucket_size > 0 ? double(c.ddp_bucket_size) : std::max(40e6, 1e6 * c.data_parallel_size);
  std::vector<ChunkPlan> chunks(size_t(p) * v);
  for (uint32_t r = 0; r < p; ++r)
    for (uint32_t ch = 0; ch < v; ++ch) {
      ChunkPlan& k = chunks[size_t(r) * v + ch];
      // its MoE layers and its dense ones (a dense model's are all dense)
      const double n = moe ? c.chunk_moe_layers(r, ch) : 0, nd = c.chunk_layers(r, ch) - n;
      k.fwd      = n * lt.forward() + nd * dl.forward();
      k.bwd      = n * lt.backward() + nd * dl.backward();
      k.kernels  = n * kernel_part(lt) + nd * kernel_part(dl);
      k.tp       = n * (lt.tp_fwd + lt.tp_bwd) + nd * (dl.tp_fwd + dl.tp_bwd);
      k.cp       = n * (lt.cp_fwd + lt.cp_bwd) + nd * (dl.cp_fwd + dl.cp_bwd);
      k.ep       = n * (lt.ep_fwd + lt.ep_bwd);
      k.params   = n * layer_params + nd * dense_params;
      k.gathered = n * gathered(layer_params) + nd * gathered(dense_params);
      if (r == 0 && ch == 0) {
        k.fwd += out.embedding_fwd;
        k.bwd += out.embedding_bwd;
        k.kernels += out.embedding_fwd + out.embedding_bwd;
        k.params += pc.embedding / t + pc.positions;
        k.gathered += kHalf * (pc.embedding / t + pc.positions);
      }
      if (r == p - 1 && ch == v - 1) {
        k.fwd += out.head_fwd;
        k.bwd += out.head_bwd;
        k.kernels += out.head_fwd + out.head_bwd;
        if (c.untie_embeddings_and_output_weights) {
          k.params += pc.embedding / t;
          k.gathered += kHalf * pc.embedding / t;
        }
      }
      if (r == c.mtp_rank && ch == v - 1 && c.mtp_num_layers > 0) {
        k.fwd += out.mtp_fwd;
        k.bwd += out.mtp_bwd;
        k.kernels += out.mtp_kernels;
        { // (its layers' exposed TP, CP, EP; its parameters)
          const bool last_moe = moe && c.moe_layer(c.num_layers - 1);
          const LayerTimes& l = last_moe ? lt : dl;
          const double mtp    = c.mtp_num_layers;
          k.tp += mtp * (l.tp_fwd + l.tp_bwd), k.cp += mtp * (l.cp_fwd + l.cp_bwd), k.ep += mtp * (l.ep_fwd + l.ep_bwd);
          const double params = mtp * ((last_moe ? layer_params : dense_params) +
                                       2.0 * double(c.hidden_size) * double(c.hidden_size) / t +
                                       3 * double(c.rms_norm ? c.hidden_size : 2 * c.hidden_size)) +
                                (p > 1 && (c.untie_embeddings_and_output_weights || r + 1 != p) ? pc.embedding / t : 0);
          k.params += params;
          k.gathered += gathered(params);
        }
      }
      // Megatron's DDP buckets only the first stage's first chunk; the rest reduce as one
      if (c.overlap_grad_reduce && r == 0 && ch == 0)
        k.buckets = uint32_t(std::max(1.0, std::ceil(k.params / bucket)));
    }
  return chunks;
}

/** Every pass of the timeline as a span: "F<micro-batch>.<chunk>" or "B...", lane 0. */
void add_pass_spans(const PipelineTimeline& tl, const PassTime& time, std::vector<Span>& spans)
{
  for (uint32_t r = 0; r < tl.p; ++r)
    for (uint32_t ch = 0; ch < tl.v; ++ch)
      for (uint32_t mb = 0; mb < tl.m; ++mb)
        for (Pass ps : {Pass::forward, Pass::backward}) {
          const double end = ps == Pass::forward ? tl.forward(r, ch, mb) : tl.backward(r, ch, mb);
          const double dur = time(r, ch, ps);
          spans.push_back({r, 0, end - dur, dur,
                           (ps == Pass::forward ? "F" : "B") + std::to_string(mb) + "." + std::to_string(ch)});
        }
}

/** The SMs (NCCL's channels, a thread block each) NCCL runs one collective on, as it would choose
 *  its algorithm and protocol for `bytes` (collective_time's). */
uint32_t collective_sms(const Fabric& f, Collective type, uint32_t ranks, uint32_t per_node, double bytes)
{
  if (ranks <= 1 || bytes <= 0)
    return 0;
  const Placed g = place(f, ranks, per_node);
  auto choice    = nccl_choice(f, g, type, ranks, bytes);
  return choice ? cn::channels(g.system, choice->algo, choice->proto, ranks, bytes) : 0;
}

/** The share by which the data-parallel collectives that overlap the passes (overlap-grad-reduce,
 *  overlap-param-gather) slow the GEMMs and attention beside them. NCCL runs each channel as a
 *  thread block on an SM of its own (NCCL_MIN_CTAS / NCCL_MAX_CTAS bound them), so while a rank's
 *  collectives run, its tensor-core kernels have the other SMs: over a rank's overlapped
 *  communication time W they lose W x channels / SMs of work, at most what they could lose. Spread
 *  over a rank's GEMM and attention time (the average rank's), it is the fraction returned. */
double dp_sm_share(const TrainingConfig& c, const GpuKernels& g, const Fabric& f, const Prediction& out)
{
  const uint32_t t = c.tensor_model_parallel_size, p = c.pipeline_model_parallel_size;
  const uint32_t d       = c.data_parallel_size * c.context_parallel_size;
  const bool dist        = c.use_distributed_optimizer || c.use_torch_fsdp2;
  const bool gather      = dist && c.overlap_param_gather;
  const double sms       = g.matmul.sms;
  const uint32_t dp_node = ranks_per_node(d, t, f.gpus_per_node);
  // FSDP2 without pipelining is Megatron-LM's (which refuses it with PP); with PP the parameters stay
  // gathered over the micro-batches and the gradients reduce once (torchtitan's default under PP,
  // as Llama 3 trained): the distributed optimizer's pattern below
  const bool fsdp = c.use_torch_fsdp2 && c.pipeline_model_parallel_size == 1;
  if (d <= 1 || sms <= 1 || (not fsdp && not c.overlap_grad_reduce && not gather))
    return 0;
  const Collective reduce = dist ? Collective::reduce_scatter : Collective::all_reduce;
  double overlapped       = 0;
  uint32_t channels       = 0;
  if (fsdp) {
    // FSDP2 as Megatron-LM wraps it (TorchFullyShardedDataParallel: each transformer layer a unit,
    // reshard_after_forward, no no_sync): every micro-batch gathers each unit's parameters for its
    // forward and again for its backward and reduce-scatters its gradients, prefetched beside the
    // passes; the embedding and output layer are spread over the layers' units
    const ChunkPlan& k   = out.chunks.front();
    const uint32_t units = c.num_layers;
    const double params = k.gathered / units, grads = k.params / units * c.grad_bytes();
    overlapped = double(c.microbatches()) * units *
                 (2 * collective_time(f, Collective::all_gather, d, dp_node, params) +
                  collective_time(f, Collective::reduce_scatter, d, dp_node, grads));
    channels = std::max(collective_sms(f, Collective::all_gather, d, dp_node, params),
                        collective_sms(f, Collective::reduce_scatter, d, dp_node, grads));
  } else
    for (const ChunkPlan& k : out.chunks) {
      const double grads = k.params / k.buckets * c.grad_bytes(), params = k.gathered / k.buckets;
      if (c.overlap_grad_reduce) {
        overlapped += k.buckets * collective_time(f, reduce, d, dp_node, grads);
        channels = std::max(channels, collective_sms(f, reduce, d, dp_node, grads));
      }
      if (gather) {
        overlapped += k.buckets * collective_time(f, Collective::all_gather, d, dp_node, params);
        channels = std::max(channels, collective_sms(f, Collective::all_gather, d, dp_node, params));
      }
    }
  overlapped /= p;
  auto tensor_core = [](const LayerTimes& l) { return l.gemm_fwd + l.gemm_bwd + l.attention_fwd + l.attention_bwd; };
  const double moe = c.num_experts > 0 ? double(c.moe_layer_count()) : 0.0;
  const double busy =
      c.microbatches() * (moe * tensor_core(out.layer) + (c.num_layers - moe) * tensor_core(out.dense_layer)) / p;
  const double taken = std::min<double>(channels, sms - 1);
  if (busy <= 0 || taken <= 0)
    return 0;
  return std::min(overlapped, busy * sms / (sms - taken)) * taken / sms / busy;
}

} // namespace

Prediction predict_iteration(const TrainingConfig& c, const GpuKernels& g, const Fabric& f, bool spans)
{
  if (g.matmul.peak_flops <= 0 || g.matmul.tile_fraction <= 0 || g.stream_Bps <= 0 || g.matmul.sms <= 0)
    throw std::invalid_argument("the GPU " + g.name + " has no matmul, stream or SM figures at this precision");
  const uint32_t t = c.tensor_model_parallel_size, p = c.pipeline_model_parallel_size, v = c.virtual_stages();
  const uint32_t cp = c.context_parallel_size, dp = c.data_parallel_size, m = c.microbatches();
  Prediction out;
  out.layer = layer_times(c, g, f);
  out.dense_layer =
      c.num_experts > 0 && c.moe_layer_count() < c.num_layers ? layer_times(dense_layers_of(c), g, f) : out.layer;

  edge_passes(c, g, f, out);
  out.chunks = chunk_costs(c, out);
  // the overlapped data-parallel collectives' SMs, taken from the layers' tensor-core kernels
  if (const double slower = dp_sm_share(c, g, f, out); slower > 0) {
    out.dp_sm_share = slower;
    for (LayerTimes* l : {&out.layer, &out.dense_layer})
      for (double* x : {&l->gemm_fwd, &l->gemm_bwd, &l->attention_fwd, &l->attention_bwd})
        *x *= 1 + slower;
    out.chunks = chunk_costs(c, out);
  }
  const std::vector<ChunkPlan>& chunks = out.chunks;
  const uint32_t d                     = dp * cp; // gradients reduce over data and context parallel ranks
  auto chunk = [&](uint32_t r, uint32_t ch) -> const ChunkPlan& { return chunks[size_t(r) * v + ch]; };
  auto time  = [&](uint32_t r, uint32_t ch, Pass ps) {
    return ps == Pass::forward ? chunk(r, ch).fwd : chunk(r, ch).bwd;
  };

  // data-parallel communication: the gradients in fp32 under bf16 (Megatron's default, unless
  // grad-reduce-in-bf16), in fp16 under fp16; 16-bit parameters gathered back with the distributed
  // optimizer
  const uint32_t dp_node = ranks_per_node(d, t, f.gpus_per_node);
  const bool dist        = c.use_distributed_optimizer || c.use_torch_fsdp2; // FSDP: reduce-scatter and gather too
  auto reduce            = [&](double params) {
    return dist ? collective_time(f, Collective::reduce_scatter, d, dp_node, params * c.grad_bytes())
                           : collective_time(f, Collective::all_reduce, d, dp_node, params * c.grad_bytes());
  };
  auto gather = [&](double bytes) {
    return dist ? collective_time(f, Collective::all_gather, d, dp_node, bytes) : 0.0;
  };
  // with --overlap-param-gather, each chunk's first forward waits for its parameters, gathered in
  // chunk order from the iteration's start, bucket by bucket: its k-th piece (of as many as it has
  // buckets) starts once the k-th bucket is in
  std::vector<double> gates;
  if (dist && c.overlap_param_gather && d > 1) {
    gates.assign(size_t(p) * v, 0);
    for (uint32_t r = 0; r < p; ++r) {
      double done = 0;
      for (uint32_t ch = 0; ch < v; ++ch) {
        const ChunkPlan& k = chunk(r, ch);
        const double each  = gather(k.gathered / k.buckets);
        double& gate       = gates[size_t(r) * v + ch];
        for (uint32_t i = 0; i < k.buckets; ++i) {
          done += each;
          gate = std::max(gate, done - i * k.fwd / k.buckets);
        }
      }
    }
  }
  const PipelineTimeline free_tl = pipeline_timeline(p, m, v, time, out.p2p_s);
  const PipelineTimeline tl      = gates.empty() ? free_tl : pipeline_timeline(p, m, v, time, out.p2p_s, gates);

  double worst = -1;
  out.stage_end_s.assign(p, 0);
  out.stage_busy_s.assign(p, 0);
  out.stage_optimizer_s.assign(p, 0);
  out.stage_comm_s.assign(p, 0);
  if (spans)
    add_pass_spans(tl, time, out.spans);
  for (uint32_t r = 0; r < p && spans && not gates.empty(); ++r) { // the parameters' all-gathers, chunk by chunk
    double at = 0;
    for (uint32_t ch = 0; ch < v; ++ch) {
      const ChunkPlan& k = chunk(r, ch);
      double dur         = k.buckets * gather(k.gathered / k.buckets);
      out.spans.push_back({r, 1, at, dur, "all-gather " + std::to_string(ch)});
      at += dur;
    }
  }
  for (uint32_t r = 0; r < p; ++r) {
    // gradient buckets become ready through their chunk's last backward, one reduction at a time
    std::vector<std::pair<double, double>> ready; // (ready, duration)
    double params = 0, kernels_s = 0, tp = 0, cpx = 0, epx = 0;
    for (uint32_t ch = 0; ch < v; ++ch) {
      const ChunkPlan& k = chunk(r, ch);
      params += k.params;
      kernels_s += m * k.kernels;
      tp += m * k.tp, cpx += m * k.cp, epx += m * k.ep;
      const double done = c.overlap_grad_reduce ? tl.chunk_done(r, ch) : tl.rank_end[r];
      for (uint32_t b = 0; b < k.buckets; ++b)
        ready.emplace_back(done - k.bwd * (1.0 - double(b + 1) / k.buckets), reduce(k.params / k.buckets));
    }
    std::sort(ready.begin(), ready.end());
    // one DP stream: the reductions follow the parameters' all-gathers issued at the start
    double comm = 0, comm_busy = 0;
    for (uint32_t ch = 0; ch < v && not gates.empty(); ++ch)
      comm += chunk(r, ch).buckets * gather(chunk(r, ch).gathered / chunk(r, ch).buckets);
    for (auto [at, dur] : ready) {
      if (spans)
        out.spans.push_back({r, 1, std::max(comm, at), dur, dist ? "reduce-scatter" : "all-reduce"});
      comm = std::max(comm, at) + dur;
      comm_busy += dur;
    }
    double gather_all = 0;
    for (uint32_t ch = 0; ch < v; ++ch)
      gather_all += gather(chunk(r, ch).gathered);
    const double shard = dist ? d : 1;
    // Adam over the shard (fp32 parameter, gradient, two moments read; three written; the bf16
    // parameter written: 30 bytes), the gradient norm (4), the gradient buffer zeroed (4 a parameter)
    const double opt   = (params / shard * (30 + 4) + params * 4) / g.stream_Bps;
    const double end_c = tl.rank_end[r];
    double end         = std::max(end_c, comm) + opt;
    if (dist && not c.overlap_param_gather)
      end += gather_all;
    out.stage_end_s[r]       = end_c;
    out.stage_busy_s[r]      = kernels_s;
    out.stage_optimizer_s[r] = opt;
    out.stage_comm_s[r] = comm_busy + (dist ? gather_all : 0) + tp + cpx + epx + (p > 1 ? 2.0 * m * v * out.p2p_s : 0);
    if (end > worst) {
      worst             = end;
      out.slowest_stage = r;
      Breakdown& b      = out.breakdown;
      b.compute_s       = kernels_s;
      b.tp_s            = tp;
      b.cp_s            = cpx;
      b.ep_s            = epx;
      // (what the passes leave idle; a rounding residue of the sums is no bubble)
      const double idle = free_tl.rank_end[r] - (kernels_s + tp + cpx + epx);
      b.bubble_s        = idle > 1e-12 * free_tl.rank_end[r] ? idle : 0.0;
      b.dp_s            = (end_c - free_tl.rank_end[r]) + std::max(0.0, comm - end_c) +
               (dist && not c.overlap_param_gather ? gather_all : 0);
      b.optimizer_s = opt;
    }
    if (r == 0) {
      for (auto [at, dur] : ready)
        out.dp_reduce_s += dur;
      out.dp_gather_s = gather_all;
    }
  }
  std::stable_sort(out.spans.begin(), out.spans.end(), [](const Span& x, const Span& y) {
    return std::tie(x.stage, x.lane, x.start_s) < std::tie(y.stage, y.lane, y.start_s);
  });
  out.iteration_s             = worst;
  out.tokens_per_s            = tokens_per_iteration(c) / worst;
  out.tflops_per_gpu          = megatron_flops(c) / double(c.gpus()) / worst / 1e12;
  out.mfu                     = out.tflops_per_gpu * 1e12 / g.peak_bf16;
  out.hardware_tflops_per_gpu = hardware_flops(c) / double(c.gpus()) / worst / 1e12;
  out.hfu                     = out.hardware_tflops_per_gpu * 1e12 / g.peak_bf16;
  return out;
}

Energy iteration_energy(const TrainingConfig& c, const Prediction& p, uint32_t gpus_per_node, double gpu_busy_w,
                        double gpu_idle_w, double node_cpu_w, double nic_idle_w, double nic_busy_w)
{
  Energy e;
  const double T         = p.iteration_s;
  const double per_stage = double(c.tensor_model_parallel_size) * c.context_parallel_size * c.data_parallel_size;
  double comm_share      = 0;
  for (size_t r = 0; r < p.stage_busy_s.size(); ++r) {
    const double busy = std::min(T, p.stage_busy_s[r]);
    e.gpu_j += per_stage * (busy * gpu_busy_w + (T - busy) * gpu_idle_w);
    comm_share += std::min(1.0, p.stage_comm_s[r] / T) / p.stage_busy_s.size();
  }
  const double nodes = std::ceil(double(c.gpus()) / std::max<uint32_t>(1, gpus_per_node));
  e.cpu_j            = nodes * node_cpu_w * T;
  e.network_j        = nodes * (nic_idle_w + (nic_busy_w - nic_idle_w) * comm_share) * T;
  return e;
}

} // namespace sgai::training
