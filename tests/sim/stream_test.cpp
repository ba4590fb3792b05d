/* GPU kernels and streams for users' actors (plugins/gpu/stream.hpp) on the generated HGX H100
 * node: kernel times from the GPU model and P-states, streams in order, events across streams,
 * streams sharing a GPU, a collective on communication streams after the compute streams'
 * events, a failing item. */
#include "plugins/communicator/collective.hpp"
#include "plugins/gpu/gpu.hpp"
#include "plugins/gpu/stream.hpp"
#include "sim_helpers.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <functional>
#include <limits>
#include <stdexcept>

namespace s4u = simgrid::s4u;
using sgai::gpu::Event;
using sgai::gpu::GpuModel;
using sgai::gpu::Kernel;
using sgai::gpu::Stream;

namespace {

std::vector<s4u::Host*> gpus()
{
  std::vector<s4u::Host*> g;
  for (int i = 0; i < 8; i++)
    g.push_back(s4u::Host::by_name("hgx-n0-gpu" + std::to_string(i)));
  return g;
}

/** The HGX H100 node sgai ships, `before` out of any actor (what throws: the sanitizers cannot
 *  follow an exception thrown on an actor's stack), then `body` in a driver actor. */
void on_hgx(const std::function<void()>& body, const std::function<void()>& before = {})
{
  sgai::sim::SimulationOptions o;
  sgai::sim::Simulation sim(o);
  sim.load_platform("platforms/hgx-h100.json", {});
  if (before)
    before();
  bool ran = false;
  s4u::Actor::create("driver", s4u::Host::by_name("hgx-n0-p0"), [&]() {
    body();
    ran = true;
  });
  sim.run();
  ASSERT_TRUE(ran) << "the driver actor did not run to its end";
}

double now()
{
  return s4u::Engine::get_clock();
}

} // namespace

TEST(GpuKernels, TimesFollowTheRooflineAndThePState)
{
  on_hgx(
      []() {
        s4u::Host* g  = gpus()[0];
        const auto& m = GpuModel::of(g);
        double peak   = m.peak();
        double bw     = m.mem_bw_Bps;
        ASSERT_GT(peak, 0);
        ASSERT_GT(bw, 0);
        EXPECT_DOUBLE_EQ(sgai::gpu::kernel_seconds(g, {"gemm", peak * 1e-3, 0}), 1e-3);
        EXPECT_DOUBLE_EQ(sgai::gpu::kernel_seconds(g, {"copy", 0, bw * 2e-3}), 2e-3);
        EXPECT_DOUBLE_EQ(sgai::gpu::kernel_seconds(g, {"gemm", peak * 1e-3, bw * 2e-3}), 2e-3); // the longer
        // run from an actor: the simulated time it takes
        double t0 = now();
        sgai::gpu::execute(g, Kernel{"gemm", peak * 1e-3, 0});
        EXPECT_NEAR(now() - t0, 1e-3, 1e-12);
        // a lower P-state: compute slows by the clock fraction, a memory-bound measured kernel by m
        ASSERT_GT(g->get_pstate_count(), 1U);
        g->set_pstate(1);
        double f = GpuModel::compute_speed(g, 1);
        EXPECT_LT(f, 1);
        EXPECT_NEAR(sgai::gpu::kernel_seconds(g, {"gemm", peak * 1e-3, 0}), 1e-3 / f, 1e-15);
        Kernel elementwise = Kernel::measured("vectorized_elementwise_kernel", 1e-3);
        EXPECT_NEAR(sgai::gpu::kernel_seconds(g, elementwise), 1e-3 / m.memory_speed(1), 1e-15);
        t0 = now();
        sgai::gpu::execute(g, Kernel{"gemm", peak * 1e-3, 0});
        EXPECT_NEAR(now() - t0, 1e-3 / f, 1e-12);
        g->set_pstate(0);
      },
      []() {
        s4u::Host* g = gpus()[0];
        EXPECT_THROW(sgai::gpu::kernel_seconds(g, {"bad", -1, 0}), std::invalid_argument);
        try {
          sgai::gpu::kernel_seconds(g, {"nan_bytes", 0, std::numeric_limits<double>::quiet_NaN()});
          ADD_FAILURE() << "no error";
        } catch (const std::invalid_argument& e) {
          EXPECT_NE(std::string(e.what()).find("kernel 'nan_bytes': bytes"), std::string::npos) << e.what();
        }
      });
}

TEST(GpuStreams, RunInOrderAndEventsOrderOtherStreams)
{
  on_hgx([]() {
    auto g      = gpus();
    double peak = GpuModel::of(g[0]).peak();
    Kernel ms{"gemm", peak * 1e-3, 0}; // 1 ms
    Stream a(g[0], "a"), b(g[1], "b");
    double t0 = now();
    Event a1  = a.launch(ms);
    Event a2  = a.launch(ms);
    EXPECT_FALSE(a1.done()); // enqueuing returns at once
    EXPECT_EQ(now(), t0);
    b.wait_event(a2); // b's kernel starts when a's second ends
    Event b1 = b.launch(ms);
    b.synchronize();
    EXPECT_NEAR(a1.time() - t0, 1e-3, 1e-12);
    EXPECT_NEAR(a2.time() - t0, 2e-3, 1e-12);
    EXPECT_NEAR(b1.time() - t0, 3e-3, 1e-12);
    EXPECT_NEAR(now() - t0, 3e-3, 1e-12);
    EXPECT_NEAR(a.busy_s(), 2e-3, 1e-12);
    // two streams on one GPU at once share it: a 1 ms kernel each, both end at 2 ms
    Stream c(g[2], "c"), d(g[2], "d");
    t0       = now();
    Event c1 = c.launch(ms);
    Event d1 = d.launch(ms);
    c.synchronize();
    d.synchronize();
    EXPECT_NEAR(c1.time() - t0, 2e-3, 1e-12);
    EXPECT_NEAR(d1.time() - t0, 2e-3, 1e-12);
  });
}

TEST(GpuStreams, ACollectiveOnCommunicationStreamsAfterTheKernels)
{
  on_hgx([]() {
    auto g       = gpus();
    double peak  = GpuModel::of(g[0]).peak();
    double bytes = 1e9;
    // alone first: the all-reduce's own time
    double alone = sgai::communicator::all_reduce(g, bytes);
    ASSERT_GT(alone, 0);
    // each rank: a kernel of (r + 1) ms on its compute stream, then its part of the all-reduce on
    // its communication stream once that kernel has ended: the last kernel (8 ms) holds everyone
    auto all_reduce =
        std::make_shared<sgai::communicator::Collective>(sgai::collectives::CollectiveType::all_reduce, g, bytes);
    std::vector<std::unique_ptr<Stream>> compute, comm;
    double t0 = now();
    for (uint32_t r = 0; r < 8; r++) {
      compute.push_back(std::make_unique<Stream>(g[r], "compute" + std::to_string(r)));
      comm.push_back(std::make_unique<Stream>(g[r], "comm" + std::to_string(r)));
      comm[r]->wait_event(compute[r]->launch({"gemm", peak * 1e-3 * (r + 1), 0}));
      comm[r]->enqueue([all_reduce, r]() { all_reduce->run(r); });
    }
    for (auto& s : comm)
      s->synchronize();
    EXPECT_NEAR(now() - t0, 8e-3 + alone, 1e-9);
    EXPECT_GT(alone, 1e-3); // (1 GB: several ms on NVLink)
  });
}

TEST(GpuStreams, AFailingItemStopsTheStreamAndReleasesItsWaiters)
{
#if defined(__SANITIZE_ADDRESS__)
  GTEST_SKIP() << "an exception thrown on an actor's stack: the sanitizers cannot follow it";
#endif
  on_hgx([]() {
    auto g = gpus();
    Stream s(g[0], "s");
    s.enqueue([]() { throw std::runtime_error("no such buffer"); });
    Event later = s.launch({"gemm", 1e12, 0});
    s.synchronize(); // returns: what waited was released
    EXPECT_EQ(s.error(), "no such buffer");
    EXPECT_TRUE(later.done());
    EXPECT_TRUE(s.launch({"gemm", 1e12, 0}).done()); // nothing runs any more
    EXPECT_EQ(now(), 0);
  });
}
