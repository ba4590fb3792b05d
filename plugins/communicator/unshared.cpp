/* A collective worked out at once (CollectiveRun::evaluate_unshared): run_phase's steps and
 * run_rank's queues replayed without SimGrid, with the clock of each (rank, chunk, phase) kept here.
 * Events run in time order (ties in the order they were made); a transfer's times are noted when
 * its sender reaches it, and a receiver that comes first waits for that moment. Each transfer takes
 * its congestion-unaware time (UnsharedPaths), or its lone-flow time (LoneFlows) when the collective
 * has the network to itself. */
#include "core/collectives/nccl.hpp"
#include "plugins/communicator/communicator.hpp"
#include "plugins/communicator/network.hpp"

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <memory>
#include <queue>
#include <stdexcept>
#include <tuple>
#include <unordered_map>

namespace sgai::communicator {

class CollectiveRun::Evaluation {
public:
  Evaluation(CollectiveRun& run, double start, const LoneFlows* lone);
  /** Runs every event; fills run.ends_ (the bytes to the traffic), or clears it and returns false
   *  when, with lone flows, the collective does not have the network to itself. */
  bool run();

private:
  /** Per transfer, 16 bytes (a 1,024-rank ring all-reduce has 2 million a chunk): `posted`, its
   *  sender's time when it is out; before that -1, or -2 - the task waiting for it. `arrival`: when
   *  the receiver may handle it (its arrival, not before what the sender's rate allows). */
  struct ChunkTimes {
    std::vector<double> posted, arrival;
    uint32_t ranks_done = 0;
    static int32_t waiter(double posted) { return posted <= -2 ? static_cast<int32_t>(-posted - 2) : -1; }
  };
  /** One (rank, chunk, phase) under way. */
  struct Task {
    uint32_t rank = 0, chunk = 0;
    size_t phase = 0, step = 0;
    double now       = 0;
    bool posted      = false; ///< its sends of the current step are out
    size_t recv      = 0;     ///< next receive of the current step to look at
    double ready     = -1;
    double sent      = -1; ///< the last arrival of its sends not yet waited for (-1: none)
    uint32_t pending = 0;  ///< its sends in the batch not yet worked out (lone flows)
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
  };
  using Event = std::tuple<double, uint64_t, uint32_t>; // when, order, task

  CollectiveRun& run_;
  const collectives::Schedule& s_;
  const LoneFlows* lone_;
  const size_t phases_;
  const size_t per_chunk_;
  const double phase_start_; ///< the first phase's start after the rank's
  std::vector<std::unique_ptr<ChunkTimes>> times_;
  std::vector<Task> tasks_;
  std::vector<Queues> queues_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  uint64_t order_ = 0;
  std::unordered_map<uint64_t, PairPath> pairs_;
  bool shared_ = false; ///< with lone flows: a link would carry two transfers at once, or a path is not exact
  std::vector<double> busy_until_; ///< with lone flows: per link, when its last transfer so far arrives
  /** With lone flows: the transfers posted at batch_at_, timed together once every event of that
   *  instant has run (those that share a link share its bandwidth as SimGrid would share it). */
  struct Posted {
    uint32_t task, chunk;
    size_t index;
    const PairPath* path;
    double bytes, not_before;
  };
  std::vector<Posted> batch_;
  double batch_at_ = 0;
  std::vector<uint32_t> parked_;  ///< tasks waiting for the batch's times
  uint64_t shared_transfers_ = 0; ///< transfers timed sharing links with others of their instant
  void resolve_batch();

  ChunkTimes& chunk_times(uint32_t c);
  PairPath& pair_path(uint32_t src, uint32_t dst);
  void start_task(uint32_t r, uint32_t c, size_t phase, double now);
  void dispatch(uint32_t r, double now);
  void phase_over(uint32_t id);
  void advance(uint32_t id);
  void post_sends(Task& t, size_t k, ChunkTimes& ch, uint16_t lane);
  void count_traffic();
};

CollectiveRun::Evaluation::Evaluation(CollectiveRun& run, double start, const LoneFlows* lone)
    : run_(run)
    , s_(*run.schedule_)
    , lone_(lone)
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
  while (not shared_) {
    if (not batch_.empty() && (events_.empty() || std::get<0>(events_.top()) > batch_at_)) {
      resolve_batch();
      continue;
    }
    if (events_.empty())
      break;
    uint32_t id = std::get<2>(events_.top());
    events_.pop();
    advance(id);
  }
  // alone: every rank must end at the same instant (one ending first could send into its last transfers)
  auto& ends = run_.ends_;
  if (shared_ || (lone_ != nullptr && std::any_of(ends.begin(), ends.end(), [&](double e) { return e != ends[0]; }))) {
    ends.clear();
    return false;
  }
  for (const Queues& q : queues_)
    if (q.chunks_left > 0)
      throw std::logic_error("a collective's schedule leaves a rank waiting for a transfer never sent");
  count_traffic();
  run_.sharing_ = shared_transfers_;
  return true;
}

CollectiveRun::Evaluation::ChunkTimes& CollectiveRun::Evaluation::chunk_times(uint32_t c)
{
  if (not times_[c]) {
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
  events_.emplace(now, order_++, static_cast<uint32_t>(tasks_.size() - 1));
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
      times_[c].reset();
  }
  dispatch(r, now);
}

void CollectiveRun::Evaluation::post_sends(Task& t, size_t k, ChunkTimes& ch, uint16_t lane)
{
  const auto& mine  = s_.rank_step(t.rank, k);
  const double rate = run_.send_rate(t.rank, k);
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
    } else { // timed with the others of this instant (resolve_batch)
      if (batch_.empty())
        batch_at_ = t.now;
      batch_.push_back({static_cast<uint32_t>(&t - tasks_.data()), t.chunk, index, &path, size, nb});
      ch.arrival[index] = std::numeric_limits<double>::quiet_NaN();
      t.pending++;
    }
    path.bytes += size;
    if (const int32_t waiter = ChunkTimes::waiter(ch.posted[index]); waiter >= 0)
      events_.emplace(t.now, order_++, static_cast<uint32_t>(waiter));
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
      if (std::isnan(ch.arrival[index])) { // posted at this instant: until the batch is timed
        parked_.push_back(id);
        return;
      }
      t.now   = std::max(t.now, ch.posted[index]);
      t.ready = std::max(t.ready, run_.handled_at(t.rank, tr, ch.arrival[index], ch.posted[index]));
    }
    double now = after_wait(t.now, t.ready);
    if (run_.waits_for_sends(t.phase, k)) {
      if (t.pending > 0) { // its sends of this instant: until the batch is timed
        parked_.push_back(id);
        return;
      }
      now    = after_wait(now, t.sent);
      t.sent = -1;
    }
    t.posted = false;
    t.step++;
    if (now > t.now) {
      t.now = now;
      events_.emplace(now, order_++, id);
      return;
    }
  }
}

void CollectiveRun::Evaluation::resolve_batch()
{
  // a transfer sharing a link with one of an earlier instant still under way: not worked out here
  for (const Posted& p : batch_)
    for (uint32_t l : p.path->lone->links) {
      if (l >= busy_until_.size())
        busy_until_.resize(l + 1, 0.0);
      if (batch_at_ < busy_until_[l]) {
        shared_ = true;
        return;
      }
    }
  // the transfers that share links among themselves, in groups (union-find over the links' users)
  const size_t n = batch_.size();
  std::vector<size_t> group(n);
  for (size_t i = 0; i < n; i++)
    group[i] = i;
  auto root = [&](size_t i) {
    while (group[i] != i)
      i = group[i] = group[group[i]];
    return i;
  };
  std::unordered_map<uint32_t, size_t> first_on;
  for (size_t i = 0; i < n; i++)
    for (uint32_t l : batch_[i].path->lone->links)
      if (auto [it, fresh] = first_on.emplace(l, i); not fresh)
        group[root(i)] = root(it->second);
  std::vector<std::vector<size_t>> groups(n);
  for (size_t i = 0; i < n; i++)
    groups[root(i)].push_back(i);
  std::vector<double> arrives(n);
  std::vector<SharedFlow> flows;
  for (const std::vector<size_t>& members : groups) {
    if (members.size() == 1) { // alone on its links: its lone-flow time
      const Posted& p     = batch_[members[0]];
      arrives[members[0]] = batch_at_ + lone_->seconds(*p.path->lone, p.bytes);
    }
    if (members.size() < 2)
      continue;
    flows.clear();
    for (size_t i : members) {
      // (an empty transfer that shares a link never ends in SimGrid 3.32; fat pipes: network.hpp)
      const auto& links = batch_[i].path->lone->links;
      if (batch_[i].bytes <= 0 ||
          (not lone_->fat_pipes_exact() &&
           std::any_of(links.begin(), links.end(), [&](uint32_t l) { return lone_->fat_pipe(l); }))) {
        shared_ = true;
        return;
      }
      flows.push_back(lone_->shared_flow(*batch_[i].path->lone, batch_[i].bytes));
    }
    const std::vector<double> ends =
        shared_finish_times(batch_at_, flows, lone_->capacities(batch_[members[0]].bytes), lone_->precision());
    for (size_t k = 0; k < members.size(); k++) {
      if (std::isnan(ends[k])) {
        shared_ = true;
        return;
      }
      arrives[members[k]] = ends[k];
    }
    shared_transfers_ += members.size();
  }
  for (size_t i = 0; i < n; i++) {
    const Posted& p = batch_[i];
    Task& t         = tasks_[p.task];
    t.sent          = std::max(t.sent, arrives[i]);
    t.pending--;
    chunk_times(p.chunk).arrival[p.index] = std::max(arrives[i], p.not_before);
    for (uint32_t l : p.path->lone->links)
      busy_until_[l] = std::max(busy_until_[l], arrives[i]);
  }
  batch_.clear();
  for (uint32_t id : parked_)
    events_.emplace(batch_at_, order_++, id);
  parked_.clear();
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

bool CollectiveRun::evaluate_unshared(double start, const LoneFlows* lone)
{
  started_at_ = start;
  ends_.assign(schedule_->ranks, start);
  net_free_.clear();
  if (phase_first_.size() == 1) // no phases
    return true;
  return Evaluation(*this, start, lone).run();
}

} // namespace sgai::communicator
