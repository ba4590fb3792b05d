/* NCCL's NVLS all-reduce (NVLink SHARP): in one NVSwitch domain, a GPU loads its 1/n shard
 * reduced by the switch from every GPU's buffer (the switch reads S/n of each GPU's buffer per
 * shard: S leaves every GPU, S/n reaches it), then stores the reduced shard once to the multicast
 * address (S/n leaves it) and the switch writes it to every GPU (S reaches each). Per GPU and
 * direction that is S (1 + 1/n) and no reduction on the GPU. On GPU-to-GPU routes through the
 * switch the same link loads come from one step where every rank sends (n + 1) / (n (n - 1)) of S
 * to each of the n - 1 others (the switch's own fabric does not block). */
#include "core/collectives/algorithms/common.hpp"

namespace sgai::collectives::algorithms {

Schedule nvls(CollectiveType type, uint32_t n)
{
  if (canonical(type) != CollectiveType::all_reduce)
    unsupported(type, "nvls", "all-reduce");
  Schedule s;
  const double f = (n + 1.0) / (static_cast<double>(n) * (n - 1));
  auto& step     = new_step(s);
  for (uint32_t r = 0; r < n; r++)
    for (uint32_t k = 1; k < n; k++)
      step.push_back({r, (r + k) % n, f, false});
  return s;
}

} // namespace sgai::collectives::algorithms
