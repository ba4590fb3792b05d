#include "core/whatif/analysis.hpp"

#include <algorithm>
#include <iterator>
#include <map>

namespace sgai::whatif {

int64_t union_length(std::vector<std::pair<int64_t, int64_t>> iv)
{
  std::sort(iv.begin(), iv.end());
  int64_t total = 0, cur_b = 0, cur_e = 0;
  bool open = false;
  for (auto [b, e] : iv) {
    if (e <= b)
      continue;
    if (not open || b > cur_e) {
      if (open)
        total += cur_e - cur_b;
      cur_b = b;
      cur_e = e;
      open  = true;
    } else {
      cur_e = std::max(cur_e, e);
    }
  }
  if (open)
    total += cur_e - cur_b;
  return total;
}

namespace {

/** The intersection of two sorted disjoint interval lists. */
int64_t intersection_length(std::vector<std::pair<int64_t, int64_t>> a, std::vector<std::pair<int64_t, int64_t>> b)
{
  auto merge = [](std::vector<std::pair<int64_t, int64_t>>& v) {
    std::sort(v.begin(), v.end());
    std::vector<std::pair<int64_t, int64_t>> m;
    for (auto x : v) {
      if (x.second <= x.first)
        continue;
      if (not m.empty() && x.first <= m.back().second)
        m.back().second = std::max(m.back().second, x.second);
      else
        m.push_back(x);
    }
    v = std::move(m);
  };
  merge(a);
  merge(b);
  int64_t total = 0;
  size_t i = 0, j = 0;
  while (i < a.size() && j < b.size()) {
    int64_t lo = std::max(a[i].first, b[j].first), hi = std::min(a[i].second, b[j].second);
    if (hi > lo)
      total += hi - lo;
    (a[i].second < b[j].second ? i : j)++;
  }
  return total;
}

bool waits_for_gpu(const Graph& g, uint32_t u)
{
  for (uint32_t e : g.in[u])
    if (not g.edges[e].removed && g.edges[e].kind == EdgeKind::sync)
      return true;
  return false;
}

} // namespace

std::vector<StepFigures> step_figures(const Graph& g, const WalkResult& w)
{
  std::vector<StepFigures> out;
  // per rank: its tasks' intervals
  for (size_t s = 0; s < g.steps.size(); ++s) {
    const Step& st = g.steps[s];
    StepFigures f;
    f.name       = st.name;
    f.rank       = int32_t(g.trace_rank(st.rank));
    f.unlaunched = st.unlaunched;
    if (st.begin != kNone && st.end != kNone && not g.tasks[st.begin].removed && not g.tasks[st.end].removed) {
      f.begin_ns = w.start[st.begin];
      f.end_ns   = w.start[st.end];
    } else {
      int64_t lo = INT64_MAX, hi = INT64_MIN;
      for (uint32_t i = 0; i < g.tasks.size(); ++i)
        if (not g.tasks[i].removed && g.tasks[i].rank == st.rank) {
          lo = std::min(lo, w.start[i]);
          hi = std::max(hi, w.end[i]);
        }
      f.begin_ns = lo == INT64_MAX ? 0 : lo;
      f.end_ns   = hi == INT64_MIN ? 0 : hi;
    }
    f.time_ns = f.end_ns - f.begin_ns;
    std::vector<std::pair<int64_t, int64_t>> busy, waiting;
    auto clip = [&f](int64_t b, int64_t e) { return std::make_pair(std::max(b, f.begin_ns), std::min(e, f.end_ns)); };
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const Task& t = g.tasks[i];
      if (t.removed || t.rank != st.rank)
        continue;
      if (on_gpu(t.kind))
        busy.push_back(clip(w.start[i], w.end[i]));
      else if (t.kind == TaskKind::runtime && waits_for_gpu(g, i))
        waiting.push_back(clip(w.arrival[i], w.end[i]));
      if (t.step != int32_t(s))
        continue;
      if (t.kind == TaskKind::kernel)
        f.kernel_ns += t.dur_ns;
      else if (t.kind == TaskKind::comm)
        f.comm_ns += t.dur_ns;
      else if (t.kind == TaskKind::runtime || t.kind == TaskKind::cpu)
        f.cpu_task_ns += t.dur_ns;
    }
    f.gpu_busy_ns   = union_length(busy);
    f.gpu_only_ns   = intersection_length(waiting, busy);
    f.cpu_only_ns   = f.time_ns - f.gpu_busy_ns;
    f.overlapped_ns = f.gpu_busy_ns - f.gpu_only_ns;
    if (g.power.busy_w > 0)
      f.gpu_energy_j =
          (double(f.gpu_busy_ns) * g.power.busy_w + double(f.time_ns - f.gpu_busy_ns) * g.power.idle_w) * 1e-9;
    out.push_back(f);
  }
  return out;
}

std::vector<ThreadFigures> thread_figures(const Graph& g)
{
  std::vector<ThreadFigures> out(g.threads.size());
  for (size_t i = 0; i < g.threads.size(); ++i) {
    out[i].name = g.threads[i].name;
    out[i].kind = g.threads[i].kind;
  }
  for (const Task& t : g.tasks)
    if (not t.removed && t.thread < out.size()) {
      out[t.thread].tasks++;
      out[t.thread].busy_ns += t.dur_ns;
    }
  return out;
}

std::vector<LayerFigures> layer_figures(const Graph& g)
{
  std::vector<LayerFigures> out(g.layers.size());
  for (size_t i = 0; i < g.layers.size(); ++i) {
    out[i].name  = g.layers[i].name;
    out[i].phase = g.layers[i].phase;
  }
  for (const Task& t : g.tasks)
    if (not t.removed && t.layer < out.size()) {
      (on_gpu(t.kind) ? out[t.layer].gpu_ns : out[t.layer].cpu_ns) += t.dur_ns;
      out[t.layer].tasks++;
    }
  return out;
}

std::vector<uint32_t> critical_events(const Graph& g, const WalkResult& w, const std::vector<uint32_t>& path)
{
  std::vector<uint32_t> events;
  std::map<uint32_t, std::vector<std::pair<int64_t, int64_t>>> cpu_time; // thread -> intervals
  for (size_t k = 0; k < path.size(); ++k) {
    uint32_t u    = path[k];
    const Task& t = g.tasks[u];
    // zero-length events carry no time: never on a weighted path (HTA drops them too)
    if (t.event != kNone && (t.dur_ns > 0 || waits_for_gpu(g, u)))
      events.push_back(t.event);
    if (t.thread == kNone || g.threads[t.thread].kind != ThreadKind::cpu)
      continue;
    cpu_time[t.thread].push_back({w.start[u], std::max(w.end[u], w.start[u] + 1)});
    if (k > 0) {
      uint32_t p = path[k - 1];
      if (g.tasks[p].thread == t.thread && w.end[p] < w.start[u])
        cpu_time[t.thread].push_back({w.end[p], w.start[u]});
    }
  }
  for (auto& [thread, iv] : cpu_time)
    std::sort(iv.begin(), iv.end());
  for (const Range& r : g.ranges) {
    auto it = cpu_time.find(r.thread);
    if (it == cpu_time.end() || r.event == kNone || r.end_ns == r.start_ns)
      continue;
    const auto& iv = it->second;
    // any interval meeting [r.start, r.end]
    auto pos   = std::lower_bound(iv.begin(), iv.end(), std::make_pair(r.end_ns, INT64_MIN));
    bool meets = pos != iv.begin() && std::prev(pos)->second > r.start_ns;
    if (meets)
      events.push_back(r.event);
  }
  std::sort(events.begin(), events.end());
  events.erase(std::unique(events.begin(), events.end()), events.end());
  return events;
}

} // namespace sgai::whatif
