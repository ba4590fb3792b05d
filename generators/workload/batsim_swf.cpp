/* SWF logs to Batsim workloads, after the HDeepRM thesis: swf_to_workload and job_limits_json. */
#include "generators/workload/batsim.hpp"
#include "generators/workload/batsim_internal.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <map>
#include <random>

namespace sgai::workload {

using detail::id_text_of;

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
    // who and where (-1: unknown, no key), for workload managers that rank by them (Slurm's)
    for (auto [field, name] :
         {std::pair{rec.user_id, &j.user}, {rec.group_id, &j.group}, {rec.partition, &j.partition}})
      if (field >= 0 && std::floor(field) == field && field < 1e15)
        *name = id_text_of(field);
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

} // namespace sgai::workload
