// Batsim's protocol, pure: interval sets, the scheduler's replies read and checked, requests written.
#include "core/foundation/error.hpp"
#include "core/scheduling/batsim_protocol.hpp"

#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace sgai::scheduling {
namespace {

TEST(BatsimProtocol, IntervalSets)
{
  EXPECT_EQ(to_interval_set({5, 0, 2, 1, 7, 8}), "0-2 5 7-8");
  EXPECT_EQ(to_interval_set({3}), "3");
  EXPECT_EQ(parse_interval_set("0-2 5  7-8", 10), (std::vector<uint32_t>{0, 1, 2, 5, 7, 8}));
  EXPECT_EQ(parse_interval_set("4 1", 10), (std::vector<uint32_t>{1, 4}));
  auto message = [](const std::string& text) {
    try {
      parse_interval_set(text, 4);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_EQ(message("0-4"), "resource 4 in interval set '0-4' is not on the platform (ids 0 to 3)");
  EXPECT_EQ(message("2-1"), "range '2-1' in interval set '2-1' goes backwards");
  EXPECT_EQ(message("1 0-1"), "resource 1 appears twice in interval set '1 0-1'");
  EXPECT_EQ(message("a"), "'a' in interval set 'a' is not a resource id");
  EXPECT_EQ(message("1-"), "'' in interval set '1-' is not a resource id");
  EXPECT_EQ(message(" "), "interval set ' ' names no resource");
}

TEST(BatsimProtocol, RepliesRead)
{
  auto r = parse_batsim_reply(
      R"({"now": 12.5, "events": [
        {"timestamp": 10, "type": "EXECUTE_JOB", "data": {"job_id": "w0!1", "alloc": "0-1 3"}},
        {"timestamp": 10, "type": "REJECT_JOB", "data": {"job_id": "w0!2"}},
        {"timestamp": 11, "type": "CALL_ME_LATER", "data": {"timestamp": 20}},
        {"timestamp": 11, "type": "SET_RESOURCE_STATE", "data": {"resources": "2", "state": "13"}},
        {"timestamp": 12, "type": "KILL_JOB", "data": {"job_ids": ["w0!1", "w0!3"]}},
        {"timestamp": 12, "type": "QUERY", "data": {"requests": {"consumed_energy": {}}}},
        {"timestamp": 12.5, "type": "SET_JOB_METADATA", "data": {"job_id": "w0!3", "metadata": "x,y"}}]})",
      "sched", 10, 4);
  EXPECT_EQ(r.now, 12.5);
  ASSERT_EQ(r.events.size(), 7U);
  EXPECT_EQ(r.events[0].type, BatsimEventType::execute_job);
  EXPECT_EQ(r.events[0].alloc, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(r.events[0].alloc_text, "0-1 3");
  EXPECT_EQ(r.events[1].job_id, "w0!2");
  EXPECT_EQ(r.events[2].at, 20);
  EXPECT_EQ(r.events[2].timestamp, 11);
  EXPECT_EQ(r.events[3].state, 13);
  EXPECT_EQ(r.events[4].job_ids, (std::vector<std::string>{"w0!1", "w0!3"}));
  EXPECT_EQ(r.events[5].text, "consumed_energy");
  EXPECT_EQ(r.events[6].text, "x,y");
  EXPECT_EQ(r.events[6].index, 6U);
  // batsched prints doubles a digit short: a date a few units in the last place before now is now
  auto s = parse_batsim_reply(
      R"({"now": 121.60939498711368, "events": [{"timestamp": 121.60939498711367, "type": "EXECUTE_JOB",
          "data": {"job_id": "w0!7", "alloc": "0 4", "mapping": {"0": 0, "1": "1"}}}]})",
      "sched", 121.60939498711369, 8);
  EXPECT_EQ(s.now, 121.60939498711369);
  EXPECT_EQ(s.events[0].timestamp, 121.60939498711369);
  EXPECT_EQ(s.events[0].mapping, (std::vector<uint32_t>{0, 1}));
}

std::string error_of(const std::string& text, double now = 10)
{
  try {
    parse_batsim_reply(text, "scheduler at tcp://x:1: reply 3", now, 4);
  } catch (const InputError& e) {
    return e.what();
  }
  return "accepted";
}

TEST(BatsimProtocol, MalformedRepliesNamed)
{
  const std::string p = "scheduler at tcp://x:1: reply 3: ";
  EXPECT_EQ(error_of(R"({"now": 9, "events": []})"),
            p + "at /now: the reply's now (9 s) is before the request's (10 s): a scheduler cannot answer in the past");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 9, "type": "NOTIFY", "data": {"type": "x"}}]})"),
            p + "at /events/0/timestamp: event dated 9 s, before now (10 s): it would change the past");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 11, "type": "NOTIFY", "data": {"type": "x"}}]})"),
            p + "at /events/0/timestamp: event dated 11 s, after the reply's now (10 s)");
  EXPECT_EQ(error_of(R"({"now": 12, "events": [{"timestamp": 11, "type": "NOTIFY", "data": {"type": "x"}},
                                               {"timestamp": 10, "type": "NOTIFY", "data": {"type": "x"}}]})"),
            p + "at /events/1/timestamp: event dated 10 s, before the previous event (11 s): events must be in time "
                "order");
  EXPECT_NE(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "EXECUTE", "data": {}}]})")
                .find("at /events/0/type: unknown event type 'EXECUTE' (known: 'EXECUTE_JOB'"),
            std::string::npos);
  EXPECT_EQ(
      error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "EXECUTE_JOB", "data": {"job_id": "w0!1"}}]})"),
      p + "at /events/0/data: missing field 'alloc'");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "EXECUTE_JOB",
                                                "data": {"job_id": "w0!1", "alloc": "0-9"}}]})"),
            p + "at /events/0/data/alloc: resource 9 in interval set '0-9' is not on the platform (ids 0 to 3)");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "EXECUTE_JOB",
                                                "data": {"job_id": "", "alloc": "0"}}]})"),
            p + "at /events/0/data/job_id: a job id must not be empty");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "CALL_ME_LATER",
                                                "data": {"timestamp": 10}}]})"),
            p + "at /events/0/data/timestamp: a call is asked for 10 s, not after now (10 s)");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "SET_RESOURCE_STATE",
                                                "data": {"resources": "1", "state": "on"}}]})"),
            p + "at /events/0/data/state: expected a P-state number, got 'on'");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "KILL_JOB", "data": {"job_ids": []}}]})"),
            p + "at /events/0/data/job_ids: KILL_JOB names no job");
  EXPECT_EQ(error_of(R"({"now": 10, "events": [{"timestamp": 10, "type": "EXECUTE_JOB",
                                                "data": {"job_id": "w0!1", "alloc": "0", "mapping": {"0": 3}}}]})"),
            p + "at /events/0/data/mapping/0: expected an index below 1 in the mapping, got '3'");
  EXPECT_NE(error_of(R"({"now": 10, "events": [], "extra": 1})").find("unknown key 'extra'"), std::string::npos);
  EXPECT_NE(error_of("{\"now\": 10, \"events\": [").find("scheduler at tcp://x:1: reply 3: line 1"), std::string::npos);
  EXPECT_EQ(error_of(R"({"events": []})"), p + "at (root): missing field 'now'");
}

TEST(BatsimProtocol, RequestsWritten)
{
  BatsimRequest r;
  EXPECT_TRUE(r.empty());
  r.job_submitted(1.5, "w0!1", R"({"id":"w0!1","subtime":1.5,"res":2,"profile":"p"})");
  r.job_completed(2, "w0!0", "COMPLETED_SUCCESSFULLY", 0, {3, 0, 1});
  r.resource_state_changed(2, {4, 5}, 13);
  r.notify(2, "no_more_static_job_to_submit");
  r.answer_energy(2, 1234.5);
  r.job_killed(2, {"w0!4"}, {R"({"profile":"d20"})"});
  r.requested_call(2);
  EXPECT_EQ(r.size(), 7U);
  auto j = nlohmann::json::parse(r.take(2));
  EXPECT_TRUE(r.empty());
  EXPECT_EQ(j["now"], 2.0);
  ASSERT_EQ(j["events"].size(), 7U);
  EXPECT_EQ(j["events"][0]["type"], "JOB_SUBMITTED");
  EXPECT_EQ(j["events"][0]["timestamp"], 1.5);
  EXPECT_EQ(j["events"][0]["data"]["job"]["res"], 2);
  EXPECT_EQ(j["events"][1]["data"]["alloc"], "0-1 3");
  EXPECT_EQ(j["events"][1]["data"]["job_state"], "COMPLETED_SUCCESSFULLY");
  EXPECT_EQ(j["events"][2]["data"]["resources"], "4-5");
  EXPECT_EQ(j["events"][2]["data"]["state"], "13");
  EXPECT_EQ(j["events"][3]["data"]["type"], "no_more_static_job_to_submit");
  EXPECT_EQ(j["events"][4]["data"]["consumed_energy"], 1234.5);
  EXPECT_EQ(j["events"][5]["data"]["job_progress"]["w0!4"]["profile"], "d20");
  EXPECT_EQ(j["events"][6]["type"], "REQUESTED_CALL");

  BatsimRequest b;
  BatsimBegin begin;
  begin.workload_name = "w0";
  begin.workload_file = "/x/w.json";
  begin.profiles_json = R"({"d":{"type":"delay","delay":5}})";
  b.simulation_begins(0, {{"m0", {{"sleep_pstates", "1:2:3"}}}, {"m1", {}}}, begin);
  auto s = nlohmann::json::parse(b.take(0))["events"][0]["data"];
  EXPECT_EQ(s["nb_compute_resources"], 2);
  EXPECT_EQ(s["compute_resources"][1]["name"], "m1");
  EXPECT_EQ(s["compute_resources"][0]["properties"]["sleep_pstates"], "1:2:3");
  EXPECT_EQ(s["compute_resources"][0]["state"], "idle");
  EXPECT_EQ(s["config"]["redis-enabled"], false);
  EXPECT_EQ(s["workloads"]["w0"], "/x/w.json");
  EXPECT_EQ(s["profiles"]["w0"]["d"]["delay"], 5);
}

} // namespace
} // namespace sgai::scheduling
