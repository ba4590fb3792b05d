#include "core/whatif/build.hpp"

#include "chakra/convert.hpp"
#include "core/foundation/error.hpp"

#include <algorithm>
#include <map>
#include <set>
#include <string_view>
#include <unordered_map>

namespace sgai::whatif {

namespace fs = std::filesystem;

bool is_launch_call(const std::string& n)
{
  return n.find("LaunchKernel") != std::string::npos || n.find("Launch") != std::string::npos ||
         n.find("Memcpy") != std::string::npos || n.find("Memset") != std::string::npos;
}

bool is_blocking_call(const std::string& n)
{
  return n.find("Synchronize") != std::string::npos || n.find("Memcpy") != std::string::npos;
}

bool is_comm_kernel(const std::string& n)
{
  return n.rfind("nccl", 0) == 0 || n.rfind("rccl", 0) == 0 || n.find("ncclKernel") != std::string::npos ||
         n.find("ncclDevKernel") != std::string::npos;
}

std::vector<fs::path> trace_files(const fs::path& path)
{
  std::error_code ec;
  if (not fs::is_directory(path, ec))
    return {path};
  std::vector<fs::path> files;
  for (const auto& entry : fs::directory_iterator(path, ec)) {
    std::string n = entry.path().filename().string();
    bool json     = n.size() > 5 && n.compare(n.size() - 5, 5, ".json") == 0;
    bool gz       = n.size() > 8 && n.compare(n.size() - 8, 8, ".json.gz") == 0;
    if (entry.is_regular_file() && (json || gz))
      files.push_back(entry.path());
  }
  if (ec)
    throw InputError(path.string(), "", "cannot list the folder: " + ec.message());
  if (files.empty())
    throw InputError(path.string(), "", "the folder holds no trace (*.json or *.json.gz)");
  std::sort(files.begin(), files.end());
  return files;
}

namespace {

bool starts_with(std::string_view s, std::string_view p)
{
  return s.substr(0, p.size()) == p;
}

bool is_step_name(std::string_view n)
{
  return starts_with(n, "ProfilerStep#");
}

/** Names of ranges that frame an iteration or a phase rather than an operator. */
bool is_frame_name(std::string_view n)
{
  return is_step_name(n) || starts_with(n, "Optimizer.") || starts_with(n, "## ") ||
         starts_with(n, "enumerate(DataLoader)") || starts_with(n, "DistributedDataParallel.") ||
         starts_with(n, "nccl:") || starts_with(n, "record_param_comms");
}

/** The phase a range's name says, if any. */
std::optional<Phase> phase_of_name(std::string_view n)
{
  if (n == "## forward ##" || starts_with(n, "DistributedDataParallel.forward"))
    return Phase::forward;
  if (n == "## backward ##" || starts_with(n, "autograd::engine::evaluate_function"))
    return Phase::backward;
  if (n == "## optimizer ##" || starts_with(n, "Optimizer.step"))
    return Phase::optimizer;
  if (starts_with(n, "enumerate(DataLoader)"))
    return Phase::data;
  if (starts_with(n, "Optimizer.zero_grad"))
    return Phase::none;
  return std::nullopt;
}

uint64_t dtype_bytes(const std::string& d)
{
  std::string l;
  for (char c : d)
    l.push_back(char(std::tolower(static_cast<unsigned char>(c))));
  if (l.find("double") != std::string::npos || l.find("64") != std::string::npos)
    return 8;
  if (l.find("half") != std::string::npos || l.find("16") != std::string::npos)
    return 2;
  if (l.find("int8") != std::string::npos || l.find("byte") != std::string::npos ||
      l.find("bool") != std::string::npos || l.find("char") != std::string::npos || l.find("8") != std::string::npos)
    return 1;
  return 4;
}

std::string collective_type(const std::string& args_name, const std::string& kernel)
{
  if (not args_name.empty())
    return args_name;
  if (auto t = chakra::collective_of_name(kernel)) {
    switch (*t) {
    case chakra::CollectiveType::all_reduce:
      return "allreduce";
    case chakra::CollectiveType::all_gather:
      return "allgather";
    case chakra::CollectiveType::reduce_scatter:
    case chakra::CollectiveType::reduce_scatter_block:
      return "reduce_scatter";
    case chakra::CollectiveType::all_to_all:
      return kernel.find("SendRecv") != std::string::npos ? "sendrecv" : "all_to_all";
    case chakra::CollectiveType::broadcast:
      return "broadcast";
    case chakra::CollectiveType::reduce:
      return "reduce";
    default:
      return "other";
    }
  }
  return "other";
}

int64_t median(std::vector<int64_t> v, int64_t fallback)
{
  if (v.empty())
    return fallback;
  auto mid = v.begin() + ptrdiff_t(v.size() / 2);
  std::nth_element(v.begin(), mid, v.end());
  return *mid;
}

struct CommRecord {
  uint32_t task;
  std::string group;
  std::string signature; ///< the kernel name up to its parameters
};

struct RankBuild {
  std::vector<CommRecord> comms;
};

/** Appends one rank's tasks and edges to `g`. */
RankBuild append_rank(Graph& g, const KinetoTrace& tr, int32_t rank, const BuildOptions& opt, BuildReport& rep)
{
  RankBuild out;
  const auto& ev = tr.events;
  rep.events += ev.size();
  RankInfo info;
  info.file       = tr.file.string();
  info.rank       = tr.rank >= 0 ? tr.rank : rank;
  info.world_size = tr.world_size > 0 ? tr.world_size : 1;
  if (not tr.devices.empty())
    info.gpu = tr.devices.front().name;

  std::vector<uint32_t> runtime, gpu, ranges, steps;
  for (uint32_t i = 0; i < ev.size(); ++i) {
    switch (ev[i].kind) {
    case EventKind::runtime:
      runtime.push_back(i);
      break;
    case EventKind::kernel:
    case EventKind::memcpy:
    case EventKind::memset:
      gpu.push_back(i);
      break;
    case EventKind::cpu_op:
    case EventKind::user_annotation:
      ranges.push_back(i);
      if (is_step_name(tr.name_of(ev[i])))
        steps.push_back(i);
      break;
    default:
      break;
    }
  }
  if (gpu.empty())
    throw InputError(tr.file.string(), "",
                     "no GPU activity: none of its " + std::to_string(ev.size()) +
                         " events is a kernel, a copy or a set (a CPU-only trace cannot be predicted)");

  // ---------------------------------------------------------------- steps (ProfilerStep#N spans)
  std::sort(steps.begin(), steps.end(), [&](uint32_t a, uint32_t b) { return ev[a].ts_ns < ev[b].ts_ns; });
  {
    std::vector<uint32_t> kept;
    for (uint32_t s : steps)
      if (kept.empty() || ev[kept.back()].ts_ns != ev[s].ts_ns)
        kept.push_back(s);
    steps = std::move(kept);
  }
  auto step_base = int32_t(g.steps.size());
  if (steps.empty()) { // the whole trace is one step; its span is known at the end
    Step st;
    st.name = "trace";
    st.rank = rank;
    g.steps.push_back(st);
  }
  std::vector<int64_t> step_starts;
  for (uint32_t s : steps) {
    Step st;
    st.name        = tr.name_of(ev[s]);
    st.measured_ns = ev[s].dur_ns;
    st.rank        = rank;
    g.steps.push_back(st);
    step_starts.push_back(ev[s].ts_ns);
  }
  auto step_at = [&](int64_t t) -> int32_t {
    if (steps.empty())
      return step_base; // the whole trace, added below
    auto it = std::upper_bound(step_starts.begin(), step_starts.end(), t);
    if (it == step_starts.begin())
      return -1;
    auto k     = size_t(it - step_starts.begin()) - 1;
    uint32_t s = steps[k];
    if (t >= ev[s].ts_ns + ev[s].dur_ns && k + 1 == steps.size())
      return -1; // after the last step
    return step_base + int32_t(k);
  };

  // ---------------------------------------------------------------- CPU threads
  std::map<uint32_t, uint32_t> cpu_thread; // trace thread -> ExecThread
  auto exec_cpu = [&](uint32_t trace_thread) {
    auto it = cpu_thread.find(trace_thread);
    if (it != cpu_thread.end())
      return it->second;
    ExecThread t;
    t.kind      = ThreadKind::cpu;
    t.rank      = rank;
    t.name      = "rank " + std::to_string(info.rank) + " cpu " + tr.threads[trace_thread].tid;
    uint32_t id = g.add_thread(t);
    cpu_thread.emplace(trace_thread, id);
    return id;
  };

  struct Item {
    int64_t start, end;
    uint32_t event; ///< kNone for markers
    int order;      ///< end marker 0, begin marker 1, runtime call 2
    int32_t step;
  };
  std::map<uint32_t, std::vector<Item>> items; // trace thread -> items
  for (uint32_t e : runtime)
    items[ev[e].thread].push_back(Item{ev[e].ts_ns, ev[e].ts_ns + ev[e].dur_ns, e, 2, -1});
  for (size_t k = 0; k < steps.size(); ++k) {
    const Event& s = ev[steps[k]];
    items[s.thread].push_back(Item{s.ts_ns, s.ts_ns, kNone, 1, step_base + int32_t(k)});
    items[s.thread].push_back(Item{s.ts_ns + s.dur_ns, s.ts_ns + s.dur_ns, kNone, 0, step_base + int32_t(k)});
  }

  // ranges per trace thread, for layers and phases
  std::map<uint32_t, std::vector<uint32_t>> ranges_of;
  for (uint32_t r : ranges)
    ranges_of[ev[r].thread].push_back(r);

  std::unordered_map<int64_t, uint32_t> by_correlation; // runtime correlation -> task
  std::map<uint32_t, uint32_t> layer_of_range;
  std::vector<uint32_t> launching_threads;

  for (auto& [trace_thread, list] : items) {
    std::sort(list.begin(), list.end(), [](const Item& a, const Item& b) {
      if (a.start != b.start)
        return a.start < b.start;
      if (a.order != b.order)
        return a.order < b.order;
      return a.end > b.end;
    });
    uint32_t thread = exec_cpu(trace_thread);
    // ranges of this thread, outer first
    std::vector<uint32_t>& rs = ranges_of[trace_thread];
    std::sort(rs.begin(), rs.end(), [&](uint32_t a, uint32_t b) {
      if (ev[a].ts_ns != ev[b].ts_ns)
        return ev[a].ts_ns < ev[b].ts_ns;
      return ev[a].dur_ns > ev[b].dur_ns;
    });
    for (uint32_t r : rs) {
      if (ev[r].collective >= 0 && tr.name_of(ev[r]) == "record_param_comms") {
        const CollectiveArgs& c = tr.collectives[size_t(ev[r].collective)];
        uint64_t elems          = std::max(c.in_elems, c.out_elems);
        if (elems > 0)
          g.buckets.push_back(Bucket{ev[r].ts_ns, thread, rank, elems * dtype_bytes(c.dtype), c.name});
      }
      Range range;
      range.start_ns   = ev[r].ts_ns;
      range.end_ns     = ev[r].ts_ns + ev[r].dur_ns;
      range.thread     = thread;
      range.name       = g.intern(tr.name_of(ev[r]));
      range.event      = r;
      range.annotation = ev[r].kind == EventKind::user_annotation;
      g.ranges.push_back(range);
    }
    std::vector<uint32_t> stack;
    size_t next_range = 0;
    uint32_t prev     = kNone;
    int64_t prev_end  = 0;
    bool launches     = false;
    // CPU work before the thread's first call (operators that launch nothing): a CPU task
    if (not rs.empty() && ev[rs.front()].ts_ns < list.front().start) {
      Task lead;
      lead.kind     = TaskKind::cpu;
      lead.start_ns = ev[rs.front()].ts_ns;
      lead.dur_ns   = list.front().start - lead.start_ns;
      lead.thread   = thread;
      lead.rank     = rank;
      lead.step     = step_at(lead.start_ns);
      lead.name     = g.intern("cpu work");
      prev          = g.add_task(lead);
      prev_end      = list.front().start;
    }
    for (const Item& it : list) {
      if (it.event != kNone && prev != kNone && it.end <= prev_end && g.tasks[prev].kind == TaskKind::runtime) {
        // a call inside the previous one (a driver call under a runtime call): part of it
        if (ev[it.event].correlation >= 0)
          by_correlation.emplace(ev[it.event].correlation, prev);
        continue;
      }
      Task t;
      t.start_ns = it.start;
      t.dur_ns   = it.end - it.start;
      t.thread   = thread;
      t.rank     = rank;
      if (it.event == kNone) {
        t.kind = TaskKind::marker;
        t.step = it.step;
        t.name = g.intern(g.steps[size_t(it.step)].name + (it.order == 1 ? " begin" : " end"));
      } else {
        const Event& e = ev[it.event];
        t.kind         = TaskKind::runtime;
        t.event        = it.event;
        t.name         = g.intern(tr.name_of(e));
        t.step         = step_at(it.start);
        launches       = launches || is_launch_call(tr.name_of(e));
        // enclosing ranges
        while (next_range < rs.size() && ev[rs[next_range]].ts_ns <= it.start) {
          uint32_t r = rs[next_range++];
          while (not stack.empty() && ev[stack.back()].ts_ns + ev[stack.back()].dur_ns <= ev[r].ts_ns)
            stack.pop_back();
          stack.push_back(r);
        }
        while (not stack.empty() && ev[stack.back()].ts_ns + ev[stack.back()].dur_ns <= it.start)
          stack.pop_back();
        Phase phase          = Phase::none;
        bool phase_named     = false;
        uint32_t layer_range = kNone;
        bool backward_op     = false;
        for (uint32_t r : stack) {
          const std::string& n = tr.name_of(ev[r]);
          if (auto p = phase_of_name(n)) {
            phase       = *p;
            phase_named = true;
          }
          if (layer_range == kNone && ev[r].kind == EventKind::cpu_op && not is_frame_name(n))
            layer_range = r;
          if (n.find("Backward") != std::string::npos)
            backward_op = true;
        }
        if (not phase_named) {
          if (backward_op)
            phase = Phase::backward;
          else if (layer_range != kNone && t.step >= 0)
            phase = Phase::forward;
        }
        t.phase = phase;
        if (layer_range != kNone) {
          auto found = layer_of_range.find(layer_range);
          if (found == layer_of_range.end()) {
            Layer l;
            l.name  = tr.name_of(ev[layer_range]) + "#" + std::to_string(g.layers.size());
            l.phase = phase;
            found   = layer_of_range.emplace(layer_range, uint32_t(g.layers.size())).first;
            g.layers.push_back(std::move(l));
          }
          t.layer = found->second;
        }
      }
      uint32_t id = g.add_task(t);
      rep.cpu_tasks += t.kind == TaskKind::runtime;
      if (t.kind == TaskKind::marker) {
        Step& st                            = g.steps[size_t(it.step)];
        (it.order == 1 ? st.begin : st.end) = id;
      }
      if (it.event != kNone && ev[it.event].correlation >= 0)
        by_correlation.emplace(ev[it.event].correlation, id);
      if (prev != kNone) {
        int64_t gap          = std::max<int64_t>(0, it.start - prev_end);
        g.tasks[prev].gap_ns = gap;
        g.add_edge(prev, id, gap, EdgeKind::thread);
      }
      prev     = id;
      prev_end = it.end;
    }
    // CPU work after the thread's last call: its gap
    int64_t ranges_end = prev_end;
    for (uint32_t r : rs)
      ranges_end = std::max(ranges_end, ev[r].ts_ns + ev[r].dur_ns);
    if (prev != kNone)
      g.tasks[prev].gap_ns = ranges_end - prev_end;
    if (launches)
      launching_threads.push_back(thread);
  }

  // ---------------------------------------------------------------- GPU streams
  std::map<std::pair<int32_t, int32_t>, uint32_t> stream_thread;
  std::map<uint32_t, std::vector<uint32_t>> stream_tasks; // ExecThread -> tasks
  std::vector<uint32_t> gpu_ids;
  std::sort(gpu.begin(), gpu.end(), [&](uint32_t a, uint32_t b) { return ev[a].ts_ns < ev[b].ts_ns; });
  for (uint32_t e : gpu) {
    const Event& x = ev[e];
    auto key       = std::make_pair(x.device, x.stream);
    auto it        = stream_thread.find(key);
    if (it == stream_thread.end()) {
      ExecThread t;
      t.kind   = ThreadKind::stream;
      t.rank   = rank;
      t.device = x.device;
      t.id     = x.stream;
      t.name   = "rank " + std::to_string(info.rank) + " gpu " + std::to_string(x.device) + " stream " +
               std::to_string(x.stream);
      it = stream_thread.emplace(key, g.add_thread(t)).first;
    }
    Task t;
    t.start_ns           = x.ts_ns;
    t.dur_ns             = x.dur_ns;
    t.thread             = it->second;
    t.event              = e;
    t.rank               = rank;
    t.name               = g.intern(tr.name_of(x));
    t.bytes              = x.bytes;
    const std::string& n = tr.name_of(x);
    t.kind               = x.kind == EventKind::memcpy   ? TaskKind::memcpy
                           : x.kind == EventKind::memset ? TaskKind::memset
                                                         : TaskKind::kernel;
    if (t.kind == TaskKind::kernel && is_comm_kernel(n)) {
      t.kind = TaskKind::comm;
      CollectiveInfo c;
      const CollectiveArgs* args = x.collective >= 0 ? &tr.collectives[size_t(x.collective)] : nullptr;
      c.type                     = collective_type(args ? args->name : std::string(), n);
      if (args) {
        c.bytes      = std::max(args->in_elems, args->out_elems) * dtype_bytes(args->dtype);
        c.group_size = args->group_size;
        c.group      = args->group;
      }
      t.bytes      = c.bytes;
      t.collective = int32_t(g.collectives.size());
      g.collectives.push_back(c);
      auto paren = n.find('(');
      out.comms.push_back(CommRecord{0, c.group, n.substr(0, paren)});
    }
    auto launch = by_correlation.find(x.correlation);
    if (launch != by_correlation.end()) {
      const Task& l = g.tasks[launch->second];
      t.step        = l.step;
      t.phase       = l.phase;
      t.layer       = l.layer;
    } else {
      t.step = step_at(x.ts_ns);
    }
    uint32_t id = g.add_task(t);
    if (t.kind == TaskKind::comm)
      out.comms.back().task = id;
    gpu_ids.push_back(id);
    stream_tasks[it->second].push_back(id);
    rep.gpu_tasks += 1;
    rep.comm_tasks += t.kind == TaskKind::comm;
    if (launch != by_correlation.end()) {
      const Task& l = g.tasks[launch->second];
      g.add_edge(launch->second, id, t.start_ns - (l.start_ns + l.dur_ns), EdgeKind::launch);
    } else {
      ++info.unlaunched;
      ++rep.unlaunched;
      if (t.step >= 0)
        ++g.steps[size_t(t.step)].unlaunched;
    }
  }
  for (auto& [thread, list] : stream_tasks)
    for (size_t k = 1; k < list.size(); ++k) {
      const Task& a = g.tasks[list[k - 1]];
      const Task& b = g.tasks[list[k]];
      g.add_edge(list[k - 1], list[k], b.start_ns - (a.start_ns + a.dur_ns), EdgeKind::thread);
    }

  // ---------------------------------------------------------------- blocking calls
  std::vector<uint32_t> by_end = gpu_ids;
  std::sort(by_end.begin(), by_end.end(), [&](uint32_t a, uint32_t b) {
    return g.tasks[a].start_ns + g.tasks[a].dur_ns < g.tasks[b].start_ns + g.tasks[b].dur_ns;
  });
  auto end_of    = [&](uint32_t t) { return g.tasks[t].start_ns + g.tasks[t].dur_ns; };
  auto launch_of = [&](uint32_t gt) -> uint32_t {
    for (uint32_t e : g.in[gt])
      if (g.edges[e].kind == EdgeKind::launch)
        return g.edges[e].from;
    return kNone;
  };
  const int64_t tolerance = 2'000;
  for (uint32_t c = 0; c < g.tasks.size(); ++c) {
    Task& call = g.tasks[c];
    if (call.rank != rank || call.kind != TaskKind::runtime)
      continue;
    // a synchronization or a copy blocks by design; any other call that lasts long and returns just
    // after a GPU task ended was held by the GPU too (a launch waiting for room in the full launch
    // queue, cudaFree synchronizing the device)
    bool blocking = is_blocking_call(g.names[call.name]);
    if (not blocking && call.dur_ns < opt.held_call_ns)
      continue;
    bool copy       = g.names[call.name].find("Memcpy") != std::string::npos;
    int64_t c_start = call.start_ns, c_end = call.start_ns + call.dur_ns;
    // own copy's stream: a copy call blocks on earlier work of that stream
    uint32_t own_stream = kNone;
    for (uint32_t e : g.out[c])
      if (g.edges[e].kind == EdgeKind::launch)
        own_stream = g.tasks[g.edges[e].to].thread;
    if (copy && own_stream == kNone)
      continue;
    auto hi        = std::upper_bound(by_end.begin(), by_end.end(), c_end + tolerance,
                                      [&](int64_t v, uint32_t t) { return v < end_of(t); });
    uint32_t found = kNone;
    for (auto it = hi; it != by_end.begin();) {
      --it;
      uint32_t gt = *it;
      if (end_of(gt) <= c_start)
        break;
      uint32_t l = launch_of(gt);
      if (l == c || (l != kNone && g.tasks[l].start_ns >= c_start))
        continue;
      if (copy && g.tasks[gt].thread != own_stream)
        continue;
      found = gt;
      break;
    }
    if (found == kNone || (not blocking && c_end - end_of(found) > opt.held_call_ns))
      continue;
    int64_t waited_to = std::min(end_of(found), c_end);
    call.dur_ns       = c_end - waited_to;
    call.start_ns     = waited_to;
    g.add_edge(found, c, waited_to - end_of(found), EdgeKind::sync);
    ++rep.sync_edges;
  }

  // ---------------------------------------------------------------- GPU lags and waits between streams
  // Binding parent = the latest one; it keeps its measured lag, the others take the typical lag.
  std::vector<int64_t> launch_lags, stream_lags;
  for (uint32_t k : gpu_ids) {
    int64_t sl = INT64_MAX, sp = INT64_MAX;
    for (uint32_t e : g.in[k]) {
      if (g.edges[e].kind == EdgeKind::launch)
        sl = g.edges[e].lag_ns;
      else if (g.edges[e].kind == EdgeKind::thread)
        sp = g.edges[e].lag_ns;
    }
    if (sl != INT64_MAX && sl <= sp)
      launch_lags.push_back(sl);
    else if (sp != INT64_MAX && sp < sl)
      stream_lags.push_back(sp);
  }
  const int64_t typical_launch = median(launch_lags, 0);
  const int64_t typical_stream = std::max<int64_t>(0, median(stream_lags, 0));
  std::map<int32_t, std::vector<uint32_t>> device_by_end; // device -> GPU tasks by end
  for (uint32_t t : by_end)
    device_by_end[g.threads[g.tasks[t].thread].device].push_back(t);
  for (uint32_t k : gpu_ids) {
    const Task& task = g.tasks[k];
    uint32_t binding = kNone;
    int64_t slack    = INT64_MAX;
    for (uint32_t e : g.in[k]) {
      const Edge& x = g.edges[e];
      int64_t s     = task.start_ns - end_of(x.from);
      if (s < slack) {
        slack   = s;
        binding = e;
      }
    }
    int64_t typical_binding = binding == kNone                            ? 0
                              : g.edges[binding].kind == EdgeKind::launch ? typical_launch
                                                                          : typical_stream;
    // an unexplained wait: another stream's task that ended just before
    if (binding == kNone || slack - typical_binding > opt.stream_wait_ns) {
      int64_t floor_t  = binding == kNone ? INT64_MIN : task.start_ns - slack;
      const auto& list = device_by_end[g.threads[task.thread].device];
      auto hi          = std::upper_bound(list.begin(), list.end(), task.start_ns,
                                          [&](int64_t v, uint32_t t) { return v < end_of(t); });
      for (auto it = hi; it != list.begin();) {
        --it;
        if (end_of(*it) < floor_t)
          break;
        if (g.tasks[*it].thread != task.thread) {
          binding = g.add_edge(*it, k, task.start_ns - end_of(*it), EdgeKind::stream);
          slack   = task.start_ns - end_of(*it);
          ++rep.stream_edges;
          break;
        }
      }
    }
    for (uint32_t e : g.in[k]) {
      Edge& x   = g.edges[e];
      int64_t s = task.start_ns - end_of(x.from);
      if (e == binding)
        x.lag_ns = s;
      else {
        int64_t typical = x.kind == EdgeKind::launch ? typical_launch : x.kind == EdgeKind::thread ? typical_stream : 0;
        x.lag_ns        = std::min(typical, s);
      }
    }
  }

  // ---------------------------------------------------------------- wake-ups between CPU threads
  {
    std::map<std::string, std::vector<uint32_t>> by_pid; // pid -> tasks of launching threads
    std::map<uint32_t, std::string> pid_of;
    for (auto& [trace_thread, exec] : cpu_thread)
      pid_of[exec] = tr.threads[trace_thread].pid;
    std::set<uint32_t> launching(launching_threads.begin(), launching_threads.end());
    for (uint32_t i = 0; i < g.tasks.size(); ++i) {
      const Task& t = g.tasks[i];
      if (t.rank == rank && t.thread != kNone && launching.count(t.thread) &&
          g.threads[t.thread].kind == ThreadKind::cpu)
        by_pid[pid_of[t.thread]].push_back(i);
    }
    for (auto& [pid, list] : by_pid) {
      std::set<uint32_t> threads_here;
      for (uint32_t t : list)
        threads_here.insert(g.tasks[t].thread);
      if (threads_here.size() < 2)
        continue;
      // measured starts: for blocking calls the effective start moved; use the thread order anyway
      std::sort(list.begin(), list.end(),
                [&](uint32_t a, uint32_t b) { return g.tasks[a].start_ns < g.tasks[b].start_ns; });
      std::vector<int64_t> starts(list.size());
      for (size_t k = 0; k < list.size(); ++k)
        starts[k] = g.tasks[list[k]].start_ns;
      for (uint32_t x : list) {
        uint32_t y = g.thread_next(x);
        if (y == kNone)
          continue;
        const int64_t x_end = end_of(x);
        int64_t y_start     = g.tasks[y].start_ns;
        // the thread edge's lag is the gap to y's measured start
        uint32_t thread_edge = kNone;
        for (uint32_t e : g.out[x])
          if (g.edges[e].kind == EdgeKind::thread && g.edges[e].to == y)
            thread_edge = e;
        int64_t y_measured = x_end + g.edges[thread_edge].lag_ns;
        if (y_measured - x_end < opt.handoff_ns)
          continue;
        auto lo        = std::lower_bound(starts.begin(), starts.end(), x_end);
        uint32_t first = kNone, last = kNone;
        for (auto it = lo; it != starts.end() && *it < y_measured; ++it) {
          uint32_t o = list[size_t(it - starts.begin())];
          if (g.tasks[o].thread == g.tasks[x].thread)
            continue;
          if (first == kNone)
            first = o;
          if (end_of(o) <= y_start)
            last = o;
        }
        if (first == kNone || last == kNone)
          continue;
        int64_t before              = g.tasks[first].start_ns - x_end;
        g.edges[thread_edge].lag_ns = std::max<int64_t>(0, before);
        g.tasks[x].gap_ns           = std::max<int64_t>(0, before);
        g.add_edge(last, y, y_start - end_of(last), EdgeKind::handoff);
        ++rep.handoff_edges;
      }
    }
  }

  // the whole trace as one step when it has no ProfilerStep
  if (steps.empty()) {
    Step& st   = g.steps[size_t(step_base)];
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
      if (g.tasks[i].rank == rank) {
        lo = std::min(lo, g.tasks[i].start_ns);
        hi = std::max(hi, end_of(i));
        if (g.tasks[i].step < 0)
          g.tasks[i].step = step_base;
      }
    st.measured_ns = hi - lo;
    st.unlaunched  = info.unlaunched;
  }
  g.ranks.push_back(info);
  return out;
}

} // namespace

Graph build_graph(const KinetoTrace& trace, const BuildOptions& options, BuildReport* report)
{
  BuildReport local;
  BuildReport& rep = report ? *report : local;
  Graph g;
  append_rank(g, trace, 0, options, rep);
  return g;
}

Graph build_joined(const std::vector<KinetoTrace>& ranks, const BuildOptions& options, BuildReport* report)
{
  if (ranks.size() == 1)
    return build_graph(ranks.front(), options, report);
  BuildReport local;
  BuildReport& rep = report ? *report : local;
  // ranks: distinct, complete, same world size
  std::map<int64_t, size_t> by_rank;
  int64_t world = -1;
  for (size_t i = 0; i < ranks.size(); ++i) {
    const KinetoTrace& t = ranks[i];
    if (t.rank < 0 || t.world_size <= 0)
      throw InputError(t.file.string(), "/distributedInfo",
                       "a trace of a rank set must give its rank and world size (distributedInfo)");
    if (world >= 0 && t.world_size != world)
      throw InputError(t.file.string(), "/distributedInfo/world_size",
                       "world size " + std::to_string(t.world_size) + " where " + ranks.front().file.string() +
                           " says " + std::to_string(world));
    world            = t.world_size;
    auto [it, fresh] = by_rank.emplace(t.rank, i);
    if (not fresh)
      throw InputError(t.file.string(), "/distributedInfo/rank",
                       "rank " + std::to_string(t.rank) + " again (also " + ranks[it->second].file.string() + ")");
  }
  if (int64_t(ranks.size()) != world) {
    std::string missing;
    for (int64_t r = 0; r < world && missing.size() < 80; ++r)
      if (not by_rank.count(r))
        missing += (missing.empty() ? "" : ", ") + std::to_string(r);
    throw InputError(ranks.front().file.string(), "/distributedInfo/world_size",
                     "world size " + std::to_string(world) + " but " + std::to_string(ranks.size()) +
                         " traces were given" + (missing.empty() ? "" : " (missing ranks: " + missing + ")"));
  }
  Graph g;
  std::vector<RankBuild> built;
  for (auto& [r, i] : by_rank)
    built.push_back(append_rank(g, ranks[i], int32_t(r), options, rep));
  // the n-th collective of each group on every rank is one collective
  std::map<std::string, std::vector<std::vector<uint32_t>>> by_group; // group -> per rank, its comm tasks
  for (size_t r = 0; r < built.size(); ++r)
    for (const CommRecord& c : built[r].comms) {
      auto& per_rank = by_group[c.group];
      per_rank.resize(built.size());
      per_rank[r].push_back(c.task);
    }
  for (auto& [group, per_rank] : by_group) {
    size_t n          = 0;
    size_t first_rank = kNone;
    for (size_t r = 0; r < per_rank.size(); ++r) {
      if (per_rank[r].empty())
        continue;
      if (first_rank == size_t(kNone)) {
        first_rank = r;
        n          = per_rank[r].size();
      } else if (per_rank[r].size() != n) {
        throw InputError(g.ranks[r].file, "",
                         "rank " + std::to_string(g.ranks[r].rank) + " runs " + std::to_string(per_rank[r].size()) +
                             " collectives" + (group.empty() ? "" : " in group '" + group + "'") + " but rank " +
                             std::to_string(g.ranks[first_rank].rank) + " runs " + std::to_string(n));
      }
    }
    for (size_t k = 0; k < n; ++k) {
      std::vector<uint32_t> members;
      int64_t transfer = INT64_MAX;
      for (size_t r = 0; r < per_rank.size(); ++r) {
        if (per_rank[r].empty())
          continue;
        uint32_t t           = per_rank[r][k];
        const std::string& a = g.name_of(t);
        const std::string& b = g.name_of(per_rank[first_rank][k]);
        if (a.substr(0, a.find('(')) != b.substr(0, b.find('(')))
          throw InputError(g.ranks[r].file, "",
                           "collective " + std::to_string(k + 1) + " of rank " + std::to_string(g.ranks[r].rank) +
                               " is " + quote(a.substr(0, a.find('('))) + " but rank " +
                               std::to_string(g.ranks[first_rank].rank) + "'s is " + quote(b.substr(0, b.find('('))));
        members.push_back(t);
        transfer = std::min(transfer, g.tasks[t].dur_ns);
      }
      if (members.size() < 2)
        continue;
      // the join: a marker every member's parents lead to; members start from it
      Task join;
      join.kind     = TaskKind::marker;
      join.name     = g.intern("join " + g.name_of(members.front()).substr(0, g.name_of(members.front()).find('(')));
      join.start_ns = INT64_MAX;
      for (uint32_t m : members)
        join.start_ns = std::min(join.start_ns, g.tasks[m].start_ns);
      join.rank       = -1;
      uint32_t j      = g.add_task(join);
      int64_t arrival = INT64_MIN;
      for (uint32_t m : members)
        arrival = std::max(arrival, g.tasks[m].start_ns + g.tasks[m].dur_ns - transfer);
      g.tasks[j].start_ns = arrival;
      for (uint32_t m : members) {
        std::vector<uint32_t> parents(g.in[m].begin(), g.in[m].end());
        for (uint32_t e : parents) {
          Edge x = g.edges[e];
          if (x.removed)
            continue;
          // the parent's lag to the member's measured start carries over to the join
          g.add_edge(x.from, j, x.lag_ns, EdgeKind::collective);
          if (x.kind != EdgeKind::thread)
            g.edges[e].removed = true;
        }
        int64_t member_end  = g.tasks[m].start_ns + g.tasks[m].dur_ns;
        g.tasks[m].dur_ns   = transfer;
        g.tasks[m].start_ns = member_end - transfer;
        g.add_edge(j, m, g.tasks[m].start_ns - arrival, EdgeKind::collective);
      }
      ++rep.collectives_joined;
    }
  }
  // prune removed edges from the lists
  for (auto& list : g.in)
    list.erase(std::remove_if(list.begin(), list.end(), [&](uint32_t e) { return g.edges[e].removed; }), list.end());
  for (auto& list : g.out)
    list.erase(std::remove_if(list.begin(), list.end(), [&](uint32_t e) { return g.edges[e].removed; }), list.end());
  return g;
}

} // namespace sgai::whatif
