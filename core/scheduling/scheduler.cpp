#include "core/scheduling/scheduler.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <utility>

namespace sgai::scheduling {

namespace {
}

std::optional<Backfill> backfill_from_string(const std::string& s)
{
  if (s == "none")
    return Backfill::none;
  if (s == "easy")
    return Backfill::easy;
  if (s == "conservative")
    return Backfill::conservative;
  if (s == "slurm")
    return Backfill::slurm;
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
  case Backfill::slurm:
    return "slurm";
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

// ------------------------------------------------------------------------------------------- JobQueue

void JobQueue::remove(const std::vector<size_t>& sorted)
{
  if (sorted.empty())
    return;
  const size_t n = size(), first = sorted.front(), last = sorted.back();
  if (last + 1 <= n - first) { // the jobs before `last` move right
    size_t write = last, next = sorted.size();
    for (size_t i = last + 1; i-- > 0;) {
      if (next > 0 && sorted[next - 1] == i)
        next--;
      else {
        buf_[head_ + write]      = std::move(buf_[head_ + i]);
        widths_[head_ + write--] = widths_[head_ + i];
      }
    }
    head_ += sorted.size();
    if (head_ >= 1024 && head_ * 2 >= buf_.size()) { // give the space of removed jobs back, now and then
      buf_.erase(buf_.begin(), buf_.begin() + static_cast<std::ptrdiff_t>(head_));
      widths_.erase(widths_.begin(), widths_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  } else { // the jobs after `first` move left
    size_t write = first, next = 0;
    for (size_t i = first; i < n; i++) {
      if (next < sorted.size() && sorted[next] == i)
        next++;
      else {
        buf_[head_ + write]      = std::move(buf_[head_ + i]);
        widths_[head_ + write++] = widths_[head_ + i];
      }
    }
    buf_.resize(head_ + write);
    widths_.resize(head_ + write);
  }
}

// ------------------------------------------------------------------------------------------ Scheduler

Scheduler::Scheduler(ClusterState& state, const SchedulerConfig& config)
    : state_(state)
    , backfill_(config.backfill)
    , job_policy_(make_job_policy(config.job_policy))
    , resource_policy_(make_resource_policy(config.resource_policy))
    , rng_(config.seed)
    , schedule_(config.backfill == Backfill::conservative ? state.resources().core_count() : 0, -kInf,
                config.schedule_layout)
    , lowest_(make_resource_policy("first"))
{
  schedule_.log_marks(backfill_ == Backfill::conservative);
  if (backfill_ == Backfill::slurm) {
    if (not config.slurm)
      throw std::logic_error("Slurm scheduling without its setup (make_slurm_setup)");
    slurm_ = std::make_unique<SlurmModel>(config.slurm, state.resources());
  }
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

bool Scheduler::submit(const QueuedJob& job, double now)
{
  if (never_fits(job.demand))
    return false;
  if (slurm_) {
    if (not slurm_->admits(job))
      return false;
    slurm_->submitted(job, now >= 0 ? now : job.submit_s, queue_.view());
  }
  if (backfill_ == Backfill::conservative) {
    if (not(job.requested_time_s > 0) || job.requested_time_s == kInf)
      return false;
    fresh_++;
    in_arrival_order_ = in_arrival_order_ && (queue_.empty() || queue_[queue_.size() - 1].arrival < job.arrival);
    if (job.job >= arrival_of_.size()) {
      arrival_of_.resize(size_t{job.job} + 1, kNoArrival);
      indexed_.resize(size_t{job.job} + 1, {std::numeric_limits<double>::quiet_NaN(), 0});
    }
    arrival_of_[job.job] = job.arrival;
    unplaced_.insert(job.arrival);
    if (job.demand.mem_mb > 0)
      with_memory_.insert(job.arrival);
  }
  queue_.push_back(job);
  return true;
}

namespace {
double requested_end(double start_s, double requested_time_s)
{
  return start_s + requested_time_s;
}
} // namespace

void Scheduler::set_running(uint32_t job, Running r)
{
  if (auto it = running_.find(job); it != running_.end())
    erase_running(it);
  double end = requested_end(r.start_s, r.requested_time_s);
  if (end != kInf)
    requested_ends_.emplace(end, job);
  running_.emplace(job, std::move(r));
}

void Scheduler::erase_running(std::map<uint32_t, Running>::iterator it)
{
  requested_ends_.erase({requested_end(it->second.start_s, it->second.requested_time_s), it->first});
  running_.erase(it);
}

void Scheduler::release(uint32_t job, double now)
{
  auto it = running_.find(job);
  if (it == running_.end())
    return;
  if (slurm_)
    slurm_->ended(job, now, queue_.view());
  for (uint32_t c : it->second.cores)
    state_.release(c, it->second.demand);
  erase_running(it);
  if (backfill_ == Backfill::conservative) {
    schedule_.remove(job);
    ended_since_step_ = true;
  }
}

void Scheduler::hold(uint32_t key, const std::vector<uint32_t>& cores, double start, double until)
{
  if (backfill_ == Backfill::conservative || backfill_ == Backfill::slurm)
    throw std::logic_error("holding cores is supported with EASY backfilling and none only");
  Demand d{static_cast<uint32_t>(cores.size()), 0, 0};
  for (uint32_t c : cores)
    state_.take(c, key, d);
  set_running(key, Running{cores, d, start, until - start});
}

void Scheduler::hold_until(uint32_t key, double until)
{
  Running r          = running_.at(key);
  r.requested_time_s = until - r.start_s;
  set_running(key, std::move(r));
}

void Scheduler::start(size_t queue_index, std::vector<uint32_t> cores, double now, std::vector<Decision>& out)
{
  const QueuedJob& q = queue_[queue_index];
  set_running(q.job, Running{cores, q.demand, now, q.requested_time_s});
  out.push_back({q.job, std::move(cores)});
  queue_.remove({queue_index});
}

namespace {
/** Position of a waiting job in the queue, or the queue's size. */
size_t waiting_index(std::span<const QueuedJob> q, uint32_t job)
{
  for (size_t i = 0; i < q.size(); i++)
    if (q[i].job == job)
      return i;
  return q.size();
}
} // namespace

Scheduler::GivenStart Scheduler::start_given(uint32_t job, const std::vector<uint32_t>& cores, double now,
                                             std::vector<Decision>& out)
{
  size_t i = waiting_index(queue_.view(), job);
  if (i == queue_.size())
    return {GivenStart::Problem::not_waiting, 0, 0};
  const QueuedJob& q = queue_[i];
  for (uint32_t c : cores) {
    if (not state_.is_free(c))
      return {GivenStart::Problem::busy, c, state_.owner(c)};
  }
  // the memory each node must give: the job's per-core memory times its cores there
  std::map<uint32_t, double> need;
  for (uint32_t c : cores)
    need[state_.resources().cores[c].node] += q.demand.mem_mb;
  for (uint32_t c : cores)
    if (need[state_.resources().cores[c].node] > state_.node_free_memory_mb(state_.resources().cores[c].node))
      return {GivenStart::Problem::memory, c, 0};
  for (uint32_t c : cores)
    state_.take(c, job, q.demand);
  start(i, cores, now, out);
  return {};
}

bool Scheduler::remove_waiting(uint32_t job)
{
  size_t i = waiting_index(queue_.view(), job);
  if (i == queue_.size())
    return false;
  queue_.remove({i});
  return true;
}

std::vector<Decision> Scheduler::step(double now)
{
  switch (backfill_) {
  case Backfill::none:
    return greedy_step(now);
  case Backfill::easy:
    return backfill_step(now);
  case Backfill::conservative:
    return conservative_step(now);
  case Backfill::slurm:
    return slurm_step(now);
  }
  return {};
}

double Scheduler::next_wake(double now) const
{
  return slurm_ ? slurm_->next_wake(now, queue_.empty()) : kInf;
}

std::vector<Decision> Scheduler::slurm_step(double now)
{
  auto take = [&](size_t i, const CoreSet& allowed) {
    return resource_policy_->select(state_, queue_[i].job, queue_[i].demand, rng_, &allowed);
  };
  auto started = slurm_->step(now, queue_.view(), state_, take);
  std::vector<Decision> out;
  std::vector<size_t> gone;
  for (auto& [i, cores] : started) {
    const QueuedJob& q = queue_[i];
    set_running(q.job, Running{cores, q.demand, now, slurm_->time_limit(q)});
    out.push_back({q.job, std::move(cores)});
    gone.push_back(i);
  }
  std::sort(gone.begin(), gone.end());
  queue_.remove(gone);
  return out;
}

std::vector<Decision> Scheduler::greedy_step(double now)
{
  std::vector<Decision> out;
  while (not queue_.empty()) {
    size_t i   = job_policy_->pick(queue_.view(), rng_);
    auto cores = resource_policy_->select(state_, queue_[i].job, queue_[i].demand, rng_);
    if (cores.empty())
      break;
    start(i, std::move(cores), now, out);
  }
  return out;
}

/* EASY backfilling gives what an AvailabilityProfile of the running jobs, rebuilt at this step,
 * would give (the walk below is that of the profile; the profile itself is never built):
 * - Until the reservation is made, every core's availability is monotone: busy until its job's
 *   end (never, for a job past its requested time or without one), free from then on. The first
 *   fit of k cores is then the first instant at which k cores are free, whatever the duration,
 *   and its candidates are the cores free at that instant; a fit now has the free cores.
 * - The reservation (made once) holds its cores R over [s, s + d). A fit now of duration t then
 *   has the cores available now, less R when the window reaches s (s < now + t).
 * - A job started now holds its cores over [now, now + t); when that window is empty (t not
 *   positive), the profile's occupy() marks nothing: those cores stay available in the profile
 *   for the rest of the step although the cluster state has them (the resource policy, which
 *   takes free cores only, never gives them again). `avail` keeps them, as the profile did.
 * A job the resource policy cannot place on the candidates (memory) is skipped. */
std::vector<Decision> Scheduler::backfill_step(double now)
{
  std::vector<Decision> out;
  const bool arrival = job_policy_->arrival_order();
  // nothing can start (a policy of another order ranks the queue at every step all the same: its
  // random draws follow the steps)
  if (queue_.empty() || (arrival && state_.free_cores() == 0))
    return out;
  const uint32_t n = state_.resources().core_count();
  // (the sets are members: a step allocates nothing for them)
  CoreSet& avail = bf_avail_; // the profile's first slice
  avail.assign(n, state_.free_words());
  uint32_t avail_count = state_.free_cores();
  bool reserved        = false;
  CoreSet& held        = bf_held_; // R, when the reservation holds cores
  double held_from     = kInf;     // s
  uint32_t held_avail  = 0;        // |R n avail|
  std::vector<size_t> order;
  if (not arrival) // the queue in the job policy's order: shortest first for EASY-SJF, and so on
    order = job_policy_->rank(queue_.view(), rng_);
  started_.clear();
  const size_t count     = queue_.size();
  const uint32_t* widths = queue_.widths();
  for (size_t k = 0; k < count; k++) {
    // Nothing more can start now: the later jobs' reservations would not change this step.
    if (avail_count == 0)
      break;
    if (reserved && arrival) { // once reserved, only a job that fits now matters
      while (k < count && widths[k] > avail_count)
        k++;
      if (k == count)
        break;
    }
    const size_t i         = arrival ? k : order[k];
    const QueuedJob& q     = queue_[i];
    const uint32_t width   = q.demand.cores;
    const double duration  = q.requested_time_s;
    bool fits_now          = false;
    CoreSet& candidates    = bf_candidates_;
    const CoreSet* allowed = &avail;
    if (not reserved) {
      fits_now = avail_count >= width;
    } else {
      bool clash = held_avail > 0 && held_from < now + duration;
      fits_now   = avail_count - (clash ? held_avail : 0) >= width;
      if (fits_now && clash) {
        candidates = avail;
        candidates.subtract(held);
        allowed = &candidates;
      }
    }
    if (fits_now) {
      auto cores = resource_policy_->select(state_, q.job, q.demand, rng_, allowed);
      if (not cores.empty()) {
        if (now + duration > now) { // (else the profile marked nothing)
          for (uint32_t c : cores) {
            if (avail.test(c)) {
              avail.reset(c);
              avail_count--;
              if (held_avail > 0 && held.test(c))
                held_avail--;
            }
          }
        }
        set_running(q.job, Running{cores, q.demand, now, duration});
        out.push_back({q.job, std::move(cores)});
        started_.push_back(i);
        continue;
      }
      continue; // fits now but not in memory: no reservation for it
    }
    if (reserved)
      continue;
    // The first fit after now: the first running job's end at which `width` cores are free.
    // (requested_ends_ holds the finite ends in order; a job past its requested end holds its cores for an
    // unknown time, as one without a requested time)
    uint64_t free_then = avail_count;
    auto first_end     = requested_ends_.upper_bound({now, std::numeric_limits<uint32_t>::max()});
    auto upto          = first_end;
    for (; upto != requested_ends_.end() && free_then < width; ++upto)
      free_then += running_.at(upto->second).cores.size();
    if (free_then < width)
      continue; // never enough cores (some are held for an unknown time): no reservation
    const double start = std::prev(upto)->first;
    while (upto != requested_ends_.end() && upto->first == start) // the same slice
      ++upto;
    CoreSet& then = bf_then_;
    then          = avail;
    for (auto e = first_end; e != upto; ++e)
      for (uint32_t c : running_.at(e->second).cores)
        then.set(c);
    reserved = true;
    if (start + duration > start) { // (else the profile's occupy() marked nothing)
      held.assign_lowest(then, width);
      held_from  = start;
      held_avail = held.count_common(avail);
    }
  }
  if (not started_.empty()) {
    if (not arrival)
      std::sort(started_.begin(), started_.end());
    queue_.remove(started_);
  }
  return out;
}

// ------------------------------------------------------------------------ conservative backfilling
//
// batsched's make_decisions (src/algo/conservative_bf.cpp) on a schedule kept between steps:
// - nothing ended since the last step: only the jobs submitted since are placed, first-fit after
//   the reservations already there, in arrival order;
// - a job ended (its cores are free before its requested time): every waiting job in the job
//   policy's order is taken out of the schedule and placed first-fit again, the jobs after it
//   keeping their reservations meanwhile.
// A job whose reservation begins now starts, on the reservation's cores.

std::vector<uint32_t> Scheduler::take_lowest(const QueuedJob& q, std::vector<uint32_t> cores)
{
  if (q.demand.mem_mb > 0) {
    // Memory is not part of the schedule: checked when a job starts (cores of a node are contiguous).
    const Resources& r = state_.resources();
    for (size_t i = 0; i < cores.size();) {
      uint32_t node = r.cores[cores[i]].node;
      size_t k      = i;
      while (k < cores.size() && r.cores[cores[k]].node == node)
        k++;
      if (state_.node_free_memory_mb(node) + 1e-9 < q.demand.mem_mb * static_cast<double>(k - i)) {
        CoreSet candidates = schedule_.last_candidates();
        return lowest_->select(state_, q.job, q.demand, rng_, &candidates);
      }
      i = k;
    }
  }
  for (uint32_t c : cores)
    state_.take(c, q.job, q.demand);
  return cores;
}

bool Scheduler::place(size_t queue_index, double now, std::vector<Decision>& out)
{
  const QueuedJob& q    = queue_[queue_index];
  const uint32_t width  = q.demand.cores;
  const double duration = q.requested_time_s;
  // A job already in the schedule is searched as if it were not: it moves only if it must.
  const ReservationSchedule::Reservation* own = schedule_.find(q.job);

  auto leave = [&] { // its previous reservation
    if (own != nullptr) {
      waiting_starts_.erase({own->start, q.job});
      schedule_.remove(q.job);
      own = nullptr;
    }
  };
  // Most waiting jobs would land where they are: proven so without searching (see may_move). Not
  // a job with memory: its reservation may be the fit after one its nodes lacked the memory for,
  // not the first fit, and memory freed since is not in the schedule.
  if (own != nullptr && own->start > now && q.demand.mem_mb <= 0 && not schedule_.may_move(*own)) {
    schedule_.confirm(*own);
    return false;
  }
  auto fit = schedule_.first_fit(width, duration, 0, own, q.demand.mem_mb > 0);
  if (not fit) { // cores held by jobs past their requested time: placed again when a job ends
    leave();
    return false;
  }
  if (fit->start == now) {
    std::vector<uint32_t> cores = take_lowest(q, std::move(fit->cores));
    if (not cores.empty()) {
      if (own != nullptr && own->start == now && own->cores == cores) {
        waiting_starts_.erase({now, q.job});
      } else {
        leave();
        schedule_.reserve(q.job, now, now + duration, cores);
      }
      ends_.emplace(now + duration, q.job);
      set_running(q.job, Running{cores, q.demand, now, duration});
      out.push_back({q.job, std::move(cores)});
      return true;
    }
    // Not enough memory on those nodes now: the next fit after now.
    leave();
    fit = schedule_.first_fit(width, duration, 1);
    if (not fit)
      return false;
  }
  if (own != nullptr && own->start == fit->start && own->cores == fit->cores) {
    schedule_.confirm(*own);
    schedule_.recycle(std::move(fit->cores));
    return false; // where it was
  }
  leave();
  schedule_.reserve(q.job, fit->start, fit->start + duration, std::move(fit->cores));
  waiting_starts_.emplace(fit->start, q.job);
  moved_++;
  return false;
}

std::vector<Decision> Scheduler::conservative_step(double now)
{
  std::vector<Decision> out;
  schedule_.advance(now);
  bool compress = std::exchange(ended_since_step_, false);
  size_t fresh  = std::exchange(fresh_, 0);

  // A job still running past its requested time (no walltime kill) holds its cores for an unknown
  // time: every waiting job is placed again around it.
  std::vector<uint32_t> overran;
  while (not ends_.empty() && ends_.top().first <= now) {
    auto [end, job] = ends_.top();
    ends_.pop();
    const auto* r = schedule_.find(job);
    if (running_.count(job) != 0 && r != nullptr && r->end == end)
      overran.push_back(job);
  }
  if (not overran.empty()) {
    std::vector<uint32_t> running;
    running.reserve(running_.size());
    for (const auto& [job, r] : running_)
      running.push_back(job);
    schedule_.keep_only(running); // (every waiting job's reservation goes)
    waiting_starts_.clear();
    by_start_.clear();
    for (const QueuedJob& q : queue_.view())
      indexed_[q.job].first = std::numeric_limits<double>::quiet_NaN();
    all_unplaced_ = true;
    for (uint32_t job : overran) {
      std::vector<uint32_t> cores = schedule_.find(job)->cores;
      schedule_.remove(job);
      schedule_.reserve(job, now, kInf, std::move(cores));
    }
    schedule_.forget_freed(); // (no waiting job keeps a reservation that a freed core could move)
    compress = true;
  }
  // A reservation beginning at or before now belongs to a job that did not start: never so in
  // batsched (reservations begin where others end, and every end is an event), but so here when
  // the job it waited for ran past its requested time and nothing happened at that time. Its
  // reservation, when it began before now, is taken out before the waiting jobs are placed again:
  // left in, it would hold its cores from now on for less than its job needs, and a job placed
  // before it in the policy's order could go after it, and it after that one, with nothing running
  // to wake the manager. One beginning now is whole: it stays, as batsched keeps it.
  if (not waiting_starts_.empty() && waiting_starts_.begin()->first <= now) {
    while (not waiting_starts_.empty() && waiting_starts_.begin()->first < now) {
      const uint32_t job = waiting_starts_.begin()->second;
      schedule_.remove(job);
      waiting_starts_.erase(waiting_starts_.begin());
      if (is_indexed(job)) {
        auto& [start, arrival] = indexed_[job];
        by_start_.erase(start, arrival);
        unplaced_.insert(arrival);
        start = std::numeric_limits<double>::quiet_NaN();
      }
    }
    compress = true;
  }
  started_.clear();
  if (not compress || queue_.empty()) {
    if (stale_index_)
      schedule_.forget_freed(); // (the next end searches every waiting job)
    else
      look_at_freed(UINT64_MAX, false); // (what they may move waits for the next end)
    for (size_t i = queue_.size() - fresh; i < queue_.size(); i++) {
      bool started = place(i, now, out);
      if (not stale_index_)
        reindex(queue_[i], started);
      else if (started)
        arrival_of_[queue_[i].job] = kNoArrival;
      if (started)
        started_.push_back(i);
    }
  } else if (job_policy_->arrival_order() && in_arrival_order_ && not(schedule_.narrow() && moved_share_ > 0.5)) {
    if (stale_index_)
      rebuild_index();
    const size_t before = moved_;
    const size_t n      = queue_.size();
    arrival_step(now, out);
    moved_share_ = double(moved_ - before) / double(n);
  } else if (job_policy_->arrival_order() && in_arrival_order_) {
    // A narrow machine where most waiting jobs moved at the last end: batsched's loop over them
    // all costs less than finding those that may move, and keeping the index for it. The index
    // is built again when the search for them pays again.
    schedule_.forget_freed(); // (every waiting job is searched)
    const size_t moved = moved_;
    for (size_t i : job_policy_->rank(queue_.view(), rng_)) {
      bool started = place(i, now, out);
      if (started) {
        arrival_of_[queue_[i].job] = kNoArrival;
        started_.push_back(i);
      }
    }
    moved_share_ = double(moved_ - moved) / double(queue_.size());
    std::sort(started_.begin(), started_.end());
    stale_index_ = true;
  } else {
    schedule_.look_at_freed();
    const uint64_t before = schedule_.openings_made();
    const size_t moved    = moved_;
    moved_share_          = 0;
    for (size_t i : job_policy_->rank(queue_.view(), rng_)) {
      bool started = place(i, now, out);
      reindex(queue_[i], started);
      if (started)
        started_.push_back(i);
    }
    moved_share_ = double(moved_ - moved) / double(queue_.size());
    std::sort(started_.begin(), started_.end());
    schedule_.forget_openings(before); // every waiting job was placed again or found unchanged since
    pending_.clear();
    // (a superset of what the jobs visited before may not have seen; the removals left are looked
    // at in the next step, as batsched's loop leaves them)
    look_at_freed(UINT64_MAX, false, false);
  }
  all_unplaced_ = false; // (every waiting job was placed again)
  if (not started_.empty())
    queue_.remove(started_);
  return out;
}

void Scheduler::rebuild_index()
{
  by_start_.clear();
  unplaced_.clear();
  with_memory_.clear();
  pending_.clear();
  for (const QueuedJob& q : queue_.view()) {
    indexed_[q.job]    = {std::numeric_limits<double>::quiet_NaN(), 0};
    arrival_of_[q.job] = q.arrival;
    reindex(q, false);
    if (q.demand.mem_mb > 0)
      with_memory_.insert(q.arrival);
  }
  // (what was freed since is not looked at: every waiting job is visited in this step)
  schedule_.forget_freed();
  std::vector<uint32_t> none;
  schedule_.take_marked(none);
  std::vector<double> no_times;
  schedule_.take_regained(no_times);
  openings_seen_ = schedule_.openings_made();
  pending_all_   = true;
  stale_index_   = false;
}

void Scheduler::reindex(const QueuedJob& q, bool started)
{
  const auto* r = started ? nullptr : schedule_.find(q.job);
  if (is_indexed(q.job)) {
    auto& [start, arrival] = indexed_[q.job];
    if (r != nullptr && start == r->start)
      return; // where it was
    by_start_.erase(start, arrival);
    start = std::numeric_limits<double>::quiet_NaN();
  }
  if (started) {
    unplaced_.erase(q.arrival);
    with_memory_.erase(q.arrival);
    pending_.erase(q.arrival);
    arrival_of_[q.job] = kNoArrival;
    return;
  }
  if (r == nullptr) {
    unplaced_.insert(q.arrival);
    return;
  }
  unplaced_.erase(q.arrival);
  by_start_.insert(r->start, q.arrival, ReservationSchedule::enough(*r));
  indexed_[q.job] = {r->start, q.arrival};
}

void Scheduler::look_at_freed(uint64_t from, bool visit, bool look)
{
  if (look)
    schedule_.look_at_freed();
  // (an opening that may move many jobs: all of them from `from` on, or all at the next step)
  const size_t many = 64 + queue_.size() / 16;
  size_t later = 0, earlier = 0;
  auto add = [&](uint64_t arrival) {
    const bool later_all = visit && all_from_ <= from;
    if (later_all && pending_all_)
      return false; // (every job is visited, now or at the next step)
    if (visit && arrival >= from) {
      if (not later_all) {
        to_visit_[(arrival - base_) >> 6] |= uint64_t{1} << ((arrival - base_) & 63);
        if (++later > many)
          all_from_ = from;
      }
    } else if (not pending_all_) {
      pending_.insert(arrival);
      if (++earlier > many)
        pending_all_ = true;
    }
    return true;
  };
  for (const auto& o : schedule_.openings_after(openings_seen_))
    by_start_.query(o.lo, o.length, add);
  openings_seen_ = schedule_.openings_made();
  schedule_.take_marked(marked_);
  for (uint32_t job : marked_)
    if (job < arrival_of_.size() && arrival_of_[job] != kNoArrival)
      add(arrival_of_[job]);
  // (a narrow machine's schedule gives the times where a freed core is taken again: the jobs
  // beginning there may grow into it)
  schedule_.take_regained(regained_);
  for (double t : regained_)
    by_start_.starting_at(t, add);
}

void Scheduler::arrival_step(double now, std::vector<Decision>& out)
{
  // The jobs batsched's loop would search: always those without a reservation, beginning now or
  // with memory, and those an opening or a mark may move (see place and may_move); in queue order,
  // with the removals looked at where that loop's next may_move would look at them. The others
  // would be proven unchanged (may_move) without a search. Jobs are named by arrival (the queue
  // is in arrival order): to_visit_ has a bit an arrival from the first waiting job's.
  const size_t n = queue_.size();
  base_          = queue_[0].arrival;
  to_visit_.assign(static_cast<size_t>((queue_[n - 1].arrival - base_) / 64 + 1), 0);
  all_from_ = pending_all_ ? 0 : UINT64_MAX;
  auto add  = [&](uint64_t a) {
    if (a >= base_ && a <= queue_[n - 1].arrival)
      to_visit_[(a - base_) >> 6] |= uint64_t{1} << ((a - base_) & 63);
  };
  for (const auto* set : {&unplaced_, &with_memory_, &pending_})
    for (uint64_t a : *set)
      add(a);
  if (std::exchange(all_unplaced_, false))
    for (const QueuedJob& q : queue_.view())
      add(q.arrival);
  pending_.clear();
  pending_all_ = false;
  for (auto it = waiting_starts_.begin(); it != waiting_starts_.end() && it->first <= now; ++it)
    add(arrival_of_[it->second]);
  look_at_freed(0, true);
  const uint64_t before = schedule_.openings_made();
  // The next arrival to visit at or after a (UINT64_MAX: none marked).
  auto marked = [&](uint64_t a) {
    for (uint64_t k = a - base_; k < to_visit_.size() * 64; k = (k | 63) + 1)
      if (uint64_t bits = to_visit_[k >> 6] >> (k & 63))
        return base_ + k + static_cast<uint64_t>(std::countr_zero(bits));
    return UINT64_MAX;
  };
  auto view      = queue_.view();
  size_t visited = 0;
  for (size_t cursor = 0; cursor < n;) {
    size_t i = cursor;
    if (view[cursor].arrival < all_from_) {
      const uint64_t a = marked(view[cursor].arrival);
      if (a == UINT64_MAX && all_from_ == UINT64_MAX)
        break;
      const uint64_t target = std::min(a, all_from_);
      // (galloping from the cursor: the arrivals increase)
      size_t hi = cursor + 1;
      for (size_t step = 1; hi < n && view[hi - 1].arrival < target; step *= 2)
        hi = std::min(n, hi + step);
      i = static_cast<size_t>(std::lower_bound(view.begin() + static_cast<std::ptrdiff_t>(cursor),
                                               view.begin() + static_cast<std::ptrdiff_t>(hi), target,
                                               [](const QueuedJob& q, uint64_t x) { return q.arrival < x; }) -
                              view.begin());
      if (i == n)
        break;
      if (view[i].arrival != target && view[i].arrival < all_from_) { // (that job is gone)
        cursor = i;
        continue;
      }
    }
    visited++;
    bool started = place(i, now, out);
    reindex(queue_[i], started);
    if (started)
      started_.push_back(i);
    cursor = i + 1;
    if (schedule_.freed_pending() && cursor < n) {
      const QueuedJob& nx = queue_[cursor];
      const auto* r       = schedule_.find(nx.job);
      if (r != nullptr && r->start > now && nx.demand.mem_mb <= 0) // its may_move would look now
        look_at_freed(nx.arrival, true);
    }
  }
  schedule_.count_unchanged(n - visited);
  schedule_.forget_openings(before);
}

} // namespace sgai::scheduling
