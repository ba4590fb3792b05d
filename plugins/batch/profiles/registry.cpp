#include "plugins/batch/profiles/profile_run.hpp"

#include <algorithm>
#include <cstring>
#include <map>
#include <stdexcept>

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

/** Kinds registered from outside, by type name (map nodes stay put: kind.name points into the key). */
std::map<std::string, ProfileKind>& custom_kinds()
{
  static std::map<std::string, ProfileKind> kinds;
  return kinds;
}

} // namespace

void register_profile_kind(const std::string& name, ProfileKind kind)
{
  if (kind.cannot_run == nullptr || kind.communicates == nullptr || kind.start == nullptr)
    throw std::invalid_argument("profile kind '" + name + "' needs cannot_run, communicates and start");
  if (custom_kinds().count(name))
    throw std::invalid_argument("a profile kind for type '" + name + "' is registered already");
  workload::register_profile_type(name); // (std::invalid_argument for an empty name or Batsim's)
  auto it         = custom_kinds().emplace(name, kind).first;
  it->second.name = it->first.c_str();
}

const ProfileKind* find_profile_kind(const workload::Profile& p)
{
  if (p.type != workload::ProfileType::custom)
    return find_profile_kind(p.type);
  auto it = custom_kinds().find(p.custom_type);
  return it == custom_kinds().end() ? nullptr : &it->second;
}

const ProfileKind* find_profile_kind(workload::ProfileType type)
{
  const char* name = workload::to_string(type);
  for (const ProfileKind* k : builtin_kinds())
    if (std::strcmp(k->name, name) == 0)
      return k;
  return nullptr;
}

std::string cannot_run(const workload::Workload& w, const workload::Profile& p, uint32_t resources,
                       const scheduling::Resources& r)
{
  const auto* k = find_profile_kind(p);
  if (k == nullptr)
    return "profile type " + (p.type == workload::ProfileType::custom ? p.custom_type : workload::to_string(p.type)) +
           " cannot run in sgai's workload manager";
  return k->cannot_run(w, p, resources, r);
}

std::string cannot_run(const workload::Workload& w, const workload::Job& j, const scheduling::Resources& r)
{
  return cannot_run(w, w.profile_of(j), j.resources, r);
}

bool communicates(const workload::Workload& w, const workload::Profile& p, uint32_t resources)
{
  const auto* k = find_profile_kind(p);
  return k != nullptr && k->communicates(w, p, resources);
}

std::unique_ptr<ProfileRun> start_profile(const workload::Workload& w, const workload::Profile& p,
                                          const Placement& where)
{
  return find_profile_kind(p)->start(w, p, where);
}

std::vector<ExecSpec> per_host_execs(const Placement& where, const std::vector<double>& flops)
{
  // (host, amount) -> threads, in the order of first appearance (deterministic). A job's cores on
  // one host are consecutive in its allocation: runs of equal (host, amount) make the executions,
  // and only when a pair comes back after another one are they merged through a map.
  std::vector<ExecSpec> out;
  const auto& ch = where.core_hosts;
  for (size_t i = 0; i < ch.size(); i++) {
    double f = flops.size() == 1 ? flops[0] : flops[i];
    if (f <= 0)
      continue; // nothing to compute on this core
    if (not out.empty() && out.back().hosts[0] == ch[i] && out.back().flops[0] == f)
      out.back().threads++;
    else
      out.push_back({{ch[i]}, {f}, {}, 1});
  }
  // (the usual case: hosts in increasing order, each once)
  bool increasing = true;
  for (size_t i = 1; i < out.size() && increasing; i++)
    increasing = out[i - 1].hosts[0] < out[i].hosts[0];
  if (increasing)
    return out;
  std::vector<std::pair<uint32_t, double>> keys;
  keys.reserve(out.size());
  for (const auto& e : out)
    keys.emplace_back(e.hosts[0], e.flops[0]);
  std::sort(keys.begin(), keys.end());
  if (std::adjacent_find(keys.begin(), keys.end()) == keys.end())
    return out;
  std::map<std::pair<uint32_t, double>, size_t> at;
  std::vector<ExecSpec> merged;
  for (auto& e : out) {
    auto [it, fresh] = at.emplace(std::make_pair(e.hosts[0], e.flops[0]), merged.size());
    if (fresh)
      merged.push_back(std::move(e));
    else
      merged[it->second].threads += e.threads;
  }
  return merged;
}

} // namespace sgai::batch
