/* read_batsim: the fast path (batsim_scan.cpp), else the whole document, common jobs and profiles
 * straight from it and the others field by field (errors name the field); read_workload. */
#include "generators/workload/batsim.hpp"
#include "generators/workload/batsim_internal.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"
#include "core/foundation/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <map>
#include <unordered_set>

namespace sgai::workload {

namespace {

using detail::id_text_of;
using detail::kept_fields;
using detail::parse_profile;
using detail::ProfileIndex;
using detail::QuickJob;
using detail::QuickProfile;
using detail::Scalar;
using detail::time_value;
using json::Value;

/** Job fields Batsim's workloads carry that sgai keeps verbatim without interpreting them: extra_data,
 *  and the annotations of Batsim's test workloads. */
const std::vector<std::string>& kept_job_keys()
{
  static const std::vector<std::string> k = {"extra_data",
                                             "description",
                                             "expected_execution_time",
                                             "expected_state",
                                             "smpi_ranks_to_hosts_mapping",
                                             "NOT_A_smpi_ranks_to_hosts_mapping"};
  return k;
}

/** The most profiles one composed profile may run, its repeats expanded. */
constexpr double max_sequence_runs = 1e9;

std::string id_text(const Value& v)
{
  if (v.is_string())
    return v.string();
  // a number names a job as its digits: whole, and small enough that a double holds it exactly
  if (v.is_number())
    if (double d = v.number(); std::floor(d) == d && std::fabs(d) < 1e15)
      return id_text_of(d);
  v.fail("job id " + v.shown() + " must be a string or a whole number below 1e15 in magnitude");
}

/** A user, group, partition or QOS name: a non-empty string, or a whole number (SWF's user ids) as
 *  its digits. */
std::string name_value(const Value& v, const char* key)
{
  if (v.is_string() && not v.string().empty())
    return v.string();
  if (v.is_number())
    if (double d = v.number(); std::floor(d) == d && std::fabs(d) < 1e15)
      return id_text_of(d);
  v.fail(std::string(key) + " " + v.shown() + " must be a non-empty string or a whole number below 1e15 in magnitude");
}

Scalar scalar_of(const nlohmann::json& n)
{
  Scalar v;
  if (n.is_number()) {
    v.kind = Scalar::number;
    v.d    = n.get<double>();
    if (n.is_number_unsigned()) {
      v.whole_unsigned = true;
      v.u              = n.get<uint64_t>();
    }
  } else if (n.is_string()) {
    v.kind = Scalar::string;
    v.s    = n.get_ref<const std::string&>();
  }
  return v;
}

/** The common profiles, delay and parallel_homogeneous with only their own and the common numeric
 *  fields, read straight from the document when every value is as parse_profile would take it (the
 *  same Profile); none otherwise, and parse_profile reads it, naming what is wrong. */
std::optional<Profile> quick_profile(const std::string& name, const nlohmann::json& n)
{
  if (not n.is_object())
    return std::nullopt;
  auto type = n.find("type");
  if (type == n.end() || not type->is_string())
    return std::nullopt;
  QuickProfile q;
  q.p.name = name;
  if (not q.type(type->get_ref<const std::string&>()))
    return std::nullopt;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (it.key() != "type" && not q.field(it.key(), scalar_of(it.value())))
      return std::nullopt;
  if (not q.whole())
    return std::nullopt;
  return std::move(q.p);
}

/** Resolves the composed profiles' names to indices, rejects cycles and sequences that expand to
 *  more than max_sequence_runs profiles. `seqs[i]` holds profile i's names, `values[i]` the profile. */
void resolve_sequences(Workload& w, const ProfileIndex& index, const std::vector<std::vector<Value>>& seqs,
                       const std::vector<Value>& values)
{
  for (size_t i = 0; i < w.profiles.size(); i++)
    for (const auto& s : seqs[i]) {
      auto it = index.find(s.string());
      if (it == index.end()) {
        std::vector<std::string> known;
        for (const auto& [k, v] : index)
          known.push_back(k);
        s.fail("composed profile " + quote(w.profiles[i].name) + " names profile " + s.shown() +
               ", which is not in 'profiles' (known: " + json::list_names(known, 10) + ")");
      }
      w.profiles[i].sequence.push_back(it->second);
    }
  // depth-first, without recursion (a chain of sequences may be long): 0 new, 1 on the path, 2 done
  std::vector<uint8_t> state(w.profiles.size(), 0);
  std::vector<double> runs(w.profiles.size(), 1); // profiles run, repeats expanded
  for (size_t root = 0; root < w.profiles.size(); root++) {
    if (state[root] != 0 || w.profiles[root].type != ProfileType::composed)
      continue;
    std::vector<std::pair<uint32_t, size_t>> path = {{static_cast<uint32_t>(root), 0}}; // profile, next part
    state[root]                                   = 1;
    while (not path.empty()) {
      auto& [at, next] = path.back();
      const Profile& p = w.profiles[at];
      if (next < p.sequence.size()) {
        size_t k   = next++;
        uint32_t q = p.sequence[k];
        if (state[q] == 1) {
          std::string cycle;
          auto from = std::find_if(path.begin(), path.end(), [&](const auto& e) { return e.first == q; });
          for (auto e = from; e != path.end(); ++e)
            cycle += quote(w.profiles[e->first].name) + " -> ";
          seqs[at][k].fail("composed profile " + quote(p.name) + " runs itself: " + cycle + quote(w.profiles[q].name));
        }
        if (state[q] == 0 && w.profiles[q].type == ProfileType::composed) {
          state[q] = 1;
          path.emplace_back(q, 0);
        }
        continue;
      }
      double n = 0;
      for (uint32_t q : p.sequence)
        n += runs[q];
      runs[at] = n * p.repeat;
      if (not(runs[at] <= max_sequence_runs))
        values[at].object().fail("composed profile " + quote(p.name) + " runs " + format_number(runs[at]) +
                                 " profiles in all (its sequence, repeats expanded), more than 1e9, the most "
                                 "sgai takes");
      state[at] = 2;
      path.pop_back();
    }
  }
}

/** The parallel profiles a profile runs whose size differs from `res`: the first one, or nothing.
 *  `sizes[i]`: the distinct sizes of the parallel profiles profile i runs (at most two kept, each
 *  with one profile of that size), filled on demand; sequences are acyclic here. */
std::optional<uint32_t> parallel_mismatch(const Workload& w, uint32_t profile, uint32_t res,
                                          std::vector<std::optional<std::vector<std::pair<size_t, uint32_t>>>>& sizes)
{
  std::vector<uint32_t> todo = {profile};
  while (not todo.empty()) {
    uint32_t i       = todo.back();
    const Profile& p = w.profiles[i];
    if (sizes[i]) {
      todo.pop_back();
      continue;
    }
    if (p.type != ProfileType::composed) {
      sizes[i].emplace();
      if (p.type == ProfileType::parallel)
        sizes[i]->emplace_back(p.cpu_vector.size(), i);
      todo.pop_back();
      continue;
    }
    bool ready = true;
    for (uint32_t q : p.sequence)
      if (not sizes[q]) {
        todo.push_back(q);
        ready = false;
      }
    if (not ready)
      continue;
    std::vector<std::pair<size_t, uint32_t>> s;
    for (uint32_t q : p.sequence)
      for (const auto& e : *sizes[q])
        if (s.size() < 2 && std::none_of(s.begin(), s.end(), [&](const auto& x) { return x.first == e.first; }))
          s.push_back(e);
    sizes[i] = std::move(s);
    todo.pop_back();
  }
  for (const auto& [n, q] : *sizes[profile])
    if (n != res)
      return q;
  return std::nullopt;
}

/** A job with only id, subtime, res, profile and walltime, each as read_batsim takes it, its id new
 *  and its profile known: read straight from the document; none otherwise (read_batsim then reads
 *  it field by field and names what is wrong). */
std::optional<Job> quick_job(const nlohmann::json& n, const ProfileIndex& index,
                             const std::unordered_set<std::string>& ids)
{
  if (not n.is_object() || n.size() > detail::quick_job_fields)
    return std::nullopt;
  QuickJob q;
  for (auto it = n.begin(); it != n.end(); ++it)
    if (not q.field(it.key(), scalar_of(it.value()), index))
      return std::nullopt;
  if (not q.whole() || ids.count(q.j.id))
    return std::nullopt;
  return std::move(q.j);
}

/** read_batsim's general path: the whole document, common jobs and profiles straight from it, the
 *  others field by field. */
Workload read_document(const json::Document& doc, const std::filesystem::path& file)
{
  auto o = doc.object();
  Workload w;
  w.source = file.string();
  w.name   = file.stem().string();
  if (auto n = o.optional("nb_res"))
    w.nb_res = static_cast<uint64_t>(n->integer(1, INT64_MAX));

  ProfileIndex index;
  std::vector<std::vector<Value>> seqs;
  std::vector<Value> values;
  auto profiles = o.required("profiles").object();
  for (const auto& name : profiles.take_all_keys()) {
    index[name] = static_cast<uint32_t>(w.profiles.size());
    values.push_back(profiles.required(name));
    seqs.emplace_back();
    if (auto quick = quick_profile(name, json::raw(values.back())))
      w.profiles.push_back(std::move(*quick));
    else
      w.profiles.push_back(parse_profile(name, values.back(), file.parent_path(), seqs.back()));
  }
  resolve_sequences(w, index, seqs, values);

  std::unordered_set<std::string> ids;
  std::vector<std::optional<std::vector<std::pair<size_t, uint32_t>>>> sizes(w.profiles.size());
  auto jobs                                          = o.required("jobs");
  static const std::vector<std::string> own_job_keys = {"id",   "subtime", "res",       "walltime", "profile",
                                                        "user", "group",   "partition", "qos"};
  for (auto& item : jobs.array()) {
    // the common job (those five fields, each as the checks below take it) straight from the document
    if (auto quick = quick_job(json::raw(item), index, ids)) {
      if (not parallel_mismatch(w, quick->profile, quick->resources, sizes)) {
        ids.insert(quick->id);
        w.jobs.push_back(std::move(*quick));
        continue;
      }
    }
    auto jo = item.object();
    Job j;
    auto id = jo.required("id");
    j.id    = id_text(id);
    if (not ids.insert(j.id).second)
      id.fail("duplicate job id " + id.shown());
    j.submit_s =
        time_value(jo.required("subtime"), "submission time", "must be >= 0", false, max_submit_s, max_submit_text);
    j.resources = static_cast<uint32_t>(jo.required("res").integer(1, UINT32_MAX));
    if (auto wt = jo.optional("walltime")) {
      double d = wt->number();
      if (d == -1) {
        // Batsim: no walltime
      } else if (d > 0 && d <= max_time_s) {
        j.walltime_s = d;
      } else if (d > max_time_s) {
        wt->fail("walltime " + wt->shown() + " is above " + max_time_text);
      } else {
        wt->fail("walltime " + wt->shown() + " must be positive (or -1 for none)");
      }
    }
    auto prof = jo.required("profile");
    auto it   = index.find(prof.string());
    if (it == index.end()) {
      std::vector<std::string> known;
      for (const auto& [k, v] : index)
        known.push_back(k);
      prof.fail("job " + quote(j.id) + " names profile " + prof.shown() +
                ", which is not in 'profiles' (known: " + json::list_names(known, 10) + ")");
    }
    j.profile = it->second;
    for (auto [key, field] :
         {std::pair{"user", &j.user}, {"group", &j.group}, {"partition", &j.partition}, {"qos", &j.qos}})
      if (auto v = jo.optional(key))
        *field = name_value(*v, key);
    const Profile& pr = w.profiles[j.profile];
    if (auto q = parallel_mismatch(w, j.profile, j.resources, sizes)) {
      const Profile& pq = w.profiles[*q];
      std::string which = *q == j.profile
                              ? "its parallel profile " + quote(pq.name)
                              : "the parallel profile " + quote(pq.name) + " of its composed profile " + quote(pr.name);
      jo.fail_at("res", "job " + quote(j.id) + " asks for " + std::to_string(j.resources) + " resources but " + which +
                            " describes " + std::to_string(pq.cpu_vector.size()));
    }
    j.extra_json                      = kept_fields(jo, item, kept_job_keys());
    std::vector<std::string> accepted = own_job_keys;
    accepted.insert(accepted.end(), kept_job_keys().begin(), kept_job_keys().end());
    jo.finish(accepted);
    w.jobs.push_back(std::move(j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });

  if (auto jl = o.optional("job_limits")) {
    jl->object();
    w.job_limits_json = jl->dump();
  }
  static const std::vector<std::string> ignored = {"description", "command", "date", "comments", "sgai"};
  for (const auto& k : ignored)
    o.optional(k);
  std::vector<std::string> accepted = {"nb_res", "jobs", "profiles", "job_limits"};
  accepted.insert(accepted.end(), ignored.begin(), ignored.end());
  o.finish(accepted);
  return w;
}

} // namespace

std::string detail::id_text_of(double d)
{
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    return std::to_string(static_cast<int64_t>(d));
  return format_number(d);
}

Workload read_batsim(const std::filesystem::path& file)
{
  std::string text = read_text_file(file);
  if (auto w = detail::read_batsim_common(text, file))
    return std::move(*w);
  return read_document(json::parse(text, file.string()), file);
}

Workload read_batsim_text(const std::string& text, const std::string& where, const std::string& name)
{
  Workload w = read_document(json::parse(text, where), std::filesystem::path(name));
  w.source   = where;
  return w;
}

Workload detail::read_batsim_document(const std::filesystem::path& file)
{
  return read_document(json::load(file), file);
}

std::optional<uint64_t> resources_made_for(const Workload& w)
{
  if (not w.job_limits_json.empty())
    return std::nullopt;
  return w.nb_res;
}

Workload read_workload(const std::filesystem::path& file)
{
  std::string name = file.filename().string();
  bool swf         = name.size() > 4 &&
             (name.substr(name.size() - 4) == ".swf" || (name.size() > 7 && name.substr(name.size() - 7) == ".swf.gz"));
  if (not swf)
    return read_batsim(file);
  SwfLog log = read_swf(file);
  Workload w = swf_to_workload(log, select_swf(log, {}), {});
  return w;
}

} // namespace sgai::workload
