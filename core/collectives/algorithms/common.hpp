/* Shared by the algorithm files: a step-by-step schedule builder and the errors for collectives an
 * algorithm does not implement. */
#ifndef SGAI_CORE_COLLECTIVES_ALGORITHMS_COMMON_HPP
#define SGAI_CORE_COLLECTIVES_ALGORITHMS_COMMON_HPP

#include "core/collectives/schedule.hpp"

#include <stdexcept>
#include <string>

namespace sgai::collectives::algorithms {

[[noreturn]] inline void unsupported(CollectiveType t, const char* algorithm, const char* supported)
{
  throw std::invalid_argument(std::string(algorithm) + " has no " + chakra::to_string(t) + " (it implements " +
                              supported + ")");
}

/** NCCL's binary tree over n members (ncclGetBtree): the parent of each (-1: the root, member 0).
 *  Its mirror (r -> n-1-r) is the double binary tree's second tree. */
std::vector<int64_t> nccl_btree_parents(uint32_t n);

inline std::vector<collectives::Transfer>& new_step(collectives::Schedule& s)
{
  return s.steps.emplace_back();
}

} // namespace sgai::collectives::algorithms

#endif
