/* Job selection and resource selection policies, pluggable by name through registries. Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_POLICIES_HPP
#define SGAI_CORE_SCHEDULING_POLICIES_HPP

#include "core/scheduling/resources.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <random>
#include <span>
#include <string>
#include <vector>

namespace sgai::scheduling {

/** A set of cores (bits), for masks and backfilling windows. */
/** Bits set in a word (SWAR, inline: without -mpopcnt, std::popcount is a libgcc call). */
inline uint32_t ones(uint64_t x)
{
  x = x - ((x >> 1) & 0x5555555555555555ULL);
  x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
  x = (x + (x >> 4)) & 0x0f0f0f0f0f0f0f0fULL;
  return static_cast<uint32_t>((x * 0x0101010101010101ULL) >> 56);
}

class CoreSet {
public:
  CoreSet() = default;
  explicit CoreSet(uint32_t size, bool all = false);
  /** The members given as bits (member i: bit i % 64 of word i / 64), `size` members at most. */
  CoreSet(uint32_t size, const std::vector<uint64_t>& words);
  /** Becomes CoreSet(size, words), reusing its storage. */
  void assign(uint32_t size, const std::vector<uint64_t>& words);
  /** Becomes CoreSet(size) (empty), reusing its storage. */
  void assign_empty(uint32_t size);
  uint32_t size() const { return size_; }
  bool test(uint32_t i) const { return (words_[i >> 6] >> (i & 63)) & 1U; }
  void set(uint32_t i) { words_[i >> 6] |= uint64_t{1} << (i & 63); }
  void reset(uint32_t i) { words_[i >> 6] &= ~(uint64_t{1} << (i & 63)); }
  void intersect(const CoreSet& other);
  /** Removes the members of `other` (same size). */
  void subtract(const CoreSet& other);
  /** Adds the members of `other` (same size). */
  void unite(const CoreSet& other);
  uint32_t count() const;
  /** The bits, 64 members a word. */
  const std::vector<uint64_t>& words() const { return words_; }
  /** The `n` lowest members (fewer if the set is smaller). */
  std::vector<uint32_t> lowest(uint32_t n) const;
  /** Becomes the `n` lowest members of `from` (all of them if it has fewer), reusing its storage. */
  void assign_lowest(const CoreSet& from, uint32_t n);
  /** Members of both sets. */
  uint32_t count_common(const CoreSet& other) const;
  /** Calls f(i) for every member, in increasing order. */
  template <typename F>
  void for_each(F f) const
  {
    for (size_t w = 0; w < words_.size(); w++)
      for (uint64_t bits = words_[w]; bits != 0; bits &= bits - 1)
        f(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
  }

private:
  uint32_t size_ = 0;
  std::vector<uint64_t> words_;
};

/** A job waiting in the queue, as policies see it. */
struct QueuedJob {
  uint32_t job            = 0; ///< index in the workload
  double submit_s         = 0;
  uint64_t arrival        = 0; ///< order of arrival (ties of submission times)
  double requested_time_s = 0; ///< walltime or requested time; infinity when unknown
  Demand demand;
};

/** Chooses the next job of the queue. */
class JobPolicy {
public:
  virtual ~JobPolicy() = default;
  /** Index in `queue` (non-empty, in arrival order) of the job to consider next. */
  virtual size_t pick(std::span<const QueuedJob> queue, std::mt19937_64& rng) const = 0;
  /** Indices of the whole queue in the order the policy ranks them (backfilling walks it).
   *  By default, repeated picks. */
  virtual std::vector<size_t> rank(std::span<const QueuedJob> queue, std::mt19937_64& rng) const;
  /** True when rank() is always the arrival order (0, 1, 2, ...) and draws nothing: schedulers
   *  then walk the queue without ranking it. */
  virtual bool arrival_order() const { return false; }
};

/** Chooses cores for a job, one at a time: each choice sees the state the previous ones left
 *  (HDeepRM's greedy selection). Ties go to the lowest core id. */
class ResourcePolicy {
public:
  virtual ~ResourcePolicy() = default;
  /** Takes d.cores cores for `job` in `state` (memory permitting), among `allowed` when given.
   *  Returns them, or nothing (state unchanged) when they do not all fit. */
  virtual std::vector<uint32_t> select(ClusterState& state, uint32_t job, const Demand& d, std::mt19937_64& rng,
                                       const CoreSet* allowed = nullptr) const = 0;
};

struct PolicyInfo {
  std::string name;
  std::string description;
};

/** Known policies, for help texts and error messages. */
const std::vector<PolicyInfo>& job_policies();
const std::vector<PolicyInfo>& resource_policies();

/** Adds a policy under info.name to the known ones (make_job_policy, experiment files, deployment
 *  files, the command line): a user's policy, registered from outside the library before the run
 *  reads its name. std::invalid_argument when the name is empty or taken. */
void register_job_policy(PolicyInfo info, std::function<std::unique_ptr<JobPolicy>()> make);
void register_resource_policy(PolicyInfo info, std::function<std::unique_ptr<ResourcePolicy>()> make);

/** The policy of that name; std::invalid_argument listing the known ones otherwise. */
std::unique_ptr<JobPolicy> make_job_policy(const std::string& name);
std::unique_ptr<ResourcePolicy> make_resource_policy(const std::string& name);

} // namespace sgai::scheduling

#endif
