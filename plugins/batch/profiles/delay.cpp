/* Batsim's delay profile: the job holds its resources for a fixed time and computes nothing. */
#include "plugins/batch/profiles/profile_run.hpp"

namespace sgai::batch {

namespace {

class DelayRun : public ProfileRun {
public:
  explicit DelayRun(double s)
      : s_(s)
  {
  }
  std::optional<Stage> next() override
  {
    if (done_)
      return std::nullopt;
    done_ = true;
    Stage st;
    st.delay_s = s_;
    return st;
  }

private:
  double s_;
  bool done_ = false;
};

} // namespace

const ProfileKind& delay_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::delay),
      [](const workload::Workload&, const workload::Profile&, uint32_t, const scheduling::Resources&) {
        return std::string();
      },
      [](const workload::Workload&, const workload::Profile&, uint32_t) { return false; },
      [](const workload::Workload&, const workload::Profile& p, const Placement&) -> std::unique_ptr<ProfileRun> {
        return std::make_unique<DelayRun>(p.delay_s);
      }};
  return k;
}

} // namespace sgai::batch
