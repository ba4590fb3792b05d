/* The Standard Workload Format of the Parallel Workloads Archive: 18 whitespace-separated fields
 * per job, header comments starting with ';', -1 meaning "unknown". Plain or gzip files. */
#ifndef SGAI_GENERATORS_WORKLOAD_SWF_HPP
#define SGAI_GENERATORS_WORKLOAD_SWF_HPP

#include <cstdint>
#include <filesystem>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::workload {

/** The longest time a workload may give (submission time, run time, requested time, walltime,
 *  delay): 1e12 s, about 31,700 years. SimGrid's clock is a double: at 1e12 s its step is
 *  0.12 ms, so a job of a second still lasts a second; far beyond it durations vanish in the
 *  clock's rounding (an SWF run time of 1e300 made SimGrid abort) and energies overflow. */
constexpr double max_time_s = 1e12;
/** The bound as messages state it. */
inline constexpr const char* max_time_text = "1e12 s (about 31,700 years), the longest time sgai takes";
/** The latest submission time a Batsim JSON workload may give: 1e18 s. Batsim's own tests submit
 *  up to 1e17 s (test_long_workload.json, jobs ever more distant in time), and such runs go
 *  through; but SimGrid's clock step is 16 s at 1e17 s (128 s at 1e18 s), so short jobs there last
 *  a multiple of it (a delay of 20.2 s lasts 16 s): times for tests of the clock, not for studies.
 *  Durations (walltime, delay, req_time) stay at most max_time_s. */
constexpr double max_submit_s                = 1e18;
inline constexpr const char* max_submit_text = "1e18 s, the latest submission sgai takes";
/** The most work one profile may give: 1e21 flop per resource (cpu, req_ops) and 1e21 bytes per
 *  transfer (com). At 1 Gflop/s per core, or 1 GB/s between two hosts, slower than any machine the
 *  platforms describe (HDeepRM's reference core is 22 Gflop/s), that is 1e12 s, max_time_s: an
 *  amount above it cannot finish within the times sgai takes (cpu 1e308 made a job last 1e298 s). */
constexpr double max_work                   = 1e21;
inline constexpr const char* max_flop_text  = "1e21 flop, the most sgai takes (1e12 s at 1 Gflop/s)";
inline constexpr const char* max_bytes_text = "1e21 bytes, the most sgai takes (1e12 s at 1 GB/s)";
/** The most processors a job may ask for: a Batsim job's res is a 32-bit count. */
constexpr double max_processors = 4294967295.0;

/** One job line. Every field as written (-1: unknown); times in seconds, memory in KB per processor. */
struct SwfRecord {
  double job_number          = -1; ///< 1
  double submit_time         = -1; ///< 2
  double wait_time           = -1; ///< 3
  double run_time            = -1; ///< 4
  double allocated_procs     = -1; ///< 5
  double avg_cpu_time        = -1; ///< 6
  double used_memory_kb      = -1; ///< 7 (per processor)
  double requested_procs     = -1; ///< 8
  double requested_time      = -1; ///< 9
  double requested_memory_kb = -1; ///< 10 (per processor)
  double status              = -1; ///< 11
  double user_id             = -1; ///< 12
  double group_id            = -1; ///< 13
  double executable          = -1; ///< 14
  double queue               = -1; ///< 15
  double partition           = -1; ///< 16
  double preceding_job       = -1; ///< 17
  double think_time          = -1; ///< 18
  uint64_t line              = 0;  ///< line number in the file

  /** Requested processors, else allocated ones; -1 when both are unknown. */
  double processors() const { return requested_procs > 0 ? requested_procs : allocated_procs; }
};

/** Names of the 18 fields, in order, for messages. */
const std::vector<std::string>& swf_field_names();

struct SwfLog {
  std::string file;
  std::vector<std::pair<std::string, std::string>> header; ///< "; Key: value" comments, in order
  std::vector<SwfRecord> records;

  /** A header value ("MaxProcs"), if present. */
  std::optional<std::string> header_value(const std::string& key) const;
};

/** Reads a log (gzip-compressed or not). InputError with the line number and the field on a line
 *  that does not have 18 numeric fields, on a submission, run or requested time above max_time_s,
 *  on a processor count (fields 5 and 8) that is not a whole number or is above max_processors,
 *  and on a MaxProcs header that is no such count (or -1); InputError naming the file when it
 *  holds no job. Negative values are kept as written: like -1, they mean "unknown". */
SwfLog read_swf(const std::filesystem::path& file);

/** Which jobs to keep: cleaning drops jobs with a non-positive run time or processor count or an
 *  unknown submission time; jobs without a processor count are dropped even without cleaning (a
 *  Batsim job needs one). Then `count` jobs from `offset` are kept, with submission times shifted
 *  to start at 0 (an unknown submission time, kept without cleaning, becomes 0). */
struct SwfSelection {
  uint64_t offset = 0;
  std::optional<uint64_t> count;
  bool clean = true;
};

struct SwfSelected {
  std::vector<SwfRecord> records;          ///< shifted submission times
  uint64_t read = 0;                       ///< job lines in the log
  std::map<std::string, uint64_t> dropped; ///< reason -> jobs dropped by the cleaning
  double time_shift_s = 0;                 ///< subtracted from every submission time
};

SwfSelected select_swf(const SwfLog& log, const SwfSelection& selection);

} // namespace sgai::workload

#endif
