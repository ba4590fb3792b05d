/* A user's own S4U actor running all-reduces among the 8 GPUs of a generated HGX H100 node:
 * the platform built from sgai's JSON hierarchy into the running Engine, SimGrid's energy
 * plugin and sgai's GPU plugin on, then sgai::communicator::all_reduce from one actor.
 *   allreduce_hgx PLATFORM.json */
#include <sgai/generators/platform/platform.hpp>
#include <sgai/plugins/communicator/collective.hpp>
#include <sgai/plugins/gpu/gpu.hpp>
#include <sgai/plugins/platform_sim/builder.hpp>

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s PLATFORM.json\n", argv[0]);
    return 2;
  }
  // a GPU fabric as sgai runs it: SimGrid's CM02 model without TCP's cross-traffic (docs/replay.md)
  engine.set_config("network/model:CM02");
  engine.set_config("network/crosstraffic:0");
  sg_host_energy_plugin_init(); // both before the platform: they attach to hosts as they are created
  sgai_gpu_plugin_init();

  sgai::platform::Platform platform;
  try {
    platform = sgai::platform::generate(argv[1]);
  } catch (const std::exception& e) { // sgai::InputError: file, place and value
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  sgai::platform_sim::build(platform);
  std::vector<simgrid::s4u::Host*> gpus;
  for (const auto& gpu : platform.gpus)
    gpus.push_back(simgrid::s4u::Host::by_name(platform.hosts[gpu.host].name));
  std::printf("%zu GPUs (%s), %.0f TFLOP/s each in %s\n", gpus.size(), platform.gpus.front().type.c_str(),
              sgai::gpu::GpuModel::of(gpus.front()).peak() / 1e12,
              sgai::gpu::GpuModel::of(gpus.front()).precision.c_str());

  simgrid::s4u::Actor::create("driver", gpus.front(), [&gpus]() {
    using sgai::collectives::Algorithm;
    for (double bytes : {1e6, 64e6, 1e9})
      for (Algorithm a : {Algorithm::ring, Algorithm::double_binary_tree}) {
        double t   = sgai::communicator::all_reduce(gpus, bytes, a);
        double bus = 2.0 * (gpus.size() - 1) / gpus.size() * bytes / t; // NCCL's bus bandwidth
        std::printf("all-reduce %10.0f bytes %-18s %12.6f ms  bus bandwidth %7.2f GB/s\n", bytes,
                    sgai::collectives::to_string(a), t * 1e3, bus / 1e9);
      }
  });
  engine.run();

  double joules = 0;
  for (auto* gpu : gpus)
    joules += sg_host_get_consumed_energy(gpu);
  std::printf("simulated %.6f ms; the GPUs used %.3f J\n", simgrid::s4u::Engine::get_clock() * 1e3, joules);
  return 0;
}
