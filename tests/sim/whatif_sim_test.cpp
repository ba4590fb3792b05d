/* The what-if graph on SimGrid (plugins/whatif_sim): the same graph replayed by actors gives the walk's
 * iteration times (within 5%) and SimGrid's host energy gives the power model's energy. */
#include "../unit/whatif_traces.hpp"
#include "core/foundation/error.hpp"
#include "core/whatif/analysis.hpp"
#include "core/whatif/build.hpp"
#include "core/whatif/optimize.hpp"
#include "core/whatif/walk.hpp"
#include "plugins/whatif_sim/sim_run.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <unistd.h>

using namespace sgai::whatif;
namespace fs = std::filesystem;

namespace {

Graph load(const fs::path& p)
{
  std::vector<KinetoTrace> traces;
  for (const fs::path& f : trace_files(p))
    traces.push_back(read_kineto(f));
  return build_joined(traces);
}

TEST(WhatIfSim, ReplayGivesTheWalksIterationsAndTheModelsEnergy)
{
  const fs::path p = "../shared/data/kineto/hta/ns_resolution_trace";
  if (not fs::exists(p))
    GTEST_SKIP() << "no ../shared/data";
  Graph base = load(p);
  base.power = GpuPower{"V100 SXM2 32GB", 40, 300, 1};
  Graph amp  = base;
  WhatIfContext c;
  apply_optimizations(amp, {"amp-daydream"}, c);
  auto results = sgai::whatif_sim::run_on_simgrid({&base, &amp});
  ASSERT_EQ(results.size(), 2u);
  for (int k = 0; k < 2; ++k) {
    const Graph& g = k == 0 ? base : amp;
    auto walked    = step_figures(g, walk(g));
    auto replayed  = step_figures(g, results[size_t(k)].walk);
    ASSERT_EQ(walked.size(), replayed.size());
    for (size_t i = 0; i < walked.size(); ++i)
      EXPECT_NEAR(double(replayed[i].time_ns), double(walked[i].time_ns), 0.05 * double(walked[i].time_ns))
          << k << " " << walked[i].name;
    // SimGrid's energy over the run: 300 W while any stream runs, 40 W otherwise, from time 0 (the
    // first task) to the last end
    const WalkResult& w = results[size_t(k)].walk;
    std::vector<std::pair<int64_t, int64_t>> busy;
    for (uint32_t i = 0; i < g.tasks.size(); ++i)
      if (not g.tasks[i].removed && on_gpu(g.tasks[i].kind))
        busy.push_back({w.start[i], w.end[i]});
    double busy_s  = double(union_length(busy)) * 1e-9;
    double total_s = double(w.finish - w.origin) * 1e-9;
    double model   = busy_s * 300 + (total_s - busy_s) * 40;
    EXPECT_NEAR(results[size_t(k)].gpu_energy_j, model, 1e-6 * model);
  }
}

TEST(WhatIfSim, EveryBaselineTraceReplaysWithin5PercentOfTheWalk)
{
  const fs::path d = "../shared/data";
  if (not fs::exists(d / "kineto"))
    GTEST_SKIP() << "no ../shared/data";
  std::vector<fs::path> traces = sgai::test::whatif_baseline_traces(d);
  // dlrm_kineto's 8 ranks, joined
  fs::path dlrm = fs::temp_directory_path() / ("sgai-whatif-sim-dlrm-" + std::to_string(::getpid()));
  fs::create_directories(dlrm);
  ASSERT_EQ(std::system(
                ("tar -xzf " + (d / "pytorch-et/param/dlrm_kineto.tar.gz").string() + " -C " + dlrm.string()).c_str()),
            0);
  traces.push_back(dlrm / "dlrm_kineto");
  std::vector<Graph> graphs;
  for (const fs::path& p : traces)
    graphs.push_back(load(p));
  std::vector<const Graph*> all;
  for (const Graph& g : graphs)
    all.push_back(&g);
  auto results = sgai::whatif_sim::run_on_simgrid(all); // every trace side by side, one simulation
  fs::remove_all(dlrm);
  ASSERT_EQ(results.size(), graphs.size());
  for (size_t k = 0; k < graphs.size(); ++k) {
    auto walked   = step_figures(graphs[k], walk(graphs[k]));
    auto replayed = step_figures(graphs[k], results[k].walk);
    for (size_t i = 0; i < walked.size(); ++i)
      EXPECT_NEAR(double(replayed[i].time_ns), double(walked[i].time_ns), 0.05 * double(walked[i].time_ns))
          << traces[k] << " rank " << walked[i].rank << " " << walked[i].name;
  }
}

TEST(WhatIfSim, ForkedRunsCanRepeatInOneProcess)
{
  const fs::path p = "../shared/data/kineto/hta/amd_trace";
  if (not fs::exists(p))
    GTEST_SKIP() << "no ../shared/data";
  Graph g = load(p);
  auto a  = sgai::whatif_sim::run_on_simgrid_forked(g);
  auto b  = sgai::whatif_sim::run_on_simgrid_forked(g);
  EXPECT_EQ(a.walk.start, b.walk.start);
  WalkResult w = walk(g);
  EXPECT_EQ(a.walk.finish, w.finish);
}

/** One rank: a launch, a 1 ms kernel, a 10 MB all-reduce on a channel after it, a kernel waiting
 *  for the all-reduce, a synchronization. */
Graph one_rank_with_all_reduce()
{
  Graph g;
  uint32_t cpu = g.add_thread(ExecThread{ThreadKind::cpu, "cpu", 0, -1, 1});
  uint32_t st  = g.add_thread(ExecThread{ThreadKind::stream, "stream 7", 0, 0, 7});
  uint32_t ch  = g.add_thread(ExecThread{ThreadKind::channel, "ddp", 0, -1, 0});
  g.ranks.push_back(RankInfo{"hand", "", 0, 1, 0});
  auto task = [&g](TaskKind k, uint32_t th, int64_t start, int64_t dur) {
    Task t;
    t.kind     = k;
    t.thread   = th;
    t.start_ns = start;
    t.dur_ns   = dur;
    t.step     = 0;
    t.name     = g.intern(to_string(k));
    return g.add_task(t);
  };
  uint32_t begin         = task(TaskKind::marker, cpu, 0, 0);
  uint32_t l             = task(TaskKind::runtime, cpu, 0, 10'000);
  uint32_t s             = task(TaskKind::runtime, cpu, 10'000, 1'000);
  uint32_t end           = task(TaskKind::marker, cpu, 11'000, 0);
  uint32_t k1            = task(TaskKind::kernel, st, 12'000, 1'000'000);
  uint32_t ar            = task(TaskKind::comm, ch, 1'012'000, 1'000);
  uint32_t k2            = task(TaskKind::kernel, st, 1'013'000, 100'000);
  g.tasks[ar].bytes      = 10'000'000;
  g.tasks[ar].collective = 0;
  g.collectives.push_back(CollectiveInfo{"allreduce", 10'000'000, 0, "ddp"});
  g.add_edge(begin, l, 0, EdgeKind::thread);
  g.add_edge(l, s, 0, EdgeKind::thread);
  g.add_edge(s, end, 0, EdgeKind::thread);
  g.add_edge(l, k1, 2'000, EdgeKind::launch);
  g.add_edge(k1, ar, 0, EdgeKind::inserted);
  g.add_edge(ar, k2, 0, EdgeKind::inserted);
  g.add_edge(k1, k2, 0, EdgeKind::thread);
  g.add_edge(k2, s, 0, EdgeKind::sync);
  g.steps.push_back(Step{"step", begin, end, 1'114'000, 0, 0});
  return g;
}

TEST(WhatIfSim, CopiesOnAPlatformRunTheirCollectivesOverTheNetwork)
{
  Graph g = one_rank_with_all_reduce();
  sgai::whatif_sim::PlatformOptions o;
  o.platform = "tests/fixtures/platforms/tiny_gpu.json"; // 2 nodes of 2 GPUs, 100 Gb/s between
  o.ranks    = 4;
  auto r     = sgai::whatif_sim::run_on_platform(g, o);
  ASSERT_EQ(r.ranks.size(), 4u);
  EXPECT_EQ(r.collectives, 1u);
  EXPECT_GT(r.gpu_energy_j, 0);
  for (const WalkResult& w : r.ranks) {
    // the kernel as recorded; the all-reduce after it, as long as the network makes it: a ring of 4
    // over the 12.5 GB/s link carries 2 x 3/4 x 10 MB, at least 1.2 ms, and not over twice that
    EXPECT_EQ(w.end[4] - w.start[4], 1'000'000);
    int64_t ar = w.end[5] - w.start[5];
    EXPECT_GE(ar, 1'200'000);
    EXPECT_LE(ar, 2'400'000);
    EXPECT_EQ(w.start[6], w.end[5]); // the waiting kernel starts when the all-reduce ends
    EXPECT_EQ(w.end[3] - w.start[0], w.end[6] + 1'000 - w.start[0]);
  }
  // every copy ends together (the collective joins them)
  EXPECT_EQ(r.ranks[0].end[5], r.ranks[3].end[5]);
}

TEST(WhatIfSim, APlatformNeedsEnoughGpusAndOneRanksGraph)
{
  Graph g = one_rank_with_all_reduce();
  sgai::whatif_sim::PlatformOptions o;
  o.platform = "tests/fixtures/platforms/tiny_gpu.json";
  o.ranks    = 5;
  EXPECT_THROW(sgai::whatif_sim::run_on_platform_forked(g, o), sgai::RunError); // the child's InputError
  try {
    sgai::whatif_sim::run_on_platform_forked(g, o);
  } catch (const sgai::RunError& e) {
    EXPECT_NE(std::string(e.what()).find("5 ranks but the platform has 4 GPUs"), std::string::npos) << e.what();
  }
}

} // namespace
