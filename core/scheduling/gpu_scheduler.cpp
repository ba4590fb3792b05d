#include "core/scheduling/gpu_scheduler.hpp"

#include "generators/platform/model.hpp"

#include <algorithm>
#include <limits>
#include <numeric>
#include <stdexcept>

namespace sgai::scheduling {

GpuTopology GpuTopology::of(const platform::Platform& p)
{
  if (p.gpus.empty())
    throw std::invalid_argument("the platform has no GPU");
  GpuTopology t;
  t.leaf_of_node.assign(p.nodes.size(), 0);
  t.gpus_of_node.assign(p.nodes.size(), 0);
  uint32_t leaf_base = 0;
  for (size_t c = 0; c < p.clusters.size(); c++) {
    const auto& cl  = p.clusters[c];
    uint32_t per    = cl.node_count;
    const auto& top = cl.topology;
    if (top.kind == platform::TopologyKind::fat_tree && not top.levels.empty() && top.levels[0].down > 0)
      per = top.levels[0].down;
    if (top.kind == platform::TopologyKind::clos && not top.levels.empty() && cl.node_count > 0) {
      // a leaf group: the nodes of a rails group, or those whose NICs fill one leaf
      const uint32_t nics = std::max<uint32_t>(1, p.nodes[cl.first_node].nic_count);
      per                 = top.rails ? top.levels[0].down : top.levels[0].down / nics;
    }
    per = std::max<uint32_t>(per, 1);
    for (uint32_t k = 0; k < cl.node_count; k++)
      t.leaf_of_node[cl.first_node + k] = leaf_base + k / per;
    leaf_base += (cl.node_count + per - 1) / per;
  }
  for (const auto& g : p.gpus) {
    t.node_of.push_back(g.node);
    t.gpus_of_node[g.node]++;
    auto it = std::find(t.types.begin(), t.types.end(), g.type);
    t.type_of.push_back(static_cast<uint32_t>(it - t.types.begin()));
    if (it == t.types.end())
      t.types.push_back(g.type);
  }
  return t;
}

GpuTopology GpuTopology::uniform(uint32_t nodes, uint32_t per_node, uint32_t nodes_per_leaf)
{
  GpuTopology t;
  t.types = {"GPU"};
  for (uint32_t n = 0; n < nodes; n++) {
    t.leaf_of_node.push_back(n / std::max<uint32_t>(nodes_per_leaf, 1));
    t.gpus_of_node.push_back(per_node);
    for (uint32_t g = 0; g < per_node; g++) {
      t.node_of.push_back(n);
      t.type_of.push_back(0);
    }
  }
  return t;
}

namespace {
const std::vector<std::string> kOrders     = {"fifo", "sjf", "smallest", "las"};
const std::vector<std::string> kPlacements = {"first", "pack", "spread", "topology"};
} // namespace

const char* to_string(GpuOrder o)
{
  return kOrders[static_cast<size_t>(o)].c_str();
}
const char* to_string(GpuPlacement p)
{
  return kPlacements[static_cast<size_t>(p)].c_str();
}
bool order_from_string(std::string_view s, GpuOrder& out)
{
  for (size_t i = 0; i < kOrders.size(); i++)
    if (s == kOrders[i]) {
      out = static_cast<GpuOrder>(i);
      return true;
    }
  return false;
}
bool placement_from_string(std::string_view s, GpuPlacement& out)
{
  for (size_t i = 0; i < kPlacements.size(); i++)
    if (s == kPlacements[i]) {
      out = static_cast<GpuPlacement>(i);
      return true;
    }
  return false;
}
const std::vector<std::string>& order_names()
{
  return kOrders;
}
const std::vector<std::string>& placement_names()
{
  return kPlacements;
}

GpuScheduler::GpuScheduler(GpuTopology topology, GpuSchedulerConfig config)
    : topo_(std::move(topology))
    , config_(config)
{
  owner_.assign(topo_.gpu_count(), -1);
  free_on_node_ = topo_.gpus_of_node;
  free_count_   = topo_.gpu_count();
}

GpuScheduler::JobState& GpuScheduler::job(uint32_t j)
{
  if (j >= jobs_.size())
    jobs_.resize(j + 1);
  return jobs_[j];
}

const GpuScheduler::JobState* GpuScheduler::find(uint32_t j) const
{
  return j < jobs_.size() && jobs_[j].known ? &jobs_[j] : nullptr;
}

bool GpuScheduler::running(uint32_t j) const
{
  const auto* s = find(j);
  return s && s->running;
}

uint32_t GpuScheduler::queue_of(uint32_t j) const
{
  const auto* s = find(j);
  return s ? s->queue : 0;
}

void GpuScheduler::submit(uint32_t j, uint32_t gpus, double now, double alone_s, int32_t type)
{
  JobState& s = job(j);
  s           = JobState{};
  s.known     = true;
  s.gpus      = gpus;
  s.submit    = now;
  s.alone_s   = alone_s;
  s.type      = type;
  s.entered   = now;
  s.seq       = next_seq_++;
  waiting_.push_back(j);
}

void GpuScheduler::take(uint32_t j, const std::vector<uint32_t>& gpus)
{
  JobState& s = job(j);
  for (uint32_t g : gpus) {
    owner_[g] = j;
    free_on_node_[topo_.node_of[g]]--;
  }
  free_count_ -= static_cast<uint32_t>(gpus.size());
  s.held    = gpus;
  s.running = true;
  waiting_.erase(std::find(waiting_.begin(), waiting_.end(), j));
  running_.push_back(j);
}

void GpuScheduler::release(uint32_t j)
{
  JobState& s = job(j);
  for (uint32_t g : s.held) {
    owner_[g] = -1;
    free_on_node_[topo_.node_of[g]]++;
  }
  free_count_ += static_cast<uint32_t>(s.held.size());
  s.held.clear();
  s.running  = false;
  s.stopping = false;
  running_.erase(std::find(running_.begin(), running_.end(), j));
}

void GpuScheduler::pin(uint32_t j, std::vector<uint32_t> gpus)
{
  std::sort(gpus.begin(), gpus.end());
  pinned_[j] = std::move(gpus);
}

void GpuScheduler::finished(uint32_t j)
{
  release(j);
  job(j).known = false;
}

void GpuScheduler::stopped(uint32_t j)
{
  release(j);
  waiting_.push_back(j);
}

void GpuScheduler::set_attained(uint32_t j, double gpu_s, double now)
{
  JobState& s = job(j);
  s.attained  = gpu_s;
  // the service left, in seconds of the job's GPUs, within the clock's resolution of none (the
  // manager wakes at next_demotion's time, and GPUs x time carries the clock's rounding)
  double left_s = (config_.las_threshold_gpu_s - s.attained) / std::max<uint32_t>(1, s.gpus);
  if (config_.order == GpuOrder::las && s.queue == 0 && left_s <= 1e-9 * std::max(1.0, now)) {
    s.queue   = 1;
    s.entered = now;
    s.seq     = next_seq_++;
  }
}

double GpuScheduler::next_demotion(double now) const
{
  double t = std::numeric_limits<double>::infinity();
  if (config_.order != GpuOrder::las)
    return t;
  for (uint32_t j : running_) {
    const JobState& s = jobs_[j];
    if (s.queue == 0 && not s.stopping)
      t = std::min(t, now + std::max(0.0, config_.las_threshold_gpu_s - s.attained) / s.gpus);
  }
  return t;
}

namespace {

/** A placement of one job's GPUs (GpuScheduler::place_on): the GPUs it may take, per node and per
 *  leaf, and those it takes. */
class Placement {
public:
  Placement(const GpuTopology& topo, const std::vector<int64_t>& owner, uint32_t n, int32_t type)
      : topo_(topo)
      , owner_(owner)
      , n_(n)
      , type_(type)
      , nodes_(static_cast<uint32_t>(topo.gpus_of_node.size()))
      , avail_(nodes_, 0)
  {
    for (uint32_t g = 0; g < topo_.gpu_count(); g++)
      if (usable(g)) {
        avail_[topo_.node_of[g]]++;
        usable_count_++;
      }
  }

  /** Whether the GPUs the job may take are enough. */
  bool possible() const { return n_ <= usable_count_; }
  void group_by_leaf();
  void first();
  void pack();
  void topology();
  void spread();
  /** The GPUs taken, in ring order: by node, then GPU. */
  std::vector<uint32_t> ring()
  {
    std::sort(out_.begin(), out_.end());
    return std::move(out_);
  }

private:
  /** Whether the job may take a GPU: free, of its type. */
  bool usable(uint32_t g) const
  {
    return owner_[g] < 0 && (type_ < 0 || topo_.type_of[g] == static_cast<uint32_t>(type_));
  }
  void take_from(uint32_t node, uint32_t k);
  std::vector<uint32_t> by_free(const std::vector<uint32_t>& among) const;
  int64_t best_node(const std::vector<uint32_t>& among) const;
  void pack_in(const std::vector<uint32_t>& among);
  uint32_t nodes_needed(const std::vector<uint32_t>& sorted) const;
  uint32_t leaf_free(uint32_t l) const;

  const GpuTopology& topo_;
  const std::vector<int64_t>& owner_;
  const uint32_t n_;
  const int32_t type_;
  const uint32_t nodes_;
  std::vector<uint32_t> avail_; // per node: the GPUs this job may take
  uint32_t usable_count_ = 0;
  uint32_t leaves_       = 0;
  std::vector<std::vector<uint32_t>> leaf_nodes_;
  std::vector<uint32_t> out_;
};

/** The nodes of each leaf. */
void Placement::group_by_leaf()
{
  for (uint32_t l : topo_.leaf_of_node)
    leaves_ = std::max(leaves_, l + 1);
  leaf_nodes_.resize(leaves_);
  for (uint32_t x = 0; x < nodes_; x++)
    leaf_nodes_[topo_.leaf_of_node[x]].push_back(x);
}

/** Takes `k` of a node's free GPUs, in order. */
void Placement::take_from(uint32_t node, uint32_t k)
{
  for (uint32_t g = 0; g < topo_.gpu_count() && k > 0; g++)
    if (topo_.node_of[g] == node && usable(g)) {
      out_.push_back(g);
      k--;
    }
}

/** The nodes of `among` (all when empty) by free GPUs, most first (lowest index on ties). */
std::vector<uint32_t> Placement::by_free(const std::vector<uint32_t>& among) const
{
  std::vector<uint32_t> v = among;
  if (v.empty()) {
    v.resize(nodes_);
    std::iota(v.begin(), v.end(), 0);
  }
  v.erase(std::remove_if(v.begin(), v.end(), [&](uint32_t x) { return avail_[x] == 0; }), v.end());
  std::stable_sort(v.begin(), v.end(), [&](uint32_t a, uint32_t b) { return avail_[a] > avail_[b]; });
  return v;
}

/** One node that holds them all: the one with the fewest free GPUs that does (best fit); -1 if none. */
int64_t Placement::best_node(const std::vector<uint32_t>& among) const
{
  int64_t best = -1;
  for (uint32_t x : among)
    if (avail_[x] >= n_ && (best < 0 || avail_[x] < avail_[static_cast<uint32_t>(best)]))
      best = x;
  return best;
}

/** Fewest nodes among `among`: the best single node, else the nodes with the most free first. */
void Placement::pack_in(const std::vector<uint32_t>& among)
{
  auto sorted = by_free(among);
  if (int64_t b = best_node(sorted); b >= 0) {
    take_from(static_cast<uint32_t>(b), n_);
    return;
  }
  uint32_t left = n_;
  for (uint32_t x : sorted) {
    if (left == 0)
      break;
    uint32_t k = std::min(left, avail_[x]);
    take_from(x, k);
    left -= k;
  }
}

/** The nodes needed at least, taking the fullest first (UINT32_MAX when they are not enough). */
uint32_t Placement::nodes_needed(const std::vector<uint32_t>& sorted) const
{
  uint32_t left = n_, count = 0;
  for (uint32_t x : sorted) {
    if (left == 0)
      break;
    left -= std::min(left, avail_[x]);
    count++;
  }
  return left == 0 ? count : UINT32_MAX;
}

/** The GPUs the job may take in a leaf. */
uint32_t Placement::leaf_free(uint32_t l) const
{
  uint32_t f = 0;
  for (uint32_t x : leaf_nodes_[l])
    f += avail_[x];
  return f;
}

/** The first usable GPUs, in order. */
void Placement::first()
{
  for (uint32_t g = 0; g < topo_.gpu_count() && out_.size() < n_; g++)
    if (usable(g))
      out_.push_back(g);
}

/** Fewest nodes first; among the leaves that can hold the job on that many nodes, the one with the
 *  fewest free GPUs; else across leaves. */
void Placement::pack()
{
  uint32_t k   = nodes_needed(by_free({}));
  int64_t best = -1;
  for (uint32_t l = 0; l < leaves_; l++)
    if (nodes_needed(by_free(leaf_nodes_[l])) == k &&
        (best < 0 || leaf_free(l) < leaf_free(static_cast<uint32_t>(best))))
      best = l;
  pack_in(best >= 0 ? leaf_nodes_[static_cast<uint32_t>(best)] : std::vector<uint32_t>{});
}

/** Inside one leaf if any can hold it (the fullest that can: best fit), packed on its nodes; else
 *  the leaves with the most free GPUs first, each packed. */
void Placement::topology()
{
  int64_t best = -1;
  for (uint32_t l = 0; l < leaves_; l++)
    if (leaf_free(l) >= n_ && (best < 0 || leaf_free(l) < leaf_free(static_cast<uint32_t>(best))))
      best = l;
  if (best >= 0) {
    pack_in(leaf_nodes_[static_cast<uint32_t>(best)]);
    return;
  }
  std::vector<uint32_t> order(leaves_);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) { return leaf_free(a) > leaf_free(b); });
  uint32_t left = n_;
  for (uint32_t l : order)
    for (uint32_t x : by_free(leaf_nodes_[l])) {
      if (left == 0)
        break;
      uint32_t k = std::min(left, avail_[x]);
      take_from(x, k);
      left -= k;
    }
}

/** One GPU per node in turn, the nodes with the most free GPUs first. */
void Placement::spread()
{
  auto sorted                = by_free({});
  std::vector<uint32_t> used = avail_;
  while (out_.size() < n_)
    for (uint32_t x : sorted) {
      if (out_.size() == n_)
        break;
      if (used[x] == 0)
        continue;
      for (uint32_t g = 0; g < topo_.gpu_count(); g++)
        if (topo_.node_of[g] == x && usable(g) && std::find(out_.begin(), out_.end(), g) == out_.end()) {
          out_.push_back(g);
          used[x]--;
          break;
        }
    }
}

} // namespace

std::vector<uint32_t> GpuScheduler::place(uint32_t n, int32_t type) const
{
  return place_on(owner_, n, type);
}

std::vector<uint32_t> GpuScheduler::place_on(const std::vector<int64_t>& owner, uint32_t n, int32_t type) const
{
  std::vector<uint32_t> out;
  if (n == 0)
    return out;
  // the GPUs it may take: free, of its type
  Placement p(topo_, owner, n, type);
  if (not p.possible())
    return out;
  p.group_by_leaf();
  switch (config_.placement) {
  case GpuPlacement::first:
    p.first();
    break;
  case GpuPlacement::pack:
    p.pack();
    break;
  case GpuPlacement::topology:
    p.topology();
    break;
  case GpuPlacement::spread:
    p.spread();
    break;
  }
  // ring order: by node, then GPU
  return p.ring();
}

GpuScheduler::Decision GpuScheduler::step(double /*now*/)
{
  Decision d;
  auto start = [&](uint32_t j) {
    std::vector<uint32_t> gpus;
    if (auto p = pinned_.find(j); p != pinned_.end()) {
      if (std::all_of(p->second.begin(), p->second.end(), [&](uint32_t g) { return owner_[g] < 0; }))
        gpus = p->second;
    } else
      gpus = place(jobs_[j].gpus, jobs_[j].type);
    if (gpus.empty())
      return false;
    take(j, gpus);
    d.starts.push_back({j, std::move(gpus)});
    return true;
  };
  if (config_.order == GpuOrder::las) {
    // every job not being stopped, by queue, then order of entry into it; in that order each one
    // keeps its GPUs (running) or is placed (waiting) on the GPUs the ones before it left, as if
    // every job after it were stopped; the running ones left out are preempted, and the placed
    // ones start on their GPUs once those are free (a job being stopped still holds its own)
    std::vector<uint32_t> cand;
    for (uint32_t j : running_)
      if (not jobs_[j].stopping)
        cand.push_back(j);
    cand.insert(cand.end(), waiting_.begin(), waiting_.end());
    std::sort(cand.begin(), cand.end(), [&](uint32_t a, uint32_t b) {
      const auto &x = jobs_[a], &y = jobs_[b];
      if (x.queue != y.queue)
        return x.queue < y.queue;
      if (x.entered != y.entered)
        return x.entered < y.entered;
      return x.seq < y.seq;
    });
    std::vector<int64_t> plan(topo_.gpu_count(), -1);
    std::vector<uint32_t> chosen;
    std::map<uint32_t, std::vector<uint32_t>> planned;
    auto all_free = [&](const std::vector<uint32_t>& gpus) {
      return std::all_of(gpus.begin(), gpus.end(), [&](uint32_t g) { return plan[g] < 0; });
    };
    for (uint32_t j : cand) {
      std::vector<uint32_t> gpus;
      if (jobs_[j].running)
        gpus = all_free(jobs_[j].held) ? jobs_[j].held : std::vector<uint32_t>{};
      else if (auto p = pinned_.find(j); p != pinned_.end())
        gpus = all_free(p->second) ? p->second : std::vector<uint32_t>{};
      else {
        // GPUs free now first; GPUs that running jobs ranked after it hold only when it must
        std::vector<int64_t> now_held(plan);
        for (uint32_t g = 0; g < topo_.gpu_count(); g++)
          if (now_held[g] < 0)
            now_held[g] = owner_[g];
        gpus = place_on(now_held, jobs_[j].gpus, jobs_[j].type);
        if (gpus.empty())
          gpus = place_on(plan, jobs_[j].gpus, jobs_[j].type);
      }
      if (gpus.empty())
        continue;
      for (uint32_t g : gpus)
        plan[g] = j;
      chosen.push_back(j);
      if (not jobs_[j].running)
        planned[j] = std::move(gpus);
    }
    for (uint32_t j : running_)
      if (not jobs_[j].stopping && std::find(chosen.begin(), chosen.end(), j) == chosen.end()) {
        jobs_[j].stopping = true;
        d.preempt.push_back(j);
      }
    for (uint32_t j : chosen)
      if (not jobs_[j].running) {
        auto& gpus = planned[j];
        if (std::all_of(gpus.begin(), gpus.end(), [&](uint32_t g) { return owner_[g] < 0; })) {
          take(j, gpus);
          d.starts.push_back({j, gpus});
        } // else it waits for the GPUs of the jobs being stopped
      }
    return d;
  }
  std::vector<uint32_t> order = waiting_;
  auto key                    = [&](uint32_t a, uint32_t b) {
    const auto &x = jobs_[a], &y = jobs_[b];
    if (config_.order == GpuOrder::sjf && x.alone_s != y.alone_s)
      return x.alone_s < y.alone_s;
    if (config_.order == GpuOrder::smallest && x.gpus != y.gpus)
      return x.gpus < y.gpus;
    if (x.submit != y.submit)
      return x.submit < y.submit;
    return x.seq < y.seq;
  };
  std::stable_sort(order.begin(), order.end(), key);
  const bool strict = config_.order == GpuOrder::fifo && not config_.backfill;
  for (uint32_t j : order) {
    if (free_count_ == 0)
      break;
    if (not start(j) && strict)
      break;
  }
  return d;
}

} // namespace sgai::scheduling
