#include "core/training/chakra_out.hpp"

#include "chakra/builder.hpp"
#include "core/training/schedule.hpp"
#include "core/training/traffic.hpp"

#include <algorithm>
#include <cmath>
#include <optional>

namespace sgai::training {

namespace {

uint64_t micros(double s)
{
  return uint64_t(std::max<long long>(1, std::llround(s * 1e6)));
}

/** Where one GPU sits and whom it talks to. */
struct Place {
  uint32_t tp = 0, cp = 0, dp = 0, stage = 0;
};

/** Builds one rank's trace. */
class RankTrace {
public:
  RankTrace(const TrainingConfig& c, const Prediction& p, Place at, uint32_t rank)
      : c_(c)
      , p_(p)
      , at_(at)
      , v_(c.virtual_stages())
      , pp_(c.pipeline_model_parallel_size)
      , m_(c.microbatches())
      , dist_(c.use_distributed_optimizer || c.use_torch_fsdp2)
      , d_(c.data_parallel_size * c.context_parallel_size)
      , group_(std::to_string(1 + at.stage * c.tensor_model_parallel_size + at.tp))
  {
    b_.metadata().attrs.push_back(chakra::Attribute::of_string("generator", "sgai train chakra"));
    b_.metadata().attrs.push_back(chakra::Attribute::of_int64("rank", rank));
    const uint64_t M = c.seq_length / c.context_parallel_size * c.micro_batch_size;
    act_bytes_ = uint64_t(double(M) * c.hidden_size * 2 / (c.sequence_parallel ? c.tensor_model_parallel_size : 1));
    for (uint32_t ch = 0; ch < v_; ++ch)
      layers_ = std::max(layers_, c.chunk_layers(at.stage, ch));
    for (const Transfer& x : layer_transfers(c)) {
      if (x.group == Group::expert && c.expert_model_parallel_size > 1) {
        a2a_bytes_ = x.bytes;                                     // one rank's buffer: 1/EP of it to each peer
        a2a_count_[x.phase == Phase::forward ? 0 : 1] += x.count; // (recomputation: the backward's again)
      }
      if (x.group == Group::context && x.collective == Collective::send_recv)
        ring_bytes_[x.phase == Phase::forward ? 0 : 1] = x.bytes; // one block, to the next rank of the ring
      if (x.group == Group::context)
        cp_[x.phase == Phase::forward ? 0 : 1].push_back(x); // in the layer's order
    }
  }

  chakra::Trace build()
  {
    gather_parameters();
    for (const PipelineOp& op : pipeline_order(pp_, at_.stage, m_, v_))
      op.pass == Pass::forward ? forward(op) : backward(op);
    if (not c_.overlap_grad_reduce)
      for (uint32_t ch = 0; ch < v_; ++ch)
        reduce(chunk(ch).params, "gradients " + std::to_string(ch));
    std::vector<uint64_t> deps = last_;
    if (comm_)
      deps.push_back(*comm_);
    last_ = {b_.compute("optimizer step", 0, 0, deps, micros(p_.stage_optimizer_s[at_.stage]))};
    if (dist_ && d_ > 1 && not c_.overlap_param_gather)
      for (uint32_t ch = 0; ch < v_; ++ch)
        comm(chakra::CollectiveType::all_gather, chunk(ch).gathered / d_, "parameters " + std::to_string(ch), last_);
    return b_.take();
  }

private:
  const ChunkPlan& chunk(uint32_t ch) const { return p_.chunks[size_t(at_.stage) * v_ + ch]; }
  uint32_t peer(uint32_t stage) const { return megatron_rank(c_, at_.tp, at_.cp, at_.dp, stage); }
  /** A transfer's tag: the receiving pass's micro-batch, chunk and direction. A receive is posted
   *  after the rank's previous pass (the sender's transfer does not wait for it): one receive in
   *  flight a rank, not every one of them from the start (each is an actor in the replay). */
  int32_t tag(uint32_t microbatch, uint32_t chunk, Pass pass) const
  {
    return int32_t((microbatch * v_ + chunk) * 2 + (pass == Pass::forward ? 0 : 1));
  }
  /** A DP collective after `deps`, after the previous one. */
  uint64_t comm(chakra::CollectiveType type, double bytes, const std::string& name, std::vector<uint64_t> deps)
  {
    if (comm_)
      deps.push_back(*comm_);
    comm_ = b_.collective(name, type, uint64_t(std::llround(bytes)), deps, group_);
    return *comm_;
  }
  void reduce(double params, const std::string& name)
  {
    if (d_ > 1)
      comm(dist_ ? chakra::CollectiveType::reduce_scatter : chakra::CollectiveType::all_reduce,
           params * c_.grad_bytes(), name, last_);
  }
  void gather_parameters()
  {
    if (not(dist_ && d_ > 1 && c_.overlap_param_gather))
      return;
    gathered_.resize(v_);
    for (uint32_t ch = 0; ch < v_; ++ch)
      for (uint32_t k = 0; k < chunk(ch).buckets; ++k)
        gathered_[ch].push_back(comm(chakra::CollectiveType::all_gather, chunk(ch).gathered / chunk(ch).buckets / d_,
                                     "parameters " + std::to_string(ch) + "." + std::to_string(k), {}));
  }
  /** A transfer's tag between ranks of one stage: the pass, the layer, the step and the kind
   *  (0: ring attention, 1: dispatch, 2: combine, 3 + k: the k-th all-gather, reduce-scatter or
   *  all-to-all of context parallelism), folded into 31 bits. */
  int32_t layer_tag(const PipelineOp& op, uint32_t layer, uint32_t step, uint32_t kind) const
  {
    const uint64_t steps = std::max<uint32_t>(2, c_.context_parallel_size);
    const uint64_t t64 =
        (((((uint64_t(op.microbatch) * v_ + op.chunk) * 2 + (op.pass == Pass::forward ? 0 : 1)) * layers_ + layer) *
              steps +
          step) *
             8 +
         kind);
    return int32_t(t64 % (uint64_t(1) << 31));
  }
  /** A MoE layer's dispatch and combine all-to-alls, as the point-to-point transfers NCCL runs them
   *  with: 1/EP of the buffer to each EP peer and from each, each exchange after the one before. */
  void expert_exchanges(const PipelineOp& op, uint32_t layer)
  {
    // Megatron-Core's expert ranks: a stage's TP x CP x DP ranks as ETP x EP x expert DP, ETP
    // innermost; the EP peers share this rank's ETP and expert-DP places
    const uint32_t ep = c_.expert_model_parallel_size, C = c_.context_parallel_size, T = c_.tensor_model_parallel_size;
    const uint32_t et = c_.etp(), local = at_.tp + T * (at_.cp + C * at_.dp); // the rank's place in its stage
    const uint32_t inner = local % et, x = local / et % ep, outer = local / et / ep;
    const uint64_t piece = uint64_t(std::llround(a2a_bytes_ / ep));
    const uint32_t count = a2a_count_[op.pass == Pass::forward ? 0 : 1];
    for (uint32_t k = 0; k < count; ++k) {
      const int32_t tag = layer_tag(op, layer, k / 2, 1 + k % 2);
      std::vector<uint64_t> done;
      const std::string name = pass_name(op) + (k % 2 == 0 ? " dispatch " : " combine ") + std::to_string(layer);
      for (uint32_t y = 0; y < ep; ++y) {
        if (y == x)
          continue;
        const uint32_t peer  = inner + et * (y + ep * outer);
        const uint32_t other = megatron_rank(c_, peer % T, peer / T % C, peer / T / C, at_.stage);
        b_.send(name, other, piece, tag, last_);
        done.push_back(b_.recv(name, other, piece, tag, last_));
      }
      last_ = done;
    }
  }
  /** Where this rank's CP place sits: CP index = inner + a x outer, a the all-to-alls' ranks
   *  (a2a: all, a2a+p2p: a group, else 1), outer its place on the ring. */
  uint32_t cp_rank(uint32_t inner, uint32_t outer) const
  {
    return megatron_rank(c_, at_.tp, inner + c_.cp_a2a() * outer, at_.dp, at_.stage);
  }
  /** A layer's ring attention over the ring's ranks: the local block's attention first; each block
   *  received from the previous rank is passed on to the next and its attention computed. */
  void ring_attention(const PipelineOp& op, uint32_t layer, double attention)
  {
    const uint32_t a = c_.cp_a2a(), R = c_.cp_ring(), inner = at_.cp % a, outer = at_.cp / a;
    const uint32_t nxt     = cp_rank(inner, (outer + 1) % R);
    const uint32_t prv     = cp_rank(inner, (outer + R - 1) % R);
    const uint64_t bytes   = uint64_t(ring_bytes_[op.pass == Pass::forward ? 0 : 1]);
    const std::string name = pass_name(op) + " attention " + std::to_string(layer);
    std::vector<uint64_t> recvs;
    for (uint32_t i = 0; i + 1 < R; ++i) {
      b_.send(name, nxt, bytes, layer_tag(op, layer, i, 0), i == 0 ? last_ : std::vector<uint64_t>{recvs.back()});
      recvs.push_back(b_.recv(name, prv, bytes, layer_tag(op, layer, i, 0), last_));
    }
    for (uint32_t i = 0; i < R; ++i) {
      std::vector<uint64_t> deps = last_;
      if (i > 0)
        deps.push_back(recvs[i - 1]);
      last_ = {b_.compute(name + "." + std::to_string(i), 0, 0, deps, micros(attention / R))};
    }
  }
  /** A layer's attention under context parallelism: the exchanges before it, the attention (as ring
   *  attention when a ring passes K and V), the exchanges after it, each as the point-to-point
   *  transfers NCCL runs it with (an all-gather or a reduce-scatter as a ring of c - 1 steps, 1/c of
   *  its bytes each; an all-to-all as 1/a of a rank's buffer to each of its group's peers and from
   *  each), each after the one before. */
  void context_attention(const PipelineOp& op, uint32_t layer, double attention)
  {
    const uint32_t C = c_.context_parallel_size, a = c_.cp_a2a(), inner = at_.cp % a, outer = at_.cp / a;
    const std::string name = pass_name(op) + " attention " + std::to_string(layer);
    uint32_t k             = 0;
    auto exchange          = [&](const Transfer& x) {
      const int32_t kind = int32_t(3 + std::min<uint32_t>(k++, 4));
      std::vector<uint64_t> done;
      if (x.collective == Collective::all_to_all) {
        const auto piece = uint64_t(std::llround(x.bytes / a));
        for (uint32_t y = 0; y < a; ++y) {
          if (y == inner)
            continue;
          b_.send(name, cp_rank(y, outer), piece, layer_tag(op, layer, 0, kind), last_);
          done.push_back(b_.recv(name, cp_rank(y, outer), piece, layer_tag(op, layer, 0, kind), last_));
        }
      } else { // an all-gather or reduce-scatter over every CP rank: each step passes on what the one before received
        const auto piece   = uint64_t(std::llround(x.bytes / C));
        const uint32_t nxt = megatron_rank(c_, at_.tp, (at_.cp + 1) % C, at_.dp, at_.stage);
        const uint32_t prv = megatron_rank(c_, at_.tp, (at_.cp + C - 1) % C, at_.dp, at_.stage);
        for (uint32_t i = 0; i + 1 < C; ++i) {
          b_.send(name, nxt, piece, layer_tag(op, layer, i, kind), i == 0 ? last_ : std::vector<uint64_t>{done.back()});
          done.push_back(b_.recv(name, prv, piece, layer_tag(op, layer, i, kind), last_));
        }
      }
      last_ = done;
    };
    const auto& xs = cp_[op.pass == Pass::forward ? 0 : 1];
    for (const Transfer& x : xs)
      if (not x.after_attention && x.collective != Collective::send_recv)
        exchange(x);
    if (c_.cp_ring() > 1)
      ring_attention(op, layer, attention);
    else
      last_ = {b_.compute(name, 0, 0, last_, micros(attention))};
    for (const Transfer& x : xs)
      if (x.after_attention)
        exchange(x);
  }
  /** Whether passes are laid out layer by layer, their CP ring or MoE exchanges as transfers. */
  bool layered() const { return a2a_bytes_ > 0 || not cp_[0].empty(); }
  /** One pass layer by layer: the chunk's embedding or LM head, then each layer's kernels (its
   *  attention as ring attention with CP) and its MoE exchanges, laid on the pass's time as the
   *  prediction prices it. The chunk's B buckets split the pass in B equal parts, as in the
   *  prediction: with `gate`, part i waits for parameter bucket i; with `reduce_buckets`, gradient
   *  bucket i leaves when part i ends (kernels are cut at those instants; exchanges are not). */
  void layered_pass(const PipelineOp& op, bool gate, bool reduce_buckets)
  {
    const bool fwd     = op.pass == Pass::forward;
    const ChunkPlan& k = chunk(op.chunk);
    const double total = fwd ? k.fwd : k.bwd;
    const bool ring    = not cp_[0].empty(); // (context parallelism's exchanges)
    const uint64_t B   = k.buckets;
    double now         = 0; // the pass's time as the prediction prices it
    uint64_t next      = 0; // the next bucket boundary
    auto boundary      = [&](uint64_t i) { return total * double(i) / double(B); };
    auto cross         = [&]() { // what happens at boundary `next`
      if (gate && next < B)
        last_.push_back(gathered_[op.chunk][next]);
      if (reduce_buckets && next > 0)
        reduce(k.params / B, "gradients " + std::to_string(op.chunk) + "." + std::to_string(next - 1));
      ++next;
    };
    auto kernels = [&](const std::string& name, double seconds) {
      while (next <= B && boundary(next) <= now + 1e-12)
        cross();
      double left = seconds;
      while (left > 1e-12) {
        double until = next <= B ? std::min(left, boundary(next) - now) : left;
        last_        = {b_.compute(name, 0, 0, last_, micros(until))};
        now += until;
        left -= until;
        while (next <= B && boundary(next) <= now + 1e-12)
          cross();
      }
    };
    // the first stage's first chunk holds the embedding (first forward, last backward), the last
    // stage's last chunk the LM head and the loss (last forward, first backward)
    const bool emb = at_.stage == 0 && op.chunk == 0, head = at_.stage + 1 == pp_ && op.chunk + 1 == v_;
    const double emb_s  = emb ? (fwd ? p_.embedding_fwd : p_.embedding_bwd) : 0;
    const bool mtp      = at_.stage == c_.mtp_rank && op.chunk + 1 == v_; // multi-token prediction's chunk
    const double head_s = (head ? (fwd ? p_.head_fwd : p_.head_bwd) : 0) + (mtp ? (fwd ? p_.mtp_fwd : p_.mtp_bwd) : 0);
    if (emb_s > 0 && fwd)
      kernels(pass_name(op) + " embedding", emb_s);
    if (head_s > 0 && not fwd)
      kernels(pass_name(op) + " head", head_s);
    const uint32_t first = c_.chunk_first_layer(at_.stage, op.chunk);
    for (uint32_t layer = 0; layer < c_.chunk_layers(at_.stage, op.chunk); ++layer) {
      // a MoE layer, or a MoE model's dense one (moe-layer-freq): no expert exchanges
      const bool moe = c_.moe_layer(first + layer), experts = a2a_bytes_ > 0 && moe;
      const LayerTimes& l    = c_.num_experts > 0 && not moe ? p_.dense_layer : p_.layer;
      const double per_layer = fwd ? l.forward() : l.backward();
      const double att       = fwd ? l.attention_fwd : l.attention_bwd;
      const double cpx       = ring ? (fwd ? l.cp_fwd : l.cp_bwd) : 0;
      const double epx       = experts ? (fwd ? l.ep_fwd : l.ep_bwd) : 0;
      const double exchanges = epx + (ring ? cpx + att : 0);
      kernels(pass_name(op) + " layer " + std::to_string(layer), std::max(0.0, per_layer - exchanges));
      if (ring) {
        context_attention(op, layer, att);
        now += att + cpx;
      }
      if (experts) {
        expert_exchanges(op, layer);
        now += epx;
      }
    }
    if (head_s > 0 && fwd)
      kernels(pass_name(op) + " head", head_s);
    if (emb_s > 0 && not fwd)
      kernels(pass_name(op) + " embedding", emb_s);
    while (next <= B)
      cross();
  }
  std::string pass_name(const PipelineOp& op) const
  {
    return (op.pass == Pass::forward ? "F" : "B") + std::to_string(op.microbatch) + "." + std::to_string(op.chunk);
  }
  void forward(const PipelineOp& op)
  {
    const bool first = at_.stage == 0 && op.chunk == 0, last = at_.stage + 1 == pp_ && op.chunk + 1 == v_;
    if (not first) {
      uint32_t from = at_.stage > 0 ? at_.stage - 1 : pp_ - 1;
      last_.push_back(
          b_.recv("recv " + pass_name(op), peer(from), act_bytes_, tag(op.microbatch, op.chunk, op.pass), last_));
    }
    const ChunkPlan& k   = chunk(op.chunk);
    const uint32_t parts = op.microbatch == 0 && not gathered_.empty() && not layered() ? k.buckets : 1;
    if (layered())
      layered_pass(op, op.microbatch == 0 && not gathered_.empty(), false);
    for (uint32_t i = 0; i < parts && not layered(); ++i) {
      std::vector<uint64_t> deps = last_;
      if (op.microbatch == 0 && not gathered_.empty())
        deps.push_back(gathered_[op.chunk][i]);
      last_ = {
          b_.compute(pass_name(op) + (parts > 1 ? "." + std::to_string(i) : ""), 0, 0, deps, micros(k.fwd / parts))};
    }
    if (not last) // to the next stage's same chunk, or from the last stage to the first's next chunk
      b_.send("send " + pass_name(op), peer(at_.stage + 1 < pp_ ? at_.stage + 1 : 0), act_bytes_,
              tag(op.microbatch, at_.stage + 1 < pp_ ? op.chunk : op.chunk + 1, op.pass), last_);
  }
  void backward(const PipelineOp& op)
  {
    const bool first = at_.stage == 0 && op.chunk == 0, last = at_.stage + 1 == pp_ && op.chunk + 1 == v_;
    if (not last) {
      uint32_t from = at_.stage + 1 < pp_ ? at_.stage + 1 : 0;
      last_.push_back(
          b_.recv("recv " + pass_name(op), peer(from), act_bytes_, tag(op.microbatch, op.chunk, op.pass), last_));
    }
    const ChunkPlan& k   = chunk(op.chunk);
    const bool final     = op.microbatch + 1 == m_ && c_.overlap_grad_reduce;
    const uint32_t parts = final ? k.buckets : 1;
    if (layered())
      layered_pass(op, false, final);
    for (uint32_t i = 0; i < parts && not layered(); ++i) {
      last_ = {
          b_.compute(pass_name(op) + (parts > 1 ? "." + std::to_string(i) : ""), 0, 0, last_, micros(k.bwd / parts))};
      if (final)
        reduce(k.params / parts, "gradients " + std::to_string(op.chunk) + "." + std::to_string(i));
    }
    if (not first) // to the previous stage's same chunk, or from the first stage to the last's previous chunk
      b_.send("send " + pass_name(op), peer(at_.stage > 0 ? at_.stage - 1 : pp_ - 1), act_bytes_,
              tag(op.microbatch, at_.stage > 0 ? op.chunk : op.chunk - 1, op.pass), last_);
  }

  const TrainingConfig& c_;
  const Prediction& p_;
  Place at_;
  uint32_t v_, pp_, m_;
  bool dist_;
  uint32_t d_;
  std::string group_;
  uint64_t act_bytes_    = 0;
  uint32_t layers_       = 1;      ///< transformer layers the rank's largest chunk holds (tags)
  double a2a_bytes_      = 0;      ///< one MoE all-to-all's buffer on one rank (0: no expert parallelism)
  uint32_t a2a_count_[2] = {0, 0}; ///< a MoE layer's all-to-alls, forward and backward
  double ring_bytes_[2]  = {0, 0}; ///< one ring-attention block, forward and backward (0: no ring)
  std::vector<Transfer> cp_[2];    ///< context parallelism's exchanges, forward and backward
  chakra::TraceBuilder b_;
  std::vector<uint64_t> last_;                  ///< what the next pass waits for
  std::optional<uint64_t> comm_;                ///< the last DP collective
  std::vector<std::vector<uint64_t>> gathered_; ///< each chunk's parameter buckets
};

} // namespace

uint32_t megatron_rank(const TrainingConfig& c, uint32_t tp, uint32_t cp, uint32_t dp, uint32_t stage)
{
  return tp + c.tensor_model_parallel_size * (cp + c.context_parallel_size * (dp + c.data_parallel_size * stage));
}

std::map<std::string, std::vector<uint32_t>> iteration_groups(const TrainingConfig& c)
{
  std::map<std::string, std::vector<uint32_t>> groups;
  for (uint32_t st = 0; st < c.pipeline_model_parallel_size; ++st)
    for (uint32_t dp = 0; dp < c.data_parallel_size; ++dp)
      for (uint32_t cp = 0; cp < c.context_parallel_size; ++cp)
        for (uint32_t tp = 0; tp < c.tensor_model_parallel_size; ++tp)
          groups[std::to_string(1 + st * c.tensor_model_parallel_size + tp)].push_back(
              megatron_rank(c, tp, cp, dp, st));
  for (auto& [name, ranks] : groups)
    std::sort(ranks.begin(), ranks.end());
  return groups;
}

chakra::Trace iteration_trace(const TrainingConfig& c, const Prediction& p, uint32_t rank)
{
  const uint32_t t = c.tensor_model_parallel_size, cp = c.context_parallel_size, dp = c.data_parallel_size;
  Place at{rank % t, (rank / t) % cp, (rank / (t * cp)) % dp, rank / (t * cp * dp)};
  return RankTrace(c, p, at, rank).build();
}

} // namespace sgai::training
