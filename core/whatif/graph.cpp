#include "core/whatif/graph.hpp"

#include <algorithm>
#include <stdexcept>

namespace sgai::whatif {

const char* to_string(TaskKind k)
{
  switch (k) {
  case TaskKind::runtime:
    return "runtime";
  case TaskKind::cpu:
    return "cpu";
  case TaskKind::kernel:
    return "kernel";
  case TaskKind::memcpy:
    return "memcpy";
  case TaskKind::memset:
    return "memset";
  case TaskKind::comm:
    return "comm";
  case TaskKind::marker:
    return "marker";
  }
  return "?";
}

const char* to_string(ThreadKind k)
{
  switch (k) {
  case ThreadKind::cpu:
    return "cpu";
  case ThreadKind::stream:
    return "stream";
  case ThreadKind::channel:
    return "channel";
  }
  return "?";
}

const char* to_string(Phase p)
{
  switch (p) {
  case Phase::none:
    return "other";
  case Phase::data:
    return "data";
  case Phase::forward:
    return "forward";
  case Phase::backward:
    return "backward";
  case Phase::optimizer:
    return "optimizer";
  }
  return "?";
}

const char* to_string(EdgeKind k)
{
  switch (k) {
  case EdgeKind::thread:
    return "thread";
  case EdgeKind::launch:
    return "launch";
  case EdgeKind::sync:
    return "sync";
  case EdgeKind::stream:
    return "stream";
  case EdgeKind::handoff:
    return "handoff";
  case EdgeKind::collective:
    return "collective";
  case EdgeKind::inserted:
    return "inserted";
  }
  return "?";
}

uint32_t Graph::intern(std::string_view name)
{
  auto it = name_index_.find(std::string(name));
  if (it != name_index_.end())
    return it->second;
  auto id = uint32_t(names.size());
  names.emplace_back(name);
  name_index_.emplace(std::string(name), id);
  return id;
}

uint32_t Graph::add_task(const Task& t)
{
  auto id = uint32_t(tasks.size());
  tasks.push_back(t);
  out.emplace_back();
  in.emplace_back();
  return id;
}

uint32_t Graph::add_edge(uint32_t from, uint32_t to, int64_t lag_ns, EdgeKind kind)
{
  if (from >= tasks.size() || to >= tasks.size() || from == to)
    throw std::invalid_argument("whatif: an edge between unknown or equal tasks");
  auto id = uint32_t(edges.size());
  edges.push_back(Edge{from, to, lag_ns, kind, false});
  out[from].push_back(id);
  in[to].push_back(id);
  return id;
}

uint32_t Graph::add_thread(ExecThread t)
{
  threads.push_back(std::move(t));
  return uint32_t(threads.size() - 1);
}

size_t Graph::live_tasks() const
{
  return size_t(std::count_if(tasks.begin(), tasks.end(), [](const Task& t) { return not t.removed; }));
}

std::vector<uint32_t> Graph::select(const std::function<bool(const Task&)>& pred) const
{
  std::vector<uint32_t> ids;
  for (uint32_t i = 0; i < tasks.size(); ++i)
    if (not tasks[i].removed && pred(tasks[i]))
      ids.push_back(i);
  return ids;
}

std::vector<uint32_t> Graph::select_name(std::string_view pattern) const
{
  std::vector<char> match(names.size(), 0);
  for (size_t n = 0; n < names.size(); ++n)
    match[n] = names[n].find(pattern) != std::string::npos;
  return select([&match](const Task& t) { return match[t.name] != 0; });
}

void Graph::scale(uint32_t task, double factor)
{
  if (not(factor >= 0))
    throw std::invalid_argument("whatif: a scale factor must be >= 0");
  Task& t  = tasks.at(task);
  t.dur_ns = int64_t(double(t.dur_ns) * factor + 0.5);
}

uint32_t Graph::thread_prev(uint32_t task) const
{
  for (uint32_t e : in[task])
    if (not edges[e].removed && edges[e].kind == EdgeKind::thread)
      return edges[e].from;
  return kNone;
}

uint32_t Graph::thread_next(uint32_t task) const
{
  for (uint32_t e : out[task])
    if (not edges[e].removed && edges[e].kind == EdgeKind::thread)
      return edges[e].to;
  return kNone;
}

uint32_t Graph::insert_after(uint32_t after, Task t, const std::vector<uint32_t>& deps)
{
  if (t.thread >= threads.size())
    throw std::invalid_argument("whatif: inserting a task on an unknown thread");
  uint32_t next = kNone;
  int64_t outer = 0;
  if (after != kNone) {
    if (tasks.at(after).thread != t.thread)
      throw std::invalid_argument("whatif: inserting after a task of another thread");
    for (uint32_t e : out[after])
      if (not edges[e].removed && edges[e].kind == EdgeKind::thread) {
        next             = edges[e].to;
        outer            = edges[e].lag_ns;
        edges[e].removed = true;
      }
  } else {
    // the thread's first task: the one without a thread predecessor
    for (uint32_t i = 0; i < tasks.size(); ++i)
      if (not tasks[i].removed && tasks[i].thread == t.thread && thread_prev(i) == kNone &&
          tasks[i].kind != TaskKind::comm) {
        next = i;
        break;
      }
  }
  if (t.start_ns == 0 && after != kNone)
    t.start_ns = tasks[after].start_ns + tasks[after].dur_ns;
  uint32_t id = add_task(t);
  if (after != kNone)
    add_edge(after, id, outer, EdgeKind::thread);
  if (next != kNone)
    add_edge(id, next, t.gap_ns, EdgeKind::thread);
  for (uint32_t d : deps)
    add_edge(d, id, 0, EdgeKind::inserted);
  return id;
}

uint32_t Graph::insert(Task t, const std::vector<uint32_t>& deps)
{
  uint32_t id = add_task(t);
  for (uint32_t d : deps)
    add_edge(d, id, 0, EdgeKind::inserted);
  return id;
}

void Graph::remove(uint32_t task)
{
  Task& t = tasks.at(task);
  if (t.removed)
    return;
  std::vector<uint32_t> ins, outs;
  for (uint32_t e : in[task])
    if (not edges[e].removed) {
      ins.push_back(e);
      edges[e].removed = true;
    }
  for (uint32_t e : out[task])
    if (not edges[e].removed) {
      outs.push_back(e);
      edges[e].removed = true;
    }
  t.removed = true;
  for (uint32_t a : ins) {
    uint32_t u = edges[a].from;
    for (uint32_t b : outs) {
      uint32_t v = edges[b].to;
      if (u == v)
        continue;
      bool thread_pair = edges[a].kind == EdgeKind::thread && edges[b].kind == EdgeKind::thread;
      EdgeKind kind    = thread_pair ? EdgeKind::thread : EdgeKind::inserted;
      int64_t lag      = edges[a].lag_ns;
      // an edge u -> v of the same kind already there keeps the larger lag
      bool merged = false;
      for (uint32_t e : out[u]) {
        Edge& x = edges[e];
        if (not x.removed && x.to == v && (x.kind == EdgeKind::thread) == thread_pair) {
          x.lag_ns = std::max(x.lag_ns, lag);
          merged   = true;
          break;
        }
      }
      if (not merged)
        add_edge(u, v, lag, kind);
    }
  }
  // prune removed edge ids from the lists of the neighbours (keeps lists short under many removals)
  auto prune = [this](std::vector<uint32_t>& list) {
    list.erase(std::remove_if(list.begin(), list.end(), [this](uint32_t e) { return edges[e].removed; }), list.end());
  };
  for (uint32_t a : ins)
    prune(out[edges[a].from]);
  for (uint32_t b : outs)
    prune(in[edges[b].to]);
  in[task].clear();
  out[task].clear();
}

void Graph::compact()
{
  std::vector<uint32_t> id(tasks.size(), kNone);
  std::vector<Task> kept;
  kept.reserve(tasks.size());
  for (uint32_t i = 0; i < tasks.size(); ++i)
    if (not tasks[i].removed) {
      id[i] = uint32_t(kept.size());
      kept.push_back(tasks[i]);
    }
  std::vector<Edge> kept_edges;
  for (const Edge& e : edges)
    if (not e.removed && id[e.from] != kNone && id[e.to] != kNone)
      kept_edges.push_back(Edge{id[e.from], id[e.to], e.lag_ns, e.kind, false});
  for (Step& s : steps) {
    s.begin = s.begin == kNone ? kNone : id[s.begin];
    s.end   = s.end == kNone ? kNone : id[s.end];
  }
  tasks = std::move(kept);
  edges.clear();
  out.assign(tasks.size(), {});
  in.assign(tasks.size(), {});
  for (const Edge& e : kept_edges)
    add_edge(e.from, e.to, e.lag_ns, e.kind);
}

} // namespace sgai::whatif
