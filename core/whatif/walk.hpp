/* Daydream's simulation (Algorithm 1): tasks leave the frontier in the order a schedule picks
 * (default: the earliest ready first, then the lowest id) and run on their thread when it is free:
 * start = max(ready, thread progress), the thread's progress = end + gap, a child's ready time =
 * max over its parents of end + lag. Linear in tasks and edges (a heap for the frontier). */
#ifndef SGAI_CORE_WHATIF_WALK_HPP
#define SGAI_CORE_WHATIF_WALK_HPP

#include "core/whatif/graph.hpp"

#include <cstdint>
#include <vector>

namespace sgai::whatif {

/** Daydream's pluggable schedule(F): whether task `a` (ready at `ready_a`) leaves the frontier
 *  before task `b`. Must be a strict weak order. */
class Schedule {
public:
  virtual ~Schedule()                                                                                 = default;
  virtual bool before(const Graph& g, uint32_t a, int64_t ready_a, uint32_t b, int64_t ready_b) const = 0;
};

struct WalkResult {
  std::vector<int64_t> start, end; ///< per task (removed ones: 0)
  /** The task that set each start: the parent with the latest end + lag, or the task before it on
   *  its thread when the thread was busy (kNone: a root released at its measured start). */
  std::vector<uint32_t> binding;
  /** When its thread reached the task (the thread's progress, or the start for a thread's first
   *  task): a blocking call waits from there. */
  std::vector<int64_t> arrival;
  /** Where each task's chain of binding tasks begins (the start of its root): a path that begins
   *  late started from a thread released at its measured time, not from the iteration. */
  std::vector<int64_t> chain_begin;
  int64_t origin = 0;     ///< the earliest measured start (roots are released at their measured start)
  int64_t finish = 0;     ///< the latest end
  uint32_t last  = kNone; ///< the task that ends last
};

/** Walks the live tasks. RunError when some never become ready (a cycle), naming one. */
WalkResult walk(const Graph& g, const Schedule* schedule = nullptr);

/** The critical path ending at `to`, first task first: each task's binding task, back to a root.
 *  kNone: the longest such chain (end - chain_begin) among all tasks, the later end on a tie. */
std::vector<uint32_t> critical_path(const Graph& g, const WalkResult& w, uint32_t to = kNone);

} // namespace sgai::whatif

#endif
