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
    layers_    = c.num_layers / (pp_ * v_);
    if (c.num_experts > 0 && c.expert_model_parallel_size > 1)
      for (const Transfer& x : layer_transfers(c))
        if (x.group == Group::expert && x.phase == Phase::forward)
          a2a_bytes_ = x.bytes; // one rank's buffer: 1/EP of it to each peer
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
        comm(chakra::CollectiveType::all_gather, chunk(ch).params * 2 / d_, "parameters " + std::to_string(ch), last_);
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
      comm(dist_ ? chakra::CollectiveType::reduce_scatter : chakra::CollectiveType::all_reduce, params * 4, name,
           last_);
  }
  void gather_parameters()
  {
    if (not(dist_ && d_ > 1 && c_.overlap_param_gather))
      return;
    gathered_.resize(v_);
    for (uint32_t ch = 0; ch < v_; ++ch)
      for (uint32_t k = 0; k < chunk(ch).buckets; ++k)
        gathered_[ch].push_back(comm(chakra::CollectiveType::all_gather, chunk(ch).params / chunk(ch).buckets * 2 / d_,
                                     "parameters " + std::to_string(ch) + "." + std::to_string(k), {}));
  }
  /** The MoE layers' dispatch and combine all-to-alls of a pass, as the point-to-point transfers
   *  NCCL runs them with (a share of the buffer to each EP peer, from each), after the pass's
   *  kernels: each waits for the one before. */
  void expert_exchanges(const PipelineOp& op)
  {
    const uint32_t ep = c_.expert_model_parallel_size, C = c_.context_parallel_size;
    if (a2a_bytes_ <= 0)
      return;
    const uint32_t x = at_.cp + C * at_.dp, base = x / ep * ep; // the rank's place among DP x CP
    const uint64_t piece = uint64_t(std::llround(a2a_bytes_ / ep));
    for (uint32_t l = 0; l < layers_; ++l)
      for (uint32_t k = 0; k < 2; ++k) {
        const uint64_t t64 =
            ((((uint64_t(op.microbatch) * v_ + op.chunk) * 2 + (op.pass == Pass::forward ? 0 : 1)) * layers_ + l) * 2 +
             k);
        const int32_t tag = int32_t(t64 % (uint64_t(1) << 31));
        std::vector<uint64_t> done;
        const std::string name = pass_name(op) + (k == 0 ? " dispatch " : " combine ") + std::to_string(l);
        for (uint32_t y = base; y < base + ep; ++y) {
          if (y == x)
            continue;
          const uint32_t other = megatron_rank(c_, at_.tp, y % C, y / C, at_.stage);
          b_.send(name, other, piece, tag, last_);
          done.push_back(b_.recv(name, other, piece, tag, last_));
        }
        last_ = done;
      }
  }
  /** A pass's kernels, without the MoE exchanges that follow them. */
  double kernels_of(const ChunkPlan& k, Pass pass) const
  {
    if (a2a_bytes_ <= 0)
      return pass == Pass::forward ? k.fwd : k.bwd;
    const double ep = pass == Pass::forward ? p_.layer.ep_fwd : p_.layer.ep_bwd;
    return std::max(0.0, (pass == Pass::forward ? k.fwd : k.bwd) - layers_ * ep);
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
    const uint32_t parts = op.microbatch == 0 && not gathered_.empty() ? k.buckets : 1;
    for (uint32_t i = 0; i < parts; ++i) {
      std::vector<uint64_t> deps = last_;
      if (op.microbatch == 0 && not gathered_.empty())
        deps.push_back(gathered_[op.chunk][i]);
      last_ = {b_.compute(pass_name(op) + (parts > 1 ? "." + std::to_string(i) : ""), 0, 0, deps,
                          micros(kernels_of(k, Pass::forward) / parts))};
    }
    expert_exchanges(op);
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
    for (uint32_t i = 0; i < parts; ++i) {
      last_ = {b_.compute(pass_name(op) + (parts > 1 ? "." + std::to_string(i) : ""), 0, 0, last_,
                          micros(kernels_of(k, Pass::backward) / parts))};
      if (final)
        reduce(k.params / parts, "gradients " + std::to_string(op.chunk) + "." + std::to_string(i));
    }
    expert_exchanges(op);
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
  uint64_t act_bytes_ = 0;
  uint32_t layers_    = 1; ///< transformer layers a chunk holds
  double a2a_bytes_   = 0; ///< one MoE all-to-all's buffer on one rank (0: no expert parallelism)
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
