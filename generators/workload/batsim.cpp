#include "generators/workload/batsim.hpp"

#include "generators/util/error.hpp"
#include "generators/util/json.hpp"
#include "generators/util/json_writer.hpp"
#include "generators/util/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <random>
#include <set>

namespace sgai::workload {

namespace {

using json::Object;
using json::Value;

/** Fields sgai reads in every profile (HDeepRM's) and fields Batsim's own workloads carry that
 *  sgai keeps verbatim without interpreting them (command, np, runtime: Batsim's generators). */
const std::vector<std::string>& common_profile_keys()
{
  static const std::vector<std::string> k = {"type", "req_time", "req_ops", "mem", "mem_bw"};
  return k;
}
const std::vector<std::string>& kept_profile_keys()
{
  static const std::vector<std::string> k = {"command", "np", "runtime"};
  return k;
}

std::string id_text_of(double d)
{
  if (std::floor(d) == d && std::fabs(d) < 1e15)
    return std::to_string(static_cast<int64_t>(d));
  return format_number(d);
}

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

double non_negative(const Value& v, const char* what)
{
  double d = v.number();
  if (not(d >= 0) || not std::isfinite(d))
    v.fail(std::string(what) + " " + v.shown() + " must be a finite number >= 0");
  return d;
}

/** An amount of work (flop or bytes), at most max_work. */
double amount(const Value& v, const char* what, const char* max_text)
{
  double d = non_negative(v, what);
  if (d > max_work)
    v.fail(std::string(what) + " " + v.shown() + " is above " + max_text);
  return d;
}

/** A time in seconds, at most max_time_s; `below` says what else it must be ("must be >= 0"). */
double time_value(const Value& v, const char* what, const char* below, bool positive = false)
{
  double d = v.number();
  if (positive ? not(d > 0) : not(d >= 0))
    v.fail(std::string(what) + " " + v.shown() + " " + below);
  if (not(d <= max_time_s))
    v.fail(std::string(what) + " " + v.shown() + " is above " + max_time_text);
  return d;
}

Profile parse_profile(const std::string& name, const Value& v)
{
  auto o = v.object();
  Profile p;
  p.name                            = name;
  std::string type                  = o.required("type").choice({"delay", "parallel_homogeneous", "parallel"});
  std::vector<std::string> accepted = common_profile_keys();
  accepted.insert(accepted.end(), kept_profile_keys().begin(), kept_profile_keys().end());
  if (type == "delay") {
    p.type    = ProfileType::delay;
    p.delay_s = time_value(o.required("delay"), "delay", "must be a finite number >= 0");
    accepted.push_back("delay");
  } else if (type == "parallel_homogeneous") {
    p.type = ProfileType::parallel_homogeneous;
    p.cpu  = amount(o.required("cpu"), "cpu", max_flop_text);
    p.com  = amount(o.required("com"), "com", max_bytes_text);
    accepted.insert(accepted.end(), {"cpu", "com"});
  } else {
    p.type   = ProfileType::parallel;
    auto cpu = o.required("cpu");
    for (auto& c : cpu.array())
      p.cpu_vector.push_back(amount(c, "cpu", max_flop_text));
    auto com = o.required("com");
    for (auto& c : com.array())
      p.com_matrix.push_back(amount(c, "com", max_bytes_text));
    if (p.cpu_vector.empty())
      cpu.fail("a parallel profile needs one cpu amount per resource");
    if (p.com_matrix.size() != p.cpu_vector.size() * p.cpu_vector.size())
      com.fail("a parallel profile of " + std::to_string(p.cpu_vector.size()) + " resources needs " +
               std::to_string(p.cpu_vector.size() * p.cpu_vector.size()) + " com values (n x n), got " +
               std::to_string(p.com_matrix.size()));
    accepted.insert(accepted.end(), {"cpu", "com"});
  }
  if (auto x = o.optional("req_time"))
    p.req_time_s = time_value(*x, "req_time", "must be positive", true);
  if (auto x = o.optional("req_ops"))
    p.req_ops = amount(*x, "req_ops", max_flop_text);
  if (auto x = o.optional("mem"))
    p.mem_mb = non_negative(*x, "mem");
  if (auto x = o.optional("mem_bw"))
    p.mem_bw_gbps = non_negative(*x, "mem_bw");
  // Batsim's generated workloads carry command, np and runtime: kept, not interpreted
  nlohmann::ordered_json extra = nlohmann::ordered_json::object();
  for (auto it = v.raw().begin(); it != v.raw().end(); ++it)
    if (std::count(kept_profile_keys().begin(), kept_profile_keys().end(), it.key()))
      extra[it.key()] = it.value();
  for (const auto& k : kept_profile_keys())
    o.optional(k); // marks it read
  // any other key is an error (a misspelt field would be silently ignored), per profile type
  o.finish(accepted);
  if (not extra.empty())
    p.extra_json = extra.dump();
  return p;
}

} // namespace

const char* to_string(ProfileType t)
{
  switch (t) {
  case ProfileType::delay:
    return "delay";
  case ProfileType::parallel_homogeneous:
    return "parallel_homogeneous";
  case ProfileType::parallel:
    return "parallel";
  }
  return "delay";
}

std::optional<double> requested_time(const Workload& w, const Job& j)
{
  const Profile& p = w.profile_of(j);
  if (p.req_time_s)
    return p.req_time_s;
  return j.walltime_s;
}

Workload read_batsim(const std::filesystem::path& file)
{
  auto doc = json::load(file);
  auto o   = doc.object();
  Workload w;
  w.source = file.string();
  w.name   = file.stem().string();
  if (auto n = o.optional("nb_res"))
    w.nb_res = static_cast<uint64_t>(n->integer(1, INT64_MAX));

  std::map<std::string, uint32_t> index;
  auto profiles = o.required("profiles").object();
  for (const auto& name : profiles.take_all_keys()) {
    index[name] = static_cast<uint32_t>(w.profiles.size());
    w.profiles.push_back(parse_profile(name, profiles.required(name)));
  }

  std::set<std::string> ids;
  auto jobs = o.required("jobs");
  for (auto& item : jobs.array()) {
    auto jo = item.object();
    Job j;
    auto id = jo.required("id");
    j.id    = id_text(id);
    if (not ids.insert(j.id).second)
      id.fail("duplicate job id " + id.shown());
    j.submit_s  = time_value(jo.required("subtime"), "submission time", "must be >= 0");
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
    j.profile         = it->second;
    const Profile& pr = w.profiles[j.profile];
    if (pr.type == ProfileType::parallel && pr.cpu_vector.size() != j.resources)
      jo.fail_at("res", "job " + quote(j.id) + " asks for " + std::to_string(j.resources) +
                            " resources but its parallel profile " + quote(pr.name) + " describes " +
                            std::to_string(pr.cpu_vector.size()));
    jo.optional("extra_data");
    jo.finish({"id", "subtime", "res", "walltime", "profile", "extra_data"});
    w.jobs.push_back(std::move(j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });

  if (auto jl = o.optional("job_limits")) {
    jl->object();
    w.job_limits_json = jl->raw().dump();
  }
  for (const char* k : {"description", "command", "date", "sgai"})
    o.optional(k);
  o.finish({"nb_res", "jobs", "profiles", "job_limits", "description", "command", "date", "sgai"});
  return w;
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

void write_batsim(const Workload& w, std::ostream& out)
{
  json::Writer jw(out);
  jw.begin_object();
  if (w.nb_res)
    jw.field("nb_res", *w.nb_res);
  jw.key("jobs").begin_array();
  for (const auto& j : w.jobs) {
    jw.begin_object(true).field("id", j.id).field("subtime", j.submit_s).field("res", j.resources);
    if (j.walltime_s)
      jw.field("walltime", *j.walltime_s);
    jw.field("profile", w.profiles[j.profile].name).end_object();
  }
  jw.end_array();
  jw.key("profiles").begin_object();
  for (const auto& p : w.profiles) {
    jw.key(p.name).begin_object(true).field("type", to_string(p.type));
    switch (p.type) {
    case ProfileType::delay:
      jw.field("delay", p.delay_s);
      break;
    case ProfileType::parallel_homogeneous:
      jw.field("cpu", p.cpu).field("com", p.com);
      break;
    case ProfileType::parallel:
      jw.key("cpu").begin_array();
      for (double c : p.cpu_vector)
        jw.value(c);
      jw.end_array().key("com").begin_array();
      for (double c : p.com_matrix)
        jw.value(c);
      jw.end_array();
      break;
    }
    if (p.req_time_s)
      jw.field("req_time", *p.req_time_s);
    if (p.req_ops)
      jw.field("req_ops", *p.req_ops);
    if (p.mem_mb)
      jw.field("mem", *p.mem_mb);
    if (p.mem_bw_gbps)
      jw.field("mem_bw", *p.mem_bw_gbps);
    if (not p.extra_json.empty()) {
      auto extra = nlohmann::ordered_json::parse(p.extra_json);
      for (auto it = extra.begin(); it != extra.end(); ++it)
        jw.key(it.key()).raw(it.value().dump());
    }
    jw.end_object();
  }
  jw.end_object();
  if (not w.job_limits_json.empty())
    jw.key("job_limits").raw(w.job_limits_json);
  jw.end_object();
}

Workload swf_to_workload(const SwfLog& log, const SwfSelected& selected, const SwfConversion& options,
                         SwfConversionReport* report)
{
  Workload w;
  w.source = log.file;
  w.name   = std::filesystem::path(log.file).filename().string();
  for (const char* ext : {".gz", ".swf"})
    if (w.name.size() > std::string(ext).size() && w.name.substr(w.name.size() - std::string(ext).size()) == ext)
      w.name = w.name.substr(0, w.name.size() - std::string(ext).size());
  SwfConversionReport local;
  SwfConversionReport& r = report ? *report : local;

  std::mt19937_64 rng(options.seed);
  std::uniform_real_distribution<double> bw(options.mem_bw_min_gbps, options.mem_bw_max_gbps);
  std::uniform_int_distribution<size_t> pick(0, options.mem_bw_values.empty() ? 0 : options.mem_bw_values.size() - 1);

  double max_time = 0, max_mem = 0, max_bw = 0;
  uint64_t max_core = 0;
  std::map<std::string, uint64_t> line_of_id; // job numbers name the jobs and their profiles
  for (const auto& rec : selected.records) {
    Profile p;
    p.type = ProfileType::parallel_homogeneous;
    p.name = "p" + id_text_of(rec.job_number);
    if (auto [it, fresh] = line_of_id.emplace(id_text_of(rec.job_number), rec.line); not fresh)
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job number " + id_text_of(rec.job_number) + " is also the job number of line " +
                           std::to_string(it->second) + " (job numbers name the Batsim jobs: they must differ)");
    if (not(rec.processors() > 0 && rec.processors() <= max_processors) || not(rec.run_time <= max_time_s) ||
        not(rec.requested_time <= max_time_s) || not(rec.submit_time <= max_time_s))
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job " + id_text_of(rec.job_number) +
                           " has no processor count or a time out of range: read_swf and select_swf reject or drop it");
    // a run time that is unknown (-1) or not positive, kept by --no-clean: no operations
    double run = rec.run_time > 0 ? rec.run_time : 0;
    if (not(rec.run_time > 0))
      r.run_time_unknown++;
    p.cpu      = run * options.reference_speed;
    p.com      = 0;
    double req = rec.requested_time;
    if (not(req > 0)) {
      req = run;
      if (run > 0)
        r.requested_time_unknown++;
    } else if (req < run) {
      r.requested_time_below_run_time++;
    }
    if (req > 0) { // else neither is known: the job has no requested time
      p.req_time_s = req;
      p.req_ops    = req * options.reference_speed;
    }
    if (not(std::max(run, req) * options.reference_speed <= max_work))
      throw InputError(log.file, "line " + std::to_string(rec.line),
                       "job " + id_text_of(rec.job_number) + ": a time of " + format_number(std::max(run, req)) +
                           " s at the reference speed of " + format_number(options.reference_speed) + " flop/s makes " +
                           format_number(std::max(run, req) * options.reference_speed) + " flop, above " +
                           max_flop_text);
    double kb = rec.requested_memory_kb > 0 ? rec.requested_memory_kb : rec.used_memory_kb;
    if (kb > 0) {
      p.mem_mb = kb / 1000.0; // HDeepRM: KB -> MB
    } else {
      p.mem_mb = options.default_mem_mb;
      r.memory_unknown++;
    }
    p.mem_bw_gbps = options.mem_bw_values.empty() ? bw(rng) : options.mem_bw_values[pick(rng)];

    Job j;
    j.id        = id_text_of(rec.job_number);
    j.submit_s  = rec.submit_time;
    j.resources = static_cast<uint32_t>(rec.processors());
    if (options.walltime && req > 0)
      j.walltime_s = req;
    j.profile = static_cast<uint32_t>(w.profiles.size());
    w.profiles.push_back(p);
    w.jobs.push_back(j);

    max_time = std::max(max_time, req);
    max_core = std::max<uint64_t>(max_core, j.resources);
    max_mem  = std::max(max_mem, *p.mem_mb);
    max_bw   = std::max(max_bw, *p.mem_bw_gbps);
  }
  // MaxProcs is checked by read_swf: a whole number from 1 to max_processors, or -1 (unknown)
  auto procs       = log.header_value("MaxProcs");
  double max_procs = 0;
  if (procs)
    std::from_chars(procs->data(), procs->data() + procs->size(), max_procs);
  if (max_procs >= 1 && max_procs <= max_processors)
    w.nb_res = static_cast<uint64_t>(max_procs);
  else if (max_core > 0)
    w.nb_res = max_core;
  w.job_limits_json = job_limits_json(max_time, max_core, max_mem, max_bw, options.reference_speed);
  return w;
}

std::string job_limits_json(double longest_s, uint64_t max_cores, double max_mem_mb, double max_mem_bw_gbps,
                            double reference_speed)
{
  nlohmann::ordered_json limits;
  limits["max_time"]          = longest_s;
  limits["max_core"]          = max_cores;
  limits["max_mem"]           = max_mem_mb;
  limits["max_mem_bw"]        = max_mem_bw_gbps;
  limits["reference_machine"] = {{"speed_flops", reference_speed}};
  return limits.dump();
}

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
