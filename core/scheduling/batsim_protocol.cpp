/* Batsim's protocol: interval sets, the scheduler's replies read strictly, requests written. */
#include "core/scheduling/batsim_protocol.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace sgai::scheduling {

std::string to_interval_set(std::vector<uint32_t> ids)
{
  return format_intervals(std::move(ids));
}

namespace {

uint32_t parse_id(std::string_view part, std::string_view whole, uint32_t limit)
{
  uint64_t v     = 0;
  const char* b  = part.data();
  const char* e  = part.data() + part.size();
  auto [ptr, ec] = std::from_chars(b, e, v);
  if (part.empty() || ec != std::errc() || ptr != e)
    throw std::invalid_argument("'" + std::string(part) + "' in interval set '" + std::string(whole) +
                                "' is not a resource id");
  if (v >= limit)
    throw std::invalid_argument("resource " + std::string(part) + " in interval set '" + std::string(whole) +
                                "' is not on the platform (ids 0 to " + std::to_string(limit - 1) + ")");
  return static_cast<uint32_t>(v);
}

/** A date written back by a scheduler whose JSON writer prints doubles a digit short (rapidjson's,
 *  in batsched: 121.60939498711368 for 121.60939498711369) is the date it read: a date before
 *  `now` by at most a few units in the last place is `now` (Batsim's own dates then also run on). */
double at_least(double t, double now)
{
  return t < now && now - t <= 1e-12 * std::max(1.0, std::fabs(now)) ? now : t;
}
} // namespace

std::vector<uint32_t> parse_interval_set(std::string_view text, uint32_t limit)
{
  std::vector<uint32_t> ids;
  size_t i = 0;
  while (i < text.size()) {
    if (text[i] == ' ') {
      i++;
      continue;
    }
    size_t end            = std::min(text.find(' ', i), text.size());
    std::string_view part = text.substr(i, end - i);
    i                     = end;
    size_t dash           = part.find('-');
    if (dash == std::string_view::npos) {
      ids.push_back(parse_id(part, text, limit));
      continue;
    }
    uint32_t a = parse_id(part.substr(0, dash), text, limit);
    uint32_t b = parse_id(part.substr(dash + 1), text, limit);
    if (b < a)
      throw std::invalid_argument("range '" + std::string(part) + "' in interval set '" + std::string(text) +
                                  "' goes backwards");
    for (uint32_t k = a; k <= b; k++)
      ids.push_back(k);
  }
  if (ids.empty())
    throw std::invalid_argument("interval set '" + std::string(text) + "' names no resource");
  std::sort(ids.begin(), ids.end());
  if (auto dup = std::adjacent_find(ids.begin(), ids.end()); dup != ids.end())
    throw std::invalid_argument("resource " + std::to_string(*dup) + " appears twice in interval set '" +
                                std::string(text) + "'");
  return ids;
}

const char* to_string(BatsimEventType t)
{
  switch (t) {
  case BatsimEventType::execute_job:
    return "EXECUTE_JOB";
  case BatsimEventType::reject_job:
    return "REJECT_JOB";
  case BatsimEventType::kill_job:
    return "KILL_JOB";
  case BatsimEventType::call_me_later:
    return "CALL_ME_LATER";
  case BatsimEventType::set_resource_state:
    return "SET_RESOURCE_STATE";
  case BatsimEventType::set_job_metadata:
    return "SET_JOB_METADATA";
  case BatsimEventType::change_job_state:
    return "CHANGE_JOB_STATE";
  case BatsimEventType::register_job:
    return "REGISTER_JOB";
  case BatsimEventType::register_profile:
    return "REGISTER_PROFILE";
  case BatsimEventType::query:
    return "QUERY";
  case BatsimEventType::answer:
    return "ANSWER";
  case BatsimEventType::notify:
    return "NOTIFY";
  }
  return "?";
}

namespace {

const std::vector<std::pair<std::string, BatsimEventType>>& event_types()
{
  static const std::vector<std::pair<std::string, BatsimEventType>> types = {
      {"EXECUTE_JOB", BatsimEventType::execute_job},
      {"REJECT_JOB", BatsimEventType::reject_job},
      {"KILL_JOB", BatsimEventType::kill_job},
      {"CALL_ME_LATER", BatsimEventType::call_me_later},
      {"SET_RESOURCE_STATE", BatsimEventType::set_resource_state},
      {"SET_JOB_METADATA", BatsimEventType::set_job_metadata},
      {"CHANGE_JOB_STATE", BatsimEventType::change_job_state},
      {"REGISTER_JOB", BatsimEventType::register_job},
      {"REGISTER_PROFILE", BatsimEventType::register_profile},
      {"QUERY", BatsimEventType::query},
      {"ANSWER", BatsimEventType::answer},
      {"NOTIFY", BatsimEventType::notify}};
  return types;
}

/** A non-empty string field. */
std::string job_id_at(json::Object& data, const char* key)
{
  auto v        = data.required(key);
  std::string s = v.string();
  if (s.empty())
    v.fail("a job id must not be empty");
  return s;
}

std::vector<uint32_t> interval_set_at(json::Value v, uint32_t resources)
{
  try {
    return parse_interval_set(v.string(), resources);
  } catch (const std::invalid_argument& e) {
    v.fail(e.what());
  }
}

/** An index written as a number or a string of digits (Batsim accepts both in a mapping). */
uint32_t mapping_index(const json::Value& v, const std::string& text, uint32_t limit)
{
  uint64_t k   = 0;
  auto [p, ec] = std::from_chars(text.data(), text.data() + text.size(), k);
  if (text.empty() || ec != std::errc() || p != text.data() + text.size() || k >= limit)
    v.fail("expected an index below " + std::to_string(limit) + " in the mapping, got " + quote(text));
  return static_cast<uint32_t>(k);
}

void read_execute(json::Object& data, BatsimDecision& d, uint32_t resources)
{
  d.job_id     = job_id_at(data, "job_id");
  auto alloc   = data.required("alloc");
  d.alloc_text = alloc.string();
  d.alloc      = interval_set_at(alloc, resources);
  if (auto m = data.optional("mapping")) {
    auto mo   = m->object();
    auto keys = mo.take_all_keys();
    d.mapping.assign(keys.size(), UINT32_MAX);
    for (const auto& k : keys) {
      auto v       = mo.required(k);
      uint32_t exe = mapping_index(v, k, static_cast<uint32_t>(keys.size()));
      std::string target =
          v.is_string() ? v.string() : (v.is_integer() ? std::to_string(v.integer(0, UINT32_MAX)) : v.string());
      d.mapping[exe] = mapping_index(v, target, static_cast<uint32_t>(d.alloc.size()));
    }
  }
  if (data.contains("storage_mapping") || data.contains("additional_io_job"))
    data.fail("storage_mapping and additional_io_job are not supported by sgai's workload manager");
  data.finish({"job_id", "alloc", "mapping"});
}

void read_event_data(json::Object& data, BatsimDecision& d, uint32_t resources, double request_now)
{
  switch (d.type) {
  case BatsimEventType::execute_job:
    read_execute(data, d, resources);
    return;
  case BatsimEventType::reject_job:
    d.job_id = job_id_at(data, "job_id");
    break;
  case BatsimEventType::kill_job: {
    auto ids = data.required("job_ids");
    for (const auto& v : ids.array()) {
      d.job_ids.push_back(v.string());
      if (d.job_ids.back().empty())
        v.fail("a job id must not be empty");
    }
    if (d.job_ids.empty())
      ids.fail("KILL_JOB names no job");
    break;
  }
  case BatsimEventType::call_me_later: {
    auto t = data.required("timestamp");
    d.at   = at_least(t.number(), request_now);
    if (not(d.at > request_now) || not std::isfinite(d.at))
      t.fail("a call is asked for " + format_number(d.at) + " s, not after now (" + format_number(request_now) + " s)");
    break;
  }
  case BatsimEventType::set_resource_state: {
    d.alloc_text     = data.required("resources").string();
    d.alloc          = interval_set_at(data.required("resources"), resources);
    auto s           = data.required("state");
    std::string text = s.is_string() ? s.string() : std::to_string(s.integer(0, 1 << 20));
    uint64_t ps      = 0;
    auto [p, ec]     = std::from_chars(text.data(), text.data() + text.size(), ps);
    if (text.empty() || ec != std::errc() || p != text.data() + text.size() || ps > (1U << 20))
      s.fail("expected a P-state number, got " + quote(text));
    d.state = static_cast<int64_t>(ps);
    break;
  }
  case BatsimEventType::set_job_metadata:
    d.job_id = job_id_at(data, "job_id");
    d.text   = data.required("metadata").string();
    break;
  case BatsimEventType::change_job_state:
    d.job_id = job_id_at(data, "job_id");
    d.text   = data.required("job_state").string();
    if (auto r = data.optional("kill_reason"))
      d.extra = r->string();
    break;
  case BatsimEventType::register_job:
    d.job_id = job_id_at(data, "job_id");
    if (auto j = data.optional("job"))
      d.extra = j->dump();
    break;
  case BatsimEventType::register_profile:
    d.workload = data.required("workload_name").string();
    d.text     = data.required("profile_name").string();
    d.extra    = data.required("profile").dump();
    break;
  case BatsimEventType::query: {
    auto reqs = data.required("requests").object();
    auto keys = reqs.take_all_keys();
    if (keys.size() != 1)
      reqs.fail("expected one request, got " + std::to_string(keys.size()));
    d.text = keys.front();
    break;
  }
  case BatsimEventType::answer:
    d.text = data.keys().empty() ? "" : data.keys().front();
    data.take_all_keys();
    break;
  case BatsimEventType::notify:
    d.text = data.required("type").string();
    break;
  }
  data.finish();
}

} // namespace

BatsimReply parse_batsim_reply(const std::string& text, const std::string& where, double request_now,
                               uint32_t resources)
{
  auto doc = json::parse(text, where);
  auto top = doc.object();
  BatsimReply reply;
  auto now  = top.required("now");
  reply.now = at_least(now.number(), request_now);
  if (not std::isfinite(reply.now) || reply.now < request_now)
    now.fail("the reply's now (" + format_number(reply.now) + " s) is before the request's (" +
             format_number(request_now) + " s): a scheduler cannot answer in the past");
  auto events  = top.required("events").array();
  double last  = request_now;
  uint32_t idx = 0;
  for (const auto& ev : events) {
    auto e = ev.object();
    BatsimDecision d;
    d.index     = idx++;
    auto ts     = e.required("timestamp");
    d.timestamp = at_least(ts.number(), request_now);
    if (not(d.timestamp >= request_now))
      ts.fail("event dated " + format_number(d.timestamp) + " s, before now (" + format_number(request_now) +
              " s): it would change the past");
    if (d.timestamp > reply.now)
      ts.fail("event dated " + format_number(d.timestamp) + " s, after the reply's now (" + format_number(reply.now) +
              " s)");
    if (d.timestamp < last)
      ts.fail("event dated " + format_number(d.timestamp) + " s, before the previous event (" + format_number(last) +
              " s): events must be in time order");
    last             = d.timestamp;
    auto type        = e.required("type");
    std::string name = type.string();
    auto it = std::find_if(event_types().begin(), event_types().end(), [&](const auto& p) { return p.first == name; });
    if (it == event_types().end()) {
      std::vector<std::string> known;
      for (const auto& p : event_types())
        known.push_back(p.first);
      type.fail("unknown event type " + quote(name) + " (known: " + json::list_names(known) + ")");
    }
    d.type    = it->second;
    auto data = e.required("data").object();
    read_event_data(data, d, resources, request_now);
    e.finish();
    reply.events.push_back(std::move(d));
  }
  top.finish();
  return reply;
}

// ------------------------------------------------------------------------------------- requests

namespace {
using ojson = nlohmann::ordered_json;
}

void BatsimRequest::add(double t, const char* type, const std::string& data_json)
{
  ojson e;
  e["timestamp"]   = t;
  e["type"]        = type;
  std::string text = e.dump();
  text.pop_back(); // '}'
  text += ",\"data\":" + data_json + "}";
  events_.push_back(std::move(text));
}

void BatsimRequest::simulation_begins(double t, const std::vector<BatsimResource>& resources, const BatsimBegin& begin)
{
  ojson d;
  d["nb_resources"]          = resources.size();
  d["nb_compute_resources"]  = resources.size();
  d["nb_storage_resources"]  = 0;
  d["allow_compute_sharing"] = false;
  d["allow_storage_sharing"] = true;
  d["config"]                = {{"redis-enabled", false},
                                {"redis-hostname", "127.0.0.1"},
                                {"redis-port", 6379},
                                {"redis-prefix", "default"},
                                {"profiles-forwarded-on-submission", begin.forward_profiles},
                                {"dynamic-jobs-enabled", begin.dynamic_jobs},
                                {"dynamic-jobs-acknowledged", begin.acknowledge_jobs},
                                {"profile-reuse-enabled", false},
                                {"sched-config", begin.sched_config},
                                {"forward-unknown-events", false}};
  ojson list                 = ojson::array();
  for (size_t i = 0; i < resources.size(); i++) {
    ojson props = ojson::object();
    for (const auto& [k, v] : resources[i].properties)
      props[k] = v;
    list.push_back({{"id", i},
                    {"name", resources[i].name},
                    {"state", "idle"},
                    {"properties", props},
                    {"zone_properties", ojson::object()}});
  }
  d["compute_resources"] = list;
  d["storage_resources"] = ojson::array();
  d["workloads"]         = {{begin.workload_name, begin.workload_file}};
  d["profiles"] = {{begin.workload_name, ojson::parse(begin.profiles_json.empty() ? "{}" : begin.profiles_json)}};
  add(t, "SIMULATION_BEGINS", d.dump());
}

void BatsimRequest::job_submitted(double t, const std::string& job_id, const std::string& job_json,
                                  const std::string& profile_json)
{
  std::string data = "{\"job_id\":" + ojson(job_id).dump() + ",\"job\":" + job_json;
  if (not profile_json.empty())
    data += ",\"profile\":" + profile_json;
  add(t, "JOB_SUBMITTED", data + "}");
}

void BatsimRequest::job_completed(double t, const std::string& job_id, const char* state, int return_code,
                                  const std::vector<uint32_t>& alloc)
{
  ojson d = {{"job_id", job_id}, {"job_state", state}, {"return_code", return_code}, {"alloc", to_interval_set(alloc)}};
  add(t, "JOB_COMPLETED", d.dump());
}

void BatsimRequest::job_killed(double t, const std::vector<std::string>& job_ids,
                               const std::vector<std::string>& progress_json)
{
  ojson d;
  d["job_ids"]   = job_ids;
  ojson progress = ojson::object();
  for (size_t i = 0; i < job_ids.size() && i < progress_json.size(); i++)
    progress[job_ids[i]] = ojson::parse(progress_json[i]);
  d["job_progress"] = progress;
  add(t, "JOB_KILLED", d.dump());
}

void BatsimRequest::resource_state_changed(double t, const std::vector<uint32_t>& resources, int64_t state)
{
  ojson d = {{"resources", to_interval_set(resources)}, {"state", std::to_string(state)}};
  add(t, "RESOURCE_STATE_CHANGED", d.dump());
}

void BatsimRequest::requested_call(double t)
{
  add(t, "REQUESTED_CALL", "{}");
}

void BatsimRequest::notify(double t, const std::string& type)
{
  add(t, "NOTIFY", ojson({{"type", type}}).dump());
}

void BatsimRequest::answer_energy(double t, double joules)
{
  add(t, "ANSWER", ojson({{"consumed_energy", joules}}).dump());
}

void BatsimRequest::simulation_ends(double t)
{
  add(t, "SIMULATION_ENDS", "{}");
}

std::string BatsimRequest::take(double now)
{
  std::string out = "{\"now\":" + ojson(now).dump() + ",\"events\":[";
  for (size_t i = 0; i < events_.size(); i++)
    out += (i ? "," : "") + events_[i];
  out += "]}";
  events_.clear();
  return out;
}

} // namespace sgai::scheduling
