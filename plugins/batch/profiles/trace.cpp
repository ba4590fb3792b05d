/* Batsim's trace replay profiles (TraceReplayProfile): SMPI time-independent traces and usage traces.
 * sgai's workload manager reads them (the workload keeps the trace's path) but does not replay them:
 * an SMPI trace needs SimGrid's SMPI runtime (MPI ranks as actors, SMPI's network factors), which
 * sgai does not start, and Batsim's usage traces are replayed by its own executor, whose format sgai
 * has no reader for. A workload holding such a job is rejected before the run, naming the job, the
 * profile type and why (with the trace's path when the file is not even there). */
#include "plugins/batch/profiles/profile_run.hpp"

#include <filesystem>
#include <system_error>

namespace sgai::batch {

namespace {

std::string missing(const workload::Profile& p)
{
  std::error_code ec;
  if (std::filesystem::is_regular_file(p.trace_path, ec))
    return {};
  return " (and its trace " + p.trace_path.string() + " is not there)";
}

std::unique_ptr<ProfileRun> never(const workload::Workload&, const workload::Profile&, const Placement&)
{
  return nullptr; // cannot_run refused every such job before the run
}

bool silent(const workload::Workload&, const workload::Profile&, uint32_t)
{
  return false;
}

} // namespace

const ProfileKind& smpi_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::smpi),
      [](const workload::Workload&, const workload::Profile& p, uint32_t, const scheduling::Resources&) {
        return "profile '" + p.name +
               "' (type smpi) replays an SMPI trace, which needs SimGrid's SMPI runtime (MPI "
               "ranks as actors); sgai's workload "
               "manager does not run SMPI" +
               missing(p);
      },
      silent, never};
  return k;
}

const ProfileKind& usage_trace_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::usage_trace),
      [](const workload::Workload&, const workload::Profile& p, uint32_t, const scheduling::Resources&) {
        return "profile '" + p.name +
               "' (type usage_trace) replays a Batsim usage trace (FractionalComputation), "
               "which sgai's workload manager does not "
               "replay" +
               missing(p);
      },
      silent, never};
  return k;
}

} // namespace sgai::batch
