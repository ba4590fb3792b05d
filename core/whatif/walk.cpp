#include "core/whatif/walk.hpp"

#include "core/foundation/error.hpp"

#include <algorithm>
#include <queue>
#include <tuple>

namespace sgai::whatif {

namespace {

struct Entry {
  int64_t ready;
  uint32_t task;
};

/** The frontier's order: the schedule's, else the earliest ready, then the lowest id. */
struct Later {
  const Graph* g;
  const Schedule* schedule;
  bool operator()(const Entry& a, const Entry& b) const
  {
    // priority_queue pops the largest: "a after b"
    if (schedule)
      return schedule->before(*g, b.task, b.ready, a.task, a.ready);
    if (a.ready != b.ready)
      return a.ready > b.ready;
    return a.task > b.task;
  }
};

// Channels (no thread order among their tasks) are work-conserving: when a channel frees, it
// runs the ready task of the best priority (lower first), then the earliest ready, then the
// lowest id. A channel's ready tasks wait in its queue until no earlier-ready task is left in
// the frontier, so that every candidate is known.
struct Pending {
  int32_t priority;
  int64_t ready;
  uint32_t task;
  bool operator<(const Pending& o) const
  {
    return std::tie(priority, ready, task) < std::tie(o.priority, o.ready, o.task);
  }
};

/** One walk of a graph: the frontier, the threads' progress, the channels' queues. */
class Walker {
public:
  Walker(const Graph& g, const Schedule* schedule)
      : g_(g)
      , n_(g.tasks.size())
      , frontier_(Later{&g, schedule})
  {
  }

  /** Walks the live tasks (walk's result). */
  WalkResult run()
  {
    w_.start.assign(n_, 0);
    w_.end.assign(n_, 0);
    w_.binding.assign(n_, kNone);
    w_.arrival.assign(n_, 0);
    w_.chain_begin.assign(n_, 0);
    refs_.assign(n_, 0);
    ready_.assign(n_, INT64_MIN);
    count_parents();
    if (live_ == 0)
      return std::move(w_);
    w_.origin = origin_;
    release_roots();
    progress_.assign(g_.threads.size(), INT64_MIN);
    last_on_.assign(g_.threads.size(), kNone);
    queued_.resize(g_.threads.size());
    drain();
    if (done_ != live_)
      fail_on_cycle();
    w_.finish = finish_;
    w_.last   = last_;
    return std::move(w_);
  }

private:
  void count_parents();
  void release_roots();
  void dispatch(uint32_t u);
  void run_channels(int64_t horizon);
  void drain();
  void fail_on_cycle() const;

  const Graph& g_;
  const size_t n_;
  WalkResult w_;
  std::vector<uint32_t> refs_; // live parents not yet run, per task
  std::vector<int64_t> ready_;
  int64_t origin_ = INT64_MAX;
  size_t live_    = 0;
  std::priority_queue<Entry, std::vector<Entry>, Later> frontier_;
  std::vector<int64_t> progress_; // per thread: when it is free
  std::vector<uint32_t> last_on_; // per thread: its last task
  size_t done_    = 0;
  int64_t finish_ = INT64_MIN;
  uint32_t last_  = kNone;
  std::vector<std::vector<Pending>> queued_; // per channel: its ready tasks
  std::vector<uint32_t> channels_;           // the channels that ever queued a task, in that order
};

/** The live tasks, the earliest measured start (the origin) and each task's live parents. */
void Walker::count_parents()
{
  for (uint32_t i = 0; i < n_; ++i) {
    if (g_.tasks[i].removed)
      continue;
    ++live_;
    origin_ = std::min(origin_, g_.tasks[i].start_ns);
    for (uint32_t e : g_.in[i]) {
      const Edge& x = g_.edges[e];
      if (not x.removed && not g_.tasks[x.from].removed)
        ++refs_[i];
    }
  }
}

/** The roots into the frontier, ready at their measured start. */
void Walker::release_roots()
{
  for (uint32_t i = 0; i < n_; ++i)
    if (not g_.tasks[i].removed && refs_[i] == 0) {
      ready_[i] = std::max(origin_, g_.tasks[i].start_ns);
      frontier_.push(Entry{ready_[i], i});
    }
}

/** Runs task `u` on its thread when the thread is free, and makes its children ready. */
void Walker::dispatch(uint32_t u)
{
  const Task& t = g_.tasks[u];
  int64_t start = ready_[u];
  if (t.thread != kNone && t.thread < progress_.size() && progress_[t.thread] > start) {
    start         = progress_[t.thread];
    w_.binding[u] = last_on_[t.thread];
  }
  w_.arrival[u]     = t.thread != kNone && t.thread < progress_.size() && progress_[t.thread] != INT64_MIN
                          ? std::min(start, progress_[t.thread])
                          : start;
  w_.start[u]       = start;
  w_.chain_begin[u] = w_.binding[u] == kNone ? start : w_.chain_begin[w_.binding[u]];
  w_.end[u]         = start + t.dur_ns;
  if (t.thread != kNone && t.thread < progress_.size()) {
    progress_[t.thread] = w_.end[u] + t.gap_ns;
    last_on_[t.thread]  = u;
  }
  if (w_.end[u] > finish_ || last_ == kNone) {
    finish_ = w_.end[u];
    last_   = u;
  }
  ++done_;
  for (uint32_t e : g_.out[u]) {
    const Edge& x = g_.edges[e];
    if (x.removed || g_.tasks[x.to].removed)
      continue;
    int64_t r = w_.end[u] + x.lag_ns;
    if (r > ready_[x.to]) {
      ready_[x.to]     = r;
      w_.binding[x.to] = u;
    }
    if (--refs_[x.to] == 0) {
      ready_[x.to] = std::max(ready_[x.to], origin_);
      frontier_.push(Entry{ready_[x.to], x.to});
    }
  }
}

/** Runs the channels' queued tasks that can start by `horizon`, each channel its best one first. */
void Walker::run_channels(int64_t horizon)
{
  bool again = true;
  while (again) {
    again = false;
    for (uint32_t ch : channels_) {
      auto& q = queued_[ch];
      if (q.empty())
        continue;
      int64_t earliest = INT64_MAX;
      for (const Pending& p : q)
        earliest = std::min(earliest, p.ready);
      int64_t at = std::max(progress_[ch], earliest);
      if (at > horizon)
        continue;
      auto best = q.end();
      for (auto it = q.begin(); it != q.end(); ++it)
        if (it->ready <= at && (best == q.end() || *it < *best))
          best = it;
      uint32_t u = best->task;
      q.erase(best);
      dispatch(u);
      again = true;
    }
  }
}

/** Takes tasks from the frontier in order until none is left: a channel's into its queue, any
 *  other run at once. */
void Walker::drain()
{
  while (not frontier_.empty() ||
         std::any_of(queued_.begin(), queued_.end(), [](const auto& q) { return not q.empty(); })) {
    if (frontier_.empty()) {
      run_channels(INT64_MAX);
      continue;
    }
    Entry top = frontier_.top();
    // channel work that starts before this task is ready goes first
    run_channels(top.ready - 1);
    if (frontier_.top().task != top.task || frontier_.top().ready != top.ready)
      continue; // dispatching a channel task made an earlier task ready
    frontier_.pop();
    uint32_t u    = top.task;
    const Task& t = g_.tasks[u];
    if (t.thread != kNone && t.thread < g_.threads.size() && g_.threads[t.thread].kind == ThreadKind::channel) {
      if (queued_[t.thread].empty() && std::find(channels_.begin(), channels_.end(), t.thread) == channels_.end())
        channels_.push_back(t.thread);
      queued_[t.thread].push_back(Pending{t.priority, ready_[u], u});
      continue;
    }
    dispatch(u);
  }
}

/** RunError naming a task that never became ready (the graph has a cycle). */
void Walker::fail_on_cycle() const
{
  for (uint32_t i = 0; i < n_; ++i)
    if (not g_.tasks[i].removed && refs_[i] != 0)
      throw RunError("the dependency graph has a cycle: " + std::to_string(live_ - done_) +
                     " tasks never become ready, among them " + quote(g_.name_of(i)) + " (" +
                     to_string(g_.tasks[i].kind) + ")");
}

} // namespace

WalkResult walk(const Graph& g, const Schedule* schedule)
{
  return Walker(g, schedule).run();
}

std::vector<uint32_t> critical_path(const Graph& g, const WalkResult& w, uint32_t to)
{
  std::vector<uint32_t> path;
  uint32_t u = to;
  if (u == kNone) {
    int64_t best = INT64_MIN;
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      if (g.tasks[i].removed)
        continue;
      int64_t span = w.end[i] - w.chain_begin[i];
      if (span > best || (span == best && u != kNone && w.end[i] > w.end[u])) {
        best = span;
        u    = i;
      }
    }
  }
  std::vector<char> seen(g.tasks.size(), 0);
  while (u != kNone && not seen[u]) {
    seen[u] = 1;
    path.push_back(u);
    u = w.binding[u];
  }
  std::reverse(path.begin(), path.end());
  return path;
}

} // namespace sgai::whatif
