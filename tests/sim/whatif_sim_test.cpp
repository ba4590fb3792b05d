/* The what-if graph on SimGrid (plugins/whatif): the same graph replayed by actors gives the walk's
 * iteration times (within 5%) and SimGrid's host energy gives the power model's energy. */
#include "generators/util/error.hpp"
#include "plugins/whatif/sim_run.hpp"
#include "whatif/analysis.hpp"
#include "whatif/build.hpp"
#include "whatif/optimize.hpp"
#include "whatif/walk.hpp"

#include <gtest/gtest.h>

#include <filesystem>

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

} // namespace
