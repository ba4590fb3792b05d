/* A scheduler in another process deciding for the workload manager over Batsim's protocol
 * (private to plugins/batch): the ZeroMQ REQ socket the manager connects to the scheduler's REP
 * socket with (as Batsim does; batsched binds its endpoint with -s), and the protocol's state on the
 * manager's side. The simulation is frozen while a reply is awaited; a reply that does not come
 * within the timeout ends the run with an error. */
#ifndef SGAI_PLUGINS_BATCH_EXTERNAL_HPP
#define SGAI_PLUGINS_BATCH_EXTERNAL_HPP

#include "core/scheduling/batsim_protocol.hpp"
#include "plugins/batch/manager.hpp"

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sgai::batch {

class SchedulerSocket {
public:
  /** Connects to `endpoint` (ZeroMQ's form: tcp://host:port, ipc://path); UsageError when ZeroMQ
   *  rejects the endpoint. */
  SchedulerSocket(const std::string& endpoint, double timeout_s);
  ~SchedulerSocket();
  SchedulerSocket(const SchedulerSocket&)            = delete;
  SchedulerSocket& operator=(const SchedulerSocket&) = delete;

  /** Sends a request and returns the reply; RunError when none comes within the timeout (the
   *  scheduler died, hangs, or was never started). */
  std::string exchange(const std::string& request);
  const std::string& endpoint() const { return endpoint_; }
  /** Requests sent so far. */
  uint64_t requests() const { return requests_; }

private:
  struct Zmq;
  std::unique_ptr<Zmq> zmq_;
  std::string endpoint_;
  double timeout_s_;
  uint64_t requests_ = 0;
  bool broken_       = false; ///< a request went unanswered: the REQ socket takes no other
  std::string exchange_once(const std::string& request);
};

/** The protocol's state on the workload manager's side. */
struct External {
  External(const std::string& endpoint, double timeout_s)
      : socket(endpoint, timeout_s)
  {
  }
  SchedulerSocket socket;
  scheduling::BatsimRequest pending;                ///< events not sent yet
  std::string workload_name = "w0";                 ///< Batsim's name of its first workload: job ids are "w0!id"
  std::unordered_map<std::string, uint32_t> job_of; ///< "w0!id" -> job index
  std::vector<std::string> id_of;                   ///< job index -> "w0!id" ("" while unknown)
  std::vector<std::string> metadata;                ///< SET_JOB_METADATA, by job
  bool any_metadata = false;
  double ready_at   = 0; ///< the scheduler is busy until then (its last reply's now)
  bool static_done  = false;
  /** Jobs ended at the next step of this instant: by KILL_JOB (told with JOB_KILLED), or by
   *  CHANGE_JOB_STATE (in the state it names, told nothing: `silent`). */
  struct Kill {
    uint32_t job;
    FinalState state;
    bool silent;
  };
  std::vector<Kill> to_kill;
  std::vector<uint32_t> silent; ///< jobs ending at this instant without an event
  /** Jobs a CHANGE_JOB_STATE set running without executing anything, until another ends them. */
  std::vector<uint32_t> bookkept;
  /** REGISTER_PROFILE: by workload, each profile's JSON text by name. */
  std::map<std::string, std::map<std::string, std::string>> profiles;
  bool registration_finished = false;
  std::vector<scheduling::BatsimDecision> deferred; ///< dated after the request they answered, in order
  uint64_t decisions = 0;                           ///< events the scheduler sent
  uint64_t calls     = 0;                           ///< CALL_ME_LATER not answered yet (the run waits for them)
  /** A SET_RESOURCE_STATE under way: acknowledged once its hosts all switched. */
  struct StateRequest {
    std::vector<uint32_t> resources;
    int64_t state = 0;
    std::vector<uint32_t> hosts_left;
  };
  std::vector<StateRequest> state_requests;

  /** How a reply is named in messages. */
  std::string where() const
  {
    return "scheduler at " + socket.endpoint() + ": reply " + std::to_string(socket.requests());
  }
};

} // namespace sgai::batch

#endif
