/* Batsim's protocol (Batsim 4.x, the version batsched 1.4 speaks; oar-team/batsim docs/protocol.rst):
 * the messages the workload manager sends a scheduler process and the decisions it reads back.
 * A message is one JSON object {"now": t, "events": [{"timestamp", "type", "data"}...]}; the
 * workload manager is the REQ side (plugins/batch/external.hpp carries the text over ZeroMQ).
 * Pure: text in, text out. Resources are named by Batsim's interval sets ("0-3 7 9-10"). */
#ifndef SGAI_CORE_SCHEDULING_BATSIM_PROTOCOL_HPP
#define SGAI_CORE_SCHEDULING_BATSIM_PROTOCOL_HPP

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::scheduling {

/** Ids as an interval set, ascending, ranges of 2 or more ids as "a-b": {0,1,2,5} -> "0-2 5". */
std::string to_interval_set(std::vector<uint32_t> ids);
/** The ids of an interval set ("0-2 5", ranges and single ids separated by spaces), ascending.
 *  std::invalid_argument naming the part that is wrong: not a number, a range backwards, an id
 *  at or above `limit`, an id twice, an empty set. */
std::vector<uint32_t> parse_interval_set(std::string_view text, uint32_t limit);

/** What a scheduler may send (Batsim's scheduler-to-Batsim and bidirectional events). */
enum class BatsimEventType {
  execute_job,
  reject_job,
  kill_job,
  call_me_later,
  set_resource_state,
  set_job_metadata,
  change_job_state,
  register_job,
  register_profile,
  query,
  answer,
  notify
};
const char* to_string(BatsimEventType t);

/** One event of a scheduler's reply, read and checked for its form (not yet against the state). */
struct BatsimDecision {
  BatsimEventType type = BatsimEventType::notify;
  double timestamp     = 0;
  uint32_t index       = 0;         ///< its place in the message's events
  std::string job_id;               ///< execute, reject, metadata, change_job_state, register_job
  std::vector<std::string> job_ids; ///< kill_job
  std::vector<uint32_t> alloc;      ///< execute_job, set_resource_state: resource ids, ascending
  std::string alloc_text;           ///< as the scheduler wrote it
  /** execute_job: executor k runs on alloc[mapping[k]] (Batsim's "mapping"); empty: one executor
   *  per allocated resource, in order. */
  std::vector<uint32_t> mapping;
  double at     = 0; ///< call_me_later: when
  int64_t state = 0; ///< set_resource_state: the P-state
  /** set_job_metadata: the metadata; notify: its type; change_job_state: the state; query: the
   *  request's name (one event per request); register_profile: the profile's name. */
  std::string text;
  std::string extra;    ///< change_job_state: kill_reason; register_*: the job's or profile's JSON text
  std::string workload; ///< register_profile: the workload's name
};

struct BatsimReply {
  double now = 0;
  std::vector<BatsimDecision> events;
};

/** Reads a scheduler's reply. `where` names it in errors ("scheduler at tcp://...: reply 12");
 *  allocations must name ids below `resources`; no event may be dated before `request_now` (the
 *  past) nor after the reply's `now`, and dates must not decrease (Batsim's constraints).
 *  InputError naming `where`, the JSON pointer of the field and the value. */
BatsimReply parse_batsim_reply(const std::string& text, const std::string& where, double request_now,
                               uint32_t resources);

/** A compute resource as SIMULATION_BEGINS describes it. */
struct BatsimResource {
  std::string name;
  std::vector<std::pair<std::string, std::string>> properties; ///< the host's, as the platform gives them
};

/** What SIMULATION_BEGINS says besides the resources. */
struct BatsimBegin {
  std::string workload_name;     ///< "w0", the job ids' prefix
  std::string workload_file;     ///< absolute path
  std::string profiles_json;     ///< the workload's profiles as one JSON object (name -> profile)
  std::string sched_config;      ///< Batsim's --sched-cfg, forwarded as config["sched-config"]
  bool forward_profiles = false; ///< profiles also sent with each JOB_SUBMITTED
  bool dynamic_jobs     = false; ///< the scheduler may register jobs and profiles
  bool acknowledge_jobs = false; ///< registered jobs are acknowledged with a JOB_SUBMITTED
};

/** A message to the scheduler, built event by event (dates must not decrease), then taken. */
class BatsimRequest {
public:
  void simulation_begins(double t, const std::vector<BatsimResource>& resources, const BatsimBegin& begin);
  /** `job_json`: the job's description (id, subtime, res, walltime, profile, ...); `profile_json`
   *  sent too when not empty. */
  void job_submitted(double t, const std::string& job_id, const std::string& job_json,
                     const std::string& profile_json = {});
  /** `state`: COMPLETED_SUCCESSFULLY, COMPLETED_FAILED, COMPLETED_WALLTIME_REACHED... */
  void job_completed(double t, const std::string& job_id, const char* state, int return_code,
                     const std::vector<uint32_t>& alloc);
  /** Killed jobs with their progress (a JSON object per job: {"profile", "progress"}). */
  void job_killed(double t, const std::vector<std::string>& job_ids, const std::vector<std::string>& progress_json);
  void resource_state_changed(double t, const std::vector<uint32_t>& resources, int64_t state);
  void requested_call(double t);
  void notify(double t, const std::string& type);
  void answer_energy(double t, double joules);
  void simulation_ends(double t);

  bool empty() const { return events_.empty(); }
  size_t size() const { return events_.size(); }
  /** The message dated `now` (no earlier than its events), and empties the request. */
  std::string take(double now);

private:
  std::vector<std::string> events_; ///< each event's JSON text
  void add(double t, const char* type, const std::string& data_json);
};

} // namespace sgai::scheduling

#endif
