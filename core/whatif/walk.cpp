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

} // namespace

WalkResult walk(const Graph& g, const Schedule* schedule)
{
  const size_t n = g.tasks.size();
  WalkResult w;
  w.start.assign(n, 0);
  w.end.assign(n, 0);
  w.binding.assign(n, kNone);
  w.arrival.assign(n, 0);
  w.chain_begin.assign(n, 0);
  std::vector<uint32_t> refs(n, 0);
  std::vector<int64_t> ready(n, INT64_MIN);
  int64_t origin = INT64_MAX;
  size_t live    = 0;
  for (uint32_t i = 0; i < n; ++i) {
    if (g.tasks[i].removed)
      continue;
    ++live;
    origin = std::min(origin, g.tasks[i].start_ns);
    for (uint32_t e : g.in[i]) {
      const Edge& x = g.edges[e];
      if (not x.removed && not g.tasks[x.from].removed)
        ++refs[i];
    }
  }
  if (live == 0)
    return w;
  w.origin = origin;

  auto cmp = [&](const Entry& a, const Entry& b) {
    // priority_queue pops the largest: "a after b"
    if (schedule)
      return schedule->before(g, b.task, b.ready, a.task, a.ready);
    if (a.ready != b.ready)
      return a.ready > b.ready;
    return a.task > b.task;
  };
  std::priority_queue<Entry, std::vector<Entry>, decltype(cmp)> frontier(cmp);
  for (uint32_t i = 0; i < n; ++i)
    if (not g.tasks[i].removed && refs[i] == 0) {
      ready[i] = std::max(origin, g.tasks[i].start_ns);
      frontier.push(Entry{ready[i], i});
    }
  std::vector<int64_t> progress(g.threads.size(), INT64_MIN);
  std::vector<uint32_t> last_on(g.threads.size(), kNone);
  size_t done    = 0;
  int64_t finish = INT64_MIN;
  uint32_t last  = kNone;

  auto dispatch = [&](uint32_t u) {
    const Task& t = g.tasks[u];
    int64_t start = ready[u];
    if (t.thread != kNone && t.thread < progress.size() && progress[t.thread] > start) {
      start        = progress[t.thread];
      w.binding[u] = last_on[t.thread];
    }
    w.arrival[u]     = t.thread != kNone && t.thread < progress.size() && progress[t.thread] != INT64_MIN
                           ? std::min(start, progress[t.thread])
                           : start;
    w.start[u]       = start;
    w.chain_begin[u] = w.binding[u] == kNone ? start : w.chain_begin[w.binding[u]];
    w.end[u]         = start + t.dur_ns;
    if (t.thread != kNone && t.thread < progress.size()) {
      progress[t.thread] = w.end[u] + t.gap_ns;
      last_on[t.thread]  = u;
    }
    if (w.end[u] > finish || last == kNone) {
      finish = w.end[u];
      last   = u;
    }
    ++done;
    for (uint32_t e : g.out[u]) {
      const Edge& x = g.edges[e];
      if (x.removed || g.tasks[x.to].removed)
        continue;
      int64_t r = w.end[u] + x.lag_ns;
      if (r > ready[x.to]) {
        ready[x.to]     = r;
        w.binding[x.to] = u;
      }
      if (--refs[x.to] == 0) {
        ready[x.to] = std::max(ready[x.to], origin);
        frontier.push(Entry{ready[x.to], x.to});
      }
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
  std::vector<std::vector<Pending>> queued(g.threads.size());
  std::vector<uint32_t> channels;
  auto run_channels = [&](int64_t horizon) {
    bool again = true;
    while (again) {
      again = false;
      for (uint32_t ch : channels) {
        auto& q = queued[ch];
        if (q.empty())
          continue;
        int64_t earliest = INT64_MAX;
        for (const Pending& p : q)
          earliest = std::min(earliest, p.ready);
        int64_t at = std::max(progress[ch], earliest);
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
  };
  while (not frontier.empty() ||
         std::any_of(queued.begin(), queued.end(), [](const auto& q) { return not q.empty(); })) {
    if (frontier.empty()) {
      run_channels(INT64_MAX);
      continue;
    }
    Entry top = frontier.top();
    // channel work that starts before this task is ready goes first
    run_channels(top.ready - 1);
    if (frontier.top().task != top.task || frontier.top().ready != top.ready)
      continue; // dispatching a channel task made an earlier task ready
    frontier.pop();
    uint32_t u    = top.task;
    const Task& t = g.tasks[u];
    if (t.thread != kNone && t.thread < g.threads.size() && g.threads[t.thread].kind == ThreadKind::channel) {
      if (queued[t.thread].empty() && std::find(channels.begin(), channels.end(), t.thread) == channels.end())
        channels.push_back(t.thread);
      queued[t.thread].push_back(Pending{t.priority, ready[u], u});
      continue;
    }
    dispatch(u);
  }
  if (done != live) {
    for (uint32_t i = 0; i < n; ++i)
      if (not g.tasks[i].removed && refs[i] != 0)
        throw RunError("the dependency graph has a cycle: " + std::to_string(live - done) +
                       " tasks never become ready, among them " + quote(g.name_of(i)) + " (" +
                       to_string(g.tasks[i].kind) + ")");
  }
  w.finish = finish;
  w.last   = last;
  return w;
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
