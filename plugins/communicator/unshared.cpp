/* A collective worked out at once (CollectiveRun::evaluate_unshared): run_phase's steps and
 * run_rank's queues replayed without SimGrid, with the clock of each (rank, chunk, phase) kept here.
 * Events run in time order (ties in the order they were made); a transfer's times are noted when
 * its sender reaches it, and a receiver that comes first waits for that moment. Each transfer takes
 * its congestion-unaware time (UnsharedPaths); or, when the collective has the network to itself,
 * the transfers posted at an instant join a FlowNetwork once every event of that instant has run,
 * and their ends come from it (their lone-flow time, LoneFlows, for those that meet no other). */
#include "core/collectives/nccl.hpp"
#include "plugins/communicator/communicator.hpp"
#include "plugins/communicator/network.hpp"
#include "plugins/communicator/time_queue.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace sgai::communicator {

class CollectiveRun::Evaluation {
public:
  /** `uneven_ends`: with lone flows, whether ranks may end at different instants (nothing they do
   *  after their end can send before the last one's). */
  Evaluation(CollectiveRun& run, double start, const LoneFlows* lone, bool uneven_ends);
  /** Runs every event; fills run.ends_ (the bytes to the traffic), or clears it and returns false
   *  when, with lone flows, the collective does not have the network to itself. */
  bool run();

private:
  /** Per transfer, 16 bytes (a 1,024-rank ring all-reduce has 2 million a chunk): `posted`, its
   *  sender's time when it is out; before that -1, or -2 - the task waiting for it. `arrival`: when
   *  the receiver may handle it (its arrival, not before what the sender's rate allows); while the
   *  transfer is on the flow network, NaN, or -2 - the task waiting for it. */
  struct ChunkTimes {
    std::vector<double> posted, arrival;
    uint32_t ranks_done = 0;
    static int32_t waiter(double posted) { return posted <= -2 ? static_cast<int32_t>(-posted - 2) : -1; }
    static bool under_way(double arrival) { return std::isnan(arrival) || arrival <= -2; }
  };
  /** One (rank, chunk, phase) under way. */
  struct Task {
    uint32_t rank = 0, chunk = 0;
    size_t phase = 0, step = 0;
    double now   = 0;
    bool posted  = false; ///< its sends of the current step are out
    size_t recv  = 0;     ///< next receive of the current step to look at
    double ready = -1;
    double sent  = -1;        ///< the last arrival of its sends not yet waited for (-1: none); with lone
                              ///< flows, the last moment a receiver took one of them
    uint32_t pending = 0;     ///< with lone flows: its sends of the step no receiver has taken yet
    bool waits_sends = false; ///< it waits for them
  };
  /** A rank's queues, as run_rank's. */
  struct Queues {
    std::vector<std::deque<std::pair<uint32_t, size_t>>> waiting; ///< per dimension: (chunk, phase)
    std::vector<uint32_t> running;
    uint32_t chunks_left = 0;
  };
  /** A pair of ranks' path, looked up once, and the bytes it carried (links.csv, added at the end). */
  struct PairPath {
    double latency_s = 0, bandwidth_Bps = 0, bytes = 0;
    const LoneFlows::Path* lone = nullptr;
    SharedFlow flow; ///< with lone flows: its flow for transfers of flow_bytes
    double flow_bytes = -1;
  };

  CollectiveRun& run_;
  const collectives::Schedule& s_;
  const LoneFlows* lone_;
  const bool uneven_ends_;
  const size_t phases_;
  const size_t per_chunk_;
  const double phase_start_; ///< the first phase's start after the rank's
  std::vector<std::unique_ptr<ChunkTimes>> times_;
  std::unique_ptr<ChunkTimes> spare_; ///< the last finished chunk's
  std::vector<Task> tasks_;
  std::vector<Queues> queues_;
  /** The tasks' events by (when, order): (order, task). */
  TimeQueue<std::pair<uint64_t, uint32_t>> events_;
  uint64_t order_ = 0;
  std::unordered_map<uint64_t, PairPath> pairs_;
  /** With lone flows: what cannot be worked out here came (a path that is not exact, a flow network
   *  that cannot go on, transfers of other bandwidth factors), or ranks end apart when they may not. */
  bool shared_ = false;
  /** With lone flows: the transfers posted at batch_at_, which join the flow network once every
   *  event of that instant has run; then, by flow number, those on it. */
  struct Posted {
    uint32_t task, chunk;
    size_t index;
    PairPath* path;
    double bytes, not_before;
  };
  std::vector<Posted> batch_, on_network_;
  double batch_at_        = 0;
  double clock_           = -1; ///< with lone flows: the engine's instant last handled
  uint64_t instant_order_ = 0;  ///< order_ when that instant began (events made since are of it)
  /** With lone flows: per (rank, chunk), the task that runs it now (a sender waiting for its sends
   *  to be taken is the one that posted them); and the network's end of the transfers whose
   *  arrival is later (a protocol's rate bound: the receiver's wait returns at the network's end). */
  std::vector<uint32_t> current_;
  std::unordered_map<uint64_t, double> network_end_;
  std::unique_ptr<FlowNetwork> network_;
  double bandwidth_factor_ = 0;
  std::vector<std::pair<uint32_t, double>> ended_;
  void start_flows();
  void flows_ended(double t);

  ChunkTimes& chunk_times(uint32_t c);
  PairPath& pair_path(uint32_t src, uint32_t dst);
  void start_task(uint32_t r, uint32_t c, size_t phase, double now);
  void dispatch(uint32_t r, double now);
  void phase_over(uint32_t id);
  void advance(uint32_t id);
  void post_sends(Task& t, size_t k, ChunkTimes& ch, uint16_t lane);
  /** With lone flows: receiving task t has taken its transfer `index` of chunk c at step k. */
  void taken(Task& t, const collectives::Transfer& tr, uint32_t c, size_t index, double arrival, size_t k);
  void count_traffic();
};

CollectiveRun::Evaluation::Evaluation(CollectiveRun& run, double start, const LoneFlows* lone, bool uneven_ends)
    : run_(run)
    , s_(*run.schedule_)
    , lone_(lone)
    , uneven_ends_(uneven_ends)
    , phases_(run.phase_first_.size() - 1)
    , per_chunk_(s_.transfer_count())
    , phase_start_(run.options_.endpoint_delay_s + (run.options_.protocol ? run.options_.protocol->start_s : 0))
    , times_(run.options_.chunks)
    , queues_(s_.ranks)
{
  for (uint32_t r = 0; r < s_.ranks; r++) {
    Queues& q = queues_[r];
    q.waiting.resize(run_.dims_);
    q.running.assign(run_.dims_, 0);
    q.chunks_left = run_.options_.chunks;
    for (uint32_t c = 0; c < run_.options_.chunks; c++)
      q.waiting[run_.phase_dim_[0]].push_back({c, 0});
    dispatch(r, start);
  }
}

bool CollectiveRun::Evaluation::run()
{
  constexpr double kNever = std::numeric_limits<double>::infinity();
  // With lone flows, as SimGrid's engine: everything within its time precision (1 ns) of the next
  // instant happens at that instant (a flow's end just after a rank's timer, a timer just after a
  // flow's end), the flows' events first, then the ranks, then the transfers they posted.
  const double precision = lone_ != nullptr ? 1e-9 : 0;
  while (not shared_) {
    const double event = events_.empty() ? kNever : events_.when();
    // (while something still happens at the network's instant, its round goes on: SimGrid works
    // shares out once every transfer of an instant has started)
    const bool this_instant =
        network_ && (event <= network_->now() + precision || (not batch_.empty() && batch_at_ <= network_->now()));
    const double flow = not network_ ? kNever : this_instant ? network_->next_event_now() : network_->next_event();
    if (std::isnan(flow)) {
      shared_ = true;
      break;
    }
    const double instant = std::min(event, flow);
    if (not batch_.empty() && instant > batch_at_ + precision) {
      start_flows();
      continue;
    }
    if (flow <= instant + precision && flow < kNever) { // (a flow's end comes before what runs at its instant)
      flows_ended(lone_ != nullptr && instant > clock_ && instant <= clock_ + precision ? clock_
                  : lone_ != nullptr                                                    ? instant
                                                                                        : flow);
      continue;
    }
    if (events_.empty())
      break;
    const auto [order, id] = events_.front();
    events_.pop();
    if (lone_ != nullptr) {
      // a timer set before this instant that ends within its precision ends at it, as SimGrid's
      // CPU model ends it (one set during the instant is the next instant's)
      if (event > clock_ && event <= clock_ + precision && order < instant_order_)
        tasks_[id].now = clock_;
      else if (event > clock_) {
        clock_         = event;
        instant_order_ = order_;
      }
    }
    advance(id);
  }
  // alone: every rank ends at the same instant, unless what ranks do after may not send before the
  // last one's end (one ending first could send into its last transfers)
  auto& ends = run_.ends_;
  if (shared_ || (lone_ != nullptr && not uneven_ends_ &&
                  std::any_of(ends.begin(), ends.end(), [&](double e) { return e != ends[0]; }))) {
    ends.clear();
    return false;
  }
  for (const Queues& q : queues_)
    if (q.chunks_left > 0)
      throw std::logic_error("a collective's schedule leaves a rank waiting for a transfer never sent");
  count_traffic();
  run_.sharing_ = network_ ? network_->shared_count() : 0;
  return true;
}

CollectiveRun::Evaluation::ChunkTimes& CollectiveRun::Evaluation::chunk_times(uint32_t c)
{
  if (not times_[c]) {
    if (spare_) { // (a finished chunk's arrays: their memory is not asked of the system again)
      times_[c]             = std::move(spare_);
      times_[c]->ranks_done = 0;
    } else
      times_[c] = std::make_unique<ChunkTimes>();
    times_[c]->posted.assign(per_chunk_, -1);
    times_[c]->arrival.assign(per_chunk_, 0);
  }
  return *times_[c];
}

CollectiveRun::Evaluation::PairPath& CollectiveRun::Evaluation::pair_path(uint32_t src, uint32_t dst)
{
  auto [it, fresh] = pairs_.try_emplace((static_cast<uint64_t>(src) << 32) | dst);
  if (fresh && lone_ != nullptr) {
    it->second.lone = &lone_->path(run_.hosts_[src], run_.hosts_[dst]);
    shared_         = shared_ || not it->second.lone->exact;
  } else if (fresh)
    std::tie(it->second.latency_s, it->second.bandwidth_Bps) =
        run_.options_.unshared->latency_and_bandwidth(run_.hosts_[src], run_.hosts_[dst]);
  return it->second;
}

void CollectiveRun::Evaluation::start_task(uint32_t r, uint32_t c, size_t phase, double now)
{
  if (phase == 0 && phase_start_ > 0)
    now += phase_start_;
  Task t;
  t.rank  = r;
  t.chunk = c;
  t.phase = phase;
  t.step  = run_.phase_first_[phase];
  t.now   = now;
  tasks_.push_back(std::move(t));
  if (lone_ != nullptr) {
    if (current_.empty())
      current_.resize(static_cast<size_t>(s_.ranks) * run_.options_.chunks);
    current_[static_cast<size_t>(r) * run_.options_.chunks + c] = static_cast<uint32_t>(tasks_.size() - 1);
  }
  events_.push(now, {order_++, static_cast<uint32_t>(tasks_.size() - 1)});
}

void CollectiveRun::Evaluation::dispatch(uint32_t r, double now)
{
  Queues& q = queues_[r];
  for (uint32_t d = 0; d < run_.dims_; d++)
    while (q.running[d] < run_.options_.channels && not q.waiting[d].empty()) {
      auto [c, phase] = q.waiting[d].front();
      q.waiting[d].pop_front();
      q.running[d]++;
      start_task(r, c, phase, now);
    }
}

void CollectiveRun::Evaluation::phase_over(uint32_t id)
{
  const uint32_t r = tasks_[id].rank, c = tasks_[id].chunk;
  const size_t phase = tasks_[id].phase;
  const double now   = tasks_[id].now;
  Queues& q          = queues_[r];
  q.running[run_.phase_dim_[phase]]--;
  if (phase + 1 < phases_) {
    q.waiting[run_.phase_dim_[phase + 1]].push_back({c, phase + 1});
  } else {
    if (--q.chunks_left == 0)
      run_.ends_[r] = now;
    if (++chunk_times(c).ranks_done == s_.ranks)
      spare_ = std::move(times_[c]);
  }
  dispatch(r, now);
}

void CollectiveRun::Evaluation::post_sends(Task& t, size_t k, ChunkTimes& ch, uint16_t lane)
{
  const auto& mine  = s_.rank_step(t.rank, k);
  const double rate = run_.send_rate(t.rank, k);
  const bool waits  = run_.waits_for_sends(t.phase, k);
  for (uint32_t i : mine.sends) {
    const collectives::Transfer& tr = s_.steps[k][i];
    if (tr.lane != collectives::Transfer::kEveryLane && tr.lane != lane)
      continue;
    size_t index    = run_.step_offset_[k] + i;
    auto size       = static_cast<double>(run_.wire_bytes(tr));
    PairPath& path  = pair_path(t.rank, tr.dst);
    const double nb = run_.not_before(t.rank, tr, rate, size, t.now);
    if (path.lone == nullptr) {
      const double arrives = t.now + UnsharedPaths::seconds(path.latency_s, path.bandwidth_Bps, size);
      ch.arrival[index]    = std::max(arrives, nb);
      t.sent               = std::max(t.sent, arrives);
    } else { // on the flow network with the others of this instant (start_flows)
      if (batch_.empty())
        batch_at_ = t.now;
      batch_.push_back({static_cast<uint32_t>(&t - tasks_.data()), t.chunk, index, &path, size, nb});
      ch.arrival[index] = std::numeric_limits<double>::quiet_NaN();
      t.pending += waits ? 1 : 0;
    }
    path.bytes += size;
    if (const int32_t waiter = ChunkTimes::waiter(ch.posted[index]); waiter >= 0)
      events_.push(t.now, {order_++, static_cast<uint32_t>(waiter)});
    ch.posted[index] = t.now;
  }
  t.posted = true;
  t.recv   = 0;
  t.ready  = -1;
}

/** Runs a task until it waits (for a time or for a transfer) or its phase is over. */
void CollectiveRun::Evaluation::advance(uint32_t id)
{
  while (true) {
    Task& t        = tasks_[id];
    const size_t k = t.step;
    if (k == run_.phase_first_[t.phase + 1]) {
      phase_over(id); // (may add tasks: t is not used after)
      return;
    }
    const auto& mine = s_.rank_step(t.rank, k);
    ChunkTimes& ch   = chunk_times(t.chunk);
    const auto lane  = static_cast<uint16_t>(t.chunk % s_.lanes);
    if (not t.posted)
      post_sends(t, k, ch, lane);
    for (; t.recv < mine.recvs.size(); t.recv++) {
      const collectives::Transfer& tr = s_.steps[k][mine.recvs[t.recv]];
      if (tr.lane != collectives::Transfer::kEveryLane && tr.lane != lane)
        continue;
      size_t index = run_.step_offset_[k] + mine.recvs[t.recv];
      if (ch.posted[index] < 0) { // its sender has not reached it: until it does
        ch.posted[index] = -2.0 - static_cast<double>(id);
        return;
      }
      if (ChunkTimes::under_way(ch.arrival[index])) { // until it has arrived
        ch.arrival[index] = -2.0 - static_cast<double>(id);
        return;
      }
      t.now   = std::max(t.now, ch.posted[index]);
      t.ready = std::max(t.ready, run_.handled_at(t.rank, tr, ch.arrival[index], ch.posted[index]));
      if (lone_ != nullptr)
        taken(t, tr, t.chunk, index, ch.arrival[index], k);
    }
    double now = after_wait(t.now, t.ready);
    if (run_.waits_for_sends(t.phase, k)) {
      if (t.pending > 0) { // until its sends have been taken
        t.waits_sends = true;
        return;
      }
      now    = lone_ != nullptr ? std::max(now, t.sent) : after_wait(now, t.sent);
      t.sent = -1;
    }
    t.posted = false;
    t.step++;
    if (now > t.now) {
      t.now = now;
      events_.push(now, {order_++, id});
      return;
    }
  }
}

void CollectiveRun::Evaluation::start_flows()
{
  if (not network_) {
    bandwidth_factor_ = lone_->bandwidth_factor(batch_[0].bytes);
    network_          = std::make_unique<FlowNetwork>(
        lone_->capacities(batch_[0].bytes), lone_->precision(), lone_->fat_pipes_exact(), 1e-9,
        false); // (SimGrid's actors may start an instant's transfers in another order)
  }
  lone_->capacities(batch_[0].bytes); // (links met since are added: the network reads the same object)
  // (a flow of the network within its time precision of this instant ends first)
  ended_.clear();
  network_->advance(batch_at_, ended_);
  if (not ended_.empty()) {
    flows_ended(batch_at_);
    return;
  }
  for (const Posted& p : batch_) {
    // (one network, one capacity per link: transfers of one bandwidth factor)
    if (lone_->bandwidth_factor(p.bytes) != bandwidth_factor_) {
      shared_ = true;
      return;
    }
    PairPath& path = *p.path;
    if (path.flow_bytes != p.bytes) { // (a pair's transfers are mostly of one size)
      path.flow       = lone_->shared_flow(*path.lone, p.bytes);
      path.flow_bytes = p.bytes;
    }
    const uint32_t id = network_->add(batch_at_, path.flow, batch_at_ + lone_->seconds(*path.lone, p.bytes));
    if (id >= on_network_.size())
      on_network_.resize(id + 1);
    on_network_[id] = p;
  }
  batch_.clear();
}

void CollectiveRun::Evaluation::flows_ended(double t)
{
  if (t > clock_) {
    clock_         = t;
    instant_order_ = order_;
  }
  if (ended_.empty())
    network_->advance(t, ended_);
  for (const auto& [id, end] : ended_) {
    const Posted& p = on_network_[id];
    double& arrival = chunk_times(p.chunk).arrival[p.index];
    if (arrival <= -2)
      events_.push(t, {order_++, static_cast<uint32_t>(-arrival - 2)});
    arrival = std::max(end, p.not_before);
    if (p.not_before > end)
      network_end_[(static_cast<uint64_t>(p.chunk) << 40) | p.index] = end;
  }
  ended_.clear();
}

void CollectiveRun::Evaluation::taken(Task& t, const collectives::Transfer& tr, uint32_t c, size_t index,
                                      double arrival, size_t k)
{
  // run_rank's receiver waits for the transfer's communication (its clock: the network's end) and
  // then wakes the sender if it waits for it
  auto late = network_end_.find((static_cast<uint64_t>(c) << 40) | index);
  if (late != network_end_.end()) {
    arrival = late->second;
    network_end_.erase(late);
  }
  t.now = std::max(t.now, arrival);
  if (not run_.waits_for_sends(t.phase, k))
    return;
  const uint32_t id = current_[static_cast<size_t>(tr.src) * run_.options_.chunks + c];
  Task& sender      = tasks_[id];
  sender.sent       = std::max(sender.sent, t.now);
  if (--sender.pending == 0 && sender.waits_sends) {
    sender.waits_sends = false;
    events_.push(t.now, {order_++, id});
  }
}

void CollectiveRun::Evaluation::count_traffic()
{
  if (not run_.options_.traffic)
    return;
  std::vector<std::pair<uint64_t, double>> carried; // (in a fixed order: the sums do not depend on the hash)
  for (const auto& [key, path] : pairs_)
    carried.emplace_back(key, path.bytes);
  std::sort(carried.begin(), carried.end());
  for (const auto& [key, bytes] : carried)
    run_.options_.traffic->add(run_.hosts_[key >> 32], run_.hosts_[key & 0xFFFFFFFFu], bytes);
}

bool CollectiveRun::evaluate_unshared(double start, const LoneFlows* lone, bool uneven_ends)
{
  started_at_ = start;
  ends_.assign(schedule_->ranks, start);
  net_free_.clear();
  if (phase_first_.size() == 1) // no phases
    return true;
  return Evaluation(*this, start, lone, uneven_ends).run();
}

} // namespace sgai::communicator
