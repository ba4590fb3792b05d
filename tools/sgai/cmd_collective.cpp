/* sgai collective bench: nccl-tests on a simulated platform (the library's
 * experiment::collective_bench, plugins/experiment/collective_bench.hpp), printed in nccl-tests'
 * own columns. */
#include "plugins/experiment/collective_bench.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <cstdio>
#include <memory>

namespace sgai::cli {

namespace {

int bench(experiment::BenchOptions a, const Globals& globals)
{
  a.simgrid_args = globals.simgrid_args;
  auto r         = experiment::collective_bench(a);
  std::string dims;
  for (int64_t d : a.dims)
    dims += (dims.empty() ? "" : "x") + std::to_string(d);
  std::printf("# sgai collective bench: %s on %u GPUs of %s (%s), algorithm %s, protocol %s%s, %lld chunk(s), "
              "network model %s\n",
              a.op.c_str(), static_cast<uint32_t>(a.gpus), a.platform.c_str(), r.gpu_type.c_str(), a.algo.c_str(),
              a.proto.c_str(), dims.empty() ? "" : (" on levels " + dims).c_str(), static_cast<long long>(a.chunks),
              r.network_model.c_str());
  std::printf("#                                                              out-of-place\n");
  std::printf("#       size         count      type   redop    root     time   algbw   busbw #wrong  algorithm%s\n",
              a.breakdown ? "           model  latency  bandwidth  channels  pipeline" : "");
  std::printf("#        (B)    (elements)                               (us)  (GB/s)  (GB/s)%s\n",
              a.breakdown ? "                                      (us)     (us)       (us)              (GB/s)" : "");
  for (const auto& row : r.rows) {
    std::printf(a.breakdown ? "%12llu  %12llu     float  %6s  %6d  %7.2f  %6.2f  %6.2f    N/A  %-20s"
                            : "%12llu  %12llu     float  %6s  %6d  %7.2f  %6.2f  %6.2f    N/A  %s",
                static_cast<unsigned long long>(row.size), static_cast<unsigned long long>(row.count),
                row.redop.c_str(), row.root, row.time_us, row.algbw, row.busbw, row.algorithm.c_str());
    const auto& b = row.breakdown;
    if (a.breakdown && b.known && b.pipeline_GBps > 0)
      std::printf("  %7.2f  %7.2f    %7.2f  %8u  %7.2f%s", b.model_us, b.latency_us, b.bandwidth_us, b.channels,
                  b.pipeline_GBps, b.latency_bound ? " (slots)" : "");
    else if (a.breakdown && b.known)
      std::printf("  %7.2f  %7.2f    %7.2f  %8u        -", b.model_us, b.latency_us, b.bandwidth_us, b.channels);
    std::printf("\n");
  }
  std::printf("# Avg bus bandwidth    : %g\n", r.avg_busbw);
  return 0;
}

} // namespace

void add_collective_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* col       = app.add_subcommand("collective", "Collective benchmarks on a simulated platform");
  auto a          = std::make_shared<experiment::BenchOptions>();
  auto* bench_cmd = col->add_subcommand(
      "bench", "nccl-tests on a JSON platform's first GPUs: one line per size in nccl-tests' columns");
  add_path(bench_cmd, "--platform", a->platform, "sgai JSON platform with GPUs")->required();
  add_count(bench_cmd, "--gpus", a->gpus, "GPUs (ranks), the platform's first in hierarchy order (default 8)", 2,
            65536);
  bench_cmd
      ->add_option("--op", a->op,
                   "all_reduce (default), all_gather, reduce_scatter, alltoall, broadcast, sendrecv (each rank to the "
                   "next, from the previous, nccl-tests' sendrecv_perf)")
      ->check(CLI::IsMember({"all_reduce", "all_gather", "reduce_scatter", "alltoall", "broadcast", "sendrecv"}));
  bench_cmd->add_option("--sizes", a->sizes, "FIRST:LAST bytes, or one size (default 8B:8GiB; at most 64 sizes)");
  bench_cmd
      ->add_option("--dims", a->dims,
                   "Hierarchical collectives: GPUs per level, the first varying fastest (8,4: 8 GPUs per "
                   "node, 4 nodes), the algorithm on each level, levels overlapping chunk by chunk")
      ->delimiter(',')
      ->check(CLI::Range(int64_t{1}, int64_t{65536}));
  add_count(bench_cmd, "--channels", a->channels,
            "NCCL's channels over rails: rings side by side, each entering the nodes at another GPU, so every "
            "GPU's path to the network carries traffic (ring algorithm; default: the GPUs of a node when the "
            "GPUs span several nodes, else 1)",
            1, 64);
  add_count(bench_cmd, "--chunks", a->chunks, "Pieces of each collective, one in flight per level (default 1)", 1,
            1024);
  add_count(bench_cmd, "--factor", a->factor, "Size multiplier between lines, nccl-tests' -f (default 2)", 2, 1024);
  bench_cmd
      ->add_option("--algo", a->algo,
                   "auto (default: NCCL's tuning model picks), ring, tree (NCCL's double binary tree; across nodes "
                   "chains in the nodes), nvls (in-switch reduction in one node), nvls_tree (NVLS in each node, trees "
                   "between them), or without NCCL's model direct, halving_doubling")
      ->check(CLI::IsMember({"auto", "ring", "tree", "nvls", "nvls_tree", "direct", "halving_doubling"}));
  bench_cmd->add_option("--proto", a->proto, "auto (default: NCCL's tuning model picks), LL, LL128, Simple")
      ->check(CLI::IsMember({"auto", "LL", "LL128", "Simple"}));
  bench_cmd->add_flag("--pxn-disable", a->pxn_disable,
                      "NCCL_PXN_DISABLE=1: on clos and rail-optimized platforms a GPU sends by its own NIC, whatever "
                      "the receiver's rail (default: PXN, over NVLink to the GPU on the receiver's rail)");
  bench_cmd->add_flag(
      "--breakdown", a->breakdown,
      "Beside each row, NCCL's model of its algorithm and protocol: its time, latency and bandwidth "
      "terms, the channels NCCL runs the size on, and the proxy pipeline's rate per ring across nodes ((slots): "
      "latency-bound)");
  bench_cmd->callback([a, &globals, &action]() { action = [a, &globals]() { return bench(*a, globals); }; });
}

} // namespace sgai::cli
