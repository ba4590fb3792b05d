/* GPU kernels and streams for a user's own S4U actors, on the GPU hosts sgai_gpu_plugin_init()
 * describes (gpu.hpp): a kernel's time comes from the GPU's model (its operations at the peak of
 * their precision, its bytes at the memory bandwidth, the longer of the two: the roofline; or a
 * time measured at P-state 0) and the host's P-state, as the trace replay times kernels; it runs
 * as an execution on the GPU host, so kernels on one GPU at the same time share it.
 *
 * A Stream is CUDA's: work enqueued from any actor runs in order, one item after the other, by an
 * actor of the stream's own on the GPU host; enqueuing returns at once. Events say when the work
 * enqueued before them has ended:
 *
 *   sgai::gpu::Stream compute(gpu), comm(gpu);
 *   auto grads = compute.launch({"backward", 2e12, 4e9});    // 2 TFLOP, 4 GB of memory traffic
 *   comm.wait_event(grads);                                 // cudaStreamWaitEvent
 *   comm.enqueue([&] { all_reduce->run(rank); });           // a collective's part (collective.hpp)
 *   compute.launch({"optimizer", 0, 8e9});
 *   comm.synchronize();                                     // the calling actor waits
 */
#ifndef SGAI_PLUGINS_GPU_STREAM_HPP
#define SGAI_PLUGINS_GPU_STREAM_HPP

#include "core/kernels/kernel_model.hpp"

#include <simgrid/forward.h>

#include <functional>
#include <memory>
#include <string>
#include <utility>

namespace sgai::gpu {

/** What a kernel does: `ops` operations in `precision` (empty: the GPU's default) and `bytes` of
 *  memory traffic; or, when `measured_s` > 0, its time measured at P-state 0, classed compute- or
 *  memory-bound by its name and intensity (kernels::classify_kernel) so that P-states scale it. */
struct Kernel {
  std::string name;
  double ops   = 0;
  double bytes = 0;
  std::string precision;
  double measured_s = 0;

  Kernel() = default;
  Kernel(std::string kernel_name, double operations, double memory_bytes = 0, std::string in_precision = {})
      : name(std::move(kernel_name))
      , ops(operations)
      , bytes(memory_bytes)
      , precision(std::move(in_precision))
  {
  }
  /** A kernel known by its time at P-state 0. */
  static Kernel measured(std::string kernel_name, double seconds)
  {
    Kernel k;
    k.name       = std::move(kernel_name);
    k.measured_s = seconds;
    return k;
  }
};

/** The kernel's time at P-state 0 on `gpu`, in a compute and a memory part. std::invalid_argument
 *  naming the kernel when a figure is negative or not finite. */
kernels::KernelTime kernel_time(simgrid::s4u::Host* gpu, const Kernel& k);
/** The kernel's time on `gpu` in the P-state the host is in now. */
double kernel_seconds(simgrid::s4u::Host* gpu, const Kernel& k);
/** Runs the kernel on `gpu` from the calling actor; returns when it has ended. */
void execute(simgrid::s4u::Host* gpu, const Kernel& k);
/** Runs work of these parts at P-state 0 on `gpu` in its current P-state (what the replay runs). */
void execute(simgrid::s4u::Host* gpu, const kernels::KernelTime& t);

/** The end of the work a stream had been given when the event was made (cudaEvent). Copies share
 *  the event. */
class Event {
public:
  /** Whether that work has ended. */
  bool done() const;
  /** The simulated time it ended (-1 while it has not). */
  double time() const;
  /** Blocks the calling actor until that work has ended. */
  void wait() const;

  struct State;
  explicit Event(std::shared_ptr<State> s);

private:
  std::shared_ptr<State> state_;
};

class Stream {
public:
  /** A stream on `gpu`: its actor (a daemon, named `name`) waits for work; create it once the
   *  platform is loaded, from main or from an actor. */
  explicit Stream(simgrid::s4u::Host* gpu, const std::string& name = "stream");
  ~Stream();
  Stream(const Stream&)            = delete;
  Stream& operator=(const Stream&) = delete;

  simgrid::s4u::Host* gpu() const;
  /** Enqueues a kernel; the event ends with it. */
  Event launch(const Kernel& k);
  /** Enqueues any work, run by the stream's actor on the GPU host (a collective's part, a copy
   *  as a communication, a host callback); the event ends with it. An exception it throws ends
   *  the stream's actor: error() keeps the message, and later work does not run. */
  Event enqueue(std::function<void()> work);
  /** Later work waits for `e` (cudaStreamWaitEvent). */
  void wait_event(const Event& e);
  /** An event ending with the work enqueued so far (cudaEventRecord). */
  Event record();
  /** Blocks the calling actor until the work enqueued so far has ended (cudaStreamSynchronize). */
  void synchronize();
  /** Seconds the stream's actor has spent running work (waits for events included). */
  double busy_s() const;
  /** The message of the exception that stopped the stream (empty while none did). */
  const std::string& error() const;

  struct State;

private:
  std::shared_ptr<State> state_;
};

} // namespace sgai::gpu

#endif
