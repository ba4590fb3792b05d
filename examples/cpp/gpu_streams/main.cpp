/* Streams and events in a user's own actors, as CUDA has them: the backward pass of a
 * data-parallel training step on the 8 GPUs of an HGX H100 node, each rank with a compute stream
 * (its layers' backward kernels, then the optimizer) and a communication stream (each gradient
 * bucket's all-reduce, once the kernel producing it has ended). The same step with the
 * all-reduces after the whole backward pass shows what the overlap saves.
 *   gpu_streams PLATFORM.json */
#include <sgai/generators/platform/platform.hpp>
#include <sgai/plugins/communicator/collective.hpp>
#include <sgai/plugins/gpu/gpu.hpp>
#include <sgai/plugins/gpu/stream.hpp>
#include <sgai/plugins/platform_sim/builder.hpp>

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdio>
#include <exception>
#include <memory>
#include <string>
#include <vector>

namespace {

constexpr int kBuckets          = 4;
constexpr double kBackwardOps   = 4e12;  // per bucket's layers, per GPU
constexpr double kBucketBytes   = 256e6; // gradients per bucket (bf16)
constexpr double kOptimizerRead = 16.0;  // bytes of optimizer traffic per gradient byte (Adam, fp32 states)

/** One step; returns its simulated seconds. `overlap`: each bucket's all-reduce as soon as its
 *  gradients are ready, else all of them after the backward pass. */
double step(const std::vector<simgrid::s4u::Host*>& gpus, bool overlap)
{
  using sgai::gpu::Kernel;
  using sgai::gpu::Stream;
  const auto n = static_cast<uint32_t>(gpus.size());
  std::vector<std::shared_ptr<sgai::communicator::Collective>> buckets;
  for (int b = 0; b < kBuckets; b++)
    buckets.push_back(std::make_shared<sgai::communicator::Collective>(sgai::collectives::CollectiveType::all_reduce,
                                                                       gpus, kBucketBytes));
  std::vector<std::unique_ptr<Stream>> compute, comm;
  double start = simgrid::s4u::Engine::get_clock();
  for (uint32_t r = 0; r < n; r++) {
    compute.push_back(std::make_unique<Stream>(gpus[r], "compute" + std::to_string(r)));
    comm.push_back(std::make_unique<Stream>(gpus[r], "comm" + std::to_string(r)));
    for (int b = 0; b < kBuckets; b++) {
      auto ready = compute[r]->launch(Kernel("backward_gemm", kBackwardOps));
      if (overlap) { // this bucket's gradients are ready: reduce them while the next layers compute
        comm[r]->wait_event(ready);
        comm[r]->enqueue([bucket = buckets[b], r]() { bucket->run(r); });
      } else if (b == kBuckets - 1) {
        comm[r]->wait_event(ready);
        for (const auto& bucket : buckets)
          comm[r]->enqueue([bucket, r]() { bucket->run(r); });
      }
    }
    compute[r]->wait_event(comm[r]->record()); // the optimizer needs every reduced gradient
    compute[r]->launch(Kernel("multi_tensor_apply_adam", 0, kBuckets * kBucketBytes * kOptimizerRead));
  }
  for (auto& s : compute)
    s->synchronize();
  return simgrid::s4u::Engine::get_clock() - start;
}

} // namespace

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.json\n", argv[0]);
    return 2;
  }
  engine.set_config("network/model:CM02"); // a GPU fabric as sgai runs it (docs/replay.md)
  engine.set_config("network/crosstraffic:0");
  sg_host_energy_plugin_init();
  sgai_gpu_plugin_init();
  sgai::platform::Platform platform;
  try {
    platform = sgai::platform::generate(argv[1]);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  sgai::platform_sim::build(platform);
  std::vector<simgrid::s4u::Host*> gpus;
  for (const auto& gpu : platform.gpus)
    gpus.push_back(simgrid::s4u::Host::by_name(platform.hosts[gpu.host].name));

  simgrid::s4u::Actor::create("driver", gpus.front(), [&gpus]() {
    auto* g = gpus.front();
    std::printf("backward kernel %.6f ms, optimizer %.6f ms, bucket all-reduce alone %.6f ms\n",
                sgai::gpu::kernel_seconds(g, sgai::gpu::Kernel("backward_gemm", kBackwardOps)) * 1e3,
                sgai::gpu::kernel_seconds(
                    g, sgai::gpu::Kernel("multi_tensor_apply_adam", 0, kBuckets * kBucketBytes * kOptimizerRead)) *
                    1e3,
                sgai::communicator::all_reduce(gpus, kBucketBytes) * 1e3);
    double serial     = step(gpus, false);
    double overlapped = step(gpus, true);
    std::printf("step, all-reduces after the backward pass: %.6f ms\n", serial * 1e3);
    std::printf("step, each all-reduce once its bucket is ready: %.6f ms (%.1f%% shorter)\n", overlapped * 1e3,
                100 * (1 - overlapped / serial));
  });
  engine.run();
  double joules = 0;
  for (auto* gpu : gpus)
    joules += sg_host_get_consumed_energy(gpu);
  std::printf("simulated %.6f ms; the GPUs used %.3f J\n", simgrid::s4u::Engine::get_clock() * 1e3, joules);
  return 0;
}
