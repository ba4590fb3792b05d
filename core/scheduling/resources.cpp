#include "core/scheduling/resources.hpp"

#include <algorithm>
#include <cassert>

namespace sgai::scheduling {

ClusterState::ClusterState(const Resources& r)
    : r_(&r)
    , owner_(r.cores.size(), kNoJob)
    , node_free_(r.nodes.size())
    , node_mem_free_(r.nodes.size())
    , proc_busy_(r.processors.size(), 0)
    , proc_bw_demand_(r.processors.size(), 0)
    , free_total_(r.core_count())
    , free_words_((r.cores.size() + 63) / 64, ~uint64_t{0})
{
  if (r.cores.size() % 64 != 0)
    free_words_.back() = (uint64_t{1} << (r.cores.size() % 64)) - 1;
  for (size_t n = 0; n < r.nodes.size(); n++) {
    node_free_[n]     = r.nodes[n].cores;
    node_mem_free_[n] = r.nodes[n].memory_mb;
  }
}

bool ClusterState::processor_over_utilized(uint32_t p) const
{
  // A small tolerance keeps 32 GB/s asked of 32 GB/s from counting as over-utilization.
  return proc_bw_demand_[p] > r_->processors[p].mem_bw_gbps * (1 + 1e-12);
}

bool ClusterState::fits_memory(uint32_t core, const Demand& d) const
{
  return node_mem_free_[r_->cores[core].node] + 1e-9 >= d.mem_mb;
}

void ClusterState::take(uint32_t core, uint32_t job, const Demand& d)
{
  assert(owner_[core] == kNoJob);
  const Core& c = r_->cores[core];
  owner_[core]  = job;
  node_free_[c.node]--;
  node_mem_free_[c.node] -= d.mem_mb;
  proc_busy_[c.processor]++;
  proc_bw_demand_[c.processor] += d.mem_bw_gbps;
  free_total_--;
  free_words_[core >> 6] &= ~(uint64_t{1} << (core & 63));
}

void ClusterState::release(uint32_t core, const Demand& d)
{
  assert(owner_[core] != kNoJob);
  const Core& c = r_->cores[core];
  owner_[core]  = kNoJob;
  node_free_[c.node]++;
  node_mem_free_[c.node] += d.mem_mb;
  proc_busy_[c.processor]--;
  proc_bw_demand_[c.processor] -= d.mem_bw_gbps;
  if (proc_busy_[c.processor] == 0)
    proc_bw_demand_[c.processor] = 0; // no drift from repeated additions
  free_total_++;
  free_words_[core >> 6] |= uint64_t{1} << (core & 63);
}

} // namespace sgai::scheduling
