/* Batsim's sequential composition: the profiles of `sequence` run one after the other, the whole
 * sequence `repeat` times, on the job's resources. Each part is started only when the previous one
 * is over, so a long composition (up to 1e9 parts, repeats expanded) costs nothing up front. */
#include "plugins/batch/profiles/profile_run.hpp"

namespace sgai::batch {

namespace {

class ComposedRun : public ProfileRun {
public:
  ComposedRun(const workload::Workload& w, const workload::Profile& p, Placement where)
      : w_(w)
      , p_(p)
      , where_(std::move(where))
  {
  }
  std::optional<Stage> next() override
  {
    while (true) {
      if (part_) {
        if (auto s = part_->next())
          return s;
        part_.reset();
      }
      if (round_ >= p_.repeat)
        return std::nullopt;
      part_ = start_profile(w_, w_.profiles[p_.sequence[index_]], where_);
      if (++index_ == p_.sequence.size()) {
        index_ = 0;
        round_++;
      }
    }
  }

private:
  const workload::Workload& w_;
  const workload::Profile& p_;
  Placement where_;
  std::unique_ptr<ProfileRun> part_;
  size_t index_   = 0; ///< the next part in the sequence
  uint32_t round_ = 0; ///< sequences completed (the next part's round)
};

} // namespace

const ProfileKind& composed_kind()
{
  static const ProfileKind k{
      workload::to_string(workload::ProfileType::composed),
      [](const workload::Workload& w, const workload::Profile& p, uint32_t n, const scheduling::Resources& r) {
        for (uint32_t q : p.sequence) {
          auto why = cannot_run(w, w.profiles[q], n, r);
          if (not why.empty())
            return "its part " + w.profiles[q].name + ": " + why;
        }
        return std::string();
      },
      [](const workload::Workload& w, const workload::Profile& p, uint32_t n) {
        for (uint32_t q : p.sequence)
          if (communicates(w, w.profiles[q], n))
            return true;
        return false;
      },
      [](const workload::Workload& w, const workload::Profile& p,
         const Placement& where) -> std::unique_ptr<ProfileRun> { return std::make_unique<ComposedRun>(w, p, where); }};
  return k;
}

} // namespace sgai::batch
