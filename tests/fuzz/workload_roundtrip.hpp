/* A property shared by the workload checks: what sgai writes as Batsim JSON, it reads back. */
#ifndef SGAI_TESTS_FUZZ_WORKLOAD_ROUNDTRIP_HPP
#define SGAI_TESTS_FUZZ_WORKLOAD_ROUNDTRIP_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "generators/workload/batsim.hpp"

#include <sstream>
#include <string>

namespace sgai::test {

/** Writes `w` as Batsim JSON, reads it back and checks the jobs survive; FuzzBug otherwise. */
inline void check_batsim_roundtrip(const workload::Workload& w)
{
  std::ostringstream text;
  workload::write_batsim(w, text);
  workload::Workload again;
  try {
    again = workload::read_batsim(write_input("roundtrip.json", text.str()));
  } catch (const InputError& e) {
    throw FuzzBug(std::string("sgai rejects the Batsim JSON it wrote: ") + e.what());
  }
  if (again.jobs.size() != w.jobs.size() || again.profiles.size() != w.profiles.size())
    throw FuzzBug("the Batsim JSON sgai wrote reads back with other jobs or profiles");
  for (const auto& field : workload::stats_fields())
    (void)workload::summarize(workload::field_values(again, field));
}

} // namespace sgai::test

#endif
