#include "plugins/gpu/stream.hpp"

#include "plugins/gpu/gpu.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/ConditionVariable.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Mutex.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <cmath>
#include <deque>
#include <mutex>
#include <stdexcept>
#include <utility>

namespace s4u = simgrid::s4u;

namespace sgai::gpu {

kernels::KernelTime kernel_time(s4u::Host* gpu, const Kernel& k)
{
  auto check = [&k](const char* what, double v) {
    if (not std::isfinite(v) || v < 0)
      throw std::invalid_argument("kernel '" + k.name + "': " + what + " " + std::to_string(v) +
                                  " is not a finite number >= 0");
  };
  check("ops", k.ops);
  check("bytes", k.bytes);
  check("measured_s", k.measured_s);
  const auto& model = gpu::GpuModel::of(gpu);
  double peak       = model.peak(k.precision);
  if (peak <= 0)
    peak = gpu->get_pstate_speed(0) * gpu->get_core_count();
  kernels::KernelTime t;
  if (k.measured_s > 0) {
    if (kernels::classify_kernel(k.name, k.ops, k.bytes, peak, model.mem_bw_Bps) == kernels::KernelBound::memory)
      t.memory_s = k.measured_s;
    else
      t.compute_s = k.measured_s;
    return t;
  }
  t.compute_s = k.ops > 0 && peak > 0 ? k.ops / peak : 0;
  if (k.bytes > 0 && model.mem_bw_Bps > 0)
    t.memory_s = k.bytes / model.mem_bw_Bps;
  return t;
}

namespace {
double seconds_now(s4u::Host* gpu, const kernels::KernelTime& t)
{
  unsigned long p = gpu->get_pstate();
  return t.at(gpu::GpuModel::compute_speed(gpu, p), gpu::GpuModel::of(gpu).memory_speed(p));
}
} // namespace

double kernel_seconds(s4u::Host* gpu, const Kernel& k)
{
  return seconds_now(gpu, kernel_time(gpu, k));
}

void execute(s4u::Host* gpu, const kernels::KernelTime& t)
{
  double seconds = seconds_now(gpu, t);
  if (seconds <= 0)
    return;
  s4u::ExecPtr e = s4u::Exec::init();
  e->set_host(gpu);
  e->set_flops_amount(seconds * gpu->get_pstate_speed(gpu->get_pstate()));
  e->start();
  e->wait();
}

void execute(s4u::Host* gpu, const Kernel& k)
{
  execute(gpu, kernel_time(gpu, k));
}

// ------------------------------------------------------------------------------------------ Event

struct Event::State {
  bool done   = false;
  double time = -1;
  s4u::MutexPtr mutex; // made when an actor first waits
  s4u::ConditionVariablePtr ended;

  void complete()
  {
    if (done)
      return;
    done = true;
    time = s4u::Engine::get_clock();
    if (ended)
      ended->notify_all();
  }
};

Event::Event(std::shared_ptr<State> s)
    : state_(std::move(s))
{
}

bool Event::done() const
{
  return state_->done;
}

double Event::time() const
{
  return state_->time;
}

void Event::wait() const
{
  if (state_->done)
    return;
  if (not state_->ended) {
    state_->mutex = s4u::Mutex::create();
    state_->ended = s4u::ConditionVariable::create();
  }
  std::unique_lock<s4u::Mutex> lock(*state_->mutex);
  while (not state_->done)
    state_->ended->wait(lock);
}

// ----------------------------------------------------------------------------------------- Stream

struct Stream::State {
  s4u::Host* gpu = nullptr;
  std::deque<std::pair<std::function<void()>, std::shared_ptr<Event::State>>> queue;
  s4u::SemaphorePtr work = s4u::Semaphore::create(0);
  bool closing           = false;
  bool stopped           = false;
  double busy_s          = 0;
  std::string error;

  /** The stream's actor: one item after the other, in order. */
  static void serve(const std::shared_ptr<State>& s)
  {
    while (true) {
      s->work->acquire();
      if (s->queue.empty()) {
        if (s->closing)
          return;
        continue;
      }
      auto [item, event] = std::move(s->queue.front());
      s->queue.pop_front();
      double t0 = s4u::Engine::get_clock();
      try {
        if (item)
          item();
      } catch (const std::exception& e) { // said, and what waits for the stream is released
        s->error   = e.what();
        s->stopped = true;
        event->complete();
        for (auto& [_, later] : s->queue)
          later->complete();
        s->queue.clear();
        return;
      }
      s->busy_s += s4u::Engine::get_clock() - t0;
      event->complete();
    }
  }
};

Stream::Stream(s4u::Host* gpu, const std::string& name)
    : state_(std::make_shared<State>())
{
  if (gpu == nullptr)
    throw std::invalid_argument("a stream needs a GPU host");
  state_->gpu = gpu;
  s4u::Actor::create(name, gpu, [s = state_]() { State::serve(s); })->daemonize();
}

Stream::~Stream()
{
  state_->closing = true;
  if (not s4u::Actor::is_maestro()) // (after the simulation, its daemon actor has been killed)
    state_->work->release();
}

s4u::Host* Stream::gpu() const
{
  return state_->gpu;
}

Event Stream::enqueue(std::function<void()> work)
{
  auto event = std::make_shared<Event::State>();
  if (state_->stopped) {
    event->complete();
    return Event(event);
  }
  state_->queue.emplace_back(std::move(work), event);
  state_->work->release();
  return Event(event);
}

Event Stream::launch(const Kernel& k)
{
  kernels::KernelTime t = kernel_time(state_->gpu, k); // (std::invalid_argument now, to the caller)
  return enqueue([gpu = state_->gpu, t]() { execute(gpu, t); });
}

void Stream::wait_event(const Event& e)
{
  enqueue([e]() { e.wait(); });
}

Event Stream::record()
{
  return enqueue(nullptr);
}

void Stream::synchronize()
{
  record().wait();
}

double Stream::busy_s() const
{
  return state_->busy_s;
}

const std::string& Stream::error() const
{
  return state_->error;
}

} // namespace sgai::gpu
