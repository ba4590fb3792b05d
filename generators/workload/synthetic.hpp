/* Synthetic workloads: seeded rigid jobs with HDeepRM's fields, for benchmarks and what-if studies
 * where no log fits. */
#ifndef SGAI_GENERATORS_WORKLOAD_SYNTHETIC_HPP
#define SGAI_GENERATORS_WORKLOAD_SYNTHETIC_HPP

#include "generators/workload/workload.hpp"

#include <cstdint>

namespace sgai::workload {

/** Every draw comes from one std::mt19937_64 seeded with `seed`, in job order.
 *  - submission: exponential inter-arrival times of mean `mean_interarrival_s`, first job at 0;
 *  - size: 1 core with probability `serial_fraction`, else 2^k cores, k uniform in 1..log2(max_cores);
 *  - run time: log-uniform in [min_run_s, max_run_s]; cpu = run time x reference speed per core;
 *  - requested time: run time x uniform in [1, overestimate];
 *  - memory per core: uniform in [mem_min_mb, mem_max_mb]; bandwidth per core uniform in
 *    [mem_bw_min_gbps, mem_bw_max_gbps] (HDeepRM's 4-24 GB/s by default). */
struct SyntheticSpec {
  uint64_t jobs              = 1000;
  uint32_t max_cores         = 64;
  double serial_fraction     = 0.25;
  double mean_interarrival_s = 60;
  double min_run_s           = 60;
  double max_run_s           = 86400;
  double overestimate        = 3;
  double mem_min_mb          = 0;
  double mem_max_mb          = 0;
  double mem_bw_min_gbps     = 4;
  double mem_bw_max_gbps     = 24;
  double reference_speed     = 22e9;
  uint64_t seed              = 1;
  std::string name           = "synthetic";
};

/** The mean inter-arrival time at which the jobs offer `load` (busy fraction, e.g. 0.8) of
 *  `cores` cores: E[cores] x E[run time] / (cores x load). */
double interarrival_for_load(const SyntheticSpec& spec, uint64_t cores, double load);

/** std::invalid_argument naming the field for inconsistent parameters. */
Workload generate_workload(const SyntheticSpec& spec);

} // namespace sgai::workload

#endif
