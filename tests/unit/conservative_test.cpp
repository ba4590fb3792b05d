/* Conservative backfilling with reservations kept between steps, as batsched keeps them: hand-computed
 * cases (each with its derivation), the kept schedule's profile, and random instances against a
 * naive model of batsched's loop. The tests drive Scheduler directly, with explicit times. */
#include "core/foundation/numbers.hpp"
#include "core/scheduling/conservative.hpp"
#include "core/scheduling/scheduler.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <set>
#include <vector>

using namespace sgai::scheduling;
using sgai::kInf;

namespace {

/** `n` Batsim machines: one-core hosts, each its own node and processor. */
Resources machines(uint32_t n, double node_memory_mb = kInf)
{
  Resources r;
  for (uint32_t c = 0; c < n; c++) {
    r.nodes.push_back(Node{c, 1, c, 1, node_memory_mb});
    r.processors.push_back(Processor{c, c, 1, 1e9, 10, 10});
    r.cores.push_back(Core{c, c, c});
  }
  return r;
}

QueuedJob job(uint32_t id, uint32_t cores, double walltime, double mem_mb = 0)
{
  QueuedJob q;
  q.job              = id;
  q.arrival          = id;
  q.requested_time_s = walltime;
  q.demand           = Demand{cores, mem_mb, 0};
  return q;
}

using Starts = std::map<uint32_t, std::vector<uint32_t>>; // job -> cores

Starts starts(const std::vector<Decision>& d)
{
  Starts out;
  for (const auto& x : d)
    out[x.job] = x.cores;
  return out;
}

} // namespace

TEST(ConservativeBackfilling, KeptReservationsAsBatsched)
{
  // The case of issue 21. 2 machines; four 1-core jobs submitted at 0, (walltime, run time):
  // A (2, 2), B (2, 1), C (2, 2), D (4, 2).
  // t=0, first-fit in order: A core 0 [0,2), B core 1 [0,2), C core 0 [2,4) (nothing free before
  //   2), D core 1 [2,6) (at 2 only core 1 is free over [2,6): C holds core 0 until 4).
  // t=1, B ends: each waiting job is taken out and placed again, the others keeping theirs.
  //   C: over [1,3) core 1 is free until 2 only (D holds it from 2): back at 2 on core 0.
  //   D: core 1 is free over [1,5) (its own reservation is gone): D starts at 1 on core 1.
  // t=2, A ends: C starts at 2 on core 0.
  // Rebuilding every reservation at t=1 instead would place C first (core 1 free from 1) and
  // start C at 1, D at 2.
  Resources r = machines(2);
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  const uint32_t A = 0, B = 1, C = 2, D = 3;
  ASSERT_TRUE(sched.submit(job(A, 1, 2)));
  ASSERT_TRUE(sched.submit(job(B, 1, 2)));
  ASSERT_TRUE(sched.submit(job(C, 1, 2)));
  ASSERT_TRUE(sched.submit(job(D, 1, 4)));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{A, {0}}, {B, {1}}}));
  ASSERT_NE(sched.reservation(C), nullptr);
  EXPECT_DOUBLE_EQ(sched.reservation(C)->start, 2);
  EXPECT_EQ(sched.reservation(C)->cores, (std::vector<uint32_t>{0}));
  EXPECT_DOUBLE_EQ(sched.reservation(D)->start, 2);
  EXPECT_EQ(sched.reservation(D)->cores, (std::vector<uint32_t>{1}));

  sched.release(B);
  EXPECT_EQ(starts(sched.step(1)), (Starts{{D, {1}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(C)->start, 2);
  sched.release(A);
  EXPECT_EQ(starts(sched.step(2)), (Starts{{C, {0}}}));
  EXPECT_EQ(sched.queue_size(), 0U);
}

TEST(ConservativeBackfilling, AReservationKeepsTheSameCoresOverItsWindow)
{
  // 3 machines; submitted at 0 in order, (cores, walltime): A (1, 1), B (2, 2), C (2, 3), D (1, 2).
  // t=0: A core 0 [0,1), B cores 1-2 [0,2); C: 1 core free over [1,2), all from 2: cores 0-1
  //   [2,5). Free cores: [1,2) {0}, [2,5) {2}, then all.
  // D (1 core, 2 s): at 1 there is one free core in each slice of [1,3), but not the same one
  //   (core 0 until 2, core 2 after): no fit; at 2 core 2 is free over [2,4): D core 2 [2,4).
  // t=1, A ends on time: C and D placed again find the same reservations: D does not start on
  //   core 0 (counting cores would start it). t=2, B ends: C starts on 0-1, D on 2.
  Resources r = machines(3);
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  const uint32_t A = 0, B = 1, C = 2, D = 3;
  sched.submit(job(A, 1, 1));
  sched.submit(job(B, 2, 2));
  sched.submit(job(C, 2, 3));
  sched.submit(job(D, 1, 2));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{A, {0}}, {B, {1, 2}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(D)->start, 2);
  EXPECT_EQ(sched.reservation(D)->cores, (std::vector<uint32_t>{2}));
  sched.release(A);
  EXPECT_TRUE(sched.step(1).empty());
  EXPECT_DOUBLE_EQ(sched.reservation(C)->start, 2);
  EXPECT_DOUBLE_EQ(sched.reservation(D)->start, 2);
  sched.release(B);
  EXPECT_EQ(starts(sched.step(2)), (Starts{{C, {0, 1}}, {D, {2}}}));
}

TEST(ConservativeBackfilling, AnEarlyEndMovesLaterJobsEarlier)
{
  // 2 machines; submitted at 0 in order, (cores, walltime): A (1, 10), B (2, 5), C (1, 20).
  // t=0: A core 0 [0,10); B waits for A: cores 0-1 [10,15); C: core 1 is free from 0 but not
  //   over [0,20) (B from 10): C core 0 [15,35).
  // t=3, A ends (7 s early): B, placed again, starts at 3 on cores 0-1 [3,8); C placed again:
  //   nothing free before 8, core 0 [8,28): 7 s earlier, not started.
  // t=4, a new job E (1, 4), nothing ended: only E is placed, first-fit around the kept
  //   reservations: nothing is free before 8, core 1 is free over [8,28): E core 1 [8,12).
  // t=8, B ends on time: C starts on core 0, E on core 1.
  Resources r = machines(2);
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  const uint32_t A = 0, B = 1, C = 2, E = 3;
  sched.submit(job(A, 1, 10));
  sched.submit(job(B, 2, 5));
  sched.submit(job(C, 1, 20));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{A, {0}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(B)->start, 10);
  EXPECT_DOUBLE_EQ(sched.reservation(C)->start, 15);
  EXPECT_EQ(sched.reservation(C)->cores, (std::vector<uint32_t>{0}));

  sched.release(A);
  EXPECT_EQ(starts(sched.step(3)), (Starts{{B, {0, 1}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(C)->start, 8);
  EXPECT_EQ(sched.reservation(C)->cores, (std::vector<uint32_t>{0}));

  sched.submit(job(E, 1, 4));
  EXPECT_TRUE(sched.step(4).empty());
  EXPECT_DOUBLE_EQ(sched.reservation(E)->start, 8);
  EXPECT_EQ(sched.reservation(E)->cores, (std::vector<uint32_t>{1}));

  sched.release(B);
  EXPECT_EQ(starts(sched.step(8)), (Starts{{C, {0}}, {E, {1}}}));
}

TEST(ConservativeBackfilling, RejectsJobsWithoutRequestedTimeOrTooWide)
{
  // batsched rejects a job wider than the machine and a job without walltime. 2 machines:
  // (3 cores, 10 s) is too wide, (1 core, no time) has no walltime, (1 core, 0 s) no positive
  // one; (2 cores, 10 s) is queued and starts at once. EASY queues the job without a time.
  Resources r = machines(2);
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  EXPECT_FALSE(sched.submit(job(0, 3, 10)));
  EXPECT_FALSE(sched.submit(job(1, 1, kInf)));
  EXPECT_FALSE(sched.submit(job(2, 1, 0)));
  EXPECT_TRUE(sched.submit(job(3, 2, 10)));
  EXPECT_EQ(sched.queue_size(), 1U);
  EXPECT_EQ(starts(sched.step(0)), (Starts{{3, {0, 1}}}));

  ClusterState s2(r);
  Scheduler easy(s2, {"first", "first", Backfill::easy, 1});
  EXPECT_FALSE(easy.submit(job(0, 3, 10)));
  EXPECT_TRUE(easy.submit(job(1, 1, kInf)));
}

TEST(ConservativeBackfilling, AJobPastItsRequestedTimeKeepsItsCores)
{
  // 1 machine, no walltime kill (a requested time only): A (1, 5) runs [0,5); B (1, 5) is
  // reserved at 5. At t=6 A still runs: its end is unknown, B does not start; A ends at 7: B
  // starts at 7.
  Resources r = machines(1);
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  sched.submit(job(0, 1, 5));
  sched.submit(job(1, 1, 5));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{0, {0}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(1)->start, 5);
  EXPECT_TRUE(sched.step(6).empty());
  EXPECT_EQ(sched.reservation(1), nullptr); // nowhere to go while A holds the only core
  sched.release(0);
  EXPECT_EQ(starts(sched.step(7)), (Starts{{1, {0}}}));
}

TEST(ConservativeBackfilling, AReservationPastItsStartIsPlacedAgainFirst)
{
  // 2 machines, job order `smallest`. A (2 cores, requested 5) starts at 0; B (2 cores, 10) is
  // reserved at [5, 15); C (1 core, 20), submitted at 1, at [15, 35). A runs past 5 and nothing
  // happens then; it ends at 7. B's reservation began before 7: it is taken out before the jobs
  // are placed again, C (the smallest) first: C starts at 7 on core 0, B goes to [27, 37). Left
  // in, B's stale reservation held both cores until 15: C stayed at 15, B went after C, nothing
  // started and the manager was stuck (found by the hdeeprm-kth campaign, random order).
  Resources r = machines(2);
  ClusterState s(r);
  Scheduler sched(s, {"smallest", "first", Backfill::conservative, 1});
  sched.submit(job(0, 2, 5));
  sched.submit(job(1, 2, 10));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{0, {0, 1}}}));
  EXPECT_DOUBLE_EQ(sched.reservation(1)->start, 5);
  auto c    = job(2, 1, 20);
  c.arrival = 1;
  sched.submit(c);
  EXPECT_TRUE(sched.step(1).empty());
  EXPECT_DOUBLE_EQ(sched.reservation(2)->start, 15);
  sched.release(0);
  EXPECT_EQ(starts(sched.step(7)), (Starts{{2, {0}}}));
  ASSERT_NE(sched.reservation(1), nullptr);
  EXPECT_DOUBLE_EQ(sched.reservation(1)->start, 27);
}

TEST(ConservativeBackfilling, MemoryIsCheckedWhenAReservationStarts)
{
  // 2 nodes of 2 cores, 1000 MB each. A (1 core, 800 MB) starts on core 0; B (1 core, 800 MB):
  // the lowest free core, 1, is on node 0 whose memory A holds: B starts on core 2.
  Resources r;
  for (uint32_t n = 0; n < 2; n++) {
    r.nodes.push_back(Node{2 * n, 2, n, 1, 1000});
    r.processors.push_back(Processor{n, 2 * n, 2, 1e9, 10, 10});
    for (uint32_t c = 0; c < 2; c++)
      r.cores.push_back(Core{n, n, 2 * n + c});
  }
  ClusterState s(r);
  Scheduler sched(s, {"first", "first", Backfill::conservative, 1});
  sched.submit(job(0, 1, 10, 800));
  sched.submit(job(1, 1, 10, 800));
  EXPECT_EQ(starts(sched.step(0)), (Starts{{0, {0}}, {1, {2}}}));
  EXPECT_EQ(sched.reservation(1)->cores, (std::vector<uint32_t>{2}));
}

TEST(ReservationSchedule, LayoutByWidth)
{
  EXPECT_TRUE(ReservationSchedule(400, 0).narrow());
  EXPECT_TRUE(ReservationSchedule(512, 0).narrow());
  EXPECT_FALSE(ReservationSchedule(513, 0).narrow());
  EXPECT_FALSE(ReservationSchedule(400, 0, ScheduleLayout::gaps).narrow());
  EXPECT_FALSE(ReservationSchedule(9216, 0, ScheduleLayout::slices).narrow()); // (too wide for slices)
}

class Layouts : public ::testing::TestWithParam<ScheduleLayout> {};
INSTANTIATE_TEST_SUITE_P(ReservationSchedule, Layouts, ::testing::Values(ScheduleLayout::gaps, ScheduleLayout::slices),
                         [](const auto& param_info) {
                           return param_info.param == ScheduleLayout::gaps ? "gaps" : "slices";
                         });

TEST_P(Layouts, SlicesSplitAndMergeBack)
{
  ReservationSchedule p(4, 0, GetParam());
  p.reserve(1, 0, 10, {0, 1});
  p.reserve(2, 5, 15, {2});
  EXPECT_EQ(p.slice_count(), 4U); // [0,5) [5,10) [10,15) [15,inf)
  auto f = p.first_fit(3, 5, 0, nullptr, true);
  ASSERT_TRUE(f);
  EXPECT_DOUBLE_EQ(f->start, 10);
  EXPECT_EQ(f->cores, (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_EQ(p.last_candidates().lowest(4), (std::vector<uint32_t>{0, 1, 3}));
  EXPECT_FALSE(p.first_fit(5, 1));
  // Searched as if reservation 1 were not there: cores 0-2 over [0,5) at once.
  EXPECT_EQ(p.first_fit(3, 5, 0, p.find(1))->cores, (std::vector<uint32_t>{0, 1, 2}));
  EXPECT_DOUBLE_EQ(p.first_fit(3, 5, 0, p.find(1))->start, 0);
  EXPECT_TRUE(p.remove(2));
  EXPECT_FALSE(p.remove(2));
  EXPECT_EQ(p.slice_count(), 2U); // [0,10) [10,inf)
  p.advance(4);
  EXPECT_DOUBLE_EQ(p.now(), 4);
  EXPECT_EQ(p.free_at(4).count(), 2U);
  p.advance(12);
  EXPECT_EQ(p.slice_count(), 1U);
  EXPECT_EQ(p.free_at(12).count(), 4U);
  p.reserve(3, 12, kInf, {3});
  EXPECT_FALSE(p.first_fit(4, 1));
  EXPECT_DOUBLE_EQ(p.first_fit(3, 1e9)->start, 12);
}

namespace {
/** First fit from the reservations themselves: the earliest of now (or, from the first, the
 *  first time after now where a reservation begins or ends) and those times at which `w` cores
 *  hold no reservation meeting [t, t + d); the lowest of them. `own` is not there. */
std::optional<ReservationSchedule::Fit> naive_first_fit(const std::map<uint32_t, ReservationSchedule::Reservation>& rs,
                                                        uint32_t cores, double now, uint32_t w, double d,
                                                        bool from_next, uint32_t own, bool all,
                                                        std::vector<uint32_t>& candidates)
{
  std::set<double> times;
  for (const auto& [j, r] : rs)
    for (double t : {r.start, r.end})
      if (t > now && t < kInf)
        times.insert(t);
  std::vector<double> ts;
  if (not from_next)
    ts.push_back(now);
  ts.insert(ts.end(), times.begin(), times.end());
  for (double t : ts) {
    std::vector<uint32_t> free;
    for (uint32_t c = 0; c < cores; c++) {
      bool busy = false;
      for (const auto& [j, r] : rs)
        if (j != own && r.start < t + d && r.end > t && std::count(r.cores.begin(), r.cores.end(), c) > 0)
          busy = true;
      if (not busy)
        free.push_back(c);
    }
    if (free.size() >= w) {
      candidates = free;
      (void)all;
      return ReservationSchedule::Fit{t, std::vector<uint32_t>(free.begin(), free.begin() + w)};
    }
  }
  return std::nullopt;
}
} // namespace

TEST_P(Layouts, FirstFitIsTheEarliestWindowOfFreeCores)
{
  // Random schedules on 1 to 200 cores (several words): reservations placed where first fit says,
  // some held for ever, some taken out, time moving on; every first fit (searched as if a
  // reservation were not there, or from the next time after now) against the reservations.
  for (uint32_t seed = 1; seed <= 60; seed++) {
    std::mt19937 rng(seed);
    auto pick      = [&](uint32_t lo, uint32_t hi) { return std::uniform_int_distribution<uint32_t>(lo, hi)(rng); };
    uint32_t cores = seed % 3 == 0 ? pick(65, 200) : pick(1, 70);
    ReservationSchedule p(cores, 0, GetParam());
    std::map<uint32_t, ReservationSchedule::Reservation> rs;
    double now    = 0;
    uint32_t next = 0;
    for (int op = 0; op < 250; op++) {
      const uint32_t k = pick(0, 9);
      if (k < 6) {
        uint32_t w     = pick(1, std::max<uint32_t>(1, cores / pick(1, 4)));
        double d       = pick(1, 30) + (pick(0, 2) == 0 ? 0.5 : 0);
        bool from_next = pick(0, 4) == 0;
        bool all       = pick(0, 2) == 0;
        uint32_t own   = UINT32_MAX;
        if (not rs.empty() && pick(0, 1) == 1) {
          auto it = std::next(rs.begin(), pick(0, static_cast<uint32_t>(rs.size()) - 1));
          if (it->second.end < kInf && it->second.end > now) {
            own       = it->first;
            w         = static_cast<uint32_t>(it->second.cores.size());
            d         = it->second.end - it->second.start;
            from_next = false;
          }
        }
        std::vector<uint32_t> candidates;
        auto want = naive_first_fit(rs, cores, now, w, d, from_next, own, all, candidates);
        auto got  = p.first_fit(w, d, from_next ? 1 : 0, own == UINT32_MAX ? nullptr : p.find(own), all);
        ASSERT_EQ(got.has_value(), want.has_value()) << "seed " << seed << " op " << op;
        if (not got)
          continue;
        ASSERT_EQ(got->start, want->start) << "seed " << seed << " op " << op;
        ASSERT_EQ(got->cores, want->cores) << "seed " << seed << " op " << op;
        if (all) {
          ASSERT_EQ(p.last_candidates().lowest(cores), candidates) << "seed " << seed << " op " << op;
        }
        if (own == UINT32_MAX && pick(0, 1) == 1) {
          double end = got->start + d;
          if (pick(0, 9) == 0) // (held for ever, where first fit finds room for ever)
            if (auto ever = p.first_fit(1, kInf)) {
              got = ever;
              end = kInf;
            }
          p.reserve(next, got->start, end, got->cores);
          rs[next] = ReservationSchedule::Reservation{got->start, end, got->cores, false, 0, next, {}};
          next++;
        }
      } else if (k < 8 && not rs.empty()) {
        auto it = std::next(rs.begin(), pick(0, static_cast<uint32_t>(rs.size()) - 1));
        EXPECT_TRUE(p.remove(it->first));
        rs.erase(it);
      } else if (k == 8) {
        now += pick(0, 5);
        p.advance(now);
      } else {
        for (double t = now; t < now + 40; t += 0.5) {
          CoreSet free(cores);
          for (uint32_t c = 0; c < cores; c++)
            if (std::none_of(rs.begin(), rs.end(), [&](const auto& x) {
                  return x.second.start <= t && t < x.second.end &&
                         std::count(x.second.cores.begin(), x.second.cores.end(), c) > 0;
                }))
              free.set(c);
          ASSERT_EQ(p.free_at(t).lowest(cores), free.lowest(cores)) << "seed " << seed << " t " << t;
        }
      }
    }
  }
}

TEST_P(Layouts, KeepOnlyIsTakingTheOthersOutOneByOne)
{
  // Random schedules on 16 cores (reservations placed first-fit, some begun before now): keeping
  // some reservations with keep_only leaves the schedule that removing each other one leaves.
  for (uint32_t seed = 1; seed <= 20; seed++) {
    std::mt19937 rng(seed);
    ReservationSchedule a(16, 0, GetParam());
    std::vector<uint32_t> jobs;
    for (uint32_t j = 0; j < 40; j++) {
      auto w   = static_cast<uint32_t>(std::uniform_int_distribution<int>(1, 8)(rng));
      double d = std::uniform_int_distribution<int>(1, 20)(rng);
      if (j % 10 == 3 && w == 1)
        d = kInf; // (held until taken out)
      auto fit = a.first_fit(w, d);
      if (not fit) // (cores held for ever by the reservations without an end)
        continue;
      a.reserve(j, fit->start, fit->start + d, fit->cores);
      jobs.push_back(j);
    }
    a.advance(std::uniform_int_distribution<int>(0, 5)(rng));
    ReservationSchedule b = a;
    std::vector<uint32_t> kept;
    for (uint32_t j : jobs)
      if (rng() % 3 == 0)
        kept.push_back(j);
      else
        a.remove(j);
    a.look_at_freed();
    b.keep_only(kept);
    ASSERT_GT(jobs.size(), 30U);
    EXPECT_EQ(a.size(), kept.size());
    EXPECT_EQ(b.size(), kept.size());
    EXPECT_EQ(a.slice_count(), b.slice_count()) << "seed " << seed;
    for (uint32_t j : jobs) {
      const auto* ra = a.find(j);
      const auto* rb = b.find(j);
      ASSERT_EQ(ra == nullptr, rb == nullptr);
      if (ra != nullptr) {
        EXPECT_EQ(ra->start, rb->start);
        EXPECT_EQ(ra->end, rb->end);
        EXPECT_EQ(ra->cores, rb->cores);
      }
    }
    for (double t = a.now(); t < 120; t += 0.5)
      EXPECT_EQ(a.free_at(t).lowest(16), b.free_at(t).lowest(16)) << "seed " << seed << " t " << t;
    for (uint32_t w = 1; w <= 16; w++)
      for (double d : {1.0, 7.0, 30.0}) {
        auto fa = a.first_fit(w, d);
        auto fb = b.first_fit(w, d);
        ASSERT_EQ(fa.has_value(), fb.has_value());
        if (fa) {
          EXPECT_EQ(fa->start, fb->start);
          EXPECT_EQ(fa->cores, fb->cores);
        }
      }
  }
}

// ---------------------------------------------------------------------- against a naive batsched

namespace {

/** batsched's conservative loop on a list of reservations, recomputed from scratch: anchors are
 *  now and every reservation's start and end; a window's cores are those no overlapping
 *  reservation holds, the lowest ones taken. */
class NaiveConservative {
public:
  explicit NaiveConservative(uint32_t cores)
      : cores_(cores)
  {
  }
  void submit(const QueuedJob& q)
  {
    queue_.push_back(q);
    fresh_.push_back(q.job);
  }
  void release(uint32_t job)
  {
    res_.erase(job);
    ended_ = true;
  }
  Starts step(double now)
  {
    Starts out;
    std::vector<uint32_t> todo;
    if (ended_)
      for (const auto& q : queue_)
        todo.push_back(q.job);
    else
      todo = fresh_;
    for (uint32_t j : todo) {
      const QueuedJob& q = *std::find_if(queue_.begin(), queue_.end(), [&](const QueuedJob& x) { return x.job == j; });
      res_.erase(j);
      auto [start, cores] = first_fit(now, q.demand.cores, q.requested_time_s);
      res_[j]             = {start, start + q.requested_time_s, cores};
      if (start == now)
        out[j] = cores;
    }
    queue_.erase(std::remove_if(queue_.begin(), queue_.end(), [&](const QueuedJob& x) { return out.count(x.job); }),
                 queue_.end());
    fresh_.clear();
    ended_ = false;
    return out;
  }

private:
  struct Res {
    double start, end;
    std::vector<uint32_t> cores;
  };
  uint32_t cores_;
  std::vector<QueuedJob> queue_;
  std::vector<uint32_t> fresh_;
  std::map<uint32_t, Res> res_;
  bool ended_ = false;

  std::pair<double, std::vector<uint32_t>> first_fit(double now, uint32_t width, double duration) const
  {
    std::set<double> anchors{now};
    for (const auto& [j, r] : res_)
      for (double t : {r.start, r.end})
        if (t > now)
          anchors.insert(t);
    for (double b : anchors) {
      std::vector<char> busy(cores_, 0);
      for (const auto& [j, r] : res_)
        if (r.start < b + duration && r.end > b)
          for (uint32_t c : r.cores)
            busy[c] = 1;
      std::vector<uint32_t> free;
      for (uint32_t c = 0; c < cores_ && free.size() < width; c++)
        if (not busy[c])
          free.push_back(c);
      if (free.size() == width)
        return {b, free};
    }
    ADD_FAILURE() << "no fit";
    return {kInf, {}};
  }
};

} // namespace

namespace {

/** Random instances run by the scheduler and by the naive model, step by step: the same starts.
 *  Returns how many waiting jobs the scheduler left in place without searching. */
void against_naive(uint64_t seed, int instances, int jobs_per_instance, int last_submit, bool narrow,
                   ScheduleLayout layout, uint64_t& unchanged)
{
  // Small platforms (one word of cores) and larger ones (several words), random jobs whose run
  // times are at most their walltimes, early ends at any time.
  std::mt19937_64 rng(seed);
  for (int instance = 0; instance < instances; instance++) {
    auto pick   = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    uint32_t n  = static_cast<uint32_t>(instance < instances * 3 / 4 ? pick(2, 6) : pick(60, 200));
    Resources r = machines(n);
    ClusterState s(r);
    SchedulerConfig config{"first", "first", Backfill::conservative, 1};
    config.schedule_layout = layout;
    Scheduler sched(s, config);
    NaiveConservative naive(n);
    struct J {
      double submit, walltime, run;
      uint32_t cores;
    };
    std::vector<J> jobs;
    for (int i = 0; i < jobs_per_instance; i++) {
      double wall = pick(1, 10);
      jobs.push_back(
          {static_cast<double>(pick(0, last_submit)), wall, static_cast<double>(pick(1, static_cast<int>(wall))),
           static_cast<uint32_t>(pick(1, narrow ? std::max(1, static_cast<int>(n) / 8) : static_cast<int>(n)))});
    }
    std::stable_sort(jobs.begin(), jobs.end(), [](const J& a, const J& b) { return a.submit < b.submit; });
    std::map<uint32_t, double> ends; // running job -> end
    size_t next = 0, done = 0;
    while (done < jobs.size()) {
      double t = next < jobs.size() ? jobs[next].submit : kInf;
      for (const auto& [j, e] : ends)
        t = std::min(t, e);
      ASSERT_LT(t, kInf) << "instance " << instance;
      for (auto it = ends.begin(); it != ends.end();)
        if (it->second == t) {
          sched.release(it->first);
          naive.release(it->first);
          it = ends.erase(it);
          done++;
        } else {
          ++it;
        }
      for (; next < jobs.size() && jobs[next].submit == t; next++) {
        auto id = static_cast<uint32_t>(next);
        ASSERT_TRUE(sched.submit(job(id, jobs[id].cores, jobs[id].walltime)));
        naive.submit(job(id, jobs[id].cores, jobs[id].walltime));
      }
      Starts got = starts(sched.step(t));
      ASSERT_EQ(got, naive.step(t)) << "instance " << instance << " at t=" << t;
      for (const auto& [j, c] : got)
        ends[j] = t + jobs[j].run;
      ASSERT_EQ(
          s.free_cores() +
              [&] {
                uint32_t busy = 0;
                for (const auto& [j, e] : ends)
                  busy += jobs[j].cores;
                return busy;
              }(),
          n);
    }
    unchanged += sched.proven_unchanged();
  }
}

} // namespace

TEST(ConservativeBackfilling, MatchesANaiveModelOfBatsched)
{
  uint64_t unchanged = 0;
  against_naive(42, 400, 40, 60, false, ScheduleLayout::gaps, unchanged);
}

TEST(ConservativeBackfilling, SlicesMatchANaiveModelOfBatsched)
{
  // The layout of narrow machines (SliceProfile): the same starts as batsched's loop on the same
  // random instances, and on long queues of narrow jobs, where most waiting jobs are left in place
  // without a search (what a removal leaves free, looked at on the slices, moves none of them).
  uint64_t unchanged = 0;
  against_naive(42, 400, 40, 60, false, ScheduleLayout::slices, unchanged);
  unchanged = 0;
#if defined(__SANITIZE_ADDRESS__)
  const int instances = 60;
#else
  const int instances = 200;
#endif
  against_naive(7, instances, 120, 10, true, ScheduleLayout::slices, unchanged);
  EXPECT_GT(unchanged, 50U * instances);
}

TEST(ConservativeBackfilling, JobsLeftInPlaceWithoutSearchingMatchTheNaiveModel)
{
  // Long queues of narrow jobs submitted early: most waiting jobs keep their reservations at each
  // end, and are proven to without a search; the starts stay batsched's.
  uint64_t unchanged = 0;
#if defined(__SANITIZE_ADDRESS__)
  const int instances = 60; // the sanitizer build (Debug, instrumented): the same mix, fewer of them
#else
  const int instances = 200;
#endif
  against_naive(7, instances, 120, 10, true, ScheduleLayout::gaps, unchanged);
  EXPECT_GT(unchanged, 50U * instances);
}
