#include "plugins/communicator/communicator.hpp"

#include "core/collectives/nccl.hpp"
#include "plugins/communicator/network.hpp"
#include "plugins/sim/clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <functional>
#include <optional>
#include <stdexcept>

namespace sgai::communicator {

namespace s4u = simgrid::s4u;

struct CollectiveRun::Op {
  s4u::CommPtr comm;            ///< set by the sender when it reaches the transfer
  bool posted        = false;   ///< the sender has reached it
  double posted_at   = 0;       ///< when
  double not_before  = 0;       ///< a rate bound's earliest arrival
  s4u::Actor* waiter = nullptr; ///< the receiver, suspended until the transfer exists
  s4u::Actor* sender = nullptr; ///< the sender, suspended until the receiver has it all
  bool done          = false;
};

struct CollectiveRun::Chunk {
  std::vector<Op> ops;
  uint32_t ranks_done = 0;
};

CollectiveRun::CollectiveRun(std::shared_ptr<const collectives::Schedule> schedule, std::vector<s4u::Host*> hosts,
                             double bytes, CollectiveOptions options)
    : schedule_(std::move(schedule))
    , hosts_(std::move(hosts))
    , bytes_(bytes)
    , options_(options)
{
  if (hosts_.size() != schedule_->ranks)
    throw std::invalid_argument("a collective over " + std::to_string(schedule_->ranks) + " ranks given " +
                                std::to_string(hosts_.size()) + " hosts");
  if (options_.chunks == 0 || options_.channels == 0)
    throw std::invalid_argument("a collective needs at least one chunk and one channel");
  size_t offset = 0;
  for (const auto& step : schedule_->steps) {
    step_offset_.push_back(offset);
    offset += step.size();
  }
  chunks_.resize(options_.chunks);
  // phases: runs of steps on one dimension
  const auto& dims = schedule_->step_dim;
  for (size_t k = 0; k < schedule_->steps.size(); k++) {
    uint32_t d = dims.empty() ? 0 : dims[k];
    if (k == 0 || d != phase_dim_.back()) {
      phase_first_.push_back(k);
      phase_dim_.push_back(d);
      dims_ = std::max(dims_, d + 1);
    }
  }
  phase_first_.push_back(schedule_->steps.size());
}

/** One rank's queues: per dimension, the chunks waiting (in order of arrival) and how many run;
 *  the idle helper actors wait for a (chunk, phase) to run. */
struct CollectiveRun::RankQueues {
  struct Work {
    uint32_t chunk;
    size_t phase;
  };
  struct Worker {
    s4u::SemaphorePtr go = s4u::Semaphore::create(0);
    std::optional<Work> work; ///< none when woken to stop
  };
  std::vector<std::deque<Work>> waiting; ///< per dimension
  std::vector<uint32_t> running;         ///< per dimension
  std::vector<Worker*> idle;
  uint32_t chunks_left = 0;
};

CollectiveRun::~CollectiveRun() = default;

double CollectiveRun::reduction_time(double bytes, double reduce_Bps)
{
  return reduce_Bps > 0 ? 3 * bytes / reduce_Bps : 0;
}

CollectiveRun::Chunk& CollectiveRun::chunk(uint32_t c)
{
  if (not chunks_[c]) {
    chunks_[c] = std::make_unique<Chunk>();
    chunks_[c]->ops.resize(schedule_->transfer_count());
  }
  return *chunks_[c];
}

void CollectiveRun::release(uint32_t c)
{
  if (++chunks_[c]->ranks_done == schedule_->ranks)
    chunks_[c].reset();
}

/** Where a wait for `t` from `now` leaves SimGrid's clock at its default 1 ns precision
 *  (sim::after_wait: what sim::sleep_until does). */
double CollectiveRun::after_wait(double now, double t)
{
  return sim::after_wait(now, t, 1e-9);
}

double CollectiveRun::send_rate(uint32_t r, size_t k) const
{
  // a protocol's packing bounds what the rank sends, shared by its transfers of the step
  const collectives::nccl::ProtocolCosts* proto = options_.protocol;
  const auto& sends                             = schedule_->rank_step(r, k).sends;
  if (proto == nullptr || proto->rank_rate_cap_Bps <= 0 || sends.empty())
    return -1;
  size_t shared = 0;
  for (uint32_t i : sends)
    shared += rate_bound(r, schedule_->steps[k][i]) ? 1 : 0;
  return shared > 0 ? proto->rank_rate_cap_Bps * proto->wire_factor / static_cast<double>(shared) : -1;
}

bool CollectiveRun::rate_bound(uint32_t r, const collectives::Transfer& t) const
{
  const collectives::nccl::ProtocolCosts* proto = options_.protocol;
  const bool nodes                              = proto->node.size() == schedule_->ranks;
  return not(proto->cap_intra_only && nodes && proto->node[t.dst] != proto->node[r]);
}

double CollectiveRun::not_before(uint32_t r, const collectives::Transfer& t, double rate, double size,
                                 double posted_at) const
{
  double at                                     = rate > 0 && rate_bound(r, t) ? posted_at + size / rate : 0;
  const collectives::nccl::ProtocolCosts* proto = options_.protocol;
  if (proto && proto->net_pipeline_Bps > 0 && proto->node.size() == schedule_->ranks &&
      proto->node[t.dst] != proto->node[r]) { // NCCL's proxy across nodes: one stream per rank
    if (net_free_.size() != schedule_->ranks)
      net_free_.assign(schedule_->ranks, 0.0);
    double done  = std::max(posted_at, net_free_[r]) + size / proto->net_pipeline_Bps;
    net_free_[r] = done;
    at           = std::max(at, done);
  }
  return at;
}

uint64_t CollectiveRun::wire_bytes(const collectives::Transfer& t) const
{
  const double piece = bytes_ / options_.chunks;
  return static_cast<uint64_t>(
      std::llround(piece * t.fraction * (options_.protocol ? options_.protocol->wire_factor : 1.0)));
}

double CollectiveRun::handled_at(uint32_t r, const collectives::Transfer& t, double arrived, double posted_at) const
{
  // the crossing into memory (endpoint delay), then the reduction at local memory bandwidth
  const collectives::nccl::ProtocolCosts* proto = options_.protocol;
  double handled                                = arrived + options_.endpoint_delay_s;
  double reduce = t.reduce ? reduction_time(bytes_ / options_.chunks * t.fraction, options_.reduce_Bps) : 0;
  if (proto) {
    bool across = proto->node.size() == schedule_->ranks && proto->node[t.src] != proto->node[r];
    handled += across ? proto->inter_step_s : proto->intra_step_s;
    // fused: the kernel reduces as the data streams in; only what memory cannot keep up with shows
    if (proto->fused_reductions)
      reduce = std::max(0.0, reduce - (arrived - posted_at));
  }
  return handled + reduce;
}

bool CollectiveRun::waits_for_sends(size_t phase, size_t k) const
{
  // the next step starts once this one's sends have arrived too (the last ones: as the schedule
  // says); NCCL's kernels go on while their sends fill the peer's buffer slots, so with a protocol
  // only the phase's end waits for them
  const bool last_phase = phase + 2 == phase_first_.size();
  const bool last_step  = k + 1 == phase_first_[phase + 1];
  return (not last_step && options_.protocol == nullptr) ||
         (last_step && (not last_phase || schedule_->wait_final_sends));
}

void CollectiveRun::run_phase(uint32_t r, uint32_t c, size_t phase)
{
  const collectives::Schedule& s = *schedule_;
  Chunk& ch                      = chunk(c);
  std::vector<size_t> sent; // this rank's transfers of the current step
  auto wait_sent = [&]() {
    for (size_t i : sent)
      if (not ch.ops[i].done) {
        ch.ops[i].sender = s4u::Actor::self();
        s4u::this_actor::suspend();
      }
    sent.clear();
  };
  const collectives::nccl::ProtocolCosts* proto = options_.protocol;
  if (phase == 0) {
    double start = options_.endpoint_delay_s + (proto ? proto->start_s : 0);
    if (start > 0)
      sim::sleep_for(start);
  }
  const bool last_phase = phase + 2 == phase_first_.size();
  const auto lane       = static_cast<uint16_t>(c % s.lanes);
  for (size_t k = phase_first_[phase]; k < phase_first_[phase + 1]; k++) {
    const auto& mine  = s.rank_step(r, k);
    const double rate = send_rate(r, k);
    for (uint32_t i : mine.sends) {
      const collectives::Transfer& t = s.steps[k][i];
      if (t.lane != collectives::Transfer::kEveryLane && t.lane != lane)
        continue;
      size_t index  = step_offset_[k] + i;
      Op& op        = ch.ops[index];
      uint64_t size = wire_bytes(t);
      op.comm       = s4u::Comm::sendto_async(hosts_[r], hosts_[t.dst], size);
      op.posted     = true;
      op.posted_at  = s4u::Engine::get_clock();
      // (SimGrid 3.32 leaves host-to-host communications unbounded by Comm::set_rate: the bound
      // is a floor on the transfer's duration)
      op.not_before = not_before(r, t, rate, static_cast<double>(size), op.posted_at);
      if (options_.traffic)
        options_.traffic->add(hosts_[r], hosts_[t.dst], static_cast<double>(size));
      sent.push_back(index);
      if (op.waiter != nullptr) {
        op.waiter->resume();
        op.waiter = nullptr;
      }
    }
    // Each received piece is handled on its own once it has arrived: the crossing into memory
    // (endpoint delay), then its reduction at local memory bandwidth. Pieces of one step are
    // handled side by side (ASTRA-sim's memory-bus events; NCCL reduces in its kernels, on SMs of
    // their own), so the step is done when the last one is. Reductions are time on the
    // collective's path, not executions on the GPU's host: compute kernels are not slowed by them.
    double ready = -1;
    for (uint32_t i : mine.recvs) {
      const collectives::Transfer& t = s.steps[k][i];
      if (t.lane != collectives::Transfer::kEveryLane && t.lane != lane)
        continue;
      Op& op = ch.ops[step_offset_[k] + i];
      if (not op.posted) {
        op.waiter = s4u::Actor::self();
        s4u::this_actor::suspend();
      }
      op.comm->wait();
      double arrived = std::max(op.comm->get_finish_time(), op.not_before);
      op.comm        = nullptr;
      op.done        = true;
      if (op.sender != nullptr) {
        op.sender->resume();
        op.sender = nullptr;
      }
      ready = std::max(ready, handled_at(r, t, arrived, op.posted_at));
    }
    sim::sleep_until(ready);
    if (waits_for_sends(phase, k))
      wait_sent();
  }
  if (last_phase)
    release(c);
}

bool CollectiveRun::work_out_alone(const LoneFlows& flows, bool uneven_ends)
{
  if (not ends_.empty() || options_.unshared)
    throw std::logic_error("work_out_alone() is for a congestion-aware collective before it runs");
  alone_ = evaluate_unshared(s4u::Engine::get_clock(), &flows, uneven_ends);
  if (not alone_)
    net_free_.clear(); // SimGrid runs it from the start
  return alone_;
}

void CollectiveRun::run_rank(uint32_t r)
{
  if (options_.unshared || alone_) {
    double now = s4u::Engine::get_clock();
    if (ends_.empty())
      evaluate_unshared(now);
    else if (now != started_at_)
      throw std::logic_error("the ranks of a collective worked out at once must start together");
    sim::sleep_until(ends_[r]);
    return;
  }
  const size_t phases = phase_first_.size() - 1;
  if (phases == 0) // nothing to send (one rank)
    return;
  RankQueues q;
  q.waiting.resize(dims_);
  q.running.assign(dims_, 0);
  q.chunks_left = options_.chunks;
  for (uint32_t c = 0; c < options_.chunks; c++)
    q.waiting[phase_dim_[0]].push_back({c, 0});

  // Each actor runs a (chunk, phase), then hands the chunk to its next dimension's queue and
  // starts what the freed places allow: the first waiting chunk of each queue with room, handed
  // to an idle actor, or run by this one (the last of them).
  RankQueues::Worker self_worker;
  std::vector<s4u::ActorPtr> helpers;
  std::vector<std::unique_ptr<RankQueues::Worker>> pool;
  const uint32_t channels = options_.channels;
  std::function<void(RankQueues::Worker*)> work_loop;
  // the next work this actor takes, after handing the other startable ones to idle actors
  auto dispatch = [&]() -> std::optional<RankQueues::Work> {
    std::optional<RankQueues::Work> mine;
    for (uint32_t d = 0; d < dims_; d++)
      while (q.running[d] < channels && not q.waiting[d].empty()) {
        RankQueues::Work w = q.waiting[d].front();
        q.waiting[d].pop_front();
        q.running[d]++;
        if (not mine) {
          mine = w;
        } else if (not q.idle.empty()) {
          RankQueues::Worker* x = q.idle.back();
          q.idle.pop_back();
          x->work = w;
          x->go->release();
        } else {
          pool.push_back(std::make_unique<RankQueues::Worker>());
          RankQueues::Worker* x = pool.back().get();
          x->work               = w;
          helpers.push_back(s4u::Actor::create("channel" + std::to_string(pool.size()), s4u::this_actor::get_host(),
                                               [&work_loop, x]() { work_loop(x); }));
        }
      }
    return mine;
  };
  work_loop = [&](RankQueues::Worker* me) {
    std::optional<RankQueues::Work> w = me->work;
    me->work.reset();
    while (true) {
      if (not w) {
        if (q.chunks_left == 0)
          break;
        q.idle.push_back(me);
        me->go->acquire();
        w = me->work;
        me->work.reset();
        if (not w) // the collective is over
          break;
      }
      run_phase(r, w->chunk, w->phase);
      q.running[phase_dim_[w->phase]]--;
      if (w->phase + 1 < phases)
        q.waiting[phase_dim_[w->phase + 1]].push_back({w->chunk, w->phase + 1});
      else if (--q.chunks_left == 0) { // the last chunk: the idle actors stop
        for (RankQueues::Worker* x : q.idle)
          x->go->release();
        q.idle.clear();
      }
      w = dispatch();
    }
  };
  self_worker.work = dispatch();
  work_loop(&self_worker);
  for (auto& h : helpers)
    h->join();
}

CollectiveOptions options_for(const collectives::NcclPlan& plan, CollectiveOptions base)
{
  base.chunks *= plan.lanes;
  base.channels *= plan.lanes;
  base.protocol = plan.costs.get();
  return base;
}

} // namespace sgai::communicator
