/* Workloads as the simulators see them: jobs (submission time, requested resources, walltime)
 * running profiles (a delay, or parallel computation and communication), with HDeepRM's extra
 * fields (requested time and operations, memory, memory bandwidth). Plain C++ data. */
#ifndef SGAI_WORKLOAD_WORKLOAD_HPP
#define SGAI_WORKLOAD_WORKLOAD_HPP

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace sgai::workload {

enum class ProfileType { delay, parallel_homogeneous, parallel };
const char* to_string(ProfileType t);

struct Profile {
  std::string name;
  ProfileType type = ProfileType::delay;
  double delay_s   = 0;           ///< delay: how long the job occupies its resources
  double cpu       = 0;           ///< parallel_homogeneous: flops on each resource
  double com       = 0;           ///< parallel_homogeneous: bytes between each ordered pair of resources
  std::vector<double> cpu_vector; ///< parallel: flops per resource
  std::vector<double> com_matrix; ///< parallel: bytes from resource i to j at [i * n + j]
  // HDeepRM's fields (absent in plain Batsim workloads)
  std::optional<double> req_time_s;  ///< the user's requested time
  std::optional<double> req_ops;     ///< operations the user asked for (requested time x reference speed)
  std::optional<double> mem_mb;      ///< memory per resource (core), MB
  std::optional<double> mem_bw_gbps; ///< memory bandwidth per resource (core), GB/s
  std::string extra_json;            ///< other fields of the profile, verbatim (JSON object text)
};

struct Job {
  std::string id; ///< as in the input (Batsim ids may be numbers or strings)
  double submit_s    = 0;
  uint32_t resources = 1;
  std::optional<double> walltime_s; ///< jobs running longer are killed; none: no limit
  uint32_t profile = 0;             ///< index in Workload::profiles
};

struct Workload {
  std::string name;   ///< workload name in outputs (the file's stem)
  std::string source; ///< the file read
  std::optional<uint64_t> nb_res;
  std::vector<Profile> profiles;
  std::vector<Job> jobs;       ///< in submission order (stable for equal times)
  std::string job_limits_json; ///< HDeepRM's job limits, verbatim, may be empty

  const Profile& profile_of(const Job& j) const { return profiles[j.profile]; }
};

/** The requested time the schedulers see: HDeepRM's req_time, else the walltime, else nothing. */
std::optional<double> requested_time(const Workload& w, const Job& j);

} // namespace sgai::workload

#endif
