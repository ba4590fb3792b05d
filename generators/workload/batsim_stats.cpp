/* `sgai workload stats`: the values of a workload's fields and their summaries. */
#include "generators/workload/batsim.hpp"

#include <algorithm>
#include <cmath>

namespace sgai::workload {

const std::vector<std::string>& stats_fields()
{
  static const std::vector<std::string> f = {"req_time", "size", "mem", "mem_bw", "subtime", "walltime"};
  return f;
}

std::vector<double> field_values(const Workload& w, const std::string& field)
{
  std::vector<double> out;
  for (const auto& j : w.jobs) {
    const Profile& p = w.profile_of(j);
    if (field == "size")
      out.push_back(j.resources);
    else if (field == "subtime")
      out.push_back(j.submit_s);
    else if (field == "walltime" && j.walltime_s)
      out.push_back(*j.walltime_s);
    else if (field == "req_time") {
      if (auto t = requested_time(w, j))
        out.push_back(*t);
    } else if (field == "mem" && p.mem_mb)
      out.push_back(*p.mem_mb);
    else if (field == "mem_bw" && p.mem_bw_gbps)
      out.push_back(*p.mem_bw_gbps);
  }
  return out;
}

Summary summarize(std::vector<double> values)
{
  Summary s;
  s.count = values.size();
  if (values.empty())
    return s;
  std::sort(values.begin(), values.end());
  auto q = [&](double f) {
    double pos  = f * static_cast<double>(values.size() - 1);
    auto lo     = static_cast<size_t>(std::floor(pos));
    auto hi     = static_cast<size_t>(std::ceil(pos));
    double frac = pos - static_cast<double>(lo);
    return values[lo] + (values[hi] - values[lo]) * frac;
  };
  s.min      = values.front();
  s.max      = values.back();
  s.q1       = q(0.25);
  s.median   = q(0.5);
  s.q3       = q(0.75);
  s.p95      = q(0.95);
  s.p99      = q(0.99);
  double sum = 0;
  for (double v : values)
    sum += v;
  s.mean = sum / static_cast<double>(values.size());
  return s;
}

} // namespace sgai::workload
