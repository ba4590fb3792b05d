/* The workload manager's submissions: jobs submitted by other actors (Batsim's submitters, a
 * program's own) or registered by an external scheduler, and the queue entry of each job. */
#include "plugins/batch/manager_impl.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"

#include <simgrid/s4u/Engine.hpp>

#include <algorithm>
#include <limits>
#include <stdexcept>

namespace sgai::batch {

namespace {
} // namespace

// ------------------------------------------------------------------------------------ submissions

const workload::Workload& WorkloadManager::Impl::source_of(uint32_t job) const
{
  return job < n_given_ ? w_ : *submitted_[job - n_given_].from;
}

const workload::Profile& WorkloadManager::Impl::profile_to_run(uint32_t job) const
{
  if (job < n_given_)
    return w_.profile_of(w_.jobs[job]);
  const auto& s = submitted_[job - n_given_];
  return s.from->profile_of(s.from->jobs[s.job]);
}

uint32_t WorkloadManager::Impl::submit(std::shared_ptr<const workload::Workload> from, size_t job)
{
  if (cfg_.submitters == 0)
    throw std::invalid_argument("this workload manager takes no submissions (its submitters are 0)");
  if (open_submitters_ == 0)
    throw std::invalid_argument("every submitter of this workload manager has ended its submissions");
  if (not error_.empty())
    throw std::invalid_argument(error_);
  if (from == nullptr || job >= from->jobs.size())
    throw std::invalid_argument("job index " + std::to_string(job) + " is not in the workload submitted from");
  const auto& j = from->jobs[job];
  if (auto why = cannot_run(*from, j, r_); not why.empty())
    throw std::invalid_argument(from->source + ": job " + quote(j.id) + ": " + why);
  if (w_.jobs.size() + 1 >= kHoldKey)
    throw std::invalid_argument("more than 2^31 jobs");
  // its profiles are copied once per workload, for the outputs (names, requested times)
  size_t s = 0;
  while (s < sources_.size() && sources_[s] != from)
    s++;
  if (s == sources_.size()) {
    auto offset = static_cast<uint32_t>(own_.profiles.size());
    for (auto p : from->profiles) {
      for (auto& part : p.sequence)
        part += offset;
      own_.profiles.push_back(std::move(p));
    }
    sources_.push_back(from);
    source_offset_.push_back(offset);
  }
  double now        = sg4::Engine::get_clock();
  auto index        = static_cast<uint32_t>(own_.jobs.size());
  workload::Job& in = own_.jobs.emplace_back(j);
  in.submit_s       = now;
  in.profile += source_offset_[s];
  submitted_.push_back({from.get(), job});
  if (hist_.submitted_from.empty())
    hist_.first_submitted = index;
  hist_.submitted_from.push_back(from->name);
  hist_.records.emplace_back();
  job_energy_.push_back(0);
  arrived_.push_back(index);
  wake();
  return index;
}

void WorkloadManager::Impl::end_submissions()
{
  if (open_submitters_ == 0)
    throw std::invalid_argument("more submitters ended their submissions than the workload manager's " +
                                std::to_string(cfg_.submitters));
  open_submitters_--;
  wake();
}

scheduling::QueuedJob WorkloadManager::Impl::queued(uint32_t job)
{
  const auto& j      = w_.jobs[job];
  hist_.first_submit = std::min(hist_.first_submit, j.submit_s);
  scheduling::QueuedJob q;
  q.job              = job;
  q.submit_s         = j.submit_s;
  q.arrival          = arrivals_++;
  q.requested_time_s = workload::requested_time(w_, j).value_or(kInf);
  q.demand           = demand_of(job);
  return q;
}

} // namespace sgai::batch
