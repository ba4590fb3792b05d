/* What the replay log fuzz target checks for one input, shared with the corpus replay test: the
 * CSV `sgai chakra timeline` reads is turned into Chrome trace JSON that parses, and written back
 * as a log that reads the same, or it is rejected with an InputError. */
#ifndef SGAI_TESTS_FUZZ_REPLAY_LOG_CHECK_HPP
#define SGAI_TESTS_FUZZ_REPLAY_LOG_CHECK_HPP

#include "chakra/visualize.hpp"
#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"

#include <nlohmann/json.hpp>

#include <sstream>
#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; throws on a bug. */
inline bool check_replay_log_bytes(const std::string& bytes)
{
  std::vector<chakra::ReplayEvent> events;
  try {
    events = chakra::read_replay_log(write_input("fuzz.csv", bytes));
  } catch (const InputError&) {
    return false;
  }
  std::ostringstream chrome;
  try {
    (void)chakra::write_chrome_trace(events, chrome); // pairs issues and callbacks: may reject
  } catch (const InputError&) {
    return false;
  }
  if (not nlohmann::json::accept(chrome.str()))
    throw FuzzBug("the Chrome trace written for an accepted replay log is not JSON");
  std::ostringstream log;
  chakra::write_replay_log(events, log);
  std::vector<chakra::ReplayEvent> again;
  try {
    again = chakra::read_replay_log(write_input("again.csv", log.str()));
  } catch (const InputError& e) {
    throw FuzzBug(std::string("sgai rejects the replay log it wrote: ") + e.what());
  }
  if (again.size() != events.size())
    throw FuzzBug("a replay log written and read back has another number of events");
  for (size_t i = 0; i < events.size(); i++)
    if (again[i].rank != events[i].rank || again[i].node != events[i].node || again[i].issue != events[i].issue ||
        again[i].type != events[i].type || again[i].name != events[i].name)
      throw FuzzBug("event " + std::to_string(i) + " of a replay log reads back differently");
  return true;
}

} // namespace sgai::test

#endif
