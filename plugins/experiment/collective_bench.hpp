/* nccl-tests on a simulated platform (sgai collective bench, docs/replay.md): the sizes become one
 * chain of collectives per rank (Chakra traces in a scratch folder), replayed on the first N GPUs of
 * a JSON platform by an experiment (the replay component, so the platform's links, routes and
 * network model are those of `sgai run`); each collective's time gives a row in nccl-tests' own
 * columns. */
#ifndef SGAI_PLUGINS_EXPERIMENT_COLLECTIVE_BENCH_HPP
#define SGAI_PLUGINS_EXPERIMENT_COLLECTIVE_BENCH_HPP

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::experiment {

/** The bench's options; each stands for the option of `sgai collective bench` named after it,
 *  which its errors name. */
struct BenchOptions {
  std::string platform;             ///< an sgai JSON platform with GPUs (--platform)
  int64_t gpus      = 8;            ///< ranks: the platform's first GPUs in hierarchy order
  std::string op    = "all_reduce"; ///< all_reduce, all_gather, reduce_scatter, alltoall, broadcast or sendrecv
  std::string sizes = "8B:8GiB";    ///< FIRST:LAST bytes, or one size (at most 64 sizes)
  int64_t factor    = 2;            ///< size multiplier between rows (nccl-tests' -f)
  std::string algo  = "auto";       ///< NCCL's choice (auto), or ring, tree, nvls, nvls_tree, direct, halving_doubling
  std::string proto = "auto";       ///< NCCL's choice (auto), or LL, LL128, Simple
  std::vector<int64_t> dims;        ///< hierarchical: GPUs per level, the first varying fastest
  int64_t chunks   = 1;             ///< pieces of each collective, one in flight per dimension
  int64_t channels = 0; ///< NCCL's channels over rails (rings entering the nodes at different GPUs); 0: auto
  std::vector<std::string> simgrid_args; ///< SimGrid options for the run (--cfg=, --log=)
  bool breakdown   = false;              ///< each row with NCCL's model of its algorithm and protocol (--breakdown)
  bool pxn_disable = false;              ///< NCCL_PXN_DISABLE=1: clos clusters route without PXN (--pxn-disable)
};

/** NCCL's model of a row's algorithm and protocol on the platform (--breakdown): its time, split in
 *  the latency term (steps, base latency, the transport's latency) and the bandwidth term, and the
 *  channels NCCL runs it on, and the proxy pipeline's sustained rate per ring across nodes. */
struct BenchBreakdown {
  bool known           = false; ///< NCCL's model applies (an NCCL algorithm, a GPU architecture)
  double model_us      = 0;
  double latency_us    = 0;
  double bandwidth_us  = 0;
  uint32_t channels    = 0;     ///< NCCL's channels for the size (nccl::channels)
  double pipeline_GBps = 0;     ///< 0: one node (no network pipeline)
  bool latency_bound   = false; ///< the pipeline's slots, not the NIC, bound a channel's rate
};

/** One size: a line of nccl-tests' out-of-place columns. */
struct BenchRow {
  uint64_t size  = 0; ///< bytes
  uint64_t count = 0; ///< float elements
  std::string redop;  ///< sum or none
  int root       = -1;
  double time_us = 0;
  double algbw   = 0;    ///< GB/s
  double busbw   = 0;    ///< GB/s: algbw times the op's bus factor
  std::string algorithm; ///< the replay's algorithm, /protocol for NCCL's
  BenchBreakdown breakdown;
};

struct BenchResult {
  std::string gpu_type;      ///< of the first GPU
  std::string network_model; ///< the run's (summary.json)
  std::vector<BenchRow> rows;
  double avg_busbw = 0; ///< GB/s, over the rows
};

/** Runs the bench. UsageError when options contradict each other (an algorithm without the op or
 *  protocol, --dims not making --gpus, --channels without --algo ring); InputError for bad sizes,
 *  an XML platform, a platform with fewer GPUs, or what the experiment finds wrong (a platform
 *  error at the platform file names --platform); RunError when the replay fails. Sets SimGrid's
 *  log thresholds of xbt_cfg and sgai_experiment to warning. */
BenchResult collective_bench(const BenchOptions& o);

} // namespace sgai::experiment

#endif
