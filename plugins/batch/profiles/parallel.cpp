/* Batsim's parallel tasks: `parallel_homogeneous` (the same flops on every resource, the same bytes
 * between every ordered pair), `parallel_homogeneous_total` (the same, given as totals spread
 * evenly: cpu / n per resource, com / (n (n - 1)) per pair) and `parallel` (a flops vector and an
 * n x n bytes matrix). Without
 * communication, one execution per host with a thread per core; with it, one parallel task over the
 * job's distinct hosts (SimGrid's ptask_L07 host model), flops and bytes summed per host. */
#include "plugins/batch/profiles/profile_run.hpp"

#include <algorithm>

namespace sgai::batch {

namespace {

/** One stage, then done. */
class OneStage : public ProfileRun {
public:
  explicit OneStage(Stage s)
      : stage_(std::move(s))
  {
  }
  std::optional<Stage> next() override
  {
    if (done_)
      return std::nullopt;
    done_ = true;
    return std::move(stage_);
  }

private:
  Stage stage_;
  bool done_ = false;
};

bool homogeneous_communicates(double com, uint32_t resources)
{
  return com > 0 && resources > 1;
}

bool matrix_communicates(const workload::Profile& p)
{
  return std::any_of(p.com_matrix.begin(), p.com_matrix.end(), [](double b) { return b > 0; });
}

std::unique_ptr<ProfileRun> homogeneous(double cpu, double com, const Placement& where)
{
  Stage st;
  if (homogeneous_communicates(com, static_cast<uint32_t>(where.core_hosts.size())))
    st.execs.push_back(parallel_task(where, {cpu}, {com}));
  else
    st.execs = per_host_execs(where, {cpu});
  return one_stage(std::move(st));
}

std::string runs_anywhere(const workload::Workload&, const workload::Profile&, uint32_t, const scheduling::Resources&)
{
  return {};
}

} // namespace

std::unique_ptr<ProfileRun> one_stage(Stage s)
{
  return std::make_unique<OneStage>(std::move(s));
}

ExecSpec parallel_task(const Placement& where, const std::vector<double>& flops, const std::vector<double>& bytes)
{
  const auto& ch = where.core_hosts;
  size_t n_res   = ch.size();
  std::vector<uint32_t> hosts;
  std::vector<size_t> slot(n_res);
  for (size_t i = 0; i < n_res; i++) {
    auto it = std::find(hosts.begin(), hosts.end(), ch[i]);
    slot[i] = static_cast<size_t>(it - hosts.begin());
    if (it == hosts.end())
      hosts.push_back(ch[i]);
  }
  size_t n = hosts.size();
  ExecSpec e;
  e.flops.assign(n, 0);
  e.bytes.assign(n * n, 0);
  for (size_t i = 0; i < n_res; i++) {
    e.flops[slot[i]] += flops.size() == 1 ? flops[0] : flops[i];
    for (size_t k = 0; k < n_res; k++) {
      double b = bytes.size() == 1 ? (i == k ? 0 : bytes[0]) : bytes[i * n_res + k];
      if (slot[i] != slot[k])
        e.bytes[slot[i] * n + slot[k]] += b;
    }
  }
  e.hosts = std::move(hosts);
  return e;
}

const ProfileKind& parallel_homogeneous_kind()
{
  static const ProfileKind k{workload::to_string(workload::ProfileType::parallel_homogeneous), runs_anywhere,
                             [](const workload::Workload&, const workload::Profile& p, uint32_t r) {
                               return homogeneous_communicates(p.com, r);
                             },
                             [](const workload::Workload&, const workload::Profile& p, const Placement& where) {
                               return homogeneous(p.cpu, p.com, where);
                             }};
  return k;
}

const ProfileKind& parallel_homogeneous_total_kind()
{
  static const ProfileKind k{workload::to_string(workload::ProfileType::parallel_homogeneous_total), runs_anywhere,
                             [](const workload::Workload&, const workload::Profile& p, uint32_t r) {
                               return homogeneous_communicates(p.com, r);
                             },
                             [](const workload::Workload&, const workload::Profile& p, const Placement& where) {
                               double n = static_cast<double>(where.core_hosts.size());
                               return homogeneous(p.cpu / n, n > 1 ? p.com / (n * (n - 1)) : 0, where);
                             }};
  return k;
}

const ProfileKind& parallel_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::parallel),
      [](const workload::Workload&, const workload::Profile& p, uint32_t r, const scheduling::Resources&) {
        if (p.cpu_vector.size() == r)
          return std::string();
        return "profile " + p.name + " describes " + std::to_string(p.cpu_vector.size()) +
               " resources (its cpu vector) but the job asks " + std::to_string(r);
      },
      [](const workload::Workload&, const workload::Profile& p, uint32_t) { return matrix_communicates(p); },
      [](const workload::Workload&, const workload::Profile& p, const Placement& where) -> std::unique_ptr<ProfileRun> {
        Stage st;
        if (matrix_communicates(p))
          st.execs.push_back(parallel_task(where, p.cpu_vector, p.com_matrix));
        else
          st.execs = per_host_execs(where, p.cpu_vector);
        return one_stage(std::move(st));
      }};
  return k;
}

} // namespace sgai::batch
