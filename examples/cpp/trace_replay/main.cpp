/* A Chakra trace replayed from a user's own main(): an 8-rank data-parallel GPT step (the traces
 * sgai ships, workloads/chakra/gpt-dp8) on the GPUs of a generated HGX H100 node, with
 * sgai::replay::Replay, then each rank's times, the all-reduces and the GPUs' energy.
 *   trace_replay PLATFORM.json TRACE_PREFIX */
#include <sgai/chakra/et_io.hpp>
#include <sgai/generators/platform/platform.hpp>
#include <sgai/plugins/gpu/gpu.hpp>
#include <sgai/plugins/platform_sim/builder.hpp>
#include <sgai/plugins/replay/replay.hpp>

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cstdio>
#include <exception>
#include <vector>

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s PLATFORM.json TRACE_PREFIX\n", argv[0]);
    return 2;
  }
  engine.set_config("network/model:CM02"); // a GPU fabric as sgai runs it (docs/replay.md)
  engine.set_config("network/crosstraffic:0");
  sg_host_energy_plugin_init();
  sgai_gpu_plugin_init();
  try {
    auto platform = sgai::platform::generate(argv[1]);
    sgai::platform_sim::build(platform);

    sgai::replay::JobSpec job;
    job.name  = "gpt";
    job.files = sgai::chakra::workload_files(argv[2]); // PREFIX.0.et, PREFIX.1.et, ...
    for (const auto& gpu : platform.gpus)
      job.gpus.push_back(simgrid::s4u::Host::by_name(platform.hosts[gpu.host].name));
    job.gpus.resize(job.files.size()); // rank i on GPU i (the trace has as many ranks as the node GPUs)

    sgai::replay::Replay replay(sgai::replay::ReplayOptions{}); // kernels' recorded durations, links shared
    replay.add_job(job);
    engine.run();
    replay.check(); // the first error a rank met, or the ranks left blocked

    std::printf("rank  host          end (ms)  compute (ms)  communication (ms)\n");
    for (const auto& r : replay.ranks())
      std::printf("%4u  %-12s %9.3f %13.3f %19.3f\n", r.rank, r.host.c_str(), r.end_s * 1e3, r.compute_s * 1e3,
                  r.comm_s * 1e3);
    for (const auto& c : replay.collectives())
      std::printf("%s of %llu bytes over %u ranks by %s: %.3f ms\n", sgai::chakra::to_string(c.type),
                  static_cast<unsigned long long>(c.bytes), c.ranks, c.algorithm.c_str(), (c.end_s - c.start_s) * 1e3);
    double joules = 0;
    for (auto* gpu : job.gpus)
      joules += sg_host_get_consumed_energy(gpu);
    std::printf("the GPUs used %.3f J\n", joules);
  } catch (const std::exception& e) { // sgai::InputError (file, place, value) or RunError
    std::fprintf(stderr, "error: %s\n", e.what());
    return 1;
  }
  return 0;
}
