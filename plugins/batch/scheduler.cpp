#include "plugins/batch/scheduler.hpp"

#include <algorithm>
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
  slices_.push_back({now, kInf, CoreSet(cores, true), cores});
}

AvailabilityProfile::AvailabilityProfile(uint32_t cores, double now,
                                         std::vector<std::pair<double, const std::vector<uint32_t>*>> busy)
{
  std::sort(busy.begin(), busy.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  CoreSet available(cores, true);
  uint32_t count = cores;
  for (const auto& [end, list] : busy)
    for (uint32_t c : *list) {
      available.reset(c);
      count--;
    }
  slices_.push_back({now, kInf, available, count});
  for (const auto& [end, list] : busy) {
    if (end == kInf)
      break;
    if (end > slices_.back().begin) {
      slices_.back().end = end;
      slices_.push_back({end, kInf, slices_.back().available, slices_.back().count});
    }
    for (uint32_t c : *list) {
      slices_.back().available.set(c);
      slices_.back().count++;
    }
  }
}

size_t AvailabilityProfile::split_at(double t)
{
  if (t == kInf)
    return slices_.size();
  // the slice containing t: the last one beginning at or before t
  auto it  = std::upper_bound(slices_.begin(), slices_.end(), t, [](double v, const Slice& s) { return v < s.begin; });
  size_t i = static_cast<size_t>(it - slices_.begin());
  if (i == 0)
    return 0;
  Slice& s = slices_[i - 1];
  if (s.begin == t)
    return i - 1;
  if (t < s.end) {
    Slice tail{t, s.end, s.available, s.count};
    s.end = t;
    slices_.insert(slices_.begin() + static_cast<std::ptrdiff_t>(i), std::move(tail));
    return i;
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
      if (slices_[i].available.test(c)) {
        slices_[i].available.reset(c);
        slices_[i].count--;
      }
}

std::optional<AvailabilityProfile::Fit> AvailabilityProfile::fit_from(size_t i, uint32_t cores, double duration) const
{
  if (slices_[i].count < cores)
    return std::nullopt;
  double window_end = slices_[i].begin + duration;
  size_t j          = i + 1;
  // Windows within the first slice need no intersection.
  if (j == slices_.size() || not(slices_[j].begin < window_end))
    return Fit{slices_[i].begin, slices_[i].available};
  CoreSet candidates = slices_[i].available;
  for (; j < slices_.size() && slices_[j].begin < window_end; j++) {
    if (slices_[j].count < cores)
      return std::nullopt;
    candidates.intersect(slices_[j].available);
    if (candidates.count() < cores)
      return std::nullopt;
  }
  return Fit{slices_[i].begin, std::move(candidates)};
}

std::optional<AvailabilityProfile::Fit> AvailabilityProfile::first_fit(uint32_t cores, double duration) const
{
  for (size_t i = 0; i < slices_.size(); i++)
    if (auto fit = fit_from(i, cores, duration))
      return fit;
  return std::nullopt;
}

std::optional<AvailabilityProfile::Fit> AvailabilityProfile::fit_now(uint32_t cores, double duration) const
{
  return fit_from(0, cores, duration);
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
  std::vector<std::pair<double, const std::vector<uint32_t>*>> busy;
  busy.reserve(running_.size());
  for (const auto& [job, r] : running_) {
    double end = r.start_s + r.requested_time_s;
    if (not(end > now))
      end = kInf; // it outlived its request: its end is unknown
    busy.emplace_back(end, &r.cores);
  }
  AvailabilityProfile profile(state_.resources().core_count(), now, std::move(busy));
  // The queue in the job policy's order: first-arrived for classic EASY and conservative
  // backfilling, shortest first for EASY-SJF, and so on.
  std::vector<size_t> order = job_policy_->rank(queue_, rng_);
  std::vector<char> started(queue_.size(), 0);
  bool reserved = false;
  for (size_t i : order) {
    // Nothing more can start now: the later jobs' reservations would not change this step.
    if (profile.available_now() == 0)
      break;
    const QueuedJob& q = queue_[i];
    bool reserve       = backfill_ == Backfill::conservative || not reserved;
    // Without a reservation to make, only a start now matters.
    auto fit = reserve ? profile.first_fit(q.demand.cores, q.requested_time_s)
                       : profile.fit_now(q.demand.cores, q.requested_time_s);
    if (fit && fit->start == now) {
      auto cores = resource_policy_->select(state_, q.job, q.demand, rng_, &fit->candidates);
      if (not cores.empty()) {
        profile.occupy(cores, now, now + q.requested_time_s);
        running_[q.job] = Running{cores, q.demand, now, q.requested_time_s};
        out.push_back({q.job, std::move(cores)});
        started[i] = 1;
        continue;
      }
    }
    if (fit && reserve && fit->start > now) {
      profile.occupy(fit->candidates.lowest(q.demand.cores), fit->start, fit->start + q.requested_time_s);
      reserved = true;
    }
  }
  size_t kept = 0;
  for (size_t i = 0; i < queue_.size(); i++)
    if (not started[i])
      queue_[kept++] = queue_[i];
  queue_.resize(kept);
  return out;
}

} // namespace sgai::batch
