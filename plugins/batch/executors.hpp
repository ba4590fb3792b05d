/* The workload manager's executor pool (private to plugins/batch): executor actors that start
 * executions and wait for them, each holding at most kChunk of them (SimGrid 3.32 searches an
 * actor's activity list at every completion, so the lists stay short); executors are reused, not
 * made per job. The manager (the pool's Client) says whether a chunk still runs, hears of each
 * execution made and of each that ended. */
#ifndef SGAI_PLUGINS_BATCH_EXECUTORS_HPP
#define SGAI_PLUGINS_BATCH_EXECUTORS_HPP

#include "plugins/batch/hosts.hpp"
#include "plugins/batch/profiles/profile_run.hpp"

#include <simgrid/forward.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <utility>
#include <vector>

namespace sgai::batch {

class ExecutorPool {
public:
  static constexpr size_t kChunk = 64; ///< executions per executor at most
  struct Chunk {
    uint32_t job;
    uint32_t stage;
    std::vector<std::pair<ExecSpec, uint32_t>> items; ///< (what, index in the stage)
  };

  /** What the pool asks of its owner and tells it. Called from the executors' actors. */
  class Client {
  public:
    virtual ~Client() = default;
    /** Whether a chunk's executions start (false: its job was ended meanwhile, nothing starts). */
    virtual bool wanted(const Chunk& c) = 0;
    /** The execution of item `index` of a chunk, made, not started yet. */
    virtual void made(const Chunk& c, uint32_t index, const simgrid::s4u::ExecPtr& e) = 0;
    /** An execution no longer runs: finished (`ok`), or canceled, or its host failed. */
    virtual void ended(const simgrid::s4u::Activity& a, bool ok) = 0;
  };

  /** Executors run on the first used host of `hosts` (read when an executor is made). */
  ExecutorPool(Client& client, const HostMap& hosts);
  ~ExecutorPool();
  ExecutorPool(const ExecutorPool&)            = delete;
  ExecutorPool& operator=(const ExecutorPool&) = delete;

  /** Gives a chunk to an idle executor (a new one when none is idle), which starts it. */
  void run(Chunk c);
  /** Cancels every execution the executors wait for. */
  void cancel_all();

private:
  struct Executor;
  Client& client_;
  const HostMap& hosts_;
  std::vector<std::unique_ptr<Executor>> executors_;
  std::vector<Executor*> idle_;

  Executor* idle_executor();
  void executor_loop(Executor* x);
};

} // namespace sgai::batch

#endif
