#include "core/scheduling/policies.hpp"

#include <algorithm>
#include <numeric>
#include <queue>
#include <stdexcept>

namespace sgai::scheduling {

// ------------------------------------------------------------------------------------------ CoreSet

CoreSet::CoreSet(uint32_t size, bool all)
    : size_(size)
    , words_((size + 63) / 64, all ? ~uint64_t{0} : 0)
{
  if (all && size % 64 != 0)
    words_.back() = (uint64_t{1} << (size % 64)) - 1;
}

CoreSet::CoreSet(uint32_t size, const std::vector<uint64_t>& words)
    : size_(size)
    , words_(words)
{
  words_.resize((size + 63) / 64, 0);
  if (size % 64 != 0)
    words_.back() &= (uint64_t{1} << (size % 64)) - 1;
}

void CoreSet::assign(uint32_t size, const std::vector<uint64_t>& words)
{
  size_ = size;
  words_.assign(words.begin(), words.end());
  words_.resize((size + 63) / 64, 0);
  if (size % 64 != 0)
    words_.back() &= (uint64_t{1} << (size % 64)) - 1;
}

void CoreSet::assign_empty(uint32_t size)
{
  size_ = size;
  words_.assign((size + 63) / 64, 0);
}

void CoreSet::intersect(const CoreSet& other)
{
  for (size_t i = 0; i < words_.size(); i++)
    words_[i] &= other.words_[i];
}

void CoreSet::subtract(const CoreSet& other)
{
  for (size_t i = 0; i < words_.size(); i++)
    words_[i] &= ~other.words_[i];
}

void CoreSet::unite(const CoreSet& other)
{
  for (size_t i = 0; i < words_.size(); i++)
    words_[i] |= other.words_[i];
}

void CoreSet::assign_lowest(const CoreSet& from, uint32_t n)
{
  assign_empty(from.size_);
  for (size_t w = 0; w < from.words_.size() && n > 0; w++) {
    uint64_t bits = from.words_[w];
    if (uint32_t k = ones(bits); k <= n) {
      words_[w] = bits;
      n -= k;
    } else { // the n lowest of this word's
      uint64_t taken = 0;
      for (; n > 0; n--, bits &= bits - 1)
        taken |= bits & (~bits + 1);
      words_[w] = taken;
    }
  }
}

uint32_t CoreSet::count_common(const CoreSet& other) const
{
  uint32_t n = 0;
  for (size_t w = 0; w < words_.size() && w < other.words_.size(); w++)
    if (uint64_t both = words_[w] & other.words_[w]; both != 0) // (most are zero: a few cores reserved)
      n += ones(both);
  return n;
}

uint32_t CoreSet::count() const
{
  uint32_t n = 0;
  for (uint64_t w : words_)
    n += ones(w);
  return n;
}

std::vector<uint32_t> CoreSet::lowest(uint32_t n) const
{
  std::vector<uint32_t> out;
  for (size_t w = 0; w < words_.size() && out.size() < n; w++)
    for (uint64_t bits = words_[w]; bits != 0 && out.size() < n; bits &= bits - 1)
      out.push_back(static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits))));
  return out;
}

namespace {

// -------------------------------------------------------------------------------------- job policies

/** The job with the smallest key; ties go to the earliest arrival (HDeepRM's stable sort). */
class KeyedJobPolicy : public JobPolicy {
public:
  using Key = double (*)(const QueuedJob&);
  explicit KeyedJobPolicy(Key key)
      : key_(key)
  {
  }
  size_t pick(std::span<const QueuedJob> queue, std::mt19937_64& /*rng*/) const override
  {
    size_t best = 0;
    for (size_t i = 1; i < queue.size(); i++)
      if (key_(queue[i]) < key_(queue[best]) ||
          (key_(queue[i]) == key_(queue[best]) && queue[i].arrival < queue[best].arrival))
        best = i;
    return best;
  }
  std::vector<size_t> rank(std::span<const QueuedJob> queue, std::mt19937_64& /*rng*/) const override
  {
    std::vector<size_t> order(queue.size());
    std::iota(order.begin(), order.end(), size_t{0});
    std::sort(order.begin(), order.end(), [&](size_t a, size_t b) {
      double ka = key_(queue[a]), kb = key_(queue[b]);
      return ka < kb || (ka == kb && queue[a].arrival < queue[b].arrival);
    });
    return order;
  }

private:
  Key key_;
};

} // namespace

std::vector<size_t> JobPolicy::rank(std::span<const QueuedJob> queue, std::mt19937_64& rng) const
{
  std::vector<QueuedJob> rest(queue.begin(), queue.end());
  std::vector<size_t> index(queue.size()), order;
  std::iota(index.begin(), index.end(), size_t{0});
  while (not rest.empty()) {
    size_t i = pick(rest, rng);
    order.push_back(index[i]);
    rest.erase(rest.begin() + static_cast<std::ptrdiff_t>(i));
    index.erase(index.begin() + static_cast<std::ptrdiff_t>(i));
  }
  return order;
}

namespace {

/** The queue is kept in arrival order: the first arrived is at its front. */
class FirstJobPolicy : public JobPolicy {
public:
  size_t pick(std::span<const QueuedJob> /*queue*/, std::mt19937_64& /*rng*/) const override { return 0; }
  std::vector<size_t> rank(std::span<const QueuedJob> queue, std::mt19937_64& /*rng*/) const override
  {
    std::vector<size_t> order(queue.size());
    std::iota(order.begin(), order.end(), size_t{0});
    return order;
  }
  bool arrival_order() const override { return true; }
};

class RandomJobPolicy : public JobPolicy {
public:
  size_t pick(std::span<const QueuedJob> queue, std::mt19937_64& rng) const override
  {
    return std::uniform_int_distribution<size_t>(0, queue.size() - 1)(rng);
  }
  std::vector<size_t> rank(std::span<const QueuedJob> queue, std::mt19937_64& rng) const override
  {
    std::vector<size_t> order(queue.size());
    std::iota(order.begin(), order.end(), size_t{0});
    for (size_t i = order.size(); i > 1; i--) // Fisher-Yates: each order equally likely
      std::swap(order[i - 1], order[std::uniform_int_distribution<size_t>(0, i - 1)(rng)]);
    return order;
  }
};

struct JobPolicyEntry {
  PolicyInfo info;
  std::function<std::unique_ptr<JobPolicy>()> make;
};

std::vector<JobPolicyEntry>& job_table()
{
  auto keyed = [](KeyedJobPolicy::Key k) {
    return [k]() -> std::unique_ptr<JobPolicy> { return std::make_unique<KeyedJobPolicy>(k); };
  };
  static std::vector<JobPolicyEntry> table = {
      {{"first", "first arrived (earliest submission)"},
       []() -> std::unique_ptr<JobPolicy> { return std::make_unique<FirstJobPolicy>(); }},
      {{"random", "uniformly at random (seeded)"},
       []() -> std::unique_ptr<JobPolicy> { return std::make_unique<RandomJobPolicy>(); }},
      {{"shortest", "shortest requested time"}, keyed([](const QueuedJob& j) { return j.requested_time_s; })},
      {{"smallest", "fewest requested cores"},
       keyed([](const QueuedJob& j) { return static_cast<double>(j.demand.cores); })},
      {{"low_mem", "lowest memory per core"}, keyed([](const QueuedJob& j) { return j.demand.mem_mb; })},
      {{"low_mem_bw", "lowest memory bandwidth per core"},
       keyed([](const QueuedJob& j) { return j.demand.mem_bw_gbps; })},
  };
  return table;
}

// --------------------------------------------------------------------------------- resource policies

/** Greedy selection by a per-processor key (smaller is better). */
class KeyedResourcePolicy : public ResourcePolicy {
public:
  enum class Scope { none, node, processor }; ///< what changes the key when a core is taken
  using Key = double (*)(const ClusterState&, uint32_t processor);

  KeyedResourcePolicy(Key key, Scope scope)
      : key_(key)
      , scope_(scope)
  {
  }

  std::vector<uint32_t> select(ClusterState& state, uint32_t job, const Demand& d, std::mt19937_64& /*rng*/,
                               const CoreSet* allowed) const override
  {
    const Resources& r = state.resources();
    struct Entry {
      double key;
      uint32_t core; // lowest eligible free core of the processor
      uint32_t proc;
      uint32_t version;
      bool operator>(const Entry& o) const { return key > o.key || (key == o.key && core > o.core); }
    };
    std::vector<uint32_t> version(r.processors.size(), 0);
    auto first_eligible = [&](uint32_t p) -> int64_t {
      const Processor& pr = r.processors[p];
      if (state.processor_busy_cores(p) == pr.cores || not state.fits_memory(pr.first_core, d))
        return -1;
      for (uint32_t c = pr.first_core; c < pr.first_core + pr.cores; c++)
        if (state.is_free(c) && (allowed == nullptr || allowed->test(c)))
          return c;
      return -1;
    };
    std::priority_queue<Entry, std::vector<Entry>, std::greater<>> heap;
    auto push = [&](uint32_t p) {
      version[p]++;
      int64_t c = first_eligible(p);
      if (c >= 0)
        heap.push({key_(state, p), static_cast<uint32_t>(c), p, version[p]});
    };
    for (uint32_t p = 0; p < r.processors.size(); p++)
      push(p);

    std::vector<uint32_t> taken;
    while (taken.size() < d.cores) {
      while (not heap.empty() && heap.top().version != version[heap.top().proc])
        heap.pop();
      if (heap.empty())
        break;
      Entry e = heap.top();
      heap.pop();
      state.take(e.core, job, d);
      taken.push_back(e.core);
      if (scope_ == Scope::node || d.mem_mb > 0) {
        const Node& n = r.nodes[r.processors[e.proc].node];
        for (uint32_t q = n.first_processor; q < n.first_processor + n.processors; q++)
          push(q);
      } else {
        push(e.proc);
      }
    }
    if (taken.size() < d.cores) {
      for (uint32_t c : taken)
        state.release(c, d);
      return {};
    }
    return taken;
  }

private:
  Key key_;
  Scope scope_;
};

/** The lowest-numbered eligible cores: what KeyedResourcePolicy gives with a constant key (each
 *  pick is the lowest core that is free, allowed and whose node has the memory; taking cores only
 *  lowers a node's free memory, so a core passed over never turns eligible again), in one pass
 *  over the free cores' bits instead of a heap of every processor. */
class LowestResourcePolicy : public ResourcePolicy {
public:
  std::vector<uint32_t> select(ClusterState& state, uint32_t job, const Demand& d, std::mt19937_64& /*rng*/,
                               const CoreSet* allowed) const override
  {
    std::vector<uint32_t> taken;
    if (d.cores == 0)
      return taken;
    const std::vector<uint64_t>& free = state.free_words();
    for (size_t w = 0; w < free.size(); w++) {
      uint64_t bits = free[w];
      if (allowed != nullptr)
        bits &= allowed->words()[w];
      for (; bits != 0; bits &= bits - 1) {
        auto c = static_cast<uint32_t>(w * 64 + static_cast<size_t>(__builtin_ctzll(bits)));
        if (not state.fits_memory(c, d))
          continue;
        state.take(c, job, d);
        taken.push_back(c);
        if (taken.size() == d.cores)
          return taken;
      }
    }
    for (uint32_t c : taken)
      state.release(c, d);
    return {};
  }
};

class RandomResourcePolicy : public ResourcePolicy {
public:
  std::vector<uint32_t> select(ClusterState& state, uint32_t job, const Demand& d, std::mt19937_64& rng,
                               const CoreSet* allowed) const override
  {
    std::vector<uint32_t> eligible;
    for (uint32_t c = 0; c < state.resources().core_count(); c++)
      if (state.is_free(c) && (allowed == nullptr || allowed->test(c)) && state.fits_memory(c, d))
        eligible.push_back(c);
    std::vector<uint32_t> taken;
    while (taken.size() < d.cores && not eligible.empty()) {
      size_t i    = std::uniform_int_distribution<size_t>(0, eligible.size() - 1)(rng);
      uint32_t c  = eligible[i];
      eligible[i] = eligible.back();
      eligible.pop_back();
      if (not state.fits_memory(c, d)) // memory taken by this job's previous cores
        continue;
      state.take(c, job, d);
      taken.push_back(c);
    }
    if (taken.size() < d.cores) {
      for (uint32_t c : taken)
        state.release(c, d);
      return {};
    }
    return taken;
  }
};

struct ResourcePolicyEntry {
  PolicyInfo info;
  std::function<std::unique_ptr<ResourcePolicy>()> make;
};

std::vector<ResourcePolicyEntry>& resource_table()
{
  using S    = KeyedResourcePolicy::Scope;
  auto keyed = [](KeyedResourcePolicy::Key k, S scope) {
    return [k, scope]() -> std::unique_ptr<ResourcePolicy> { return std::make_unique<KeyedResourcePolicy>(k, scope); };
  };
  static std::vector<ResourcePolicyEntry> table = {
      {{"first", "lowest-numbered free cores (Batsim's default)"},
       []() -> std::unique_ptr<ResourcePolicy> { return std::make_unique<LowestResourcePolicy>(); }},
      {{"random", "uniformly at random among the free cores (seeded)"},
       []() -> std::unique_ptr<ResourcePolicy> { return std::make_unique<RandomResourcePolicy>(); }},
      {{"high_gflops", "highest flop/s per core"},
       keyed([](const ClusterState& s, uint32_t p) { return -s.resources().processors[p].flops_per_core; }, S::none)},
      {{"high_cores", "most free cores in the node"},
       keyed([](const ClusterState& s,
                uint32_t p) { return -static_cast<double>(s.node_free_cores(s.resources().processors[p].node)); },
             S::node)},
      {{"high_mem", "most free memory in the node"},
       keyed([](const ClusterState& s, uint32_t p) { return -s.node_free_memory_mb(s.resources().processors[p].node); },
             S::node)},
      {{"high_mem_bw", "most free memory bandwidth in the processor"},
       keyed([](const ClusterState& s, uint32_t p) { return -s.processor_free_bw_gbps(p); }, S::processor)},
      {{"low_power", "lowest power per core"},
       keyed([](const ClusterState& s, uint32_t p) { return s.resources().processors[p].power_per_core_w; }, S::none)},
  };
  return table;
}

template <typename Table>
std::string known(const Table& t)
{
  std::string out;
  for (const auto& e : t)
    out += (out.empty() ? "" : ", ") + e.info.name;
  return out;
}

template <typename Table>
const std::vector<PolicyInfo>& infos(const Table& table, std::vector<PolicyInfo>& out)
{
  out.clear();
  for (const auto& e : table)
    out.push_back(e.info);
  return out;
}

template <typename Table, typename Make>
void add_entry(Table& table, PolicyInfo info, Make make, const char* what)
{
  if (info.name.empty() || not make)
    throw std::invalid_argument(std::string("a ") + what + " policy needs a name and a factory");
  for (const auto& e : table)
    if (e.info.name == info.name)
      throw std::invalid_argument(std::string("a ") + what + " policy named '" + info.name + "' exists already");
  table.push_back({std::move(info), std::move(make)});
}

} // namespace

const std::vector<PolicyInfo>& job_policies()
{
  static std::vector<PolicyInfo> v;
  return infos(job_table(), v);
}

const std::vector<PolicyInfo>& resource_policies()
{
  static std::vector<PolicyInfo> v;
  return infos(resource_table(), v);
}

void register_job_policy(PolicyInfo info, std::function<std::unique_ptr<JobPolicy>()> make)
{
  add_entry(job_table(), std::move(info), std::move(make), "job selection");
}

void register_resource_policy(PolicyInfo info, std::function<std::unique_ptr<ResourcePolicy>()> make)
{
  add_entry(resource_table(), std::move(info), std::move(make), "resource selection");
}

std::unique_ptr<JobPolicy> make_job_policy(const std::string& name)
{
  for (const auto& e : job_table())
    if (e.info.name == name)
      return e.make();
  throw std::invalid_argument("unknown job selection policy '" + name + "' (known: " + known(job_table()) + ")");
}

std::unique_ptr<ResourcePolicy> make_resource_policy(const std::string& name)
{
  for (const auto& e : resource_table())
    if (e.info.name == name)
      return e.make();
  throw std::invalid_argument("unknown resource selection policy '" + name + "' (known: " + known(resource_table()) +
                              ")");
}

} // namespace sgai::scheduling
