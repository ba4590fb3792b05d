/* PyTorch profiler (Kineto) traces: Chrome-trace JSON read by a streaming parser into compact
 * events. Both schemas are read: the old one (categories Operator, Runtime, Kernel, Memcpy, Memset;
 * thread ids like "stream 7") and the new one (cpu_op, cuda_runtime, cuda_driver, kernel, gpu_memcpy,
 * gpu_memset, user_annotation, gpu_user_annotation, cuda_sync), CUDA and ROCm (hip*) names alike.
 * Timestamps are kept in integer nanoseconds, parsed from the text (a double loses them). */
#ifndef SGAI_CORE_WHATIF_KINETO_HPP
#define SGAI_CORE_WHATIF_KINETO_HPP

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace sgai::whatif {

enum class EventKind : uint8_t {
  cpu_op,          ///< an operator or a record_function range on a CPU thread
  user_annotation, ///< a user range on a CPU thread (ProfilerStep#N, nccl:all_reduce, ...)
  runtime,         ///< a CUDA/HIP runtime or driver call
  kernel,
  memcpy,
  memset,
  gpu_annotation, ///< a user range drawn on a GPU stream
  sync,           ///< a cuda_sync event (Stream Sync, Context Sync, Event Sync, Stream Wait Event)
};

/** The collective a NCCL/RCCL kernel ran, as its arguments give it (new schemas only). */
struct CollectiveArgs {
  std::string name;       ///< "allreduce", "allgather", ...; empty: none given
  uint64_t in_elems  = 0; ///< "In msg nelems"
  uint64_t out_elems = 0;
  std::string dtype;
  int64_t group_size = 0;
  std::string group; ///< "Process Group Name"
  std::string ranks; ///< "Process Group Ranks" as printed
};

struct Event {
  int64_t ts_ns       = 0;
  int64_t dur_ns      = 0;
  uint32_t name       = 0; ///< index into KinetoTrace::names
  uint32_t thread     = 0; ///< index into KinetoTrace::threads
  EventKind kind      = EventKind::cpu_op;
  int64_t correlation = -1;
  int64_t external_id = -1;
  int32_t stream      = -1;
  int32_t device      = -1;
  uint64_t bytes      = 0;
  /** Index into KinetoTrace::collectives (NCCL kernels, record_param_comms), -1: none. */
  int32_t collective = -1;
  /** cuda_sync events: the stream waited on ("wait_on_stream") and the correlation id of the event
   *  record waited on ("wait_on_cuda_event_record_corr_id"); -1 when absent. */
  int32_t wait_stream      = -1;
  int64_t wait_record_corr = -1;
  /** args.critical: HTA's critical-path overlay marks the events on the path. */
  bool critical = false;
};

struct TraceThread {
  std::string pid; ///< as written ("1102", "0", "Spans")
  std::string tid; ///< as written ("1262", "7", "stream 7")
};

struct DeviceProperties {
  int id = -1;
  std::string name;
  double memory_bytes = 0;
  int multiprocessors = 0;
  int compute_major = 0, compute_minor = 0;
};

struct KinetoTrace {
  std::filesystem::path file;
  std::vector<Event> events; ///< complete ("X") events of the kinds above, in file order
  std::vector<std::string> names;
  std::vector<TraceThread> threads;
  std::vector<CollectiveArgs> collectives;
  std::vector<DeviceProperties> devices;
  int64_t rank          = -1; ///< distributedInfo.rank, -1 when absent
  int64_t world_size    = -1;
  uint64_t other_events = 0; ///< events of other phases or categories (flows, instants, metadata)

  const std::string& name_of(const Event& e) const { return names[e.name]; }
};

/** Reads a Kineto JSON trace, plain or gzip. InputError naming the file (and the byte offset or
 *  the event index) when it is no JSON, no Chrome trace (no "traceEvents" array) or an event has a
 *  malformed field. */
KinetoTrace read_kineto(const std::filesystem::path& file);

/** Reads from text already in memory (`file` only names it in errors). */
KinetoTrace parse_kineto(const std::string& text, const std::filesystem::path& file);

} // namespace sgai::whatif

#endif
