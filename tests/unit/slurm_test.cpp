/* Slurm's kind: slurm.conf and sacctmgr dump files as Slurm reads them, a hand-computed case per
 * scheduling parameter (each with its derivation), Fair Tree after decay, and random workloads
 * against a naive reference written apart from the model (every waiting job planned again from
 * scratch in queue order at each event). The tests drive Scheduler directly, with explicit times. */
#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "core/scheduling/scheduler.hpp"
#include "core/scheduling/slurm.hpp"
#include "core/scheduling/slurm_conf.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <random>
#include <string>
#include <vector>

using namespace sgai::scheduling;
using sgai::kInf;

namespace {

/** `n` one-core nodes named n0, n1, ... */
Resources nodes(uint32_t n)
{
  Resources r;
  for (uint32_t c = 0; c < n; c++) {
    r.nodes.push_back(Node{c, 1, c, 1, kInf});
    r.processors.push_back(Processor{c, c, 1, 1e9, kInf, 10});
    r.cores.push_back(Core{c, c, c});
    r.host_names.push_back("n" + std::to_string(c));
  }
  return r;
}

struct TestJob {
  double submit;
  uint32_t cores;
  double walltime;
  double run;
  std::string user      = "u0";
  std::string partition = "";
};

struct Started {
  double t;
  std::vector<uint32_t> cores;
};

QueuedJob queued(size_t i, const TestJob& j, double t)
{
  QueuedJob q;
  q.job              = static_cast<uint32_t>(i);
  q.submit_s         = t;
  q.arrival          = i;
  q.requested_time_s = j.walltime;
  q.demand           = Demand{j.cores, 0, 0};
  return q;
}

SchedulerConfig slurm_config(std::shared_ptr<const SlurmSetup> setup)
{
  SchedulerConfig cfg;
  cfg.backfill = Backfill::slurm;
  cfg.slurm    = std::move(setup);
  return cfg;
}

/** Runs the jobs through Scheduler with Slurm's kind: events are submissions, ends and the
 *  scheduler's own wakes. Returns each job's start. */
std::map<uint32_t, Started> run(const Resources& r, const std::string& conf_text, const std::vector<TestJob>& jobs,
                                const SlurmAssociations* assoc = nullptr, Scheduler** keep = nullptr)
{
  auto conf = std::make_shared<SlurmConf>(parse_slurm_conf(conf_text, "slurm.conf"));
  std::vector<SlurmJobKeys> keys;
  for (size_t i = 0; i < jobs.size(); i++)
    keys.push_back({std::to_string(i), jobs[i].user, "", jobs[i].partition, ""});
  SchedulerConfig cfg = slurm_config(make_slurm_setup(*conf, assoc, r, keys, "w.json"));
  ClusterState s(r);
  static std::unique_ptr<Scheduler> kept; // (its model only is looked at after: the state is gone)
  auto sched = std::make_unique<Scheduler>(s, cfg);
  std::map<uint32_t, Started> out;
  std::map<uint32_t, double> ends;
  size_t next = 0;
  double t    = 0;
  for (int guard = 0; guard < 100000; guard++) {
    double wake = sched->next_wake(t);
    double nt   = next < jobs.size() ? jobs[next].submit : kInf;
    for (const auto& [j, e] : ends)
      nt = std::min(nt, e);
    nt = std::min(nt, wake);
    if (nt == kInf)
      break;
    t = nt;
    for (auto it = ends.begin(); it != ends.end();)
      if (it->second == t) {
        sched->release(it->first, t);
        it = ends.erase(it);
      } else {
        ++it;
      }
    for (; next < jobs.size() && jobs[next].submit == t; next++) {
      EXPECT_TRUE(sched->submit(queued(next, jobs[next], t), t)) << "job " << next;
    }
    for (const auto& d : sched->step(t)) {
      out[d.job]  = {t, d.cores};
      ends[d.job] = t + jobs[d.job].run;
    }
  }
  EXPECT_EQ(out.size(), jobs.size());
  if (keep) { // the caller looks at the model after the run
    kept  = std::move(sched);
    *keep = kept.get();
  }
  return out;
}

/** 4 one-core nodes, one partition; at t = 0: A (2 cores, runs its 100 s), B (4 cores, 100 s), C and
 *  D (1 core, 30 s each unless said). The main scheduler at 0 starts A and stops at B (its partition
 *  fails). The first backfill pass (bf_interval 30: at 30) plans B at 100 on all 4 nodes; C and D fit
 *  before (to 60, or to 90 from 60). */
std::vector<TestJob> abcd(double c_limit = 30, double d_limit = 30)
{
  return {{0, 2, 100, 100}, {0, 4, 100, 100}, {0, 1, c_limit, c_limit}, {0, 1, d_limit, d_limit, "u1"}};
}

const std::string kBase = "PartitionName=all Nodes=n[0-3] Default=YES\n";

} // namespace

TEST(SlurmConf, TimesHostlistsAndValues)
{
  EXPECT_EQ(slurm_time_s("30"), 1800);
  EXPECT_EQ(slurm_time_s("1:30"), 90);
  EXPECT_EQ(slurm_time_s("1:00:00"), 3600);
  EXPECT_EQ(slurm_time_s("7-0"), 7 * 86400);
  EXPECT_EQ(slurm_time_s("1-02:03:04"), 86400 + 2 * 3600 + 3 * 60 + 4);
  EXPECT_EQ(slurm_time_s("INFINITE"), kInf);
  EXPECT_EQ(slurm_time_s("1:2:3:4"), -1);
  EXPECT_EQ(slurm_time_s("x"), -1);
  EXPECT_EQ(expand_hostlist("node[001-003,010],login1"),
            (std::vector<std::string>{"node001", "node002", "node003", "node010", "login1"}));
  EXPECT_EQ(expand_hostlist("n[8-10]x"), (std::vector<std::string>{"n8x", "n9x", "n10x"}));
  EXPECT_EQ(expand_hostlist("r[1-2]n[1,3]"), (std::vector<std::string>{"r1n1", "r1n3", "r2n1", "r2n3"}));
  EXPECT_THROW(expand_hostlist("n[3-1]"), std::invalid_argument);
  EXPECT_THROW(expand_hostlist("n[1-2"), std::invalid_argument);

  auto c = parse_slurm_conf("ClusterName=x # a comment\n"
                            "SchedulerType=sched/backfill\n"
                            "SchedulerParameters=bf_interval=45,bf_window=120,bf_resolution=30,bf_continue,"
                            "bf_max_job_test=7,bf_max_job_user=2,default_queue_depth=10\n"
                            "PriorityType=priority/multifactor\n"
                            "PriorityWeightAge=1000 PriorityWeightFairshare=5000\n"
                            "PriorityDecayHalfLife=14-0 PriorityMaxAge=1-0\n"
                            "NodeName=n[0-3] CPUs=1\n"
                            "PartitionName=DEFAULT MaxTime=1:00:00 \\\n"
                            "  PriorityTier=2\n"
                            "PartitionName=a Nodes=n[0-1] Default=YES PriorityJobFactor=10 OverSubscribe=NO\n"
                            "PartitionName=b Nodes=ALL MaxTime=INFINITE State=DOWN\n",
                            "slurm.conf");
  EXPECT_TRUE(c.backfill);
  EXPECT_TRUE(c.multifactor);
  EXPECT_EQ(c.bf_interval_s, 45);
  EXPECT_EQ(c.bf_window_s, 7200);
  EXPECT_EQ(c.bf_resolution_s, 30);
  EXPECT_TRUE(c.bf_continue);
  EXPECT_EQ(c.bf_max_job_test, 7u);
  EXPECT_EQ(c.bf_max_job_user, 2u);
  EXPECT_EQ(c.weight_age, 1000);
  EXPECT_EQ(c.weight_fairshare, 5000);
  EXPECT_EQ(c.decay_half_life_s, 14 * 86400);
  EXPECT_EQ(c.max_age_s, 86400);
  ASSERT_EQ(c.partitions.size(), 2u);
  EXPECT_EQ(c.partitions[0].nodes, (std::vector<std::string>{"n0", "n1"}));
  EXPECT_EQ(c.partitions[0].max_time_s, 3600);
  EXPECT_EQ(c.partitions[0].tier, 2u);
  EXPECT_EQ(c.partitions[0].job_factor, 10);
  EXPECT_TRUE(c.partitions[0].is_default);
  EXPECT_TRUE(c.partitions[1].all_nodes);
  EXPECT_EQ(c.partitions[1].max_time_s, kInf);
  EXPECT_FALSE(c.partitions[1].up);
  EXPECT_EQ(c.ignored, (std::vector<std::string>{"ClusterName", "SchedulerParameters default_queue_depth",
                                                 "NodeName lines", "PartitionName OverSubscribe"}));
}

TEST(SlurmConf, MalformedLinesNameTheLine)
{
  auto error = [](const std::string& text) {
    try {
      parse_slurm_conf(text, "slurm.conf");
    } catch (const sgai::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_EQ(error(kBase + "SchedulerType=sched/hold\n"),
            "slurm.conf: line 2: SchedulerType='sched/hold': not a scheduler sgai models (known: sched/backfill, "
            "sched/builtin)");
  EXPECT_EQ(error("PriorityWeightAge=lots\n" + kBase),
            "slurm.conf: line 1: PriorityWeightAge='lots': not a whole number from 0 to 4294967295");
  EXPECT_EQ(error(kBase + "SchedulerParameters=bf_window=0\n"),
            "slurm.conf: line 2: SchedulerParameters 'bf_window=0': bf_window takes a whole number from 1 to 43200");
  EXPECT_EQ(error(kBase + "PartitionName=b Nodes=n[4-2]\n"),
            "slurm.conf: line 2: Nodes='n[4-2]': a range '4-2' that is not N or N-M with N <= M");
  EXPECT_EQ(error(kBase + "PartitionName=all Nodes=n0\n"),
            "slurm.conf: line 2: partition 'all' is defined again (first on line 1)");
  EXPECT_EQ(error(kBase + "PartitionName=b Nodes=n0 MaxTime=soon\n"),
            "slurm.conf: line 2: MaxTime='soon': not a Slurm time (minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S, or "
            "INFINITE)");
  EXPECT_EQ(error("ClusterName\n"), "slurm.conf: line 1: 'ClusterName' is not Key=Value");
  EXPECT_EQ(error("ClusterName=x\n"),
            "slurm.conf: the file: defines no partition (a PartitionName=NAME Nodes=... line): Slurm runs no job");
}

TEST(SlurmAssociations, ReadsSacctmgrDump)
{
  auto a = parse_slurm_associations("# sacctmgr dump\n"
                                    "QOS - 'high':Priority=100\n"
                                    "Cluster - 'c':Fairshare=1:QOS='normal'\n"
                                    "Parent - 'root'\n"
                                    "User - 'root':DefaultAccount='root':AdminLevel='Administrator':Fairshare=1\n"
                                    "Account - 'phys':Description='physics':Fairshare=40\n"
                                    "Account - 'bio':Fairshare=60\n"
                                    "Parent - 'phys'\n"
                                    "User - 'alice':DefaultAccount='phys':Fairshare=1\n"
                                    "Parent - 'bio'\n"
                                    "User - 'alice':DefaultAccount='phys':Fairshare=3\n"
                                    "User - 'bob':DefaultAccount='bio':Fairshare=1\n",
                                    "assoc.cfg");
  ASSERT_EQ(a.nodes.size(), 7u);
  EXPECT_EQ(a.qos_priority.at("high"), 100);
  EXPECT_EQ(a.nodes[2].name, "phys");
  EXPECT_EQ(a.nodes[2].shares, 40);
  EXPECT_EQ(a.user_association("alice", ""), 4);    // under her default account
  EXPECT_EQ(a.user_association("alice", "bio"), 5); // under the account named
  EXPECT_EQ(a.user_association("bob", "phys"), 6);  // no such: his default
  EXPECT_EQ(a.user_association("carol", ""), -1);
  EXPECT_THROW(parse_slurm_associations("Parent - 'nowhere'\n", "a"), sgai::InputError);
  EXPECT_THROW(parse_slurm_associations("User - 'x':Fairshare=parent\n", "a"), sgai::InputError);
  EXPECT_THROW(parse_slurm_associations("Wizard - 'x'\n", "a"), sgai::InputError);
}

TEST(SlurmScheduling, MainSchedulerStopsAtTheFirstJobThatCannotStart)
{
  // sched/builtin: no backfill. A starts at 0; B waits for 4 nodes (A ends at 100); C and D, behind
  // B, wait too: B starts at 100 on all 4, C and D when B ends at 200.
  auto got = run(nodes(4), "SchedulerType=sched/builtin\n" + kBase, abcd());
  EXPECT_EQ(got[0].t, 0);
  EXPECT_EQ(got[1].t, 100);
  EXPECT_EQ(got[2].t, 200);
  EXPECT_EQ(got[3].t, 200);
}

TEST(SlurmScheduling, BackfillPassEveryInterval)
{
  // sched/backfill with bf_resolution=1: the pass at 30 plans B at 100 on n0-n3 and starts C and D
  // on n2, n3 (both end at 60, before 100). With bf_interval=60 the first pass is at 60 (to 90).
  std::string p = "SchedulerParameters=bf_resolution=1";
  auto got      = run(nodes(4), p + "\n" + kBase, abcd());
  EXPECT_EQ(got[2].t, 30);
  EXPECT_EQ(got[2].cores, (std::vector<uint32_t>{2}));
  EXPECT_EQ(got[3].t, 30);
  EXPECT_EQ(got[3].cores, (std::vector<uint32_t>{3}));
  EXPECT_EQ(got[1].t, 100);
  got = run(nodes(4), p + ",bf_interval=60\n" + kBase, abcd());
  EXPECT_EQ(got[2].t, 60);
  EXPECT_EQ(got[3].t, 60);
}

TEST(SlurmScheduling, JobsBeyondBfMaxJobTestAreNotBackfilled)
{
  // bf_max_job_test=2: the pass at 30 tests B (reserved) and C (started); D is not tested. C's start
  // is a change: the next pass, at 60, tests B and D and starts D. With 3, D starts at 30.
  auto got = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_max_job_test=2\n" + kBase, abcd());
  EXPECT_EQ(got[2].t, 30);
  EXPECT_EQ(got[3].t, 60);
  got = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_max_job_test=3\n" + kBase, abcd());
  EXPECT_EQ(got[3].t, 30);
}

TEST(SlurmScheduling, AWindowShorterThanTheWaitLeavesTheJobUnplanned)
{
  // C asks for 200 s. bf_window=1 (60 s): at 30 the window ends at 90, B's start (100) is beyond
  // it: B gets no reservation, and C and D start at 30 (C ends at 230, delaying B to 230).
  // bf_window=2 (120 s, to 150): B is reserved at 100 on all nodes; C (to 230) cannot start
  // before B ends at 200; D (to 60) can.
  auto got = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_window=1\n" + kBase, abcd(200));
  EXPECT_EQ(got[2].t, 30);
  EXPECT_EQ(got[3].t, 30);
  EXPECT_EQ(got[1].t, 230);
  got = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_window=2\n" + kBase, abcd(200));
  EXPECT_EQ(got[1].t, 100);
  EXPECT_EQ(got[2].t, 200);
  EXPECT_EQ(got[3].t, 30);
}

TEST(SlurmScheduling, ReservationsAreRoundedToBfResolution)
{
  // C and D ask for 50 s. bf_resolution=60 (Slurm's default): B's reservation starts at
  // floor(100 / 60) x 60 = 60, so C and D (30 to 80) would overlap it: neither starts at 30. They
  // start when B ends (200), on the nodes B leaves. With bf_resolution=1 they start at 30 (to 80,
  // before B's 100).
  auto got = run(nodes(4), kBase, abcd(50, 50));
  EXPECT_EQ(got[1].t, 100);
  EXPECT_EQ(got[2].t, 200);
  EXPECT_EQ(got[3].t, 200);
  got = run(nodes(4), "SchedulerParameters=bf_resolution=1\n" + kBase, abcd(50, 50));
  EXPECT_EQ(got[2].t, 30);
  EXPECT_EQ(got[3].t, 30);
}

TEST(SlurmScheduling, BfMaxJobUserCountsEveryJobOfTheUserLookedAt)
{
  // C and D both of user u1 (and D of u1 already): bf_max_job_user=1 lets the pass at 30 look at
  // one job of u1 (C, started); D is skipped, then looked at by the pass at 60 (C's start changed
  // the queue) and started.
  auto jobs    = abcd();
  jobs[2].user = "u1";
  auto got     = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_max_job_user=1\n" + kBase, jobs);
  EXPECT_EQ(got[2].t, 30);
  EXPECT_EQ(got[3].t, 60);
}

TEST(SlurmScheduling, BfContinueChangesNothingWhenPassesTakeNoTime)
{
  // Slurm's pass yields its locks every 2 s of its own run time; bf_continue says whether it then
  // goes on after a change. sgai's passes take no simulated time, so they are never interrupted.
  auto plain = run(nodes(4), "SchedulerParameters=bf_resolution=1\n" + kBase, abcd());
  auto cont  = run(nodes(4), "SchedulerParameters=bf_resolution=1,bf_continue\n" + kBase, abcd());
  for (uint32_t j = 0; j < 4; j++)
    EXPECT_EQ(plain[j].t, cont[j].t) << j;
}

TEST(SlurmScheduling, PartitionsAreScheduledApart)
{
  // Disjoint partitions: p0 = n0-n1, p1 = n2-n3. At 0: X (p0, 2 cores, 100 s) starts; Y (p0, 2 cores)
  // cannot and fails p0; Z (p1, 1 core) still starts at 0 in the main scheduler.
  std::string conf          = "SchedulerType=sched/builtin\nPartitionName=p0 Nodes=n[0-1] Default=YES\n"
                              "PartitionName=p1 Nodes=n[2-3]\n";
  std::vector<TestJob> jobs = {{0, 2, 100, 100, "u", "p0"}, {0, 2, 100, 100, "u", "p0"}, {0, 1, 10, 10, "u", "p1"}};
  auto got                  = run(nodes(4), conf, jobs);
  EXPECT_EQ(got[1].t, 100);
  EXPECT_EQ(got[2].t, 0);
  EXPECT_EQ(got[2].cores, (std::vector<uint32_t>{2}));
  // Overlapping: "all" = n0-n3 and "half" = n0-n1. X (all, 2 cores) starts on n0-n1; Y (all, 4)
  // fails "all", whose nodes leave the loop; Z (half, 1 core) then finds none and waits.
  conf = "SchedulerType=sched/builtin\nPartitionName=all Nodes=n[0-3] Default=YES\nPartitionName=half Nodes=n[0-1]\n";
  jobs = {{0, 2, 100, 100, "u", "all"}, {0, 4, 100, 100, "u", "all"}, {0, 1, 10, 10, "u", "half"}};
  got  = run(nodes(4), conf, jobs);
  EXPECT_EQ(got[2].t, 200);
  // A job asking more than its partition's nodes is rejected at submission.
  Resources r         = nodes(4);
  auto c              = std::make_shared<SlurmConf>(parse_slurm_conf(conf, "slurm.conf"));
  SchedulerConfig cfg = slurm_config(make_slurm_setup(*c, nullptr, r, {{"0", "u", "", "half", ""}}, "w.json"));
  ClusterState s(r);
  Scheduler sched(s, cfg);
  QueuedJob q;
  q.requested_time_s = 10;
  q.demand.cores     = 3;
  EXPECT_FALSE(sched.submit(q, 0));
}

TEST(SlurmScheduling, FairShareOrdersTwoUsersAfterDecay)
{
  // Users u1 and u2, equal shares under the root; PriorityCalcPeriod=5 (300 s), weight 1000 on
  // fair-share only. u1 ran 4 cores over [0, 1000) (4,000 core-s), u2 over [5000, 5500) (2,000).
  // At 6000 each submits a 4-core job (u2's first). Fair Tree: the user with the smaller usage
  // has the larger level fair-share, rank 2 of 2 (factor 1.0, priority 1000); the other 0.5 (500).
  // - Without decay (PriorityDecayHalfLife=0): u1 4,000 > u2 2,000: u2's job first.
  // - Half-life 1 h: u1's usage is about 4,000 x 2^(-5000/3600) ~ 1,500, u2's about
  //   2,000 x 2^(-500/3600) ~ 1,800: u1's job first.
  auto assoc = parse_slurm_associations("Parent - 'root'\nUser - 'u1':Fairshare=1\nUser - 'u2':Fairshare=1\n", "a");
  std::vector<TestJob> jobs = {
      {0, 4, 1000, 1000, "u1"}, {5000, 4, 500, 500, "u2"}, {6000, 4, 100, 100, "u2"}, {6000, 4, 100, 100, "u1"}};
  std::string conf = "PriorityType=priority/multifactor\nPriorityWeightFairshare=1000\n" + kBase;
  auto no_decay    = run(nodes(4), "PriorityDecayHalfLife=0\n" + conf, jobs, &assoc);
  EXPECT_LT(no_decay[2].t, no_decay[3].t);
  Scheduler* sd = nullptr;
  auto decayed  = run(nodes(4), "PriorityDecayHalfLife=1:00:00\n" + conf, jobs, &assoc, &sd);
  EXPECT_EQ(sd->slurm()->priority(2), 500); // u2's job: rank 1 of 2
  EXPECT_EQ(sd->slurm()->priority(3), 1000);
  EXPECT_LT(decayed[3].t, decayed[2].t);
}

TEST(SlurmScheduling, MultifactorPriorityValues)
{
  // PriorityWeightAge=1000 with PriorityMaxAge=10 (minutes): a job submitted at 0 and waiting has
  // age factor 300 / 600 = 0.5 at the calculation of 300 s (PriorityCalcPeriod=5): 500. Job size
  // (weight 100): 4 of 4 cores on 4 of 4 nodes, (1 + 1) / 2 = 1: 100 more. Partition (weight 10):
  // PriorityJobFactor 5 of the highest 10: 5. Submitted at 0, it has 0 + 100 + 5 at first.
  std::string conf          = "PriorityType=priority/multifactor\nPriorityWeightAge=1000\nPriorityMaxAge=10\n"
                              "PriorityWeightJobSize=100\nPriorityWeightPartition=10\n"
                              "PartitionName=all Nodes=n[0-3] Default=YES PriorityJobFactor=5\n"
                              "PartitionName=other Nodes=n0 PriorityJobFactor=10\n";
  Scheduler* sched          = nullptr;
  std::vector<TestJob> jobs = {{0, 4, 400, 400}, {0, 4, 100, 100}};
  run(nodes(4), conf, jobs, nullptr, &sched);
  ASSERT_NE(sched, nullptr);
  ASSERT_NE(sched->slurm(), nullptr);
  // job 1 waited from 0 to 400: its last calculation was at 300
  EXPECT_EQ(sched->slurm()->priority(1), 500 + 100 + 5);
}

// ------------------------------------------------------------------------------ naive reference

namespace {

/** Slurm's backfill with every bound lifted, one partition of one-core nodes, FIFO priority and a
 *  pass at every event: each waiting job, in queue order, planned from scratch at the earliest time
 *  its cores are free of running jobs (until their requested ends) and of the jobs planned before
 *  it; started when that time is now. Written apart from SlurmModel. */
std::map<uint32_t, std::vector<uint32_t>>
naive_slurm(double now, uint32_t n, const std::vector<std::pair<uint32_t, QueuedJob>>& waiting,
            const std::map<uint32_t, std::pair<double, std::vector<uint32_t>>>& running)
{
  std::vector<double> free_from(n, now);
  for (const auto& [job, r] : running)
    for (uint32_t c : r.second)
      free_from[c] = r.first;
  struct Hold {
    double a, b;
    std::vector<uint32_t> cores;
  };
  std::vector<Hold> holds;
  std::map<uint32_t, std::vector<uint32_t>> out;
  for (const auto& [id, q] : waiting) {
    double L = q.requested_time_s;
    std::vector<double> times{now};
    for (double f : free_from)
      if (f > now)
        times.push_back(f);
    for (const auto& h : holds)
      if (h.b > now)
        times.push_back(h.b);
    std::sort(times.begin(), times.end());
    for (double t : times) {
      std::vector<uint32_t> usable;
      for (uint32_t c = 0; c < n; c++) {
        bool ok = free_from[c] <= t;
        for (const auto& h : holds)
          if (ok && h.a < t + L && h.b > t && std::count(h.cores.begin(), h.cores.end(), c))
            ok = false;
        if (ok)
          usable.push_back(c);
      }
      if (usable.size() < q.demand.cores)
        continue;
      usable.resize(q.demand.cores);
      holds.push_back({t, t + L, usable});
      if (t == now)
        out[id] = usable;
      break;
    }
  }
  return out;
}

} // namespace

TEST(SlurmScheduling, UnboundedPassesEqualANaiveReference)
{
  std::mt19937_64 rng(7);
  std::string conf = "SchedulerParameters=bf_interval=0,bf_max_job_test=1000000,bf_window=43200,bf_resolution=1\n"
                     "PartitionName=all Nodes=ALL Default=YES\n";
#if defined(__SANITIZE_ADDRESS__)
  const int instances = 90; // the sanitizer build (Debug, instrumented): the same mix, fewer of them
#else
  const int instances = 300;
#endif
  for (int instance = 0; instance < instances; instance++) {
    auto pick   = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    uint32_t n  = static_cast<uint32_t>(instance < instances * 2 / 3 ? pick(2, 8) : pick(60, 130));
    Resources r = nodes(n);
    std::vector<TestJob> jobs;
    for (int i = 0; i < 40; i++) {
      double wall = pick(1, 10);
      jobs.push_back({static_cast<double>(pick(0, 40)), static_cast<uint32_t>(pick(1, static_cast<int>(n))), wall,
                      static_cast<double>(pick(1, static_cast<int>(wall)))});
    }
    std::stable_sort(jobs.begin(), jobs.end(), [](const TestJob& a, const TestJob& b) { return a.submit < b.submit; });
    auto c = std::make_shared<SlurmConf>(parse_slurm_conf(conf, "slurm.conf"));
    std::vector<SlurmJobKeys> keys(jobs.size(), SlurmJobKeys{"j", "u", "", "", ""});
    SchedulerConfig cfg = slurm_config(make_slurm_setup(*c, nullptr, r, keys, "w.json"));
    ClusterState s(r);
    Scheduler sched(s, cfg);
    std::vector<std::pair<uint32_t, QueuedJob>> waiting;
    std::map<uint32_t, std::pair<double, std::vector<uint32_t>>> running; // job -> (requested end, cores)
    std::map<uint32_t, double> ends;
    size_t next = 0, done = 0;
    while (done < jobs.size()) {
      double t = next < jobs.size() ? jobs[next].submit : kInf;
      for (const auto& [j, e] : ends)
        t = std::min(t, e);
      ASSERT_LT(t, kInf) << "instance " << instance;
      ASSERT_EQ(sched.next_wake(t), kInf); // a pass at every event: no wake of its own
      for (auto it = ends.begin(); it != ends.end();)
        if (it->second == t) {
          sched.release(it->first, t);
          running.erase(it->first);
          it = ends.erase(it);
          done++;
        } else {
          ++it;
        }
      for (; next < jobs.size() && jobs[next].submit == t; next++) {
        QueuedJob q = queued(next, jobs[next], t);
        ASSERT_TRUE(sched.submit(q, t));
        waiting.emplace_back(q.job, q);
      }
      auto expected = naive_slurm(t, n, waiting, running);
      std::map<uint32_t, std::vector<uint32_t>> got;
      for (const auto& d : sched.step(t))
        got[d.job] = d.cores;
      ASSERT_EQ(got, expected) << "instance " << instance << " at t=" << t;
      for (const auto& [j, cores] : got) {
        ends[j]    = t + jobs[j].run;
        running[j] = {t + jobs[j].walltime, cores};
        waiting.erase(
            std::find_if(waiting.begin(), waiting.end(), [&, id = j](const auto& w) { return w.first == id; }));
      }
    }
  }
}
