#include "plugins/batch/profiles/profile_run.hpp"

#include <algorithm>
#include <cstring>
#include <map>

namespace sgai::batch {

namespace {

const std::vector<const ProfileKind*>& builtin_kinds()
{
  static const std::vector<const ProfileKind*> kinds = {&delay_kind(),    &parallel_homogeneous_kind(),
                                                        &parallel_kind(), &parallel_homogeneous_total_kind(),
                                                        &composed_kind(), &storage_kind(),
                                                        &smpi_kind(),     &usage_trace_kind()};
  return kinds;
}

} // namespace

const ProfileKind* find_profile_kind(workload::ProfileType type)
{
  const char* name = workload::to_string(type);
  for (const ProfileKind* k : builtin_kinds())
    if (std::strcmp(k->name, name) == 0)
      return k;
  return nullptr;
}

std::string cannot_run(const workload::Workload& w, const workload::Profile& p, uint32_t resources, const Resources& r)
{
  const auto* k = find_profile_kind(p.type);
  if (k == nullptr)
    return std::string("profile type ") + workload::to_string(p.type) + " cannot run in sgai's workload manager";
  return k->cannot_run(w, p, resources, r);
}

std::string cannot_run(const workload::Workload& w, const workload::Job& j, const Resources& r)
{
  return cannot_run(w, w.profile_of(j), j.resources, r);
}

bool communicates(const workload::Workload& w, const workload::Profile& p, uint32_t resources)
{
  const auto* k = find_profile_kind(p.type);
  return k != nullptr && k->communicates(w, p, resources);
}

std::unique_ptr<ProfileRun> start_profile(const workload::Workload& w, const workload::Profile& p,
                                          const Placement& where)
{
  return find_profile_kind(p.type)->start(w, p, where);
}

std::vector<ExecSpec> per_host_execs(const Placement& where, const std::vector<double>& flops)
{
  // (host, amount) -> threads, in the order of first appearance (deterministic)
  std::vector<ExecSpec> out;
  std::map<std::pair<uint32_t, double>, size_t> at;
  for (size_t i = 0; i < where.core_hosts.size(); i++) {
    double f = flops.size() == 1 ? flops[0] : flops[i];
    if (f <= 0)
      continue; // nothing to compute on this core
    auto [it, fresh] = at.emplace(std::make_pair(where.core_hosts[i], f), out.size());
    if (fresh)
      out.push_back({{where.core_hosts[i]}, {f}, {}, 1});
    else
      out[it->second].threads++;
  }
  return out;
}

} // namespace sgai::batch
