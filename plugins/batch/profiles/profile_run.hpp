/* How a job's profile runs, as a sequence of stages: each stage is a delay or a set of executions
 * (one per host, or one parallel task), and the next stage starts when all of the previous one's
 * executions have ended. The workload manager asks a job's ProfileRun for its stages one at a time,
 * so a long composition costs nothing up front. Profile kinds are found by the profile type's name
 * in a registry (registry.cpp): a file per kind. Plain C++ (no SimGrid): the manager turns the
 * stages into S4U activities. */
#ifndef SGAI_PLUGINS_BATCH_PROFILES_PROFILE_RUN_HPP
#define SGAI_PLUGINS_BATCH_PROFILES_PROFILE_RUN_HPP

#include "core/scheduling/resources.hpp"
#include "generators/workload/workload.hpp"

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace sgai::batch {

/** One activity of a stage: an execution on one host with `threads` cores (flops per thread), or,
 *  with bytes, a parallel task over several hosts (flops per host, bytes[i * n + j] from i to j). */
struct ExecSpec {
  std::vector<uint32_t> hosts; ///< host indices (Resources::host_names)
  std::vector<double> flops;
  std::vector<double> bytes; ///< empty: not a parallel task
  int threads = 1;
};

struct Stage {
  double delay_s = -1; ///< >= 0: the stage only waits this long (the job holds its cores)
  std::vector<ExecSpec> execs;
};

/** Where a job runs: the host of each of its cores, in the order of the allocation (the profile's
 *  resource i runs on core_hosts[i]). */
struct Placement {
  std::vector<uint32_t> core_hosts;
  const scheduling::Resources* resources = nullptr; ///< host names and storage hosts
};

class ProfileRun {
public:
  virtual ~ProfileRun() = default;
  /** The next stage; nothing when the profile is done. */
  virtual std::optional<Stage> next() = 0;
};

struct ProfileKind {
  const char* name; ///< workload::to_string of the profile type
  /** Why a job with this profile cannot run on `resources` cores of `r` (empty: it can). */
  std::string (*cannot_run)(const workload::Workload& w, const workload::Profile& p, uint32_t resources,
                            const scheduling::Resources& r);
  /** Whether the job's executions are parallel tasks with communication (host/model:ptask_L07). */
  bool (*communicates)(const workload::Workload& w, const workload::Profile& p, uint32_t resources);
  std::unique_ptr<ProfileRun> (*start)(const workload::Workload& w, const workload::Profile& p, const Placement& where);
};

/** The kind that runs profiles of this type; nullptr when none does (the manager rejects such a
 *  workload before the run, naming the type). */
const ProfileKind* find_profile_kind(workload::ProfileType type);
/** The kind that runs this profile (a custom type's registered kind included), or nullptr. */
const ProfileKind* find_profile_kind(const workload::Profile& p);

/** A job profile of one's own: profiles of type `name` in Batsim workloads (the reader accepts
 *  them from now on: workload::register_profile_type) run as `kind` says; kind.name is set to
 *  `name`. Register before reading the workload. std::invalid_argument when the name is empty,
 *  Batsim's or registered already, or a function is missing. */
void register_profile_kind(const std::string& name, ProfileKind kind);

/** Why a job cannot run on `r` (its profile has no kind, or the kind refuses it); empty when it can. */
std::string cannot_run(const workload::Workload& w, const workload::Job& j, const scheduling::Resources& r);
/** Why a profile cannot run on `resources` cores of `r` (composed profiles ask each part). */
std::string cannot_run(const workload::Workload& w, const workload::Profile& p, uint32_t resources,
                       const scheduling::Resources& r);
/** Whether the job's executions communicate (they need SimGrid's ptask_L07 host model). */
bool communicates(const workload::Workload& w, const workload::Profile& p, uint32_t resources);
/** The stages of a profile placed on hosts (the profile must have a kind). */
std::unique_ptr<ProfileRun> start_profile(const workload::Workload& w, const workload::Profile& p,
                                          const Placement& where);

// The built-in kinds (one file each).
const ProfileKind& delay_kind();
const ProfileKind& parallel_homogeneous_kind();
const ProfileKind& parallel_kind();
const ProfileKind& parallel_homogeneous_total_kind();
const ProfileKind& composed_kind();
const ProfileKind& storage_kind();
const ProfileKind& smpi_kind();
const ProfileKind& usage_trace_kind();

/** A profile of one stage. */
std::unique_ptr<ProfileRun> one_stage(Stage s);
/** The parallel task over the distinct hosts of the job's resources: flops[i] (or flops[0] for
 *  all) on resource i, bytes[i * n + k] (or bytes[0] between every ordered pair) from i to k,
 *  summed per host. */
ExecSpec parallel_task(const Placement& where, const std::vector<double>& flops, const std::vector<double>& bytes);

/** Executions of `flops_of(i)` flops on each resource i, without communication: one execution per
 *  (host, amount), with as many threads as the host has cores of that amount. */
std::vector<ExecSpec> per_host_execs(const Placement& where, const std::vector<double>& flops);

} // namespace sgai::batch

#endif
