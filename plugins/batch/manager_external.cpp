/* The workload manager driven by an external scheduler over Batsim's protocol: what happened at
 * each instant goes out as Batsim's events, the scheduler's decisions come back and are applied
 * (or the run stops, naming the reply, the field and the value). Batsim's rhythm is kept: one
 * request per instant with events while the scheduler is ready (a reply's `now` later than the
 * request's makes it busy until then: events wait), decisions dated after the request applied at
 * their date, a QUERY's ANSWER and the jobs a KILL_JOB ends sent in a new request at the same
 * instant. Resource ids are the platform's cores (Batsim's one-core hosts: its machine ids). */
#include "plugins/batch/manager_impl.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/workload/batsim.hpp"

#include <nlohmann/json.hpp>
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <filesystem>
#include <map>
#include <sstream>

namespace sgai::batch {

namespace {

using ojson = nlohmann::ordered_json;

/** The job as Batsim describes it to the scheduler: its workload fields, the id prefixed. */
std::string job_json(const workload::Workload& w, const workload::Job& j, const std::string& id)
{
  ojson o;
  o["id"]      = id;
  o["subtime"] = j.submit_s;
  o["res"]     = j.resources;
  if (j.walltime_s)
    o["walltime"] = *j.walltime_s;
  o["profile"] = w.profile_of(j).name;
  if (not j.extra_json.empty()) {
    auto extra = ojson::parse(j.extra_json);
    for (auto it = extra.begin(); it != extra.end(); ++it)
      if (not o.contains(it.key()))
        o[it.key()] = it.value();
  }
  return o.dump();
}

/** The workload's profiles as Batsim's JSON (write_batsim's), one object by name. */
std::string profiles_json(const workload::Workload& w)
{
  std::ostringstream out;
  workload::write_batsim(w, out);
  return ojson::parse(out.str())["profiles"].dump();
}

std::string event_place(const std::string& where, const scheduling::BatsimDecision& d)
{
  return where + ": event " + std::to_string(d.index) + " (" + to_string(d.type) + ")";
}

} // namespace

void WorkloadManager::Impl::external_begin()
{
  double now = sg4::Engine::get_clock();
  std::vector<scheduling::BatsimResource> resources;
  resources.reserve(r_.core_count());
  for (uint32_t c = 0; c < r_.core_count(); c++) {
    uint32_t h = r_.cores[c].host;
    scheduling::BatsimResource br;
    br.name = hosts_.cores[h].size() == 1 ? r_.host_names[h]
                                          : r_.host_names[h] + ":" + std::to_string(c - hosts_.cores[h].front());
    if (const sg4::Host* host = hosts_.sg[h]) {
      std::map<std::string, std::string> sorted;
      for (const auto& [k, v] : *host->get_properties())
        sorted.emplace(k, v);
      br.properties.assign(sorted.begin(), sorted.end());
    }
    resources.push_back(std::move(br));
  }
  scheduling::BatsimBegin b;
  b.workload_name    = ext_->workload_name;
  b.workload_file    = std::filesystem::absolute(w_.source).lexically_normal().string();
  b.profiles_json    = profiles_json(w_);
  b.sched_config     = cfg_.sched_config;
  b.dynamic_jobs     = cfg_.dynamic_jobs;
  b.acknowledge_jobs = cfg_.acknowledge_dynamic_jobs;
  ext_->pending.simulation_begins(now, resources, b);
  auto reply = external_exchange(now);
  if (not reply)
    return;
  // applied by the first step, at their dates (this one included): jobs they start are launched there
  ext_->deferred = reply->events;
}

void WorkloadManager::Impl::external_submitted(uint32_t job, double now)
{
  const auto& j  = w_.jobs[job];
  std::string id = ext_->workload_name + "!" + j.id;
  if (ext_->id_of.size() <= job)
    ext_->id_of.resize(job + 1);
  ext_->id_of[job] = id;
  ext_->job_of[id] = job;
  ext_->pending.job_submitted(now, id, job_json(source_of(job), j, id));
}

void WorkloadManager::Impl::external_ended(const Instant& in)
{
  std::vector<std::string> killed, progress;
  for (size_t i = 0; i < in.ending.size(); i++) {
    uint32_t job = in.ending[i];
    if (std::find(ext_->silent.begin(), ext_->silent.end(), job) != ext_->silent.end())
      continue; // ended by CHANGE_JOB_STATE: the scheduler knows
    const std::string& id = ext_->id_of[job];
    FinalState s          = in.ending_state[i];
    if (s == FinalState::killed) {
      killed.push_back(id);
      progress.push_back(ojson({{"profile", profile_to_run(job).name}}).dump());
    } else {
      ext_->pending.job_completed(in.now, id, to_string(s), s == FinalState::success ? 0 : -1,
                                  hist_.records[job].cores);
    }
  }
  if (not killed.empty())
    ext_->pending.job_killed(in.now, killed, progress);
  ext_->silent.clear();
}

void WorkloadManager::Impl::take_kills(Instant& in)
{
  for (const auto& k : ext_->to_kill)
    if (running_.count(k.job) && not in.ends(k.job)) {
      in.ending.push_back(k.job);
      in.ending_state.push_back(k.state);
      if (k.silent)
        ext_->silent.push_back(k.job);
      in.happened = true;
    }
  ext_->to_kill.clear();
}

std::optional<scheduling::BatsimReply> WorkloadManager::Impl::external_exchange(double now)
{
  std::string request = ext_->pending.take(now);
  try {
    std::string text = ext_->socket.exchange(request);
    auto reply       = scheduling::parse_batsim_reply(text, ext_->where(), now, r_.core_count());
    ext_->ready_at   = reply.now;
    ext_->decisions += reply.events.size();
    return reply;
  } catch (const std::exception& e) { // RunError (no reply), InputError (a malformed one)
    error_ = e.what();
    return std::nullopt;
  }
}

std::vector<scheduling::Decision> WorkloadManager::Impl::external_decide(Instant& in)
{
  std::vector<scheduling::Decision> out;
  const double now = in.now;
  while (not ext_->deferred.empty() && ext_->deferred.front().timestamp <= now) {
    scheduling::BatsimDecision d = ext_->deferred.front();
    ext_->deferred.erase(ext_->deferred.begin());
    if (not external_apply(d, now, out))
      return out;
  }
  if (not ext_->static_done && next_submit_ == n_given_) {
    ext_->pending.notify(now, "no_more_static_job_to_submit");
    ext_->static_done = true;
  }
  while (not ext_->pending.empty() && now >= ext_->ready_at) {
    auto reply = external_exchange(now);
    if (not reply)
      return out;
    for (const auto& d : reply->events) {
      if (d.timestamp > now) { // applied at its date (replies come in time order)
        auto at = std::upper_bound(ext_->deferred.begin(), ext_->deferred.end(), d.timestamp,
                                   [](double t, const scheduling::BatsimDecision& x) { return t < x.timestamp; });
        ext_->deferred.insert(at, d);
      } else if (not external_apply(d, now, out)) {
        return out;
      }
    }
  }
  return out;
}

std::optional<uint32_t> WorkloadManager::Impl::external_job(const scheduling::BatsimDecision& d, const std::string& id)
{
  auto it = ext_->job_of.find(id);
  if (it != ext_->job_of.end())
    return it->second;
  error_ = event_place(ext_->where(), d) + ": unknown job " + quote(id) + " (no JOB_SUBMITTED named it)";
  return std::nullopt;
}

bool WorkloadManager::Impl::external_apply(const scheduling::BatsimDecision& d, double now,
                                           std::vector<scheduling::Decision>& out)
{
  using T          = scheduling::BatsimEventType;
  const auto place = [&] { return event_place(ext_->where(), d); };
  switch (d.type) {
  case T::execute_job: {
    auto job = external_job(d, d.job_id);
    if (not job)
      return false;
    const JobRecord& rec = hist_.records[*job];
    if (rec.state != FinalState::pending) {
      error_ = place() + ": job " + quote(d.job_id) + " cannot start: it is " + to_string(rec.state);
      return false;
    }
    uint32_t res = w_.jobs[*job].resources;
    if (not d.mapping.empty()) {
      bool identity = d.mapping.size() == d.alloc.size();
      for (size_t k = 0; identity && k < d.mapping.size(); k++)
        identity = d.mapping[k] == k;
      if (not identity) {
        error_ = place() + ": job " + quote(d.job_id) +
                 ": a mapping placing several executors on one resource is not supported by sgai's workload manager";
        return false;
      }
    }
    if (d.alloc.size() != res) {
      error_ = place() + ": job " + quote(d.job_id) + " asks " + std::to_string(res) + " resources, alloc " +
               quote(d.alloc_text) + " gives " + std::to_string(d.alloc.size());
      return false;
    }
    auto g  = sched_.start_given(*job, d.alloc, now, out);
    using P = scheduling::Scheduler::GivenStart::Problem;
    if (g.problem == P::busy) {
      uint32_t h = r_.cores[g.core].host;
      error_     = place() + ": job " + quote(d.job_id) + ": alloc " + quote(d.alloc_text) + ": resource " +
               std::to_string(g.core) + " (host " + r_.host_names[h] + ") " +
               (g.owner < kHoldKey ? "is running job " + quote(ext_->id_of[g.owner])
                                   : std::string("is asleep or switching (") + to_string(power_.state(h)) + ")");
      return false;
    }
    if (g.problem == P::memory) {
      error_ = place() + ": job " + quote(d.job_id) + ": the node of resource " + std::to_string(g.core) +
               " lacks the memory the job asks";
      return false;
    }
    if (g.problem == P::not_waiting) {
      error_ = place() + ": job " + quote(d.job_id) + " is not waiting";
      return false;
    }
    return true;
  }
  case T::reject_job: {
    auto job = external_job(d, d.job_id);
    if (not job)
      return false;
    if (not sched_.remove_waiting(*job)) {
      error_ = place() + ": job " + quote(d.job_id) + " cannot be rejected: it is " +
               to_string(hist_.records[*job].state) + ", not waiting";
      return false;
    }
    hist_.records[*job].state    = FinalState::rejected;
    hist_.records[*job].finish_s = now;
    done_++;
    return true;
  }
  case T::kill_job:
    for (const auto& id : d.job_ids) {
      auto job = external_job(d, id);
      if (not job)
        return false;
      FinalState s = hist_.records[*job].state;
      if (s == FinalState::pending) {
        error_ = place() + ": job " + quote(id) + " is waiting, not running (REJECT_JOB takes a waiting job out)";
        return false;
      }
      if (s == FinalState::running && running_.count(*job))
        ext_->to_kill.push_back({*job, FinalState::killed, false});
    }
    return true;
  case T::call_me_later:
    timed_.push({d.at, seq_++, 0, 0, false, kCallTimer});
    ext_->calls++;
    return true;
  case T::set_job_metadata: {
    auto job = external_job(d, d.job_id);
    if (not job)
      return false;
    hist_.records[*job].metadata = d.text;
    return true;
  }
  case T::query: {
    if (d.text != "consumed_energy") {
      error_ = place() + ": unknown request " + quote(d.text) + " (known: consumed_energy)";
      return false;
    }
    if (not ledger_->enabled()) {
      error_ = place() + ": consumed_energy: the platform's hosts have no wattage_per_state (no energy is simulated)";
      return false;
    }
    double joules = 0;
    for (uint32_t h : hosts_.used)
      joules += sg_host_get_consumed_energy(hosts_.sg[h]);
    ext_->pending.answer_energy(now, joules);
    return true;
  }
  case T::notify:
    if (d.text == "registration_finished" || d.text == "continue_registration") {
      if (not cfg_.dynamic_jobs)
        return true; // (nothing to finish: Batsim ignores it too)
      bool finish = d.text == "registration_finished";
      if (finish != ext_->registration_finished) { // (twice the same: nothing changes)
        ext_->registration_finished = finish;
        if (finish)
          open_submitters_--;
        else
          open_submitters_++;
      }
      return true;
    }
    error_ =
        place() + ": unknown notification " + quote(d.text) + " (known: registration_finished, continue_registration)";
    return false;
  case T::answer:
    error_ = place() + ": an ANSWER to no QUERY (the workload manager asks none)";
    return false;
  case T::set_resource_state:
    return external_set_state(d, now);
  case T::change_job_state:
    return external_change_state(d, now);
  case T::register_job:
    return external_register_job(d, now);
  case T::register_profile:
    return external_register_profile(d);
  }
  return false;
}

bool WorkloadManager::Impl::external_set_state(const scheduling::BatsimDecision& d, double now)
{
  const auto place = [&] { return event_place(ext_->where(), d) + ": resources " + quote(d.alloc_text); };
  std::vector<uint32_t> hosts;
  for (uint32_t c : d.alloc)
    if (hosts.empty() || hosts.back() != r_.cores[c].host)
      hosts.push_back(r_.cores[c].host);
  std::sort(hosts.begin(), hosts.end());
  hosts.erase(std::unique(hosts.begin(), hosts.end()), hosts.end());
  External::StateRequest req{d.alloc, d.state, {}};
  for (uint32_t h : hosts) {
    const std::string host = "host " + r_.host_names[h];
    for (uint32_t c : hosts_.cores[h])
      if (not std::binary_search(d.alloc.begin(), d.alloc.end(), c)) {
        error_ = place() + ": names some of " + host + "'s cores but not " + std::to_string(c) +
                 ": a machine changes state whole";
        return false;
      }
    if (not power_.can_switch()) {
      error_ = place() + ": " + host +
               " has no sleep_pstates property (Batsim's \"sleep:off:on\" P-states): machines cannot change state here";
      return false;
    }
    const auto& sp = power_.sleep_pstates(h);
    int count      = static_cast<int>(hosts_.sg[h]->get_pstate_count());
    auto state     = power_.state(h);
    using M        = scheduling::MachineState;
    if (d.state >= count || d.state == sp.off || d.state == sp.on) {
      error_ = place() + ": P-state " + std::to_string(d.state) + " is not a state " + host +
               " can be set to (it has " + std::to_string(count) + " P-states; " + std::to_string(sp.off) + " and " +
               std::to_string(sp.on) + " are its switching ones)";
      return false;
    }
    if (d.state == sp.sleep) {
      if (state != M::idle) {
        error_ = place() + ": " + host + " cannot be switched off: it is " + to_string(state) +
                 " (only an idle machine can)";
        return false;
      }
      power_.switch_off(h, now);
      req.hosts_left.push_back(h);
    } else if (state == M::sleeping) {
      power_.set_compute_pstate(h, static_cast<int>(d.state), now);
      power_.switch_on(h, now);
      req.hosts_left.push_back(h);
    } else if (state == M::idle || state == M::computing) {
      power_.set_compute_pstate(h, static_cast<int>(d.state), now);
    } else {
      error_ = place() + ": " + host + " is " + to_string(state) + ": its state cannot change before the switch ends";
      return false;
    }
  }
  if (req.hosts_left.empty())
    ext_->pending.resource_state_changed(now, req.resources, req.state);
  else
    ext_->state_requests.push_back(std::move(req));
  return true;
}

void WorkloadManager::Impl::external_switched(double now)
{
  for (uint32_t h : power_.just_switched())
    for (auto& r : ext_->state_requests)
      r.hosts_left.erase(std::remove(r.hosts_left.begin(), r.hosts_left.end(), h), r.hosts_left.end());
  auto done = std::stable_partition(ext_->state_requests.begin(), ext_->state_requests.end(),
                                    [](const External::StateRequest& r) { return r.hosts_left.empty(); });
  for (auto it = ext_->state_requests.begin(); it != done; ++it)
    ext_->pending.resource_state_changed(now, it->resources, it->state);
  ext_->state_requests.erase(ext_->state_requests.begin(), done);
}

bool WorkloadManager::Impl::external_register_profile(const scheduling::BatsimDecision& d)
{
  const std::string place = event_place(ext_->where(), d);
  if (not cfg_.dynamic_jobs) {
    error_ = place + ": dynamic jobs are not enabled (--enable-dynamic-jobs, as Batsim's option)";
    return false;
  }
  if (d.workload.empty() || d.text.empty()) {
    error_ = place + ": a profile needs a workload name and a profile name";
    return false;
  }
  auto& profiles = ext_->profiles[d.workload];
  if (profiles.count(d.text)) {
    error_ = place + ": profile " + quote(d.text) + " of workload " + quote(d.workload) + " is already registered";
    return false;
  }
  profiles[d.text] = d.extra;
  return true;
}

bool WorkloadManager::Impl::external_register_job(const scheduling::BatsimDecision& d, double now)
{
  const std::string place = event_place(ext_->where(), d);
  if (not cfg_.dynamic_jobs) {
    error_ = place + ": dynamic jobs are not enabled (--enable-dynamic-jobs, as Batsim's option)";
    return false;
  }
  if (ext_->registration_finished) {
    error_ = place + ": job " + quote(d.job_id) + " registered after NOTIFY registration_finished";
    return false;
  }
  size_t bang = d.job_id.find('!');
  if (bang == std::string::npos || bang == 0 || bang + 1 == d.job_id.size()) {
    error_ = place + ": job id " + quote(d.job_id) + " is not WORKLOAD!NAME";
    return false;
  }
  if (ext_->job_of.count(d.job_id)) {
    error_ = place + ": job id " + quote(d.job_id) + " is already taken";
    return false;
  }
  if (d.extra.empty()) {
    error_ = place + ": job " + quote(d.job_id) + " comes without its description ('job'; Redis is not supported)";
    return false;
  }
  std::string wl = d.job_id.substr(0, bang);
  auto found     = ext_->profiles.find(wl);
  if (found == ext_->profiles.end()) {
    error_ = place + ": workload " + quote(wl) + " has no registered profile (REGISTER_PROFILE comes first)";
    return false;
  }
  std::shared_ptr<const workload::Workload> from;
  try {
    ojson job      = ojson::parse(d.extra);
    job["id"]      = d.job_id.substr(bang + 1);
    job["subtime"] = now;
    ojson text     = {{"jobs", ojson::array({job})}, {"profiles", ojson::object()}};
    for (const auto& [name, p] : found->second)
      text["profiles"][name] = ojson::parse(p);
    from = std::make_shared<const workload::Workload>(workload::read_batsim_text(text.dump(), place, wl));
  } catch (const std::exception& e) { // InputError naming the field, or the job not an object
    error_ = e.what();
    return false;
  }
  uint32_t job = 0;
  try {
    job = submit(from, 0);
  } catch (const std::invalid_argument& e) {
    error_ = place + ": " + e.what();
    return false;
  }
  arrived_.pop_back(); // queued now: a decision of the same reply may start it
  sched_.enqueue(queued(job));
  if (ext_->id_of.size() <= job)
    ext_->id_of.resize(job + 1);
  ext_->id_of[job]       = d.job_id;
  ext_->job_of[d.job_id] = job;
  if (cfg_.acknowledge_dynamic_jobs)
    ext_->pending.job_submitted(now, d.job_id, job_json(*from, from->jobs[0], d.job_id));
  return true;
}

bool WorkloadManager::Impl::external_change_state(const scheduling::BatsimDecision& d, double now)
{
  const std::string place = event_place(ext_->where(), d);
  auto job                = external_job(d, d.job_id);
  if (not job)
    return false;
  JobRecord& rec                                                    = hist_.records[*job];
  static const std::vector<std::pair<std::string, FinalState>> ends = {
      {"COMPLETED_SUCCESSFULLY", FinalState::success},
      {"COMPLETED_FAILED", FinalState::failed},
      {"COMPLETED_WALLTIME_REACHED", FinalState::walltime_reached},
      {"COMPLETED_KILLED", FinalState::killed}};
  auto end = std::find_if(ends.begin(), ends.end(), [&](const auto& e) { return e.first == d.text; });
  if (rec.state == FinalState::pending && (d.text == "REJECTED" || d.text == "RUNNING")) {
    sched_.remove_waiting(*job);
    if (d.text == "REJECTED") {
      rec.state    = FinalState::rejected;
      rec.finish_s = now;
      done_++;
    } else { // running as far as the books go: nothing executes, no resource is held
      rec.state   = FinalState::running;
      rec.start_s = now;
      ext_->bookkept.push_back(*job);
    }
    return true;
  }
  if (rec.state == FinalState::running && end != ends.end()) {
    auto b = std::find(ext_->bookkept.begin(), ext_->bookkept.end(), *job);
    if (b != ext_->bookkept.end()) {
      ext_->bookkept.erase(b);
      rec.state    = end->second;
      rec.finish_s = now;
      done_++;
    } else {
      ext_->to_kill.push_back({*job, end->second, true});
    }
    return true;
  }
  error_ = place + ": job " + quote(d.job_id) + " is " + to_string(rec.state) + ": it cannot be set " + quote(d.text) +
           " (a waiting job can be set RUNNING or REJECTED, a running one COMPLETED_SUCCESSFULLY, _FAILED, "
           "_WALLTIME_REACHED or _KILLED)";
  return false;
}

bool WorkloadManager::Impl::external_end(double now)
{
  ext_->pending.simulation_ends(now);
  auto reply = external_exchange(now);
  if (not reply)
    return false;
  if (not reply->events.empty()) {
    error_ = ext_->where() + ": the reply to SIMULATION_ENDS holds " + std::to_string(reply->events.size()) +
             (reply->events.size() == 1 ? " event" : " events") + "; it must hold none";
    return false;
  }
  return true;
}

} // namespace sgai::batch
