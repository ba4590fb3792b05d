/* Daydream's kernel-granularity dependency graph (ATC'20, §4): tasks on execution threads (CPU
 * threads, GPU streams, communication channels), dependencies with a lag, a layer and a phase per
 * task, iterations as marker tasks. Pure code: built from a Kineto trace (build.hpp), transformed
 * by the primitives below, predicted by the walk (walk.hpp) or on SimGrid (plugins/whatif_sim). */
#ifndef SGAI_CORE_WHATIF_GRAPH_HPP
#define SGAI_CORE_WHATIF_GRAPH_HPP

#include <cstdint>
#include <functional>
#include <limits>
#include <string>
#include <string_view>
#include <unordered_map>
#include <vector>

namespace sgai::whatif {

constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

enum class TaskKind : uint8_t {
  runtime, ///< a CUDA/HIP runtime call on a CPU thread (launch, copy, synchronization, ...)
  cpu,     ///< other CPU work (inserted by an optimization, data loading)
  kernel,  ///< a GPU kernel
  memcpy,
  memset,
  comm,   ///< a collective or point-to-point transfer (a NCCL kernel, or inserted)
  marker, ///< zero-duration point (iteration boundaries), on its CPU thread
};
const char* to_string(TaskKind k);
inline bool on_gpu(TaskKind k)
{
  return k == TaskKind::kernel || k == TaskKind::memcpy || k == TaskKind::memset || k == TaskKind::comm;
}

enum class ThreadKind : uint8_t { cpu, stream, channel };
const char* to_string(ThreadKind k);

/** The training phase a task belongs to (from record_function ranges, autograd and optimizer
 *  names): Daydream's forward, backward and weight update, plus data loading. */
enum class Phase : uint8_t { none, data, forward, backward, optimizer };
const char* to_string(Phase p);

enum class EdgeKind : uint8_t {
  thread,     ///< consecutive tasks of a CPU thread or GPU stream
  launch,     ///< a runtime call -> the GPU task it launched (correlation id)
  sync,       ///< a GPU task -> the blocking call that waited for it
  stream,     ///< a GPU task -> a GPU task of another stream that waited for it (event wait)
  handoff,    ///< a CPU thread woke another one (the autograd engine, the caller of backward())
  collective, ///< a rank's arrival at a collective -> the collective's transfer (joined ranks)
  inserted,   ///< added by a transformation
};
const char* to_string(EdgeKind k);

struct ExecThread {
  ThreadKind kind = ThreadKind::cpu;
  std::string name; ///< "cpu 1102", "stream 7", "channel 0"
  int32_t rank   = 0;
  int32_t device = -1; ///< GPU streams and channels
  int64_t id     = 0;  ///< tid or stream id
};

struct Task {
  int64_t start_ns   = 0; ///< measured start (effective: a blocking call starts when it stops waiting)
  int64_t dur_ns     = 0;
  int64_t gap_ns     = 0; ///< Daydream's gap: CPU time before the next task of its thread
  uint32_t name      = 0; ///< index into Graph::names
  uint32_t thread    = kNone;
  uint32_t layer     = kNone; ///< index into Graph::layers
  int32_t step       = -1;    ///< index into Graph::steps
  TaskKind kind      = TaskKind::cpu;
  Phase phase        = Phase::none;
  bool removed       = false;
  int32_t collective = -1;    ///< comm tasks: index into Graph::collectives
  uint64_t bytes     = 0;     ///< copies, sets, collectives
  uint32_t event     = kNone; ///< the trace event it came from
  int32_t rank       = 0;
  /** On a channel, the order among ready tasks (lower first; Daydream's schedule override, P3). */
  int32_t priority = 0;
};

struct Edge {
  uint32_t from = 0, to = 0;
  int64_t lag_ns = 0; ///< the child starts no earlier than the parent's end plus this
  EdgeKind kind  = EdgeKind::thread;
  bool removed   = false;
};

struct Layer {
  std::string name; ///< the top-level operator ("aten::conv2d#12", "ConvolutionBackward0#3")
  Phase phase = Phase::none;
};

struct Step {
  std::string name;            ///< "ProfilerStep#4", or "trace" when the trace has none
  uint32_t begin      = kNone; ///< marker tasks (kNone: the trace's first task / last task end)
  uint32_t end        = kNone;
  int64_t measured_ns = 0; ///< the span's measured duration
  int32_t rank        = 0;
  uint64_t unlaunched = 0; ///< GPU tasks without a launch in this step: left out of the baseline
};

struct CollectiveInfo {
  std::string type; ///< "allreduce", ...
  uint64_t bytes     = 0;
  int64_t group_size = 0;
  std::string group;
};

/** A CPU operator or annotation span, kept to map critical CPU time back to operators. */
struct Range {
  int64_t start_ns = 0, end_ns = 0;
  uint32_t thread = kNone;
  uint32_t name   = 0;
  uint32_t event  = kNone;
  uint8_t depth   = 0;
  bool annotation = false;
};

/** A gradient bucket of data-parallel training as the trace announces it (DDP's
 *  record_param_comms ranges with a collective name and size, even in a one-GPU run). */
struct Bucket {
  int64_t time_ns = 0; ///< when the CPU thread issued it
  uint32_t thread = kNone;
  int32_t rank    = 0;
  uint64_t bytes  = 0;
  std::string type; ///< "allreduce", ...
};

struct RankInfo {
  std::string file;
  std::string gpu; ///< device name from deviceProperties
  int64_t rank = 0, world_size = 1;
  uint64_t unlaunched = 0;
};

/** The GPUs' power as the energy figures count it: `busy_w` while any GPU task of the rank runs,
 *  `idle_w` otherwise (the P-state model's wattage of the state the GPUs run in). */
struct GpuPower {
  std::string gpu; ///< the catalogue type the figures come from (empty: unknown, no energy)
  double idle_w         = 0;
  double busy_w         = 0;
  double clock_fraction = 1; ///< f of the P-state (power-cap)
};

class Graph {
public:
  std::vector<Task> tasks;
  std::vector<Edge> edges;
  std::vector<ExecThread> threads;
  std::vector<std::string> names;
  std::vector<Layer> layers;
  std::vector<Step> steps;
  std::vector<CollectiveInfo> collectives;
  std::vector<Range> ranges;
  std::vector<RankInfo> ranks;
  std::vector<Bucket> buckets;
  GpuPower power;

  /** Per task, the ids of its out- and in-edges (removed ones included until compact()). */
  std::vector<std::vector<uint32_t>> out, in;

  uint32_t intern(std::string_view name);
  /** The rank a trace gives itself (distributedInfo) for a task's or thread's rank, which indexes
   *  `ranks`: what every label and output shows. */
  int64_t trace_rank(int32_t rank) const
  {
    return rank >= 0 && size_t(rank) < ranks.size() ? ranks[size_t(rank)].rank : rank;
  }
  const std::string& name_of(uint32_t task) const { return names[tasks[task].name]; }

  uint32_t add_task(const Task& t);
  uint32_t add_edge(uint32_t from, uint32_t to, int64_t lag_ns, EdgeKind kind);
  uint32_t add_thread(ExecThread t);
  size_t live_tasks() const;

  // ------------------------------------------------------------------ primitives (Daydream §4.4)

  /** Select: the live tasks the predicate accepts. */
  std::vector<uint32_t> select(const std::function<bool(const Task&)>& pred) const;
  /** Tasks whose name contains `pattern` (case-sensitive), of the given kind when set. */
  std::vector<uint32_t> select_name(std::string_view pattern) const;

  /** Scale: duration × factor (factor >= 0). */
  void scale(uint32_t task, double factor);
  /** Shrink: duration ÷ factor (factor > 0). */
  void shrink(uint32_t task, double factor) { scale(task, 1.0 / factor); }

  /** Insert `t` on its thread right after `after` (kNone: as the thread's first task); the
   *  thread's order is rewired (after -> t -> after's old successor, lags kept on the outer
   *  edge and 0 inside unless `gap_ns` is given) and `deps` become its parents. Returns its id. */
  uint32_t insert_after(uint32_t after, Task t, const std::vector<uint32_t>& deps = {});
  /** Insert a task that runs when all of `deps` ended (on its thread, after the tasks before it in
   *  the thread's order: channels order by the walk's schedule). */
  uint32_t insert(Task t, const std::vector<uint32_t>& deps);
  /** Remove: the task disappears; each parent becomes a parent of each child (the larger lag
   *  kept), so that ordering through it holds; its thread's gap passes to its predecessor. */
  void remove(uint32_t task);

  /** Drops removed tasks and edges and renumbers (ids change). */
  void compact();

  /** The thread predecessor / successor of a task on a CPU thread or stream (kNone when none). */
  uint32_t thread_prev(uint32_t task) const;
  uint32_t thread_next(uint32_t task) const;

private:
  std::unordered_map<std::string, uint32_t> name_index_;
};

} // namespace sgai::whatif

#endif
