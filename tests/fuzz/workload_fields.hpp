/* Every field the Batsim reader fills, as text: two workloads are equal when their texts are (each
 * number to its last bit, its sign included). Shared by the batsim fuzz check and the unit tests
 * that compare read_batsim's two paths. */
#ifndef SGAI_TESTS_FUZZ_WORKLOAD_FIELDS_HPP
#define SGAI_TESTS_FUZZ_WORKLOAD_FIELDS_HPP

#include "generators/workload/batsim.hpp"

#include <cmath>
#include <optional>
#include <sstream>
#include <string>

namespace sgai::test {

inline std::string workload_fields(const workload::Workload& w)
{
  std::ostringstream out;
  out.precision(17);
  auto number = [](double d) {
    std::ostringstream o;
    o.precision(17);
    o << d << (std::signbit(d) ? "-" : "+");
    return o.str();
  };
  auto opt = [&](const std::optional<double>& d) { return d ? number(*d) : std::string("none"); };
  out << w.name << '|' << w.source << '|' << (w.nb_res ? std::to_string(*w.nb_res) : "none") << '|' << w.job_limits_json
      << '\n';
  for (const auto& p : w.profiles)
    out << p.name << ' ' << workload::to_string(p.type) << ' ' << number(p.delay_s) << ' ' << number(p.cpu) << ' '
        << number(p.com) << ' ' << opt(p.req_time_s) << ' ' << opt(p.req_ops) << ' ' << opt(p.mem_mb) << ' '
        << opt(p.mem_bw_gbps) << ' ' << p.extra_json << ' ' << p.cpu_vector.size() << ' ' << p.com_matrix.size() << ' '
        << p.sequence.size() << '\n';
  for (const auto& j : w.jobs)
    out << j.id << ' ' << number(j.submit_s) << ' ' << j.resources << ' ' << opt(j.walltime_s) << ' ' << j.profile
        << ' ' << j.extra_json << '\n';
  workload::write_batsim(w, out);
  return out.str();
}

} // namespace sgai::test

#endif
