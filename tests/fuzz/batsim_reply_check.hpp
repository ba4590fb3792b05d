/* What the Batsim-protocol fuzz target checks for one input, shared with the corpus replay test:
 * a scheduler's reply (core/scheduling/batsim_protocol.hpp) is read, against a request dated 10 s
 * on 8 resources, or rejected with an InputError; what is accepted keeps Batsim's constraints
 * (dates between the request's and the reply's, in order; allocations on the platform, ascending,
 * without repeats), and its interval sets written back read the same. */
#ifndef SGAI_TESTS_FUZZ_BATSIM_REPLY_CHECK_HPP
#define SGAI_TESTS_FUZZ_BATSIM_REPLY_CHECK_HPP

#include "core/foundation/error.hpp"
#include "core/scheduling/batsim_protocol.hpp"
#include "fuzz_input.hpp"

#include <algorithm>
#include <string>

namespace sgai::test {

inline bool check_batsim_reply_bytes(const std::string& bytes)
{
  constexpr double kNow        = 10;
  constexpr uint32_t kMachines = 8;
  scheduling::BatsimReply r;
  try {
    r = scheduling::parse_batsim_reply(bytes, "fuzz", kNow, kMachines);
  } catch (const InputError&) {
    return false;
  }
  if (not(r.now >= kNow))
    throw FuzzBug("a reply dated before its request was accepted");
  double last = kNow;
  for (const auto& d : r.events) {
    if (not(d.timestamp >= last && d.timestamp <= r.now))
      throw FuzzBug("an event out of order or outside [request, reply] was accepted");
    last = d.timestamp;
    if (not std::is_sorted(d.alloc.begin(), d.alloc.end()) ||
        std::adjacent_find(d.alloc.begin(), d.alloc.end()) != d.alloc.end())
      throw FuzzBug("an allocation not ascending or with a repeat");
    if (not d.alloc.empty()) {
      if (d.alloc.back() >= kMachines)
        throw FuzzBug("an allocation beyond the platform");
      if (scheduling::parse_interval_set(scheduling::to_interval_set(d.alloc), kMachines) != d.alloc)
        throw FuzzBug("an interval set written back reads differently");
    }
    if (d.type == scheduling::BatsimEventType::call_me_later && not(d.at > kNow))
      throw FuzzBug("a call not after now was accepted");
    for (uint32_t m : d.mapping)
      if (m >= d.alloc.size())
        throw FuzzBug("a mapping beyond its allocation");
  }
  return true;
}

} // namespace sgai::test

#endif
