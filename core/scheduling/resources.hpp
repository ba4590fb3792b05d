/* The resources a workload manager allocates: cores, grouped in processors (memory bandwidth,
 * speed, power) and nodes (memory), and their dynamic state. Plain C++, no SimGrid. */
#ifndef SGAI_CORE_SCHEDULING_RESOURCES_HPP
#define SGAI_CORE_SCHEDULING_RESOURCES_HPP

#include <cstdint>
#include <limits>
#include <string>
#include <vector>

namespace sgai::scheduling {

inline constexpr uint32_t kNoJob = std::numeric_limits<uint32_t>::max();

struct Core {
  uint32_t processor = 0;
  uint32_t node      = 0;
  uint32_t host      = 0; ///< index of the SimGrid host running this core
};

struct Processor {
  uint32_t node           = 0;
  uint32_t first_core     = 0;
  uint32_t cores          = 0;
  double flops_per_core   = 0;
  double mem_bw_gbps      = std::numeric_limits<double>::infinity(); ///< shared by its cores
  double power_per_core_w = 0;                                       ///< TDP share, for low_power
};

struct Node {
  uint32_t first_core      = 0;
  uint32_t cores           = 0;
  uint32_t first_processor = 0;
  uint32_t processors      = 0;
  double memory_mb         = std::numeric_limits<double>::infinity(); ///< shared by the jobs on the node
};

/** Static description: cores numbered 0..n-1 (the resource ids of jobs.csv), contiguous per
 *  processor and per node. */
struct Resources {
  std::vector<Core> cores;
  std::vector<Processor> processors;
  std::vector<Node> nodes;
  std::vector<std::string> host_names; ///< SimGrid host of each host index
  /** Storage hosts (Batsim's role=storage), by name: their host indices follow the compute hosts'
   *  in host_names and own no core. Storage profiles read from and write to them. */
  std::vector<uint32_t> storage_hosts;

  uint32_t core_count() const { return static_cast<uint32_t>(cores.size()); }
};

/** What a job needs from each of its cores. */
struct Demand {
  uint32_t cores     = 1;
  double mem_mb      = 0; ///< per core, on its node
  double mem_bw_gbps = 0; ///< per core, on its processor
};

/** Which job holds each core; free memory per node; memory bandwidth demand per processor. */
class ClusterState {
public:
  explicit ClusterState(const Resources& r);

  const Resources& resources() const { return *r_; }
  bool is_free(uint32_t core) const { return owner_[core] == kNoJob; }
  uint32_t owner(uint32_t core) const { return owner_[core]; }
  uint32_t free_cores() const { return free_total_; }
  uint32_t node_free_cores(uint32_t node) const { return node_free_[node]; }
  double node_free_memory_mb(uint32_t node) const { return node_mem_free_[node]; }
  uint32_t processor_busy_cores(uint32_t p) const { return proc_busy_[p]; }
  /** Memory bandwidth the busy cores of a processor ask for, GB/s. */
  double processor_demand_gbps(uint32_t p) const { return proc_bw_demand_[p]; }
  double processor_free_bw_gbps(uint32_t p) const { return r_->processors[p].mem_bw_gbps - proc_bw_demand_[p]; }
  bool processor_over_utilized(uint32_t p) const;

  /** Whether the job's per-core memory fits on the node of this core now. */
  bool fits_memory(uint32_t core, const Demand& d) const;
  void take(uint32_t core, uint32_t job, const Demand& d);
  void release(uint32_t core, const Demand& d);
  /** The free cores as bits (core c: bit c % 64 of word c / 64), kept by take and release. */
  const std::vector<uint64_t>& free_words() const { return free_words_; }

private:
  const Resources* r_;
  std::vector<uint32_t> owner_;
  std::vector<uint32_t> node_free_;
  std::vector<double> node_mem_free_;
  std::vector<uint32_t> proc_busy_;
  std::vector<double> proc_bw_demand_;
  uint32_t free_total_ = 0;
  std::vector<uint64_t> free_words_;
};

} // namespace sgai::scheduling

#endif
