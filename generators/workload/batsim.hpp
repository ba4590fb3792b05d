/* Batsim JSON workloads (jobs + profiles), with HDeepRM's extra profile fields, and the SWF to
 * Batsim conversion the HDeepRM thesis describes. */
#ifndef SGAI_GENERATORS_WORKLOAD_BATSIM_HPP
#define SGAI_GENERATORS_WORKLOAD_BATSIM_HPP

#include "generators/workload/swf.hpp"
#include "generators/workload/workload.hpp"

#include <filesystem>
#include <iosfwd>
#include <optional>
#include <string>
#include <string_view>

namespace sgai::workload {

/** Reads a Batsim workload: `jobs` (id, subtime, res, walltime, profile) and `profiles` of every
 *  type Batsim 3 to 5 runs but data staging, under any of its names (DelayProfile or delay,
 *  ParallelTaskHomogeneousProfile or parallel_homogeneous or msg_par_hg, ...: see ProfileType),
 *  with HDeepRM's req_time, req_ops, mem, mem_bw. Composed profiles' names are resolved (a missing
 *  name or a cycle is an error), trace files are resolved from the workload's folder but not read.
 *  A parallel profile's size must be the res of every job that runs it. Extra fields Batsim's own
 *  workloads carry (command, np, expected_execution_time, extra_data, ...) are kept verbatim; other
 *  keys are errors. Durations (walltime, delay, req_time) are at most max_time_s, submission times
 *  at most max_submit_s. */
Workload read_batsim(const std::filesystem::path& file);

/** A Batsim workload given as text (a scheduler's dynamic registration): `where` names it in
 *  errors, `name` is the workload's name; trace files resolve from the current folder. */
Workload read_batsim_text(const std::string& text, const std::string& where, const std::string& name);

namespace detail {
/** read_batsim's fast path: a workload of common jobs and profiles only (the five job fields; delay
 *  and parallel_homogeneous profiles with their own and HDeepRM's numeric fields; no escape in any
 *  string; the top-level keys read_batsim takes or ignores, job_limits included) read straight from
 *  its text, without building the JSON document. Nothing for any other text, valid or not:
 *  read_batsim then reads the document and names what is wrong. */
std::optional<Workload> read_batsim_common(std::string_view text, const std::filesystem::path& file);
/** read_batsim through the whole JSON document (field by field where a job or profile is not a
 *  common one), without the fast path that reads common workloads straight from the text: the two
 *  give the same Workload (tests compare them). */
Workload read_batsim_document(const std::filesystem::path& file);
} // namespace detail

/** Reads a workload by its format: SWF (.swf, .swf.gz: all jobs, cleaned, converted with default
 *  options) or Batsim JSON. */
Workload read_workload(const std::filesystem::path& file);

/** The resources a run uses when it is not told how many: a Batsim workload's nb_res (its first
 *  nb_res machines, Batsim's one-core hosts: the workload was made for them). Nothing (the whole
 *  platform) without nb_res, and for HDeepRM's workloads, which carry job_limits (swf2json,
 *  generate, an SWF log read directly): their nb_res is the size of the machine the log came from
 *  (MaxProcs) or the widest job, and HDeepRM runs them on whole platforms of other sizes. */
std::optional<uint64_t> resources_made_for(const Workload& w);

/** Writes a workload as Batsim JSON (deterministic; one job or profile per line), the profile types
 *  under their Batsim 4 names (to_string). */
void write_batsim(const Workload& w, std::ostream& out);

/** How swf2json builds jobs, after the HDeepRM thesis. */
struct SwfConversion {
  double reference_speed = 22e9; ///< flop/s of the reference machine (HDeepRM: 2.75 GHz x 8 flops/cycle)
  double mem_bw_min_gbps = 4;    ///< memory bandwidth per core: uniform in [min, max] ...
  double mem_bw_max_gbps = 24;
  std::vector<double> mem_bw_values; ///< ... or a uniform choice among these values when given
  uint64_t seed         = 1;
  bool walltime         = false; ///< set each job's walltime to its requested time (Batsim kills overruns)
  double default_mem_mb = 0;     ///< memory when the log gives neither requested nor used memory
};

struct SwfConversionReport {
  uint64_t run_time_unknown       = 0; ///< jobs kept by --no-clean whose run time was not positive (0 operations)
  uint64_t requested_time_unknown = 0; ///< jobs whose requested time was -1 (run time used instead)
  uint64_t memory_unknown         = 0; ///< jobs with neither requested nor used memory
  uint64_t requested_time_below_run_time = 0;
};

/** Jobs of parallel_homogeneous profiles: res = processors; cpu = run time x reference speed (the
 *  real operations per core; 0 for a run time that is unknown or not positive, kept without
 *  cleaning); req_time = the SWF requested time, else the run time, else none; req_ops = req_time
 *  x reference speed; mem = requested memory, else used memory, KB -> MB; mem_bw drawn from the
 *  seeded distribution; com = 0. Adds HDeepRM's job_limits (max time, cores, memory, bandwidth).
 *  The records are those of select_swf (processors known, times within max_time_s). */
Workload swf_to_workload(const SwfLog& log, const SwfSelected& selected, const SwfConversion& options,
                         SwfConversionReport* report = nullptr);

/** HDeepRM's job_limits object (max time, cores, memory, bandwidth, reference machine), as JSON text. */
std::string job_limits_json(double longest_s, uint64_t max_cores, double max_mem_mb, double max_mem_bw_gbps,
                            double reference_speed);

/** Fields `sgai workload stats` summarizes: req_time, size, mem, mem_bw, subtime, walltime. */
std::vector<double> field_values(const Workload& w, const std::string& field);
const std::vector<std::string>& stats_fields();

struct Summary {
  size_t count = 0;
  double min = 0, q1 = 0, median = 0, q3 = 0, p95 = 0, p99 = 0, max = 0, mean = 0;
};
/** Quantiles by linear interpolation between order statistics (numpy's default). */
Summary summarize(std::vector<double> values);

} // namespace sgai::workload

#endif
