#include "plugins/batch/scheduler.hpp"

#include <cmath>
#include <limits>
#include <stdexcept>

namespace sgai::batch {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();
}

std::optional<Backfill> backfill_from_string(const std::string& s)
{
  if (s == "none")
    return Backfill::none;
  if (s == "easy")
    return Backfill::easy;
  if (s == "conservative")
    return Backfill::conservative;
  return std::nullopt;
}

const char* to_string(Backfill b)
{
  switch (b) {
  case Backfill::none:
    return "none";
  case Backfill::easy:
    return "easy";
  case Backfill::conservative:
    return "conservative";
  }
  return "none";
}

// ----------------------------------------------------------------------------- AvailabilityProfile

AvailabilityProfile::AvailabilityProfile(uint32_t cores, double now)
{
  slices_.push_back({now, kInf, CoreSet(cores, true)});
}

size_t AvailabilityProfile::split_at(double t)
{
  if (t == kInf)
    return slices_.size();
  for (size_t i = 0; i < slices_.size(); i++) {
    Slice& s = slices_[i];
    if (s.begin == t)
      return i;
    if (s.begin < t && t < s.end) {
      Slice tail{t, s.end, s.available};
      s.end = t;
      slices_.insert(slices_.begin() + static_cast<std::ptrdiff_t>(i) + 1, std::move(tail));
      return i + 1;
    }
  }
  return slices_.size();
}

void AvailabilityProfile::occupy(const std::vector<uint32_t>& cores, double start, double end)
{
  start = std::max(start, slices_.front().begin);
  if (not(end > start))
    return;
  size_t first = split_at(start);
  size_t last  = split_at(end);
  for (size_t i = first; i < last; i++)
    for (uint32_t c : cores)
      slices_[i].available.reset(c);
}

std::optional<AvailabilityProfile::Fit> AvailabilityProfile::first_fit(uint32_t cores, double duration) const
{
  for (size_t i = 0; i < slices_.size(); i++) {
    if (slices_[i].available.count() < cores)
      continue;
    double window_end  = slices_[i].begin + duration;
    CoreSet candidates = slices_[i].available;
    bool enough        = true;
    for (size_t j = i + 1; j < slices_.size() && slices_[j].begin < window_end; j++) {
      candidates.intersect(slices_[j].available);
      if (candidates.count() < cores) {
        enough = false;
        break;
      }
    }
    if (enough)
      return Fit{slices_[i].begin, std::move(candidates)};
  }
  return std::nullopt;
}

// ------------------------------------------------------------------------------------------ Scheduler

Scheduler::Scheduler(ClusterState& state, const SchedulerConfig& config)
    : state_(state)
    , backfill_(config.backfill)
    , job_policy_(make_job_policy(config.job_policy))
    , resource_policy_(make_resource_policy(config.resource_policy))
    , rng_(config.seed)
{
}

void Scheduler::set_policies(const std::string& job_policy, const std::string& resource_policy)
{
  job_policy_      = make_job_policy(job_policy);
  resource_policy_ = make_resource_policy(resource_policy);
}

bool Scheduler::never_fits(const Demand& d) const
{
  const Resources& r = state_.resources();
  if (d.cores > r.core_count())
    return true;
  if (d.mem_mb <= 0)
    return false;
  uint64_t capacity = 0;
  for (const auto& n : r.nodes)
    capacity += std::min<uint64_t>(n.cores, static_cast<uint64_t>(std::floor(n.memory_mb / d.mem_mb + 1e-9)));
  return capacity < d.cores;
}

bool Scheduler::submit(const QueuedJob& job)
{
  if (never_fits(job.demand))
    return false;
  queue_.push_back(job);
  return true;
}

void Scheduler::release(uint32_t job)
{
  auto it = running_.find(job);
  if (it == running_.end())
    return;
  for (uint32_t c : it->second.cores)
    state_.release(c, it->second.demand);
  running_.erase(it);
}

void Scheduler::start(size_t queue_index, std::vector<uint32_t> cores, double now, std::vector<Decision>& out)
{
  const QueuedJob& q = queue_[queue_index];
  running_[q.job]    = Running{cores, q.demand, now, q.requested_time_s};
  out.push_back({q.job, std::move(cores)});
  queue_.erase(queue_.begin() + static_cast<std::ptrdiff_t>(queue_index));
}

std::vector<Decision> Scheduler::step(double now)
{
  return backfill_ == Backfill::none ? greedy_step(now) : backfill_step(now);
}

std::vector<Decision> Scheduler::greedy_step(double now)
{
  std::vector<Decision> out;
  while (not queue_.empty()) {
    size_t i   = job_policy_->pick(queue_, rng_);
    auto cores = resource_policy_->select(state_, queue_[i].job, queue_[i].demand, rng_);
    if (cores.empty())
      break;
    start(i, std::move(cores), now, out);
  }
  return out;
}

std::vector<Decision> Scheduler::backfill_step(double now)
{
  std::vector<Decision> out;
  if (queue_.empty())
    return out;
  AvailabilityProfile profile(state_.resources().core_count(), now);
  for (const auto& [job, r] : running_) {
    double end = r.start_s + r.requested_time_s;
    if (not(end > now))
      end = kInf; // it outlived its request: its end is unknown
    profile.occupy(r.cores, now, end);
  }
  bool reserved = false;
  for (size_t i = 0; i < queue_.size();) {
    const QueuedJob& q = queue_[i];
    auto fit           = profile.first_fit(q.demand.cores, q.requested_time_s);
    if (fit && fit->start == now) {
      auto cores = resource_policy_->select(state_, q.job, q.demand, rng_, &fit->candidates);
      if (not cores.empty()) {
        profile.occupy(cores, now, now + q.requested_time_s);
        start(i, std::move(cores), now, out);
        continue;
      }
    }
    bool reserve = backfill_ == Backfill::conservative || not reserved;
    if (fit && reserve && fit->start > now) {
      profile.occupy(fit->candidates.lowest(q.demand.cores), fit->start, fit->start + q.requested_time_s);
      reserved = true;
    }
    i++;
  }
  return out;
}

} // namespace sgai::batch
