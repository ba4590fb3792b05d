/* Batsim's parallel task on a storage (`parallel_homogeneous_pfs`): each of the job's resources reads
 * `bytes_to_read` from the storage host and writes `bytes_to_write` to it, in one parallel task over
 * the job's hosts and the storage (SimGrid's ptask_L07 host model), with no computation. The totals
 * variant spreads the bytes evenly over the resources. The storage label names a storage host
 * (role=storage) of that name; when no host has it and the platform has exactly one storage host,
 * that one (as a Batsim scheduler mapping every label to the only storage would). */
#include "plugins/batch/profiles/profile_run.hpp"

#include <algorithm>

namespace sgai::batch {

namespace {

/** The storage host of a label, or none. */
std::optional<uint32_t> storage_of(const std::string& label, const scheduling::Resources& r)
{
  for (uint32_t h : r.storage_hosts)
    if (r.host_names[h] == label)
      return h;
  if (r.storage_hosts.size() == 1)
    return r.storage_hosts.front();
  return std::nullopt;
}

std::string storage_names(const scheduling::Resources& r)
{
  std::string out;
  for (uint32_t h : r.storage_hosts)
    out += (out.empty() ? "" : ", ") + r.host_names[h];
  return out;
}

} // namespace

const ProfileKind& storage_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::parallel_homogeneous_pfs),
      [](const workload::Workload&, const workload::Profile& p, uint32_t, const scheduling::Resources& r) {
        if (storage_of(p.storage, r))
          return std::string();
        if (r.storage_hosts.empty())
          return "profile '" + p.name + "' (type parallel_homogeneous_pfs) reads and writes storage '" + p.storage +
                 "', but the platform has no storage host (a host with the property role=storage)";
        return "profile '" + p.name + "' (type parallel_homogeneous_pfs) reads and writes storage '" + p.storage +
               "', which names none of the platform's storage hosts (" + storage_names(r) + ")";
      },
      [](const workload::Workload&, const workload::Profile& p, uint32_t) {
        return p.bytes_to_read > 0 || p.bytes_to_write > 0;
      },
      [](const workload::Workload&, const workload::Profile& p, const Placement& where) -> std::unique_ptr<ProfileRun> {
        // the job's distinct hosts, then the storage; bytes summed per host
        const auto& ch   = where.core_hosts;
        uint32_t storage = *storage_of(p.storage, *where.resources);
        double n         = static_cast<double>(ch.size());
        double read      = p.bytes_total ? p.bytes_to_read / n : p.bytes_to_read;
        double write     = p.bytes_total ? p.bytes_to_write / n : p.bytes_to_write;
        ExecSpec e;
        for (uint32_t h : ch)
          if (std::find(e.hosts.begin(), e.hosts.end(), h) == e.hosts.end())
            e.hosts.push_back(h);
        size_t s = e.hosts.size();
        e.hosts.push_back(storage);
        size_t m = e.hosts.size();
        e.flops.assign(m, 0);
        e.bytes.assign(m * m, 0);
        for (uint32_t h : ch) {
          size_t i = static_cast<size_t>(std::find(e.hosts.begin(), e.hosts.end(), h) - e.hosts.begin());
          e.bytes[s * m + i] += read;  // storage -> resource
          e.bytes[i * m + s] += write; // resource -> storage
        }
        Stage st;
        st.execs.push_back(std::move(e));
        return one_stage(std::move(st));
      }};
  return k;
}

} // namespace sgai::batch
