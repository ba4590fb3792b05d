/* EASY backfilling and the "first" resource policy against plain models of what they compute:
 * EASY as the availability profile of the running jobs rebuilt at each step and walked job by
 * job (the scheduler's former implementation), "first" as repeated picks of the lowest free,
 * allowed core whose node has the memory. Random platforms, queues, requested times (zero,
 * infinite and tiny ones included), memory, early and late ends, holds, policies: every step's
 * decisions must be the same. */
#include "core/foundation/numbers.hpp"
#include "core/scheduling/scheduler.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <map>
#include <random>

using namespace sgai::scheduling;
using sgai::kInf;

namespace {

Resources platform(uint32_t nodes, uint32_t procs, uint32_t cores, double memory)
{
  Resources r;
  for (uint32_t n = 0; n < nodes; n++) {
    r.nodes.push_back(Node{n * procs * cores, procs * cores, n * procs, procs, memory});
    for (uint32_t pp = 0; pp < procs; pp++) {
      uint32_t p = n * procs + pp;
      r.processors.push_back(Processor{n, p * cores, cores, 1e9 * (1 + p % 3), 10.0 * (p % 4 + 1), 10.0 - p % 5});
      for (uint32_t c = 0; c < cores; c++)
        r.cores.push_back(Core{p, n, p});
    }
  }
  return r;
}

/** The scheduler's EASY step as it was: an AvailabilityProfile rebuilt from the running jobs. */
class ModelEasy {
public:
  ModelEasy(ClusterState& state, const std::string& jobs, const std::string& resources, uint64_t seed)
      : state_(state)
      , job_policy_(make_job_policy(jobs))
      , resource_policy_(make_resource_policy(resources))
      , rng_(seed)
  {
  }

  bool submit(const QueuedJob& q)
  {
    const Resources& r = state_.resources();
    if (q.demand.cores > r.core_count())
      return false;
    if (q.demand.mem_mb > 0) {
      uint64_t capacity = 0;
      for (const auto& n : r.nodes)
        capacity +=
            std::min<uint64_t>(n.cores, static_cast<uint64_t>(std::floor(n.memory_mb / q.demand.mem_mb + 1e-9)));
      if (capacity < q.demand.cores)
        return false;
    }
    queue_.push_back(q);
    return true;
  }
  void release(uint32_t job)
  {
    auto it = running_.find(job);
    if (it == running_.end())
      return;
    for (uint32_t c : it->second.cores)
      state_.release(c, it->second.demand);
    running_.erase(it);
  }
  void hold(uint32_t key, const std::vector<uint32_t>& cores, double start, double until)
  {
    Demand d{static_cast<uint32_t>(cores.size()), 0, 0};
    for (uint32_t c : cores)
      state_.take(c, key, d);
    running_[key] = Running{cores, d, start, until - start};
  }
  void hold_until(uint32_t key, double until) { running_.at(key).requested = until - running_.at(key).start; }

  std::vector<Decision> step(double now)
  {
    std::vector<Decision> out;
    if (queue_.empty())
      return out;
    std::vector<std::pair<double, const std::vector<uint32_t>*>> busy;
    for (const auto& [job, r] : running_) {
      double end = r.start + r.requested;
      if (not(end > now))
        end = kInf;
      busy.emplace_back(end, &r.cores);
    }
    AvailabilityProfile profile(state_.resources().core_count(), now, std::move(busy));
    std::vector<size_t> order = job_policy_->rank(queue_, rng_);
    std::vector<char> started(queue_.size(), 0);
    bool reserved = false;
    for (size_t i : order) {
      if (profile.available_now() == 0)
        break;
      const QueuedJob& q = queue_[i];
      bool reserve       = not reserved;
      auto fit           = reserve ? profile.first_fit(q.demand.cores, q.requested_time_s)
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
  size_t queue_size() const { return queue_.size(); }

private:
  struct Running {
    std::vector<uint32_t> cores;
    Demand demand;
    double start;
    double requested;
  };
  ClusterState& state_;
  std::unique_ptr<JobPolicy> job_policy_;
  std::unique_ptr<ResourcePolicy> resource_policy_;
  std::mt19937_64 rng_;
  std::vector<QueuedJob> queue_;
  std::map<uint32_t, Running> running_;
};

double requested_time(std::mt19937_64& g)
{
  switch (std::uniform_int_distribution<int>(0, 19)(g)) {
  case 0:
    return kInf;
  case 1:
    return 0;
  case 2:
    return 1e-300; // now + it == now
  case 3:
    return 5; // equal ends
  default:
    return std::uniform_int_distribution<int>(1, 60)(g) * 0.5;
  }
}

void run_scenario(uint64_t seed, const std::string& jobs, const std::string& resources)
{
  std::mt19937_64 g(seed);
  uint32_t nodes       = std::uniform_int_distribution<uint32_t>(1, 5)(g);
  uint32_t procs       = std::uniform_int_distribution<uint32_t>(1, 2)(g);
  uint32_t cores       = std::uniform_int_distribution<uint32_t>(1, 40)(g); // words of 64 bits crossed
  double memory        = g() % 2 ? 1000 : kInf;
  Resources r          = platform(nodes, procs, cores, memory);
  const uint32_t total = r.core_count();
  ClusterState s1(r), s2(r);
  Scheduler sched(s1, {jobs, resources, Backfill::easy, seed});
  ModelEasy model(s2, jobs, resources, seed);

  std::map<uint32_t, double> running; // job -> when it ends (may be before or after its request)
  std::map<uint32_t, double> requested;
  std::vector<uint32_t> holds;
  double now  = 0;
  uint32_t id = 0;
  for (int step = 0; step < 300; step++) {
    // jobs ending now
    for (auto it = running.begin(); it != running.end();) {
      if (it->second <= now) {
        sched.release(it->first);
        model.release(it->first);
        it = running.erase(it);
      } else {
        ++it;
      }
    }
    // a hold now and then (a machine asleep), released or moved later
    if (g() % 17 == 0 && s1.free_cores() > 0) {
      std::vector<uint32_t> free;
      for (uint32_t c = 0; c < total && free.size() < 3; c++)
        if (s1.is_free(c))
          free.push_back(c);
      uint32_t key = 1000000 + step;
      double until = g() % 2 ? kInf : now + 7;
      sched.hold(key, free, now, until);
      model.hold(key, free, now, until);
      holds.push_back(key);
    } else if (g() % 13 == 0 && not holds.empty()) {
      uint32_t key = holds.back();
      if (g() % 2) {
        sched.hold_until(key, now + 3);
        model.hold_until(key, now + 3);
      } else {
        holds.pop_back();
        sched.release(key);
        model.release(key);
      }
    }
    // submissions
    int n = std::uniform_int_distribution<int>(0, 4)(g);
    for (int k = 0; k < n; k++) {
      QueuedJob q;
      q.job              = id;
      q.submit_s         = now;
      q.arrival          = id;
      q.requested_time_s = requested_time(g);
      uint32_t width     = std::uniform_int_distribution<uint32_t>(1, total + 1)(g);
      if (g() % 3 == 0)
        width = std::uniform_int_distribution<uint32_t>(1, 3)(g);
      double mem    = memory < kInf && g() % 3 == 0 ? std::uniform_int_distribution<int>(1, 6)(g) * 100.0 : 0;
      q.demand      = Demand{width, mem, std::uniform_int_distribution<int>(0, 3)(g) * 5.0};
      requested[id] = q.requested_time_s;
      ASSERT_EQ(sched.submit(q), model.submit(q)) << "seed " << seed << " job " << id;
      id++;
    }
    auto a = sched.step(now);
    auto b = model.step(now);
    ASSERT_EQ(a.size(), b.size()) << "seed " << seed << " step " << step << " at " << now;
    for (size_t k = 0; k < a.size(); k++) {
      ASSERT_EQ(a[k].job, b[k].job) << "seed " << seed << " step " << step;
      ASSERT_EQ(a[k].cores, b[k].cores) << "seed " << seed << " step " << step;
      // ends: before, at or after the requested time (never, now and then)
      double req  = requested[a[k].job];
      double ends = std::isfinite(req) && g() % 4 != 0 ? req * std::uniform_real_distribution<double>(0.2, 1.0)(g)
                                                       : std::uniform_int_distribution<int>(1, 80)(g);
      if (g() % 50 == 0)
        ends = kInf;
      running[a[k].job] = now + ends;
    }
    ASSERT_EQ(sched.queue_size(), model.queue_size());
    for (uint32_t c = 0; c < total; c++)
      ASSERT_EQ(s1.owner(c), s2.owner(c));
    // the next instant: the same one at times, else the next end or a little later
    if (g() % 5 != 0) {
      double next = now + std::uniform_int_distribution<int>(1, 10)(g) * 0.5;
      if (g() % 2 && not running.empty()) {
        double first = kInf;
        for (const auto& [j, t] : running)
          first = std::min(first, t);
        if (first < kInf)
          next = first;
      }
      now = next;
    }
  }
}

} // namespace

TEST(EasyModel, SameDecisionsAsTheRebuiltProfile)
{
  for (uint64_t seed = 1; seed <= 150; seed++)
    run_scenario(seed, "first", "first");
}

TEST(EasyModel, SameDecisionsWithOtherPolicies)
{
  const std::vector<std::pair<std::string, std::string>> pairs = {{"shortest", "first"},      {"random", "random"},
                                                                  {"smallest", "high_mem"},   {"first", "high_cores"},
                                                                  {"low_mem", "high_mem_bw"}, {"first", "random"}};
  for (uint64_t seed = 1; seed <= 30; seed++)
    for (const auto& [jobs, resources] : pairs)
      run_scenario(seed * 7919, jobs, resources);
}

TEST(FirstResourcePolicy, LowestFreeAllowedCoresWithMemory)
{
  std::mt19937_64 g(3);
  for (int round = 0; round < 2000; round++) {
    Resources r =
        platform(std::uniform_int_distribution<uint32_t>(1, 4)(g), std::uniform_int_distribution<uint32_t>(1, 3)(g),
                 std::uniform_int_distribution<uint32_t>(1, 30)(g), 1000);
    ClusterState s1(r), s2(r);
    // some cores taken, some memory used
    for (uint32_t c = 0; c < r.core_count(); c++)
      if (g() % 3 == 0) {
        Demand d{1, static_cast<double>(g() % 4) * 100, 0};
        s1.take(c, 1, d);
        s2.take(c, 1, d);
      }
    CoreSet allowed(r.core_count(), true);
    bool use_allowed = g() % 2;
    for (uint32_t c = 0; c < r.core_count(); c++)
      if (g() % 4 == 0)
        allowed.reset(c);
    Demand d{std::uniform_int_distribution<uint32_t>(1, r.core_count())(g), g() % 2 ? 0.0 : (g() % 5) * 150.0, 0};
    std::mt19937_64 rng(1);
    auto got = make_resource_policy("first")->select(s1, 2, d, rng, use_allowed ? &allowed : nullptr);
    // the model: the lowest eligible core, again and again
    std::vector<uint32_t> want;
    while (want.size() < d.cores) {
      uint32_t pick = r.core_count();
      for (uint32_t c = 0; c < r.core_count() && pick == r.core_count(); c++)
        if (s2.is_free(c) && (not use_allowed || allowed.test(c)) && s2.fits_memory(c, d))
          pick = c;
      if (pick == r.core_count())
        break;
      s2.take(pick, 2, d);
      want.push_back(pick);
    }
    if (want.size() < d.cores) {
      for (uint32_t c : want)
        s2.release(c, d);
      want.clear();
    }
    ASSERT_EQ(got, want) << "round " << round;
    for (uint32_t c = 0; c < r.core_count(); c++)
      ASSERT_EQ(s1.owner(c), s2.owner(c));
    ASSERT_EQ(s1.free_words(), CoreSet(r.core_count(), s1.free_words()).words());
  }
}
