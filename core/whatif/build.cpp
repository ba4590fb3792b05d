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

/** Builds one rank's part of the graph: its steps, CPU threads, GPU streams, then the edges that
 *  explain its waits (blocking calls, lags between streams, wake-ups between CPU threads). */
class RankBuilder {
public:
  RankBuilder(Graph& g, const KinetoTrace& tr, int32_t rank, const BuildOptions& opt, BuildReport& rep)
      : g_(g)
      , tr_(tr)
      , ev_(tr.events)
      , rank_(rank)
      , opt_(opt)
      , rep_(rep)
  {
  }

  /** Appends the rank's tasks and edges to the graph, and its RankInfo. */
  RankBuild run()
  {
    rep_.events += ev_.size();
    describe_rank();
    classify_events();
    add_steps();
    add_cpu_threads();
    add_gpu_tasks();
    add_sync_edges();
    set_gpu_lags();
    add_handoffs();
    // the whole trace as one step when it has no ProfilerStep
    if (steps_.empty())
      close_trace_step();
    g_.ranks.push_back(info_);
    return out_;
  }

private:
  /** A runtime call or a step's begin or end marker on a CPU thread. */
  struct Item {
    int64_t start, end;
    uint32_t event; ///< kNone for markers
    int order;      ///< end marker 0, begin marker 1, runtime call 2
    int32_t step;
  };
  /** The ranges enclosing a thread's calls, followed in time order. */
  struct Enclosing {
    std::vector<uint32_t> stack;
    size_t next_range = 0;
  };

  void describe_rank();
  void classify_events();
  void add_steps();
  int32_t step_at(int64_t t) const;
  uint32_t exec_cpu(uint32_t trace_thread);
  std::map<uint32_t, std::vector<Item>> thread_items() const;
  void add_cpu_threads();
  void add_ranges(const std::vector<uint32_t>& rs, uint32_t thread);
  void add_cpu_thread(uint32_t trace_thread, std::vector<Item>& list);
  void set_phase_and_layer(Task& t, int64_t start, const std::vector<uint32_t>& rs, Enclosing& enclosing);
  uint32_t stream_thread(const Event& x);
  void add_collective(Task& t, const Event& x, const std::string& n);
  void add_gpu_tasks();
  int64_t end_of(uint32_t t) const { return g_.tasks[t].start_ns + g_.tasks[t].dur_ns; }
  uint32_t launch_of(uint32_t gt) const;
  void add_sync_edges();
  void set_gpu_lags();
  void add_handoffs();
  void close_trace_step();

  Graph& g_;
  const KinetoTrace& tr_;
  const std::vector<Event>& ev_;
  const int32_t rank_;
  const BuildOptions& opt_;
  BuildReport& rep_;
  RankBuild out_;
  RankInfo info_;
  std::vector<uint32_t> runtime_, gpu_, ranges_, steps_; // events by kind, steps by start
  int32_t step_base_ = 0;
  std::vector<int64_t> step_starts_;
  std::map<uint32_t, uint32_t> cpu_thread_; // trace thread -> ExecThread
  // ranges per trace thread, for layers and phases
  std::map<uint32_t, std::vector<uint32_t>> ranges_of_;
  std::unordered_map<int64_t, uint32_t> by_correlation_; // runtime correlation -> task
  std::map<uint32_t, uint32_t> layer_of_range_;
  std::vector<uint32_t> launching_threads_;
  std::map<std::pair<int32_t, int32_t>, uint32_t> stream_thread_; // (device, stream) -> ExecThread
  std::vector<uint32_t> gpu_ids_;                                 // GPU tasks, by start
  std::vector<uint32_t> by_end_;                                  // GPU tasks, by end
};

/** The rank's file, rank, world size and GPU. */
void RankBuilder::describe_rank()
{
  info_.file       = tr_.file.string();
  info_.rank       = tr_.rank >= 0 ? tr_.rank : rank_;
  info_.world_size = tr_.world_size > 0 ? tr_.world_size : 1;
  if (not tr_.devices.empty())
    info_.gpu = tr_.devices.front().name;
}

/** The events by kind: runtime calls, GPU activity, ranges and steps (an error without GPU activity). */
void RankBuilder::classify_events()
{
  for (uint32_t i = 0; i < ev_.size(); ++i) {
    switch (ev_[i].kind) {
    case EventKind::runtime:
      runtime_.push_back(i);
      break;
    case EventKind::kernel:
    case EventKind::memcpy:
    case EventKind::memset:
      gpu_.push_back(i);
      break;
    case EventKind::cpu_op:
    case EventKind::user_annotation:
      ranges_.push_back(i);
      if (is_step_name(tr_.name_of(ev_[i])))
        steps_.push_back(i);
      break;
    default:
      break;
    }
  }
  if (gpu_.empty())
    throw InputError(tr_.file.string(), "",
                     "no GPU activity: none of its " + std::to_string(ev_.size()) +
                         " events is a kernel, a copy or a set (a CPU-only trace cannot be predicted)");
}

/** The rank's steps (ProfilerStep#N spans, one per start), or one step for the whole trace. */
void RankBuilder::add_steps()
{
  std::sort(steps_.begin(), steps_.end(), [&](uint32_t a, uint32_t b) { return ev_[a].ts_ns < ev_[b].ts_ns; });
  {
    std::vector<uint32_t> kept;
    for (uint32_t s : steps_)
      if (kept.empty() || ev_[kept.back()].ts_ns != ev_[s].ts_ns)
        kept.push_back(s);
    steps_ = std::move(kept);
  }
  step_base_ = int32_t(g_.steps.size());
  if (steps_.empty()) { // the whole trace is one step; its span is known at the end
    Step st;
    st.name = "trace";
    st.rank = rank_;
    g_.steps.push_back(st);
  }
  for (uint32_t s : steps_) {
    Step st;
    st.name        = tr_.name_of(ev_[s]);
    st.measured_ns = ev_[s].dur_ns;
    st.rank        = rank_;
    g_.steps.push_back(st);
    step_starts_.push_back(ev_[s].ts_ns);
  }
}

/** The step a time falls in (-1 before the first step and after the last). */
int32_t RankBuilder::step_at(int64_t t) const
{
  if (steps_.empty())
    return step_base_; // the whole trace, added below
  auto it = std::upper_bound(step_starts_.begin(), step_starts_.end(), t);
  if (it == step_starts_.begin())
    return -1;
  auto k     = size_t(it - step_starts_.begin()) - 1;
  uint32_t s = steps_[k];
  if (t >= ev_[s].ts_ns + ev_[s].dur_ns && k + 1 == steps_.size())
    return -1; // after the last step
  return step_base_ + int32_t(k);
}

/** The ExecThread of a trace thread, added on first use. */
uint32_t RankBuilder::exec_cpu(uint32_t trace_thread)
{
  auto it = cpu_thread_.find(trace_thread);
  if (it != cpu_thread_.end())
    return it->second;
  ExecThread t;
  t.kind      = ThreadKind::cpu;
  t.rank      = rank_;
  t.name      = "rank " + std::to_string(info_.rank) + " cpu " + tr_.threads[trace_thread].tid;
  uint32_t id = g_.add_thread(t);
  cpu_thread_.emplace(trace_thread, id);
  return id;
}

/** Each trace thread's runtime calls and step markers (unsorted). */
std::map<uint32_t, std::vector<RankBuilder::Item>> RankBuilder::thread_items() const
{
  std::map<uint32_t, std::vector<Item>> items; // trace thread -> items
  for (uint32_t e : runtime_)
    items[ev_[e].thread].push_back(Item{ev_[e].ts_ns, ev_[e].ts_ns + ev_[e].dur_ns, e, 2, -1});
  for (size_t k = 0; k < steps_.size(); ++k) {
    const Event& s = ev_[steps_[k]];
    items[s.thread].push_back(Item{s.ts_ns, s.ts_ns, kNone, 1, step_base_ + int32_t(k)});
    items[s.thread].push_back(Item{s.ts_ns + s.dur_ns, s.ts_ns + s.dur_ns, kNone, 0, step_base_ + int32_t(k)});
  }
  return items;
}

/** The CPU threads: their ranges, calls and step markers as tasks, chained in each thread's order. */
void RankBuilder::add_cpu_threads()
{
  std::map<uint32_t, std::vector<Item>> items = thread_items();
  for (uint32_t r : ranges_)
    ranges_of_[ev_[r].thread].push_back(r);
  for (auto& [trace_thread, list] : items)
    add_cpu_thread(trace_thread, list);
}

/** A thread's ranges (outer first), and the gradient buckets their record_param_comms name. */
void RankBuilder::add_ranges(const std::vector<uint32_t>& rs, uint32_t thread)
{
  for (uint32_t r : rs) {
    if (ev_[r].collective >= 0 && tr_.name_of(ev_[r]) == "record_param_comms") {
      const CollectiveArgs& c = tr_.collectives[size_t(ev_[r].collective)];
      uint64_t elems          = std::max(c.in_elems, c.out_elems);
      if (elems > 0)
        g_.buckets.push_back(Bucket{ev_[r].ts_ns, thread, rank_, elems * dtype_bytes(c.dtype), c.name});
    }
    Range range;
    range.start_ns   = ev_[r].ts_ns;
    range.end_ns     = ev_[r].ts_ns + ev_[r].dur_ns;
    range.thread     = thread;
    range.name       = g_.intern(tr_.name_of(ev_[r]));
    range.event      = r;
    range.annotation = ev_[r].kind == EventKind::user_annotation;
    g_.ranges.push_back(range);
  }
}

/** One CPU thread: its ranges, then its calls and markers as tasks in order, each to the next. */
void RankBuilder::add_cpu_thread(uint32_t trace_thread, std::vector<Item>& list)
{
  std::sort(list.begin(), list.end(), [](const Item& a, const Item& b) {
    if (a.start != b.start)
      return a.start < b.start;
    if (a.order != b.order)
      return a.order < b.order;
    return a.end > b.end;
  });
  uint32_t thread = exec_cpu(trace_thread);
  // ranges of this thread, outer first
  std::vector<uint32_t>& rs = ranges_of_[trace_thread];
  std::sort(rs.begin(), rs.end(), [&](uint32_t a, uint32_t b) {
    if (ev_[a].ts_ns != ev_[b].ts_ns)
      return ev_[a].ts_ns < ev_[b].ts_ns;
    return ev_[a].dur_ns > ev_[b].dur_ns;
  });
  add_ranges(rs, thread);
  Enclosing enclosing;
  uint32_t prev    = kNone;
  int64_t prev_end = 0;
  bool launches    = false;
  // CPU work before the thread's first call (operators that launch nothing): a CPU task
  if (not rs.empty() && ev_[rs.front()].ts_ns < list.front().start) {
    Task lead;
    lead.kind     = TaskKind::cpu;
    lead.start_ns = ev_[rs.front()].ts_ns;
    lead.dur_ns   = list.front().start - lead.start_ns;
    lead.thread   = thread;
    lead.rank     = rank_;
    lead.step     = step_at(lead.start_ns);
    lead.name     = g_.intern("cpu work");
    prev          = g_.add_task(lead);
    prev_end      = list.front().start;
  }
  for (const Item& it : list) {
    if (it.event != kNone && prev != kNone && it.end <= prev_end && g_.tasks[prev].kind == TaskKind::runtime) {
      // a call inside the previous one (a driver call under a runtime call): part of it
      if (ev_[it.event].correlation >= 0)
        by_correlation_.emplace(ev_[it.event].correlation, prev);
      continue;
    }
    Task t;
    t.start_ns = it.start;
    t.dur_ns   = it.end - it.start;
    t.thread   = thread;
    t.rank     = rank_;
    if (it.event == kNone) {
      t.kind = TaskKind::marker;
      t.step = it.step;
      t.name = g_.intern(g_.steps[size_t(it.step)].name + (it.order == 1 ? " begin" : " end"));
    } else {
      const Event& e = ev_[it.event];
      t.kind         = TaskKind::runtime;
      t.event        = it.event;
      t.name         = g_.intern(tr_.name_of(e));
      t.step         = step_at(it.start);
      launches       = launches || is_launch_call(tr_.name_of(e));
      set_phase_and_layer(t, it.start, rs, enclosing);
    }
    uint32_t id = g_.add_task(t);
    rep_.cpu_tasks += t.kind == TaskKind::runtime;
    if (t.kind == TaskKind::marker) {
      Step& st                            = g_.steps[size_t(it.step)];
      (it.order == 1 ? st.begin : st.end) = id;
    }
    if (it.event != kNone && ev_[it.event].correlation >= 0)
      by_correlation_.emplace(ev_[it.event].correlation, id);
    if (prev != kNone) {
      int64_t gap           = std::max<int64_t>(0, it.start - prev_end);
      g_.tasks[prev].gap_ns = gap;
      g_.add_edge(prev, id, gap, EdgeKind::thread);
    }
    prev     = id;
    prev_end = it.end;
  }
  // CPU work after the thread's last call: its gap
  int64_t ranges_end = prev_end;
  for (uint32_t r : rs)
    ranges_end = std::max(ranges_end, ev_[r].ts_ns + ev_[r].dur_ns);
  if (prev != kNone)
    g_.tasks[prev].gap_ns = ranges_end - prev_end;
  if (launches)
    launching_threads_.push_back(thread);
}

/** A runtime call's phase and layer, from the ranges enclosing its start (`rs` by start, outer
 *  first; `enclosing` follows them from one call to the next). */
void RankBuilder::set_phase_and_layer(Task& t, int64_t start, const std::vector<uint32_t>& rs, Enclosing& enclosing)
{
  std::vector<uint32_t>& stack = enclosing.stack;
  size_t& next_range           = enclosing.next_range;
  // enclosing ranges
  while (next_range < rs.size() && ev_[rs[next_range]].ts_ns <= start) {
    uint32_t r = rs[next_range++];
    while (not stack.empty() && ev_[stack.back()].ts_ns + ev_[stack.back()].dur_ns <= ev_[r].ts_ns)
      stack.pop_back();
    stack.push_back(r);
  }
  while (not stack.empty() && ev_[stack.back()].ts_ns + ev_[stack.back()].dur_ns <= start)
    stack.pop_back();
  Phase phase          = Phase::none;
  bool phase_named     = false;
  uint32_t layer_range = kNone;
  bool backward_op     = false;
  for (uint32_t r : stack) {
    const std::string& n = tr_.name_of(ev_[r]);
    if (auto p = phase_of_name(n)) {
      phase       = *p;
      phase_named = true;
    }
    if (layer_range == kNone && ev_[r].kind == EventKind::cpu_op && not is_frame_name(n))
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
    auto found = layer_of_range_.find(layer_range);
    if (found == layer_of_range_.end()) {
      Layer l;
      l.name  = tr_.name_of(ev_[layer_range]) + "#" + std::to_string(g_.layers.size());
      l.phase = phase;
      found   = layer_of_range_.emplace(layer_range, uint32_t(g_.layers.size())).first;
      g_.layers.push_back(std::move(l));
    }
    t.layer = found->second;
  }
}

/** The ExecThread of a GPU event's stream, added on first use. */
uint32_t RankBuilder::stream_thread(const Event& x)
{
  auto key = std::make_pair(x.device, x.stream);
  auto it  = stream_thread_.find(key);
  if (it == stream_thread_.end()) {
    ExecThread t;
    t.kind   = ThreadKind::stream;
    t.rank   = rank_;
    t.device = x.device;
    t.id     = x.stream;
    t.name   = "rank " + std::to_string(info_.rank) + " gpu " + std::to_string(x.device) + " stream " +
             std::to_string(x.stream);
    it = stream_thread_.emplace(key, g_.add_thread(t)).first;
  }
  return it->second;
}

/** Makes a communication kernel's task a collective (its type, bytes and group), recorded for the
 *  join of the ranks. */
void RankBuilder::add_collective(Task& t, const Event& x, const std::string& n)
{
  t.kind = TaskKind::comm;
  CollectiveInfo c;
  const CollectiveArgs* args = x.collective >= 0 ? &tr_.collectives[size_t(x.collective)] : nullptr;
  c.type                     = collective_type(args ? args->name : std::string(), n);
  if (args) {
    c.bytes      = std::max(args->in_elems, args->out_elems) * dtype_bytes(args->dtype);
    c.group_size = args->group_size;
    c.group      = args->group;
  }
  t.bytes      = c.bytes;
  t.collective = int32_t(g_.collectives.size());
  g_.collectives.push_back(c);
  auto paren = n.find('(');
  out_.comms.push_back(CommRecord{0, c.group, n.substr(0, paren)});
}

/** The GPU streams: each kernel, copy or set a task after its launch, chained in its stream. */
void RankBuilder::add_gpu_tasks()
{
  std::map<uint32_t, std::vector<uint32_t>> stream_tasks; // ExecThread -> tasks
  std::sort(gpu_.begin(), gpu_.end(), [&](uint32_t a, uint32_t b) { return ev_[a].ts_ns < ev_[b].ts_ns; });
  for (uint32_t e : gpu_) {
    const Event& x = ev_[e];
    Task t;
    t.start_ns           = x.ts_ns;
    t.dur_ns             = x.dur_ns;
    t.thread             = stream_thread(x);
    t.event              = e;
    t.rank               = rank_;
    t.name               = g_.intern(tr_.name_of(x));
    t.bytes              = x.bytes;
    const std::string& n = tr_.name_of(x);
    t.kind               = x.kind == EventKind::memcpy   ? TaskKind::memcpy
                           : x.kind == EventKind::memset ? TaskKind::memset
                                                         : TaskKind::kernel;
    if (t.kind == TaskKind::kernel && is_comm_kernel(n))
      add_collective(t, x, n);
    auto launch = by_correlation_.find(x.correlation);
    if (launch != by_correlation_.end()) {
      const Task& l = g_.tasks[launch->second];
      t.step        = l.step;
      t.phase       = l.phase;
      t.layer       = l.layer;
    } else {
      t.step = step_at(x.ts_ns);
    }
    uint32_t id = g_.add_task(t);
    if (t.kind == TaskKind::comm)
      out_.comms.back().task = id;
    gpu_ids_.push_back(id);
    stream_tasks[t.thread].push_back(id);
    rep_.gpu_tasks += 1;
    rep_.comm_tasks += t.kind == TaskKind::comm;
    if (launch != by_correlation_.end()) {
      const Task& l = g_.tasks[launch->second];
      g_.add_edge(launch->second, id, t.start_ns - (l.start_ns + l.dur_ns), EdgeKind::launch);
    } else {
      ++info_.unlaunched;
      ++rep_.unlaunched;
      if (t.step >= 0)
        ++g_.steps[size_t(t.step)].unlaunched;
    }
  }
  for (auto& [thread, list] : stream_tasks)
    for (size_t k = 1; k < list.size(); ++k) {
      const Task& a = g_.tasks[list[k - 1]];
      const Task& b = g_.tasks[list[k]];
      g_.add_edge(list[k - 1], list[k], b.start_ns - (a.start_ns + a.dur_ns), EdgeKind::thread);
    }
}

/** The runtime call that launched a GPU task (kNone when none did). */
uint32_t RankBuilder::launch_of(uint32_t gt) const
{
  for (uint32_t e : g_.in[gt])
    if (g_.edges[e].kind == EdgeKind::launch)
      return g_.edges[e].from;
  return kNone;
}

/** Blocking calls: each call held by the GPU waits (a sync edge) for the GPU task it waited for. */
void RankBuilder::add_sync_edges()
{
  by_end_ = gpu_ids_;
  std::sort(by_end_.begin(), by_end_.end(), [&](uint32_t a, uint32_t b) {
    return g_.tasks[a].start_ns + g_.tasks[a].dur_ns < g_.tasks[b].start_ns + g_.tasks[b].dur_ns;
  });
  const int64_t tolerance = 2'000;
  for (uint32_t c = 0; c < g_.tasks.size(); ++c) {
    Task& call = g_.tasks[c];
    if (call.rank != rank_ || call.kind != TaskKind::runtime)
      continue;
    // a synchronization or a copy blocks by design; any other call that lasts long and returns just
    // after a GPU task ended was held by the GPU too (a launch waiting for room in the full launch
    // queue, cudaFree synchronizing the device)
    bool blocking = is_blocking_call(g_.names[call.name]);
    if (not blocking && call.dur_ns < opt_.held_call_ns)
      continue;
    bool copy       = g_.names[call.name].find("Memcpy") != std::string::npos;
    int64_t c_start = call.start_ns, c_end = call.start_ns + call.dur_ns;
    // own copy's stream: a copy call blocks on earlier work of that stream
    uint32_t own_stream = kNone;
    for (uint32_t e : g_.out[c])
      if (g_.edges[e].kind == EdgeKind::launch)
        own_stream = g_.tasks[g_.edges[e].to].thread;
    if (copy && own_stream == kNone)
      continue;
    auto hi        = std::upper_bound(by_end_.begin(), by_end_.end(), c_end + tolerance,
                                      [&](int64_t v, uint32_t t) { return v < end_of(t); });
    uint32_t found = kNone;
    for (auto it = hi; it != by_end_.begin();) {
      --it;
      uint32_t gt = *it;
      if (end_of(gt) <= c_start)
        break;
      uint32_t l = launch_of(gt);
      if (l == c || (l != kNone && g_.tasks[l].start_ns >= c_start))
        continue;
      if (copy && g_.tasks[gt].thread != own_stream)
        continue;
      found = gt;
      break;
    }
    if (found == kNone || (not blocking && c_end - end_of(found) > opt_.held_call_ns))
      continue;
    int64_t waited_to = std::min(end_of(found), c_end);
    call.dur_ns       = c_end - waited_to;
    call.start_ns     = waited_to;
    g_.add_edge(found, c, waited_to - end_of(found), EdgeKind::sync);
    ++rep_.sync_edges;
  }
}

/** GPU lags and waits between streams: a GPU task's binding parent (the latest one) keeps its
 *  measured lag, the others take the typical lag; an unexplained wait becomes a stream edge. */
void RankBuilder::set_gpu_lags()
{
  std::vector<int64_t> launch_lags, stream_lags;
  for (uint32_t k : gpu_ids_) {
    int64_t sl = INT64_MAX, sp = INT64_MAX;
    for (uint32_t e : g_.in[k]) {
      if (g_.edges[e].kind == EdgeKind::launch)
        sl = g_.edges[e].lag_ns;
      else if (g_.edges[e].kind == EdgeKind::thread)
        sp = g_.edges[e].lag_ns;
    }
    if (sl != INT64_MAX && sl <= sp)
      launch_lags.push_back(sl);
    else if (sp != INT64_MAX && sp < sl)
      stream_lags.push_back(sp);
  }
  const int64_t typical_launch = median(launch_lags, 0);
  const int64_t typical_stream = std::max<int64_t>(0, median(stream_lags, 0));
  std::map<int32_t, std::vector<uint32_t>> device_by_end; // device -> GPU tasks by end
  for (uint32_t t : by_end_)
    device_by_end[g_.threads[g_.tasks[t].thread].device].push_back(t);
  for (uint32_t k : gpu_ids_) {
    const Task& task = g_.tasks[k];
    uint32_t binding = kNone;
    int64_t slack    = INT64_MAX;
    for (uint32_t e : g_.in[k]) {
      const Edge& x = g_.edges[e];
      int64_t s     = task.start_ns - end_of(x.from);
      if (s < slack) {
        slack   = s;
        binding = e;
      }
    }
    int64_t typical_binding = binding == kNone                             ? 0
                              : g_.edges[binding].kind == EdgeKind::launch ? typical_launch
                                                                           : typical_stream;
    // an unexplained wait: another stream's task that ended just before
    if (binding == kNone || slack - typical_binding > opt_.stream_wait_ns) {
      int64_t floor_t  = binding == kNone ? INT64_MIN : task.start_ns - slack;
      const auto& list = device_by_end[g_.threads[task.thread].device];
      auto hi          = std::upper_bound(list.begin(), list.end(), task.start_ns,
                                          [&](int64_t v, uint32_t t) { return v < end_of(t); });
      for (auto it = hi; it != list.begin();) {
        --it;
        if (end_of(*it) < floor_t)
          break;
        if (g_.tasks[*it].thread != task.thread) {
          binding = g_.add_edge(*it, k, task.start_ns - end_of(*it), EdgeKind::stream);
          slack   = task.start_ns - end_of(*it);
          ++rep_.stream_edges;
          break;
        }
      }
    }
    for (uint32_t e : g_.in[k]) {
      Edge& x   = g_.edges[e];
      int64_t s = task.start_ns - end_of(x.from);
      if (e == binding)
        x.lag_ns = s;
      else {
        int64_t typical = x.kind == EdgeKind::launch ? typical_launch : x.kind == EdgeKind::thread ? typical_stream : 0;
        x.lag_ns        = std::min(typical, s);
      }
    }
  }
}

/** Wake-ups between CPU threads of one process: a thread that waits long after a task, while
 *  another launching thread works, is woken by that thread's last task before it (a handoff edge). */
void RankBuilder::add_handoffs()
{
  std::map<std::string, std::vector<uint32_t>> by_pid; // pid -> tasks of launching threads
  std::map<uint32_t, std::string> pid_of;
  for (auto& [trace_thread, exec] : cpu_thread_)
    pid_of[exec] = tr_.threads[trace_thread].pid;
  std::set<uint32_t> launching(launching_threads_.begin(), launching_threads_.end());
  for (uint32_t i = 0; i < g_.tasks.size(); ++i) {
    const Task& t = g_.tasks[i];
    if (t.rank == rank_ && t.thread != kNone && launching.count(t.thread) &&
        g_.threads[t.thread].kind == ThreadKind::cpu)
      by_pid[pid_of[t.thread]].push_back(i);
  }
  for (auto& [pid, list] : by_pid) {
    std::set<uint32_t> threads_here;
    for (uint32_t t : list)
      threads_here.insert(g_.tasks[t].thread);
    if (threads_here.size() < 2)
      continue;
    // measured starts: for blocking calls the effective start moved; use the thread order anyway
    std::sort(list.begin(), list.end(),
              [&](uint32_t a, uint32_t b) { return g_.tasks[a].start_ns < g_.tasks[b].start_ns; });
    std::vector<int64_t> starts(list.size());
    for (size_t k = 0; k < list.size(); ++k)
      starts[k] = g_.tasks[list[k]].start_ns;
    for (uint32_t x : list) {
      uint32_t y = g_.thread_next(x);
      if (y == kNone)
        continue;
      const int64_t x_end = end_of(x);
      int64_t y_start     = g_.tasks[y].start_ns;
      // the thread edge's lag is the gap to y's measured start
      uint32_t thread_edge = kNone;
      for (uint32_t e : g_.out[x])
        if (g_.edges[e].kind == EdgeKind::thread && g_.edges[e].to == y)
          thread_edge = e;
      int64_t y_measured = x_end + g_.edges[thread_edge].lag_ns;
      if (y_measured - x_end < opt_.handoff_ns)
        continue;
      auto lo        = std::lower_bound(starts.begin(), starts.end(), x_end);
      uint32_t first = kNone, last = kNone;
      for (auto it = lo; it != starts.end() && *it < y_measured; ++it) {
        uint32_t o = list[size_t(it - starts.begin())];
        if (g_.tasks[o].thread == g_.tasks[x].thread)
          continue;
        if (first == kNone)
          first = o;
        if (end_of(o) <= y_start)
          last = o;
      }
      if (first == kNone || last == kNone)
        continue;
      int64_t before               = g_.tasks[first].start_ns - x_end;
      g_.edges[thread_edge].lag_ns = std::max<int64_t>(0, before);
      g_.tasks[x].gap_ns           = std::max<int64_t>(0, before);
      g_.add_edge(last, y, y_start - end_of(last), EdgeKind::handoff);
      ++rep_.handoff_edges;
    }
  }
}

/** The span of the step that is the whole trace (one without ProfilerStep): the rank's tasks. */
void RankBuilder::close_trace_step()
{
  Step& st   = g_.steps[size_t(step_base_)];
  int64_t lo = INT64_MAX, hi = INT64_MIN;
  for (uint32_t i = 0; i < g_.tasks.size(); ++i)
    if (g_.tasks[i].rank == rank_) {
      lo = std::min(lo, g_.tasks[i].start_ns);
      hi = std::max(hi, end_of(i));
      if (g_.tasks[i].step < 0)
        g_.tasks[i].step = step_base_;
    }
  st.measured_ns = hi - lo;
  st.unlaunched  = info_.unlaunched;
}

/** Appends one rank's tasks and edges to `g`. */
RankBuild append_rank(Graph& g, const KinetoTrace& tr, int32_t rank, const BuildOptions& opt, BuildReport& rep)
{
  return RankBuilder(g, tr, rank, opt, rep).run();
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
