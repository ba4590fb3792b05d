/* What the Batsim workload fuzz target checks for one input, shared with the corpus replay test:
 * the JSON is read (as `sgai batch run` and `sgai workload stats` read it), summarized and
 * written back, or rejected with an InputError; what sgai writes it must read again. */
#ifndef SGAI_TESTS_FUZZ_BATSIM_CHECK_HPP
#define SGAI_TESTS_FUZZ_BATSIM_CHECK_HPP

#include "core/foundation/error.hpp"
#include "fuzz_input.hpp"
#include "generators/workload/batsim.hpp"
#include "workload_fields.hpp"
#include "workload_roundtrip.hpp"

#include <string>

namespace sgai::test {

/** True when accepted, false when rejected with an InputError; a FuzzBug or any other exception
 *  is a bug. read_batsim's fast path (common workloads straight from the text) and its general
 *  path (the document) must give the same workload or the same error. */
inline bool check_batsim_bytes(const std::string& bytes)
{
  workload::Workload w;
  auto file = write_input("fuzz.json", bytes);
  std::string error, document_error;
  try {
    w = workload::read_workload(file);
  } catch (const InputError& e) {
    error = e.what();
  }
  workload::Workload d;
  try {
    d = workload::detail::read_batsim_document(file);
  } catch (const InputError& e) {
    document_error = e.what();
  }
  if (error != document_error)
    throw FuzzBug("read_batsim and its document path disagree: '" + error + "' against '" + document_error + "'");
  if (not error.empty())
    return false;
  if (workload_fields(w) != workload_fields(d))
    throw FuzzBug("read_batsim's fast path reads another workload than its document path");
  for (const auto& field : workload::stats_fields())
    (void)workload::summarize(workload::field_values(w, field));
  for (const auto& j : w.jobs)
    (void)workload::requested_time(w, j);
  check_batsim_roundtrip(w);
  return true;
}

} // namespace sgai::test

#endif
