/* The what-if engine (whatif/): the Kineto reader, the dependency graph, Daydream's walk, the
 * primitives and every optimization on hand-built graphs (predicted times equal to the hand
 * computation), and the engine on the shared real traces (../shared/data): baselines, HTA's
 * critical path, Daydream's invariants, the V100 -> A100 pair, bad input. */
#include "core/foundation/error.hpp"
#include "core/kernels/kernel_model.hpp"
#include "core/whatif/analysis.hpp"
#include "core/whatif/build.hpp"
#include "core/whatif/kineto.hpp"
#include "core/whatif/optimize.hpp"
#include "core/whatif/walk.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"
#include "whatif_traces.hpp"

#include <gtest/gtest.h>

#include <memory>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <map>
#include <set>
#include <unistd.h>

using namespace sgai::whatif;
namespace fs = std::filesystem;

namespace {

const fs::path kData = "../shared/data";

const sgai::platform::Catalogue& catalogue()
{
  static const sgai::platform::Catalogue cat = sgai::platform::load_catalogue("platforms/catalogues/accelerators.json");
  return cat;
}

const sgai::platform::GpuType* gpu(const std::string& name)
{
  return &catalogue().gpus.at(name);
}

// ------------------------------------------------------------------------------------ hand graphs

struct Hand {
  Graph g;
  uint32_t cpu = 0, stream = 0;

  Hand()
  {
    cpu    = g.add_thread(ExecThread{ThreadKind::cpu, "cpu", 0, -1, 1});
    stream = g.add_thread(ExecThread{ThreadKind::stream, "stream 7", 0, 0, 7});
    g.ranks.push_back(RankInfo{"hand", "Tesla V100-SXM2-32GB", 0, 1, 0});
    g.steps.push_back(Step{"ProfilerStep#1", kNone, kNone, 0, 0, 0});
  }
  uint32_t task(TaskKind kind, uint32_t thread, const std::string& name, int64_t start, int64_t dur, int64_t gap = 0,
                Phase phase = Phase::forward)
  {
    Task t;
    t.kind     = kind;
    t.thread   = thread;
    t.name     = g.intern(name);
    t.start_ns = start;
    t.dur_ns   = dur;
    t.gap_ns   = gap;
    t.phase    = phase;
    t.step     = 0;
    return g.add_task(t);
  }
  void edge(uint32_t a, uint32_t b, int64_t lag, EdgeKind k) { g.add_edge(a, b, lag, k); }
  void chain(const std::vector<uint32_t>& ids)
  {
    for (size_t i = 1; i < ids.size(); ++i)
      g.add_edge(ids[i - 1], ids[i], g.tasks[ids[i - 1]].gap_ns, EdgeKind::thread);
  }
  int64_t step_time()
  {
    WalkResult w = walk(g);
    return step_figures(g, w).front().time_ns;
  }
};

/** Three launches and three kernels, then a synchronization: 225 us, GPU-bound.
 *  CPU: begin | L1 0-10 (gap 5) | L2 15-25 (gap 5) | L3 30-40 | S (waits for K3) | end
 *  GPU: K1 sgemm 12-132 | K2 elementwise 132-192 | K3 batch norm 192-222; S 222-225. */
struct Forward : Hand {
  uint32_t begin, l1, l2, l3, s, end, k1, k2, k3;
  Forward()
  {
    begin = task(TaskKind::marker, cpu, "ProfilerStep#1 begin", 0, 0);
    l1    = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 0, 10'000, 5'000);
    l2    = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 15'000, 10'000, 5'000);
    l3    = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 30'000, 10'000, 0);
    s     = task(TaskKind::runtime, cpu, "cudaDeviceSynchronize", 222'000, 3'000, 0);
    end   = task(TaskKind::marker, cpu, "ProfilerStep#1 end", 225'000, 0);
    k1    = task(TaskKind::kernel, stream, "volta_sgemm_128x64_nn", 12'000, 120'000);
    k2    = task(TaskKind::kernel, stream, "void at::native::vectorized_elementwise_kernel<4>", 132'000, 60'000);
    k3    = task(TaskKind::kernel, stream, "void cudnn::bn_fw_tr_1C11_kernel_NCHW<float>", 192'000, 30'000);
    chain({begin, l1, l2, l3, s, end});
    chain({k1, k2, k3});
    edge(l1, k1, 2'000, EdgeKind::launch);
    edge(l2, k2, 2'000, EdgeKind::launch);
    edge(l3, k3, 2'000, EdgeKind::launch);
    edge(k3, s, 0, EdgeKind::sync);
    g.steps[0].begin = begin;
    g.steps[0].end   = end;
  }
};

TEST(WhatIfWalk, ReproducesTheHandGraph)
{
  Forward f;
  WalkResult w = walk(f.g);
  EXPECT_EQ(w.start[f.k1], 12'000);
  EXPECT_EQ(w.start[f.k2], 132'000);
  EXPECT_EQ(w.start[f.k3], 192'000);
  EXPECT_EQ(w.start[f.s], 222'000);
  EXPECT_EQ(w.start[f.end], 225'000);
  auto steps = step_figures(f.g, w);
  ASSERT_EQ(steps.size(), 1u);
  EXPECT_EQ(steps[0].time_ns, 225'000);
  EXPECT_EQ(steps[0].gpu_busy_ns, 210'000);
  EXPECT_EQ(steps[0].cpu_only_ns, 15'000);
  // S waited from L3's end (40 us) to K3's end (222 us): all of it while the GPU ran
  EXPECT_EQ(steps[0].gpu_only_ns, 182'000);
  EXPECT_EQ(steps[0].overlapped_ns, 210'000 - 182'000);
  EXPECT_EQ(steps[0].kernel_ns, 210'000);
  EXPECT_EQ(steps[0].cpu_task_ns, 33'000);
  // the critical path: L1 -> K1 -> K2 -> K3 -> S -> end
  auto path = critical_path(f.g, w, f.end);
  std::vector<uint32_t> expected{f.begin, f.l1, f.k1, f.k2, f.k3, f.s, f.end};
  EXPECT_EQ(path, expected);
}

TEST(WhatIfWalk, ThreadProgressAndGapsBoundTheCpu)
{
  Forward f;
  // the GPU faster than the CPU: everything ÷ 100
  for (uint32_t k : {f.k1, f.k2, f.k3})
    f.g.shrink(k, 100);
  WalkResult w = walk(f.g);
  // K3 waits for L3: 40 + 2 = 42 us, 300 ns long; S starts when the CPU arrives (40 us) or K3 ends
  EXPECT_EQ(w.start[f.k3], 42'000);
  EXPECT_EQ(w.start[f.s], 42'300);
  EXPECT_EQ(w.start[f.end], 45'300);
}

TEST(WhatIfWalk, ACycleIsAnError)
{
  Forward f;
  f.edge(f.s, f.l1, 0, EdgeKind::inserted);
  try {
    walk(f.g);
    FAIL() << "no error";
  } catch (const sgai::RunError& e) {
    EXPECT_NE(std::string(e.what()).find("cycle"), std::string::npos) << e.what();
  }
}

TEST(WhatIfWalk, ChannelsRunTheBestReadyTaskWhenTheyFree)
{
  // C holds the channel until 5 us; A (ready at 0.5 us) and B (ready at 1 us) wait for it. By
  // default the earlier ready goes first; with a better priority B goes first (Daydream's
  // schedule override, as P3 uses it). The channel never idles while a task is ready.
  auto build = [](int32_t b_priority) {
    auto h                 = std::make_unique<Hand>();
    uint32_t ch            = h->g.add_thread(ExecThread{ThreadKind::channel, "channel", 0, 0, 0});
    uint32_t c             = h->task(TaskKind::comm, ch, "c", 0, 5'000);
    uint32_t a             = h->task(TaskKind::comm, ch, "a", 500, 10'000);
    uint32_t b             = h->task(TaskKind::comm, ch, "b", 1'000, 10'000);
    h->g.tasks[b].priority = b_priority;
    (void)c;
    (void)a;
    return h;
  };
  auto fifo     = build(0);
  WalkResult w1 = walk(fifo->g);
  EXPECT_EQ(w1.start[1], 5'000);
  EXPECT_EQ(w1.start[2], 15'000);
  auto prio     = build(-1);
  WalkResult w2 = walk(prio->g);
  EXPECT_EQ(w2.start[2], 5'000);
  EXPECT_EQ(w2.start[1], 15'000);
  // a task ready while the channel is idle starts at once, whatever its priority
  auto idle               = build(-1);
  idle->g.tasks[0].dur_ns = 200;
  WalkResult w3           = walk(idle->g);
  EXPECT_EQ(w3.start[1], 500);
  EXPECT_EQ(w3.start[2], 10'500);
}

// ------------------------------------------------------------------------------------ primitives

TEST(WhatIfPrimitives, RemoveRewiresAndInsertPlacesOnTheThread)
{
  Forward f;
  f.g.remove(f.k2);
  // K1 -> K3 on the stream; L2's launch now orders K3 too
  EXPECT_EQ(f.g.thread_next(f.k1), f.k3);
  EXPECT_EQ(f.g.thread_prev(f.k3), f.k1);
  WalkResult w = walk(f.g);
  EXPECT_EQ(w.start[f.k3], 132'000);
  EXPECT_EQ(w.start[f.end], 165'000);
  // a kernel inserted after K1, launched by L2
  Task t     = f.g.tasks[f.k1];
  t.name     = f.g.intern("inserted kernel");
  t.dur_ns   = 7'000;
  uint32_t x = f.g.insert_after(f.k1, t, {f.l2});
  EXPECT_EQ(f.g.thread_next(f.k1), x);
  EXPECT_EQ(f.g.thread_next(x), f.k3);
  WalkResult w2 = walk(f.g);
  EXPECT_EQ(w2.start[x], 132'000);
  EXPECT_EQ(w2.start[f.end], 172'000);
  auto sel = f.g.select_name("inserted");
  ASSERT_EQ(sel.size(), 1u);
  EXPECT_EQ(sel[0], x);
}

// ------------------------------------------------------------------------------------ optimizations

WhatIfContext v100()
{
  WhatIfContext c;
  c.gpu = gpu("V100 SXM2 32GB");
  return c;
}

TEST(WhatIfOptimizations, AmpDaydreamIsAlgorithm2KernelByKernel)
{
  Forward f;
  apply_optimizations(f.g, {"amp-daydream"}, v100());
  EXPECT_EQ(f.g.tasks[f.k1].dur_ns, 40'000); // sgemm ÷3
  EXPECT_EQ(f.g.tasks[f.k2].dur_ns, 30'000); // ÷2
  EXPECT_EQ(f.g.tasks[f.k3].dur_ns, 15'000); // ÷2
  EXPECT_EQ(f.g.tasks[f.l1].dur_ns, 10'000); // CPU unchanged
  // K1 12-52, K2 52-82, K3 82-97, S 97-100
  EXPECT_EQ(f.step_time(), 100'000);
}

TEST(WhatIfOptimizations, AmpUsesTheTensorPeakCappedAndHalvesMemoryBoundKernels)
{
  Forward f;
  uint32_t opt = f.task(TaskKind::kernel, f.stream, "void at::native::vectorized_elementwise_kernel<adam>", 300'000,
                        8'000, 0, Phase::optimizer);
  apply_optimizations(f.g, {"amp"}, v100());
  // V100: FP16 tensor 125 / FP32 15.7 = 7.96, capped at 3
  EXPECT_EQ(f.g.tasks[f.k1].dur_ns, 40'000);
  EXPECT_EQ(f.g.tasks[f.k2].dur_ns, 30'000);
  EXPECT_EQ(f.g.tasks[f.k3].dur_ns, 15'000);
  EXPECT_EQ(f.g.tasks[opt].dur_ns, 8'000); // the optimizer stays in FP32
  // a cap of 1.5: the GEMM ÷1.5
  Forward h;
  WhatIfContext c = v100();
  c.tensor_cap    = 1.5;
  apply_optimizations(h.g, {"amp"}, c);
  EXPECT_EQ(h.g.tasks[h.k1].dur_ns, 80'000);
  // on the A100 a TF32 kernel gains 312 / 156 = 2
  Forward a;
  a.g.tasks[a.k1].name = a.g.intern("sm80_xmma_gemm_tf32f32_tf32f32_f32_nt");
  WhatIfContext ca;
  ca.gpu = gpu("A100 SXM4 40GB");
  apply_optimizations(a.g, {"amp"}, ca);
  EXPECT_EQ(a.g.tasks[a.k1].dur_ns, 60'000);
  EXPECT_EQ(a.step_time(), 12'000 + 60'000 + 30'000 + 15'000 + 3'000);
}

/** A CPU-bound step with an optimizer phase of three launches and three kernels. */
struct WithOptimizer : Hand {
  uint32_t l1, o1, o2, o3, s, end, k1, a1, a2, a3;
  WithOptimizer()
  {
    uint32_t begin = task(TaskKind::marker, cpu, "ProfilerStep#1 begin", 0, 0);
    l1             = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 0, 10'000, 0);
    o1             = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 10'000, 8'000, 12'000, Phase::optimizer);
    o2             = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 30'000, 8'000, 12'000, Phase::optimizer);
    o3             = task(TaskKind::runtime, cpu, "cudaLaunchKernel", 50'000, 8'000, 0, Phase::optimizer);
    s              = task(TaskKind::runtime, cpu, "cudaStreamSynchronize", 64'000, 1'000);
    end            = task(TaskKind::marker, cpu, "ProfilerStep#1 end", 65'000, 0);
    k1             = task(TaskKind::kernel, stream, "volta_scudnn_128x64_relu", 12'000, 5'000);
    a1 = task(TaskKind::kernel, stream, "void at::native::vectorized_elementwise_kernel<mul>", 20'000, 4'000, 0,
              Phase::optimizer);
    a2 = task(TaskKind::kernel, stream, "void at::native::vectorized_elementwise_kernel<add>", 40'000, 4'000, 0,
              Phase::optimizer);
    a3 = task(TaskKind::kernel, stream, "void at::native::vectorized_elementwise_kernel<addcdiv>", 60'000, 4'000, 0,
              Phase::optimizer);
    chain({begin, l1, o1, o2, o3, s, end});
    chain({k1, a1, a2, a3});
    edge(l1, k1, 2'000, EdgeKind::launch);
    edge(o1, a1, 2'000, EdgeKind::launch);
    edge(o2, a2, 2'000, EdgeKind::launch);
    edge(o3, a3, 2'000, EdgeKind::launch);
    edge(a3, s, 0, EdgeKind::sync);
    g.steps[0].begin = begin;
    g.steps[0].end   = end;
  }
};

TEST(WhatIfOptimizations, FusedOptimizerReplacesThePhaseByOneLaunchAndOneKernel)
{
  WithOptimizer f;
  EXPECT_EQ(f.step_time(), 65'000);
  std::vector<OptimizationNote> notes = apply_optimizations(f.g, {"fused-optimizer"}, v100());
  EXPECT_EQ(notes[0].tasks_removed, 6u);
  EXPECT_EQ(notes[0].tasks_inserted, 2u);
  // fused launch 10-18 (the removed launches' median), fused kernel (4+4+4 = 12 us) 18-30,
  // the synchronization 30-31
  EXPECT_EQ(f.step_time(), 31'000);
  auto fused = f.g.select_name("fused optimizer kernel");
  ASSERT_EQ(fused.size(), 1u);
  EXPECT_EQ(f.g.tasks[fused[0]].dur_ns, 12'000);
}

TEST(WhatIfOptimizations, FusedOptimizerRefusesATraceWithoutWeightUpdateOrAlreadyFused)
{
  Forward f;
  EXPECT_THROW(apply_optimizations(f.g, {"fused-optimizer"}, v100()), sgai::InputError);
  WithOptimizer w;
  w.g.tasks[w.a2].name = w.g.intern("void multi_tensor_apply_kernel<TensorListMetadata<4>, AdamFunctor<float>>");
  try {
    apply_optimizations(w.g, {"fused-optimizer"}, v100());
    FAIL() << "no error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("already runs a fused optimizer"), std::string::npos) << e.what();
  }
}

TEST(WhatIfOptimizations, GpuTypeScalesByTheCatalogueRoofline)
{
  Forward f;
  WhatIfContext c = v100();
  c.target        = gpu("A100 SXM4 40GB");
  apply_optimizations(f.g, {"gpu"}, c);
  // a GEMM outside a convolution stays FP32: 15.7 -> 19.5 TFLOPS; memory 900 -> 1555 GB/s
  int64_t k1 = std::llround(120'000 * 15.7 / 19.5), k2 = std::llround(60'000 * 900.0 / 1555.0),
          k3 = std::llround(30'000 * 900.0 / 1555.0);
  EXPECT_EQ(f.g.tasks[f.k1].dur_ns, k1);
  EXPECT_EQ(f.g.tasks[f.k2].dur_ns, k2);
  EXPECT_EQ(f.g.tasks[f.k3].dur_ns, k3);
  EXPECT_EQ(f.step_time(), 12'000 + k1 + k2 + k3 + 3'000);
  EXPECT_EQ(f.g.power.busy_w, 400);
  // a convolution moves to TF32, at most 3× the A100's own FP32: 156 / 15.7 capped at 3 * 19.5 / 15.7
  Forward v;
  v.g.tasks[v.k1].name = v.g.intern("volta_scudnn_128x64_relu_interior_nn_v1");
  apply_optimizations(v.g, {"gpu"}, c);
  EXPECT_EQ(v.g.tasks[v.k1].dur_ns, std::llround(120'000 / (3 * 19.5 / 15.7)));
  // without the trace's GPU: refused
  Forward u;
  WhatIfContext none;
  none.target = gpu("A100 SXM4 40GB");
  EXPECT_THROW(apply_optimizations(u.g, {"gpu"}, none), sgai::InputError);
}

TEST(WhatIfOptimizations, PowerCapScalesByThePStateModelAndEnergyIsTheIntegralOfPower)
{
  Forward f;
  WhatIfContext c = v100();
  c.power_cap_w   = 150;
  apply_optimizations(f.g, {"power-cap"}, c);
  const double fr = std::cbrt((150.0 - 40.0) / (300.0 - 40.0)); // the shared model, written out
  EXPECT_DOUBLE_EQ(fr, sgai::kernels::capped_clock_fraction(150, 40, 300));
  int64_t k1 = std::llround(120'000 / fr);
  EXPECT_EQ(f.g.tasks[f.k1].dur_ns, k1);     // compute-bound: ×1/f
  EXPECT_EQ(f.g.tasks[f.k2].dur_ns, 60'000); // memory-bound: ×1/m, m = 1
  EXPECT_EQ(f.g.tasks[f.k3].dur_ns, 30'000);
  WalkResult w = walk(f.g);
  auto s       = step_figures(f.g, w).front();
  EXPECT_EQ(s.time_ns, 12'000 + k1 + 60'000 + 30'000 + 3'000);
  // ∫ power dt over the step, swept event by event: 150 W while a GPU task runs, 40 W otherwise
  std::vector<std::pair<int64_t, int>> marks;
  for (uint32_t k : {f.k1, f.k2, f.k3}) {
    marks.push_back({w.start[k], +1});
    marks.push_back({w.end[k], -1});
  }
  marks.push_back({s.begin_ns, 0});
  marks.push_back({s.end_ns, 0});
  std::sort(marks.begin(), marks.end());
  double joules = 0;
  int running   = 0;
  for (size_t i = 0; i + 1 < marks.size(); ++i) {
    running += marks[i].second;
    double dt = double(marks[i + 1].first - marks[i].first) * 1e-9;
    joules += dt * (running > 0 ? 150.0 : 40.0);
  }
  EXPECT_NEAR(s.gpu_energy_j, joules, 1e-6 * joules);
  // a cap outside (idle, max] is refused
  Forward g2;
  c.power_cap_w = 30;
  EXPECT_THROW(apply_optimizations(g2.g, {"power-cap"}, c), sgai::InputError);
}

TEST(WhatIfOptimizations, BandwidthDividesCommunication)
{
  Forward f;
  uint32_t ar = f.task(TaskKind::comm, f.stream, "ncclKernel_AllReduce_RING_LL_Sum_float", 222'000, 40'000);
  f.g.add_edge(f.k3, ar, 0, EdgeKind::thread);
  apply_optimizations(f.g, {"bandwidth"}, v100());
  EXPECT_EQ(f.g.tasks[ar].dur_ns, 20'000);
  WhatIfContext c              = v100();
  c.params["bandwidth.factor"] = "4";
  Forward h;
  uint32_t ar2 = h.task(TaskKind::comm, h.stream, "ncclKernel_AllReduce", 222'000, 40'000);
  apply_optimizations(h.g, {"bandwidth"}, c);
  EXPECT_EQ(h.g.tasks[ar2].dur_ns, 10'000);
  Forward none;
  EXPECT_THROW(apply_optimizations(none.g, {"bandwidth"}, v100()), sgai::InputError);
}

TEST(WhatIfOptimizations, ComposeInOrderAndUnknownNamesAreErrors)
{
  Forward f;
  apply_optimizations(f.g, {"amp-daydream", "amp-daydream"}, v100());
  EXPECT_EQ(f.g.tasks[f.k1].dur_ns, std::llround(40'000 / 3.0));
  EXPECT_EQ(f.g.tasks[f.k2].dur_ns, 15'000);
  EXPECT_THROW(apply_optimizations(f.g, {"warp-drive"}, v100()), sgai::InputError);
  EXPECT_NE(find_optimization("amp"), nullptr);
  EXPECT_GE(optimizations().size(), 6u);
}

/** Forward with a gradient bucket of 10 MB issued at 26 us (after L2) and K3 as the weight update. */
struct WithBucket : Forward {
  WithBucket()
  {
    g.tasks[k3].phase = Phase::optimizer;
    g.buckets.push_back(Bucket{26'000, cpu, 0, 10'000'000, "allreduce"});
  }
};

TEST(WhatIfOptimizations, DdpInsertsTheBucketsAllReduceBeforeTheWeightUpdate)
{
  WithBucket f;
  auto notes = apply_optimizations(f.g, {"ddp"}, v100());
  EXPECT_EQ(notes[0].tasks_inserted, 1u);
  auto comm = f.g.select([](const Task& t) { return t.kind == TaskKind::comm; });
  ASSERT_EQ(comm.size(), 1u);
  // ring all-reduce over 8 ranks: 2 x 7 steps of 5 us + 10 MB / 8 / 12.5 GB/s = 14 x 105 us
  EXPECT_EQ(f.g.tasks[comm[0]].dur_ns, 1'470'000);
  WalkResult w = walk(f.g);
  // the gradients of K2 are ready at 192 us; K3 waits for the all-reduce; S after K3
  EXPECT_EQ(w.start[comm[0]], 192'000);
  EXPECT_EQ(w.start[f.k3], 1'662'000);
  EXPECT_EQ(step_figures(f.g, w).front().time_ns, 1'695'000);
  // 64 ranks at 100 GB/s: 2 x 63 x (5 us + 10 MB / 64 / 100 GB/s)
  WithBucket h;
  WhatIfContext c           = v100();
  c.params["ddp.ranks"]     = "64";
  c.params["ddp.bandwidth"] = "100";
  apply_optimizations(h.g, {"ddp"}, c);
  auto comm2 = h.g.select([](const Task& t) { return t.kind == TaskKind::comm; });
  EXPECT_EQ(h.g.tasks[comm2[0]].dur_ns, std::llround(126 * (5e-6 + 1e7 / 64 / 100e9) * 1e9));
  // a trace without buckets or all-reduces is refused
  Forward none;
  EXPECT_THROW(apply_optimizations(none.g, {"ddp"}, v100()), sgai::InputError);
}

/** Two all-reduces on a channel (as ddp inserts them): A (ready at 0) and B (ready at 10 us), each
 *  with a consumer kernel of its own on two streams. */
struct TwoBuckets : Hand {
  uint32_t a, b, x, y, ch;
  TwoBuckets(uint64_t bytes_a, uint64_t bytes_b, int64_t dur)
  {
    ch          = g.add_thread(ExecThread{ThreadKind::channel, "channel", 0, -1, 0});
    uint32_t s2 = g.add_thread(ExecThread{ThreadKind::stream, "stream 8", 0, 0, 8});
    a           = task(TaskKind::comm, ch, "all-reduce A", 0, dur);
    b           = task(TaskKind::comm, ch, "all-reduce B", 10'000, dur);
    for (uint32_t u : {a, b}) {
      g.tasks[u].bytes      = u == a ? bytes_a : bytes_b;
      g.tasks[u].collective = int32_t(g.collectives.size());
      g.collectives.push_back(CollectiveInfo{"allreduce", g.tasks[u].bytes, 0, "ddp"});
    }
    x = task(TaskKind::kernel, stream, "consumer of A", 0, 1'000);
    y = task(TaskKind::kernel, s2, "consumer of B", 0, 1'000);
    edge(a, x, 0, EdgeKind::inserted);
    edge(b, y, 0, EdgeKind::inserted);
  }
};

TEST(WhatIfOptimizations, BlueConnectRunsReduceScatterAndAllGatherOnTwoChannels)
{
  // 16 ranks, 8 per node; 8 MB each: reduce-scatter = 7 x (5 us + 1 MB / 150 GB/s) within the node
  // + 1 x (5 us + 0.5 MB / 12.5 GB/s) across, all-gather the same in reverse
  TwoBuckets t(8'000'000, 8'000'000, 1'000'000);
  WhatIfContext c       = v100();
  c.params["ddp.ranks"] = "16";
  apply_optimizations(t.g, {"blueconnect"}, c);
  const double stage = 7 * (5e-6 + 1e6 / 150e9) + (5e-6 + 5e5 / 12.5e9);
  const auto rs = t.g.select_name("reduce-scatter"), ag = t.g.select_name("all-gather");
  ASSERT_EQ(rs.size(), 2u);
  ASSERT_EQ(ag.size(), 2u);
  EXPECT_NEAR(double(t.g.tasks[rs[0]].dur_ns), stage * 1e9, 1);
  EXPECT_NEAR(double(t.g.tasks[ag[0]].dur_ns), stage * 1e9, 1);
  WalkResult w = walk(t.g);
  // A's all-gather runs beside B's reduce-scatter: B's consumer starts after 3 stages, not 4
  int64_t st = t.g.tasks[rs[0]].dur_ns;
  EXPECT_EQ(w.start[t.x], 2 * st);
  EXPECT_EQ(w.start[t.y], 3 * st);
}

TEST(WhatIfOptimizations, P3PushesAndPullsSlicesTheLaterBucketFirst)
{
  // A: 400 kB (2 slices), B: 200 kB (1 slice); each push or pull 5 us + 200 kB / 12.5 GB/s = 21 us
  TwoBuckets t(400'000, 200'000, 500'000);
  apply_optimizations(t.g, {"p3"}, v100());
  auto push = t.g.select_name("push slice"), pull = t.g.select_name("pull slice");
  ASSERT_EQ(push.size(), 3u);
  ASSERT_EQ(pull.size(), 3u);
  for (uint32_t s : push)
    EXPECT_EQ(t.g.tasks[s].dur_ns, 21'000);
  WalkResult w = walk(t.g);
  // pushes: A1 0-21, then B (later issued: first) 21-42, A2 42-63; pulls: A1 21-42, B 42-63, A2 63-84
  EXPECT_EQ(w.start[t.y], 63'000);
  EXPECT_EQ(w.start[t.x], 84'000);
  // without the priorities (first come, first served) B would come back last
  TwoBuckets fifo(400'000, 200'000, 500'000);
  apply_optimizations(fifo.g, {"p3"}, v100());
  for (Task& task : fifo.g.tasks)
    task.priority = 0;
  WalkResult w2 = walk(fifo.g);
  EXPECT_EQ(w2.start[fifo.x], 63'000);
  EXPECT_EQ(w2.start[fifo.y], 84'000);
}

TEST(WhatIfOptimizations, DgcSendsTheCompressedGradientAndInsertsItsKernels)
{
  WithBucket f;
  apply_optimizations(f.g, {"ddp", "dgc"}, v100());
  auto comm = f.g.select([](const Task& t) { return t.kind == TaskKind::comm; });
  ASSERT_EQ(comm.size(), 1u);
  // all-gather of 8 x 2 x 0.001 x 10 MB: 7 x (5 us + 20 kB / 12.5 GB/s)
  EXPECT_NEAR(double(f.g.tasks[comm[0]].dur_ns), 7 * (5e-6 + 2e4 / 12.5e9) * 1e9, 1);
  auto comp = f.g.select_name("top-k compression"), decomp = f.g.select_name("decompression");
  ASSERT_EQ(comp.size(), 1u);
  ASSERT_EQ(decomp.size(), 1u);
  EXPECT_NEAR(double(f.g.tasks[comp[0]].dur_ns), 2 * 1e7 / 900e9 * 1e9, 1);   // two passes over 10 MB
  EXPECT_NEAR(double(f.g.tasks[decomp[0]].dur_ns), 8 * 2e4 / 900e9 * 1e9, 1); // every rank's values
  WalkResult w = walk(f.g);
  // K2 192 us, compression, the all-gather, decompression, K3 (30 us), S (3 us)
  int64_t expected =
      192'000 + f.g.tasks[comp[0]].dur_ns + f.g.tasks[comm[0]].dur_ns + f.g.tasks[decomp[0]].dur_ns + 30'000 + 3'000;
  EXPECT_EQ(step_figures(f.g, w).front().time_ns, expected);
}

/** Three forward layers and three backward layers, one 10 us element-wise kernel each, launched
 *  early; a synchronization after the last: 61 us. */
struct Layers : Hand {
  std::vector<uint32_t> launches, kernels;
  uint32_t s = 0;
  Layers()
  {
    uint32_t begin = task(TaskKind::marker, cpu, "ProfilerStep#1 begin", 0, 0);
    std::vector<uint32_t> order{begin};
    for (int i = 0; i < 6; ++i) {
      Phase ph = i < 3 ? Phase::forward : Phase::backward;
      g.layers.push_back(Layer{(i < 3 ? "aten::relu#" : "ReluBackward0#") + std::to_string(i), ph});
      uint32_t l = task(TaskKind::runtime, cpu, "cudaLaunchKernel", i * 500, 500, 0, ph);
      uint32_t k = task(TaskKind::kernel, stream, "void at::native::vectorized_elementwise_kernel<relu>", i * 10'000,
                        10'000, 0, ph);
      g.tasks[l].layer = g.tasks[k].layer = uint32_t(i);
      edge(l, k, i == 0 ? -500 : 0, EdgeKind::launch);
      launches.push_back(l);
      kernels.push_back(k);
      order.push_back(l);
    }
    s            = task(TaskKind::runtime, cpu, "cudaDeviceSynchronize", 60'000, 1'000);
    uint32_t end = task(TaskKind::marker, cpu, "ProfilerStep#1 end", 61'000, 0);
    order.push_back(s);
    order.push_back(end);
    chain(order);
    chain(kernels);
    edge(kernels.back(), s, 0, EdgeKind::sync);
    g.steps[0].begin = begin;
    g.steps[0].end   = end;
  }
};

TEST(WhatIfOptimizations, VdnnOffloadsForwardOutputsAndPrefetchesThemOneLayerAhead)
{
  Layers f;
  EXPECT_EQ(f.step_time(), 61'000);
  WhatIfContext c        = v100();
  c.params["vdnn.bytes"] = "120000"; // 10 us at 12 GB/s
  auto notes             = apply_optimizations(f.g, {"vdnn"}, c);
  EXPECT_EQ(notes[0].tasks_inserted, 6u);
  WalkResult w = walk(f.g);
  // offloads 10-20, 20-30, 30-40 us; prefetch of layer 2 (for backward layer 0) 40-50, backward
  // layer 0 50-60; prefetch of layer 1 after it 60-70, backward layer 1 70-80; prefetch of layer 0
  // 80-90, backward layer 2 90-100; the synchronization 100-101
  EXPECT_EQ(w.start[f.kernels[3]], 50'000);
  EXPECT_EQ(w.start[f.kernels[4]], 70'000);
  EXPECT_EQ(w.start[f.kernels[5]], 90'000);
  EXPECT_EQ(step_figures(f.g, w).front().time_ns, 101'000);
}

TEST(WhatIfOptimizations, GistEncodesAfterForwardAndDecodesBeforeBackward)
{
  Layers f;
  auto notes = apply_optimizations(f.g, {"gist"}, v100());
  EXPECT_EQ(notes[0].tasks_inserted, 12u); // 3 encodings, 3 decodings, their 6 launches
  auto enc = f.g.select_name("encode"), dec = f.g.select_name("decode");
  ASSERT_EQ(enc.size(), 3u);
  ASSERT_EQ(dec.size(), 3u);
  EXPECT_EQ(f.g.tasks[enc[0]].dur_ns, 10'000); // the layer's element-wise kernel
  // the stream runs 12 kernels of 10 us, then the synchronization
  EXPECT_EQ(f.step_time(), 121'000);
  EXPECT_EQ(f.g.thread_next(f.kernels[0]), enc[0]);
  // forward layer 0's output is taken back by the last backward layer: decoded right before it
  EXPECT_EQ(f.g.thread_next(dec[0]), f.kernels[5]);
}

// ------------------------------------------------------------------------------------ the reader

TEST(WhatIfKineto, KeepsNanosecondsAndBothSchemas)
{
  std::string text = R"({"schemaVersion": 1, "deviceProperties": [{"id": 0, "name": "Tesla V100-SXM2-32GB",
    "totalGlobalMem": 34079637504, "numSms": 80}],
    "traceEvents": [
    {"ph": "X", "cat": "cuda_runtime", "name": "cudaLaunchKernel", "pid": 7, "tid": 7, "ts": 1712195495505543.213, "dur": 41.768, "args": {"correlation": 5}},
    {"ph": "X", "cat": "kernel", "name": "k", "pid": 0, "tid": 7, "ts": 1712195495505583.0, "dur": 2.5, "args": {"stream": 7, "device": 0, "correlation": 5}},
    {"ph": "X", "cat": "Kernel", "name": "old", "pid": 0, "tid": "stream 9", "ts": 1623142623531625, "dur": 2, "args": {"correlation": 6}},
    {"ph": "s", "id": 5, "pid": 7, "tid": 7, "ts": 1, "cat": "ac2g", "name": "ac2g"}
    ]})";
  KinetoTrace t    = parse_kineto(text, "inline.json");
  ASSERT_EQ(t.events.size(), 3u);
  EXPECT_EQ(t.events[0].ts_ns, 1712195495505543213);
  EXPECT_EQ(t.events[0].dur_ns, 41768);
  EXPECT_EQ(t.events[0].kind, EventKind::runtime);
  EXPECT_EQ(t.events[1].ts_ns, 1712195495505583000);
  EXPECT_EQ(t.events[1].dur_ns, 2500);
  EXPECT_EQ(t.events[2].kind, EventKind::kernel);
  EXPECT_EQ(t.events[2].stream, 9); // from "stream 9"
  EXPECT_EQ(t.other_events, 1u);
  ASSERT_EQ(t.devices.size(), 1u);
  EXPECT_EQ(t.devices[0].multiprocessors, 80);
  auto found = sgai::platform::find_gpu_by_device_name(catalogue(), t.devices[0].name, 80, t.devices[0].memory_bytes);
  ASSERT_NE(found, nullptr);
  EXPECT_EQ(found->name, "V100 SXM2 32GB");
}

TEST(WhatIfKineto, BadInputNamesTheFileAndThePlace)
{
  auto message = [](const std::string& text) {
    try {
      parse_kineto(text, "bad.json");
    } catch (const sgai::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  EXPECT_NE(message("{\"traceEvents\": [").find("bad.json"), std::string::npos);
  EXPECT_NE(message("{\"traceEvents\": [").find("not JSON"), std::string::npos);
  EXPECT_NE(message("{\"events\": []}").find("not a Chrome trace"), std::string::npos);
  EXPECT_NE(message(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": "soon", "dur": 1}]})")
                .find("/traceEvents/0"),
            std::string::npos);
  EXPECT_NE(
      message(R"({"traceEvents": [{"ph": "X", "cat": "kernel", "name": "k", "ts": 5, "dur": -1}]})").find("negative"),
      std::string::npos);
}

// ------------------------------------------------------------------------------------ real traces

bool have_data()
{
  return fs::exists(kData / "kineto");
}

std::vector<fs::path> baseline_traces()
{
  return sgai::test::whatif_baseline_traces(kData);
}

Graph load(const fs::path& p)
{
  std::vector<KinetoTrace> traces;
  for (const fs::path& f : trace_files(p))
    traces.push_back(read_kineto(f));
  return build_joined(traces);
}

TEST(WhatIfTraces, EveryBaselineStepWalksWithin5PercentOfMeasured)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  for (const fs::path& p : baseline_traces()) {
    Graph g      = load(p);
    WalkResult w = walk(g);
    auto steps   = step_figures(g, w);
    ASSERT_FALSE(steps.empty()) << p;
    for (size_t i = 0; i < steps.size(); ++i) {
      ASSERT_EQ(steps[i].unlaunched, 0u) << p << " " << steps[i].name;
      double measured = double(g.steps[i].measured_ns);
      EXPECT_NEAR(double(steps[i].time_ns), measured, 0.05 * measured) << p << " " << steps[i].name;
    }
  }
}

fs::path dlrm_folder()
{
  static fs::path dir;
  if (dir.empty()) {
    dir = fs::temp_directory_path() / ("sgai-whatif-dlrm-" + std::to_string(::getpid()));
    fs::create_directories(dir);
    std::string cmd = "tar -xzf " + (kData / "pytorch-et/param/dlrm_kineto.tar.gz").string() + " -C " + dir.string();
    if (std::system(cmd.c_str()) != 0)
      return {};
  }
  return dir / "dlrm_kineto";
}

TEST(WhatIfTraces, DlrmEightRanksJoinedAtTheirCollectives)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  fs::path dir = dlrm_folder();
  ASSERT_FALSE(dir.empty());
  std::vector<KinetoTrace> traces;
  for (const fs::path& f : trace_files(dir))
    traces.push_back(read_kineto(f));
  ASSERT_EQ(traces.size(), 8u);
  BuildReport report;
  Graph g = build_joined(traces, BuildOptions{}, &report);
  EXPECT_EQ(report.collectives_joined, 8u); // 5 SendRecv + 3 AllReduce, each over the 8 ranks
  EXPECT_EQ(g.ranks.size(), 8u);
  WalkResult w = walk(g);
  auto steps   = step_figures(g, w);
  ASSERT_EQ(steps.size(), 8u);
  for (size_t i = 0; i < steps.size(); ++i) {
    double measured = double(g.steps[i].measured_ns);
    EXPECT_NEAR(double(steps[i].time_ns), measured, 0.05 * measured) << "rank " << steps[i].rank;
  }
  // a faster network shortens every rank's collectives and no rank's step grows
  Graph fast = g;
  apply_optimizations(fast, {"bandwidth"}, WhatIfContext{});
  auto fs2 = step_figures(fast, walk(fast));
  for (size_t i = 0; i < steps.size(); ++i)
    EXPECT_LE(fs2[i].time_ns, steps[i].time_ns);
  // a rank set with a rank twice, a rank missing, or disagreeing world sizes
  std::vector<KinetoTrace> twice = traces;
  twice[3].rank                  = 2;
  EXPECT_THROW(build_joined(twice), sgai::InputError);
  std::vector<KinetoTrace> seven(traces.begin(), traces.begin() + 7);
  try {
    build_joined(seven);
    FAIL() << "no error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("missing ranks: 7"), std::string::npos) << e.what();
  }
  std::vector<KinetoTrace> worlds = traces;
  worlds[5].world_size            = 16;
  EXPECT_THROW(build_joined(worlds), sgai::InputError);
}

TEST(WhatIfTraces, CriticalPathMatchesHtaOnSimpleAdd)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  const fs::path d = kData / "kineto/hta/critical_path/end_to_end/simple_add";
  KinetoTrace in   = read_kineto(d / "input/trace.json.gz");
  KinetoTrace out  = read_kineto(d / "output/overlaid_critical_path_trace.json.gz");
  Graph g          = build_graph(in);
  WalkResult w     = walk(g);
  auto events      = critical_events(g, w, critical_path(g, w));
  auto key         = [](const KinetoTrace& t, const Event& e) {
    return t.name_of(e) + "@" + std::to_string(e.ts_ns) + "/" + std::to_string(int(e.kind));
  };
  std::set<std::string> mine, hta;
  for (uint32_t e : events)
    mine.insert(key(in, in.events[e]));
  size_t by_kind[8] = {};
  for (const Event& e : out.events)
    if (e.critical) {
      hta.insert(key(out, e));
      by_kind[int(e.kind)]++;
    }
  // HTA's expected overlay: 352 CPU operators, 250 runtime calls, 5 kernels, 16 copies, 1 set
  EXPECT_EQ(by_kind[int(EventKind::cpu_op)], 352u);
  EXPECT_EQ(by_kind[int(EventKind::runtime)], 250u);
  size_t both = 0;
  for (const std::string& k : mine)
    both += hta.count(k);
  double jaccard = double(both) / double(mine.size() + hta.size() - both);
  EXPECT_GE(jaccard, 0.9) << "mine " << mine.size() << ", HTA " << hta.size() << ", both " << both;
}

struct Prediction {
  std::vector<StepFigures> base, pred;
  Graph graph;
};

Prediction predict(const fs::path& p, const std::vector<std::string>& apply, WhatIfContext ctx)
{
  Prediction r;
  Graph g = load(p);
  r.base  = step_figures(g, walk(g));
  r.graph = g;
  apply_optimizations(r.graph, apply, ctx);
  r.pred = step_figures(r.graph, walk(r.graph));
  return r;
}

const std::vector<fs::path> resnet_traces = {
    kData / "kineto/kineto/worker0.1623143089861.pt.trace.json.gz", kData / "kineto/hta/ns_resolution_trace",
    kData / "kineto/hta/nccl_parser_config", kData / "pytorch-et/param/resnet_kineto.json.gz"};

TEST(WhatIfTraces, AmpKeepsDaydreamsInvariantsOnTheResNetTraces)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  for (const fs::path& p : resnet_traces) {
    for (const char* opt : {"amp", "amp-daydream"}) {
      Prediction r  = predict(p, {opt}, v100());
      int64_t cpu_b = 0, cpu_p = 0, only_b = 0, only_p = 0, gonly_b = 0, gonly_p = 0, time_b = 0, time_p = 0;
      for (size_t i = 0; i < r.base.size(); ++i) {
        cpu_b += r.base[i].cpu_task_ns;
        cpu_p += r.pred[i].cpu_task_ns;
        only_b += r.base[i].cpu_only_ns;
        only_p += r.pred[i].cpu_only_ns;
        gonly_b += r.base[i].gpu_only_ns;
        gonly_p += r.pred[i].gpu_only_ns;
        time_b += r.base[i].time_ns;
        time_p += r.pred[i].time_ns;
      }
      EXPECT_EQ(cpu_p, cpu_b) << p << " " << opt << ": CPU task time changed";
      EXPECT_GE(only_p, only_b) << p << " " << opt << ": CPU-only time shrank";
      EXPECT_LE(gonly_p, gonly_b) << p << " " << opt << ": GPU-only time grew";
      EXPECT_LE(time_p, time_b) << p << " " << opt;
    }
  }
}

TEST(WhatIfTraces, FusedOptimizerSavesAtMostTheWeightUpdatePhase)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  // ResNet-50 on a V100 (the kineto repository's trace): SGD launched kernel by kernel
  const fs::path p = kData / "kineto/kineto/worker0.1623143089861.pt.trace.json.gz";
  Graph g          = load(p);
  KinetoTrace t    = read_kineto(p);
  // the weight-update phase's measured time per step: its Optimizer.step ranges
  int64_t phase_ns = 0;
  for (const Event& e : t.events)
    if ((e.kind == EventKind::cpu_op || e.kind == EventKind::user_annotation) &&
        t.name_of(e).rfind("Optimizer.step", 0) == 0)
      phase_ns += e.dur_ns;
  ASSERT_GT(phase_ns, 0);
  Prediction r  = predict(p, {"fused-optimizer"}, v100());
  int64_t saved = 0;
  for (size_t i = 0; i < r.base.size(); ++i)
    saved += r.base[i].time_ns - r.pred[i].time_ns;
  EXPECT_GT(saved, 0);
  EXPECT_LE(saved, phase_ns);
  // trace_diff/control already runs FusedAdam
  Graph control = load(kData / "kineto/hta/trace_diff/control");
  try {
    apply_optimizations(control, {"fused-optimizer"}, WhatIfContext{});
    FAIL() << "no error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("already runs a fused optimizer"), std::string::npos);
  }
}

TEST(WhatIfTraces, PowerCapOnARealTraceFollowsThePStateModel)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  const fs::path p = kData / "kineto/hta/ns_resolution_trace";
  Graph g          = load(p);
  WhatIfContext c  = v100();
  c.power_cap_w    = 200;
  Graph capped     = g;
  apply_optimizations(capped, {"power-cap"}, c);
  const double f = sgai::kernels::capped_clock_fraction(200, 40, 300);
  size_t checked = 0;
  for (uint32_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    if (t.kind != TaskKind::kernel)
      continue;
    bool memory = sgai::kernels::classify_kernel(g.name_of(i), 0, 0, 0, 0) == sgai::kernels::KernelBound::memory;
    EXPECT_EQ(capped.tasks[i].dur_ns, std::llround(double(t.dur_ns) / (memory ? 1.0 : f))) << g.name_of(i);
    ++checked;
  }
  EXPECT_GT(checked, 4000u);
  auto b = step_figures(g, walk(g)), q = step_figures(capped, walk(capped));
  for (size_t i = 0; i < b.size(); ++i) {
    EXPECT_GE(q[i].time_ns, b[i].time_ns);
    double expected = (double(q[i].gpu_busy_ns) * 200 + double(q[i].time_ns - q[i].gpu_busy_ns) * 40) * 1e-9;
    EXPECT_NEAR(q[i].gpu_energy_j, expected, 1e-6 * expected);
  }
}

TEST(WhatIfTraces, V100ToA100OnTheMeasuredResNet50Pair)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  // ResNet-50 batch 32: V100-SXM2 (ns_resolution) -> A100 40 GB (nccl_parser_config measured
  // 38.4-38.7 ms of non-NCCL kernels per step)
  WhatIfContext c = v100();
  c.target        = gpu("A100 SXM4 40GB");
  Prediction r    = predict(kData / "kineto/hta/ns_resolution_trace", {"gpu"}, c);
  double kernel   = 0;
  for (const StepFigures& s : r.pred)
    kernel += double(s.kernel_ns);
  kernel /= double(r.pred.size());
  Graph a100      = load(kData / "kineto/hta/nccl_parser_config");
  auto measured_s = step_figures(a100, walk(a100));
  double measured = 0;
  for (const StepFigures& s : measured_s)
    measured += double(s.kernel_ns);
  measured /= double(measured_s.size());
  EXPECT_NEAR(measured, 38.5e6, 0.5e6);
  EXPECT_NEAR(kernel, measured, 0.30 * measured) << "predicted " << kernel * 1e-6 << " ms";
  RecordProperty("predicted_ms", std::to_string(kernel * 1e-6));
}

TEST(WhatIfTraces, EveryOptimizationRunsOnARealTrace)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  // ResNet-50 on a V100 (ns_resolution: DDP's 5 buckets per step announced at world size 1)
  const fs::path p          = kData / "kineto/hta/ns_resolution_trace";
  WhatIfContext c           = v100();
  c.target                  = gpu("A100 SXM4 40GB");
  c.power_cap_w             = 200;
  c.params["ddp.ranks"]     = "32";
  c.params["ddp.bandwidth"] = "1.25"; // 10 Gb/s Ethernet, Daydream's slowest
  auto mean                 = [](const std::vector<StepFigures>& v) {
    double t = 0;
    for (const StepFigures& s : v)
      t += double(s.time_ns);
    return t / double(v.size());
  };
  std::map<std::string, double> time;
  for (std::vector<std::string> apply : {std::vector<std::string>{"amp"},
                                         {"amp-daydream"},
                                         {"gpu"},
                                         {"power-cap"},
                                         {"ddp"},
                                         {"ddp", "blueconnect"},
                                         {"ddp", "p3"},
                                         {"ddp", "dgc"},
                                         {"ddp", "bandwidth"},
                                         {"vdnn"},
                                         {"gist"}}) {
    Prediction r = predict(p, apply, c);
    std::string key;
    for (const std::string& a : apply)
      key += (key.empty() ? "" : ",") + a;
    time[key]        = mean(r.pred);
    time["baseline"] = mean(r.base);
    EXPECT_GT(time[key], 0) << key;
  }
  const double base = time["baseline"];
  EXPECT_LT(time["amp"], base);
  EXPECT_LT(time["gpu"], base);
  EXPECT_GT(time["power-cap"], base);
  EXPECT_GT(time["ddp"], base);                    // 32 ranks over 10 Gb/s: communication-bound
  EXPECT_LT(time["ddp,blueconnect"], time["ddp"]); // 4 nodes of 8: a quarter of the bytes cross nodes
  EXPECT_LT(time["ddp,dgc"], time["ddp"]);
  EXPECT_LT(time["ddp,bandwidth"], time["ddp"]);
  EXPECT_LT(time["ddp,p3"], time["ddp"]); // a parameter server moves half a ring all-reduce's bytes
  EXPECT_GT(time["vdnn"], base);
  EXPECT_GT(time["gist"], base);
  // a rank of a data-parallel run: its NCCL all-reduces re-timed, sliced, compressed
  for (const char* opt : {"ddp", "p3", "dgc", "blueconnect"}) {
    Prediction r = predict(kData / "kineto/hta/nccl_parser_config", {opt}, c);
    EXPECT_GT(mean(r.pred), 0) << opt;
  }
}

TEST(WhatIfTraces, BadTracesAreErrors)
{
  if (not have_data())
    GTEST_SKIP() << "no ../shared/data";
  const fs::path h = kData / "kineto/hta";
  for (const fs::path& p : {h / "cpu_only", h / "rank_non_gpu", h / "mixed_files", h / "rank_unavailable",
                            h / "distributed_info_unavailable", h / "cupti_profiler"}) {
    try {
      load(p);
      ADD_FAILURE() << p << ": no error";
    } catch (const sgai::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("no GPU activity"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find(p.string()), std::string::npos) << e.what();
    }
  }
  // GPU events without launch: counted, their steps flagged, the others kept
  Graph g = load(h / "negative_queue_length_values_check");
  EXPECT_EQ(g.ranks.front().unlaunched, 872u);
  size_t flagged = 0;
  for (const Step& s : g.steps)
    flagged += s.unlaunched > 0;
  EXPECT_EQ(flagged, 1u);
  EXPECT_EQ(g.steps.size(), 5u);
}

} // namespace
