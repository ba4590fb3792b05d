/* What the Batsim workload fuzz target checks for one input, shared with the corpus replay test:
 * the JSON is read (as `sgai batch run` and `sgai workload stats` read it), summarized and
 * written back, or rejected with an InputError; what sgai writes it must read again. */
#ifndef SGAI_TESTS_FUZZ_BATSIM_CHECK_HPP
#define SGAI_TESTS_FUZZ_BATSIM_CHECK_HPP

#include "fuzz_input.hpp"
#include "sgai/foundation/error.hpp"
#include "sgai/workload/batsim.hpp"
#include "workload_roundtrip.hpp"

#include <cmath>
#include <optional>
#include <sstream>
#include <string>

namespace sgai::test {

/** What a workload holds, as text (equal text: equal workloads to the last bit of each number). */
inline std::string batsim_fields(const workload::Workload& w)
{
  std::ostringstream out;
  out.precision(17);
  auto opt = [](const std::optional<double>& d) {
    std::ostringstream o;
    o.precision(17);
    if (d)
      o << *d << (std::signbit(*d) ? "-" : "+");
    return o.str();
  };
  out << w.name << '|' << (w.nb_res ? *w.nb_res : 0) << '|' << w.job_limits_json << '\n';
  for (const auto& p : w.profiles)
    out << p.name << ' ' << workload::to_string(p.type) << ' ' << p.delay_s << ' ' << p.cpu << ' ' << p.com << ' '
        << opt(p.req_time_s) << ' ' << opt(p.req_ops) << ' ' << opt(p.mem_mb) << ' ' << opt(p.mem_bw_gbps) << ' '
        << p.extra_json << '\n';
  for (const auto& j : w.jobs)
    out << j.id << ' ' << j.submit_s << (std::signbit(j.submit_s) ? "-" : "+") << ' ' << j.resources << ' '
        << opt(j.walltime_s) << ' ' << j.profile << ' ' << j.extra_json << '\n';
  workload::write_batsim(w, out);
  return out.str();
}

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
  if (batsim_fields(w) != batsim_fields(d))
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
