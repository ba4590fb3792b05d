/* The workload manager's executor pool: executor actors, each starting a chunk of executions and
 * reporting each one's end to the manager. */
#include "plugins/batch/executors.hpp"

#include <simgrid/Exception.hpp>
#include <simgrid/s4u/Activity.hpp>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>

#include <string>

namespace sgai::batch {

namespace sg4 = simgrid::s4u;

struct ExecutorPool::Executor {
  sg4::SemaphorePtr go = sg4::Semaphore::create(0);
  std::optional<Chunk> chunk;
  std::vector<sg4::ActivityPtr> pending; ///< started, waited for (as activities: Exec::wait_any would
                                         ///< convert the list at every call)
};

ExecutorPool::ExecutorPool(Client& client, const HostMap& hosts)
    : client_(client)
    , hosts_(hosts)
{
}

ExecutorPool::~ExecutorPool() = default;

void ExecutorPool::run(Chunk c)
{
  Executor* x = idle_executor();
  x->chunk    = std::move(c);
  x->go->release();
}

ExecutorPool::Executor* ExecutorPool::idle_executor()
{
  if (not idle_.empty()) {
    Executor* x = idle_.back();
    idle_.pop_back();
    return x;
  }
  executors_.push_back(std::make_unique<Executor>());
  Executor* x = executors_.back().get();
  sg4::Actor::create("executor_" + std::to_string(executors_.size() - 1), hosts_.sg[hosts_.used.front()], [this, x]() {
    executor_loop(x);
  })->daemonize(); // waits for work until the manager is done
  return x;
}

/** An executor's body: start a chunk of executions, wait for them one by one, report each. */
void ExecutorPool::executor_loop(Executor* x)
{
  std::vector<sg4::ActivityPtr>& pending = x->pending;
  while (true) {
    x->go->acquire();
    Chunk c = std::move(*x->chunk);
    x->chunk.reset();
    if (client_.wanted(c)) { // (else: killed meanwhile)
      for (auto& [spec, index] : c.items) {
        sg4::ExecPtr e = sg4::Exec::init();
        if (spec.bytes.empty()) {
          e->set_host(hosts_.sg[spec.hosts[0]]);
          e->set_flops_amount(spec.flops[0]);
          if (spec.threads > 1)
            e->set_thread_count(spec.threads);
        } else {
          std::vector<sg4::Host*> hs;
          for (uint32_t h : spec.hosts)
            hs.push_back(hosts_.sg[h]);
          e->set_hosts(hs);
          e->set_flops_amounts(spec.flops);
          e->set_bytes_amounts(spec.bytes);
        }
        client_.made(c, index, e);
        pending.push_back(e);
      }
      for (auto& e : pending)
        e->start();
    }
    while (not pending.empty()) {
      try {
        sg4::Activity::wait_any(pending);
      } catch (const simgrid::Exception&) { // canceled (the job was killed) or a host failed
      }
      // Everything that no longer runs. An execution that ended at this instant beside the one
      // waited for still says STARTED (SimGrid updates that state only when it is waited for or
      // tested, a simcall each, and wait_any visits all of them each time: quadratic when a job's
      // executions end together), but SimGrid set its finish time when it ended (read without a
      // simcall; it stays -1 for one canceled or failed): it is ended as finished.
      for (size_t k = 0; k < pending.size();) {
        const sg4::Activity::State state = pending[k]->get_state();
        const bool ended_beside          = state == sg4::Activity::State::STARTED && pending[k]->get_finish_time() >= 0;
        if (state == sg4::Activity::State::STARTED && not ended_beside) {
          k++;
          continue;
        }
        client_.ended(*pending[k], ended_beside || state == sg4::Activity::State::FINISHED);
        pending[k] = pending.back();
        pending.pop_back();
      }
    }
    idle_.push_back(x);
  }
}

void ExecutorPool::cancel_all()
{
  for (const auto& x : executors_)
    for (const auto& e : x->pending)
      if (e->get_state() == sg4::Activity::State::STARTED)
        e->cancel();
}

} // namespace sgai::batch
