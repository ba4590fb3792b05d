/* Slurm's main scheduler, backfill pass and multifactor priority (slurm.hpp; semantics from
 * Slurm's job_scheduler.c, plugins/sched/backfill/backfill.c, plugins/priority/multifactor and
 * fair_tree.c, docs/batch.md). */
#include "core/scheduling/slurm.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <map>
#include <numeric>
#include <optional>
#include <unordered_map>

namespace sgai::scheduling {

namespace {

/** Backfill's map of the cores over time (Slurm's node_space, at core granularity): slots from
 *  `now`, each with the cores available over it. */
class NodeSpace {
public:
  /** The free cores now; each running job's cores become available at its end. */
  NodeSpace(double now, const CoreSet& free_now, std::vector<std::pair<double, const std::vector<uint32_t>*>> frees)
      : size_(free_now.size())
      , w_(free_now.words().size())
  {
    std::sort(frees.begin(), frees.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
    push(now, free_now.words().data());
    for (const auto& [t, cores] : frees) {
      if (t == kInf)
        break;
      if (t > begin_.back())
        push(t, row(begin_.size() - 1));
      uint64_t* r = row(begin_.size() - 1);
      for (uint32_t c : *cores)
        r[c >> 6] |= uint64_t{1} << (c & 63);
      count_.back() = ones_of(r);
    }
  }

  /** Marks `cores` unavailable over [a, b) (b may be infinity). */
  void occupy(const CoreSet& cores, double a, double b)
  {
    a = std::max(a, begin_.front());
    if (not(b > a))
      return;
    size_t first = split(a), last = split(b);
    const uint64_t* c = cores.words().data();
    for (size_t i = first; i < last; i++) {
      uint64_t* r = row(i);
      for (size_t k = 0; k < w_; k++)
        r[k] &= ~c[k];
      count_[i] = ones_of(r);
    }
  }

  /** The earliest slot start at which `w` cores of `allowed` stay available for `d`, with them. */
  std::optional<std::pair<double, CoreSet>> first_fit(uint32_t w, double d, const CoreSet& allowed)
  {
    const uint64_t* al = allowed.words().data();
    cand_.resize(w_);
    for (size_t i = 0; i < begin_.size(); i++) {
      if (count_[i] < w)
        continue;
      const uint64_t* r = row(i);
      for (size_t k = 0; k < w_; k++)
        cand_[k] = r[k] & al[k];
      if (ones_of(cand_.data()) < w)
        continue;
      double end = begin_[i] + d;
      bool fits  = true;
      for (size_t j = i + 1; j < begin_.size() && begin_[j] < end; j++) {
        if (count_[j] < w) {
          fits = false;
          break;
        }
        const uint64_t* rj = row(j);
        for (size_t k = 0; k < w_; k++)
          cand_[k] &= rj[k];
        if (ones_of(cand_.data()) < w) {
          fits = false;
          break;
        }
      }
      if (fits)
        return std::pair{begin_[i], CoreSet(size_, cand_)};
    }
    return std::nullopt;
  }

private:
  uint32_t size_;
  size_t w_;                    ///< words a row
  std::vector<double> begin_;   ///< slots' beginnings
  std::vector<uint32_t> count_; ///< cores available over each
  std::vector<uint64_t> rows_;  ///< the available cores of each slot, w_ words a slot
  std::vector<uint64_t> cand_;

  uint64_t* row(size_t i) { return rows_.data() + i * w_; }
  uint32_t ones_of(const uint64_t* r) const
  {
    uint32_t n = 0;
    for (size_t k = 0; k < w_; k++)
      n += ones(r[k]);
    return n;
  }
  void push(double t, const uint64_t* words)
  {
    std::vector<uint64_t> copy(words, words + w_); // (words may be a row of rows_ itself)
    begin_.push_back(t);
    rows_.insert(rows_.end(), copy.begin(), copy.end());
    count_.push_back(ones_of(copy.data()));
  }
  size_t split(double t)
  {
    if (t == kInf)
      return begin_.size();
    size_t i = static_cast<size_t>(std::upper_bound(begin_.begin(), begin_.end(), t) - begin_.begin());
    if (begin_[i - 1] == t) // (slot i - 1 holds t)
      return i - 1;
    begin_.insert(begin_.begin() + static_cast<std::ptrdiff_t>(i), t);
    count_.insert(count_.begin() + static_cast<std::ptrdiff_t>(i), count_[i - 1]);
    std::vector<uint64_t> copy(row(i - 1), row(i - 1) + w_);
    rows_.insert(rows_.begin() + static_cast<std::ptrdiff_t>(i * w_), copy.begin(), copy.end());
    return i;
  }
};
} // namespace

// ------------------------------------------------------------------------------------------- setup

std::shared_ptr<const SlurmSetup> make_slurm_setup(const SlurmConf& conf, const SlurmAssociations* associations,
                                                   const Resources& resources, const std::vector<SlurmJobKeys>& jobs,
                                                   const std::string& workload_file)
{
  auto s  = std::make_shared<SlurmSetup>();
  s->conf = conf;
  std::unordered_map<std::string, std::vector<uint32_t>> cores_of_host;
  for (uint32_t c = 0; c < resources.core_count(); c++)
    cores_of_host[resources.host_names[resources.cores[c].host]].push_back(c);
  std::map<std::string, uint32_t> partition_index;
  int64_t default_partition = -1;
  for (const auto& p : conf.partitions) {
    CoreSet set(resources.core_count(), p.all_nodes);
    for (const auto& host : p.nodes) {
      auto it = cores_of_host.find(host);
      if (it == cores_of_host.end()) {
        std::vector<std::string> known;
        for (const auto& h : resources.host_names)
          if (cores_of_host.count(h) && known.size() < 5)
            known.push_back(h);
        throw InputError(
            conf.file, "line " + std::to_string(p.line),
            "partition " + quote(p.name) + " names node " + quote(host) +
                ", which is no host of the platform's cores (they are on hosts such as " +
                [&] {
                  std::string l;
                  for (const auto& k : known)
                    l += (l.empty() ? "" : ", ") + quote(k);
                  return l;
                }() +
                ")");
      }
      for (uint32_t c : it->second)
        set.set(c);
    }
    partition_index[p.name] = static_cast<uint32_t>(s->partition_cores.size());
    if (p.is_default)
      default_partition = static_cast<int64_t>(s->partition_cores.size());
    s->partition_cores.push_back(std::move(set));
    s->max_job_factor = std::max(s->max_job_factor, p.job_factor);
  }
  std::map<std::string, uint32_t> user_index;
  for (const auto& j : jobs)
    if (not user_index.count(j.user)) {
      user_index.emplace(j.user, static_cast<uint32_t>(s->users.size()));
      s->users.push_back(j.user);
    }
  if (associations) {
    s->associations = *associations;
  } else {
    std::vector<std::string> named;
    for (const auto& u : s->users)
      if (not u.empty())
        named.push_back(u);
    s->associations = flat_associations(named);
  }
  for (const auto& [name, priority] : s->associations.qos_priority)
    s->max_qos_priority = std::max(s->max_qos_priority, priority);
  std::map<std::string, bool> unassociated;
  for (const auto& j : jobs) {
    SlurmJob sj;
    auto fail = [&](const std::string& m) { throw InputError(workload_file, "job " + quote(j.id), m); };
    if (j.partition.empty()) {
      if (default_partition < 0)
        fail("names no partition, and " + conf.file + " has no Default=YES partition");
      sj.partition = static_cast<uint32_t>(default_partition);
    } else {
      auto it = partition_index.find(j.partition);
      if (it == partition_index.end())
        fail("names partition " + quote(j.partition) + ", which " + conf.file + " does not define");
      sj.partition = it->second;
    }
    if (not j.qos.empty() && j.qos != "normal") {
      auto it = s->associations.qos_priority.find(j.qos);
      if (it == s->associations.qos_priority.end())
        fail("names QOS " + quote(j.qos) + ", which " + s->associations.file +
             " does not define (a `QOS - 'name':Priority=N` line)");
      sj.qos_priority = it->second;
    } else if (auto it = s->associations.qos_priority.find("normal"); it != s->associations.qos_priority.end()) {
      sj.qos_priority = it->second;
    }
    sj.user        = user_index.at(j.user);
    sj.association = j.user.empty() ? -1 : s->associations.user_association(j.user, j.group);
    if (sj.association < 0)
      unassociated[j.user.empty() ? "(no user)" : j.user] = true;
    s->jobs.push_back(sj);
  }
  for (const auto& [u, _] : unassociated)
    s->unassociated.push_back(u);
  return s;
}

// ------------------------------------------------------------------------------------------- model

struct SlurmModel::Impl {
  const SlurmSetup& s;
  uint32_t cores;
  uint32_t nodes_total = 1;
  double decay         = 1; ///< per second: 1 - 0.693 / half-life
  struct Run {
    uint32_t cpus;
    double start;
    double limit;
    std::vector<uint32_t> cores;
  };
  std::unordered_map<uint32_t, Run> running;
  std::vector<double> usage;                 ///< by association (every ancestor carries its descendants')
  std::vector<double> fs;                    ///< fair-share factor by association
  std::vector<double> lf;                    ///< Fair Tree's level fair-share by association (scratch)
  bool fs_stale = false;                     ///< usage changed since fs was computed
  std::vector<std::vector<uint32_t>> sorted; ///< Fair Tree's children of each association, in its order
  std::vector<double> priority;              ///< by job
  std::vector<double> submit_of;             ///< by job
  std::vector<uint32_t> cpus_of;             ///< by job
  std::vector<uint32_t> tier;                ///< by job: its partition's PriorityTier
  std::vector<uint64_t> arrival_of;
  std::vector<char> waiting;      ///< by job
  std::vector<uint32_t> position; ///< by job: its place in the queue at the step
  std::vector<uint32_t> ranked;   ///< the waiting jobs in order at the last ranking (some may have left)
  double last_tick = 0, next_tick = 0;
  uint32_t user_associations = 0;
  // when the schedulers look again
  bool event_for_main         = false; ///< a submission or an end since the main scheduler's last run
  bool order_changed          = false; ///< the ranking changed since the main scheduler's last run
  double last_main            = 0;
  double first_change         = kInf; ///< the first change since the last backfill pass
  double last_pass            = 0;
  uint32_t max_cores_per_node = 1;

  const Resources& r;

  Impl(const SlurmSetup& setup, const Resources& res)
      : s(setup)
      , cores(res.core_count())
      , r(res)
  {
    if (s.conf.decay_half_life_s > 0)
      decay = 1 - 0.693 / s.conf.decay_half_life_s;
    usage.assign(s.associations.nodes.size(), 0);
    sorted.resize(s.associations.nodes.size());
    fs.assign(s.associations.nodes.size(), 0);
    priority.assign(s.jobs.size(), 0);
    submit_of.assign(s.jobs.size(), 0);
    cpus_of.assign(s.jobs.size(), 0);
    tier.resize(s.jobs.size());
    arrival_of.assign(s.jobs.size(), 0);
    waiting.assign(s.jobs.size(), 0);
    position.assign(s.jobs.size(), 0);
    for (size_t j = 0; j < s.jobs.size(); j++)
      tier[j] = s.conf.partitions[s.jobs[j].partition].tier;
    for (const auto& node : s.associations.nodes)
      user_associations += node.user ? 1 : 0;
    next_tick   = s.conf.calc_period_s;
    nodes_total = std::max<uint32_t>(1, static_cast<uint32_t>(r.nodes.size()));
    for (const auto& node : r.nodes)
      max_cores_per_node = std::max(max_cores_per_node, node.cores);
    fair_tree();
  }

  void change(double t) { first_change = std::min(first_change, t); }

  /** Usage of `cpus` over `run` seconds, to the association and its ancestors (Slurm's
   *  _apply_new_usage: run x decay^run x cpus). */
  void add_usage(int64_t assoc, double cpus, double run)
  {
    if (assoc < 0 || not(run > 0))
      return;
    double u = run * std::pow(decay, run) * cpus;
    for (auto a = static_cast<uint32_t>(assoc);; a = s.associations.nodes[a].parent) {
      usage[a] += u;
      if (a == 0)
        break;
    }
  }

  /** Fair Tree (fair_tree.c): level fair-share S / U by siblings, ranked depth first. */
  void fair_tree()
  {
    const auto& nodes = s.associations.nodes;
    double rank = user_associations, rnt = user_associations;
    lf.resize(nodes.size());
    auto level = [&](auto&& self, uint32_t parent, bool tied_in) -> void {
      const auto& kids    = nodes[parent].children;
      double level_shares = 0;
      for (uint32_t c : kids)
        level_shares += nodes[c].shares;
      for (uint32_t c : kids) {
        double S = level_shares > 0 ? nodes[c].shares / level_shares : 0;
        double U = usage[parent] > 0 ? usage[c] / usage[parent] : 0;
        lf[c]    = S == 0 ? 0 : U == 0 ? kInf : S / U;
      }
      // by level fair-share, users before accounts, then as defined: a total order, kept per level
      // between calculations and sorted again by insertion (the order moves little between them)
      std::vector<uint32_t>& order = sorted[parent];
      if (order.size() != kids.size())
        order.assign(kids.begin(), kids.end());
      auto before = [&](uint32_t a, uint32_t b) {
        if (lf[a] != lf[b])
          return lf[a] > lf[b];
        if (nodes[a].user != nodes[b].user)
          return nodes[a].user;
        return a < b;
      };
      for (size_t i = 1; i < order.size(); i++)
        for (size_t k = i; k > 0 && before(order[k], order[k - 1]); k--)
          std::swap(order[k], order[k - 1]);
      for (size_t i = 0; i < order.size(); i++) {
        uint32_t c = order[i];
        bool tied  = i == 0 ? tied_in : lf[c] == lf[order[i - 1]];
        if (nodes[c].user) {
          if (not tied)
            rank = rnt;
          fs[c] = user_associations > 0 ? rank / user_associations : 0;
          rnt--;
        } else {
          self(self, c, tied);
        }
      }
    };
    level(level, 0, false);
  }

  double job_priority(uint32_t job, double now)
  {
    if (fs_stale && s.conf.weight_fairshare > 0) {
      fair_tree();
      fs_stale = false;
    }
    const SlurmJob& j = s.jobs[job];
    if (not s.conf.multifactor)
      return 0; // priority/basic: submission order alone
    const SlurmConf& c = s.conf;
    double age         = std::clamp((now - submit_of[job]) / c.max_age_s, 0.0, 1.0);
    double cpus        = cpus_of[job];
    double min_nodes   = std::ceil(cpus / max_cores_per_node);
    double js =
        c.favor_small
            ? ((min_nodes >= nodes_total ? 0 : (nodes_total - min_nodes) / nodes_total) + (cores - cpus) / cores) / 2
            : (min_nodes / nodes_total + cpus / cores) / 2;
    js          = std::clamp(js, 0.0, 1.0);
    double part = c.partitions[j.partition].job_factor / s.max_job_factor;
    double qos  = s.max_qos_priority > 0 ? j.qos_priority / s.max_qos_priority : 0;
    double fsf  = j.association >= 0 ? fs[static_cast<size_t>(j.association)] : 0;
    double p    = c.weight_age * age + c.weight_job_size * js + c.weight_fairshare * fsf + c.weight_partition * part +
               c.weight_qos * qos;
    return std::floor(std::clamp(p, 1.0, 4294967295.0));
  }

  /** The decay thread's passes due by `now`: decay, running jobs' new usage, Fair Tree, every
   *  waiting job's priority. */
  void catch_up(double now, std::span<const QueuedJob> queue)
  {
    if (not s.conf.multifactor) {
      next_tick = kInf;
      return;
    }
    while (next_tick <= now) {
      double t     = next_tick;
      double delta = t - last_tick;
      double f     = std::pow(decay, delta);
      for (double& u : usage)
        u *= f;
      for (const auto& [job, run] : running)
        add_usage(s.jobs[job].association, run.cpus, t - std::max(run.start, last_tick));
      fs_stale = true; // (Fair Tree is computed when a priority needs it: the same factors, fewer times)
      // the ranking changed when the last one, under the new priorities, is no longer in order
      for (const auto& q : queue)
        priority[q.job] = job_priority(q.job, t);
      std::erase_if(ranked, [&](uint32_t j) { return not waiting[j]; });
      for (size_t i = 1; i < ranked.size(); i++)
        if (after(ranked[i - 1], ranked[i])) {
          order_changed = true;
          change(t);
          std::sort(ranked.begin(), ranked.end(), [&](uint32_t a, uint32_t b) { return after(b, a); });
          break;
        }
      last_tick = t;
      next_tick = t + s.conf.calc_period_s;
    }
  }

  /** Whether job x comes after job y in Slurm's order: partition PriorityTier, priority,
   *  submission, arrival. */
  bool after(uint32_t x, uint32_t y) const
  {
    if (tier[x] != tier[y])
      return tier[x] < tier[y];
    if (priority[x] != priority[y])
      return priority[x] < priority[y];
    if (submit_of[x] != submit_of[y])
      return submit_of[x] > submit_of[y];
    return arrival_of[x] > arrival_of[y];
  }

  double pass_due() const
  {
    if (first_change == kInf)
      return kInf;
    double earliest = last_pass + s.conf.bf_interval_s;
    if (first_change <= earliest)
      return earliest;
    return earliest + std::ceil(first_change - earliest); // the agent looks again every second
  }
};

SlurmModel::SlurmModel(std::shared_ptr<const SlurmSetup> setup, const Resources& resources)
    : setup_(std::move(setup))
    , impl_(std::make_shared<Impl>(*setup_, resources))
{
}

bool SlurmModel::admits(const QueuedJob& q) const
{
  const SlurmJob& j       = setup_->jobs.at(q.job);
  const SlurmPartition& p = setup_->conf.partitions[j.partition];
  return p.up && q.demand.cores <= setup_->partition_cores[j.partition].count() && time_limit(q) <= p.max_time_s;
}

double SlurmModel::time_limit(const QueuedJob& q) const
{
  if (q.requested_time_s > 0 && q.requested_time_s < kInf)
    return q.requested_time_s;
  const SlurmPartition& p = setup_->conf.partitions[setup_->jobs.at(q.job).partition];
  return p.default_time_s >= 0 ? p.default_time_s : p.max_time_s;
}

double SlurmModel::limit_of(uint32_t job) const
{
  auto it = impl_->running.find(job);
  return it == impl_->running.end() ? kInf : it->second.limit;
}

double SlurmModel::priority(uint32_t job) const
{
  return impl_->priority.at(job);
}

void SlurmModel::submitted(const QueuedJob& q, double now, std::span<const QueuedJob> queue)
{
  Impl& m = *impl_;
  m.catch_up(now, queue);
  m.submit_of[q.job]  = q.submit_s;
  m.cpus_of[q.job]    = q.demand.cores;
  m.arrival_of[q.job] = q.arrival;
  m.waiting[q.job]    = 1;
  m.priority[q.job]   = m.job_priority(q.job, now);
  auto at =
      std::upper_bound(m.ranked.begin(), m.ranked.end(), q.job, [&](uint32_t a, uint32_t b) { return m.after(b, a); });
  m.ranked.insert(at, q.job);

  m.event_for_main = true;
  m.change(now);
}

void SlurmModel::started(uint32_t job, const std::vector<uint32_t>& cores, double now, double limit)
{
  impl_->running[job] = {static_cast<uint32_t>(cores.size()), now, limit, cores};
  impl_->waiting[job] = 0;
  impl_->change(now);
}

void SlurmModel::ended(uint32_t job, double now, std::span<const QueuedJob> queue)
{
  Impl& m = *impl_;
  auto it = m.running.find(job);
  if (it == m.running.end())
    return;
  m.catch_up(now, queue); // the ticks before this end see the job running
  m.add_usage(setup_->jobs[job].association, it->second.cpus, now - std::max(it->second.start, m.last_tick));
  m.running.erase(it);
  m.event_for_main = true;
  m.change(now);
}

std::vector<std::pair<size_t, std::vector<uint32_t>>> SlurmModel::step(double now, std::span<const QueuedJob> queue,
                                                                       const ClusterState& state, const Take& take)
{
  Impl& m = *impl_;
  m.catch_up(now, queue);
  std::vector<std::pair<size_t, std::vector<uint32_t>>> out;
  const SlurmConf& c = setup_->conf;
  bool event         = m.event_for_main;
  bool main_due      = event || (m.order_changed && now >= m.last_main + c.sched_interval_s);
  bool pass_due      = c.backfill && (c.bf_interval_s == 0 ? event : now >= m.pass_due());
  if (queue.empty() || not(main_due || pass_due)) {
    if (queue.empty()) { // nothing to look at: what changed is seen by the next look
      m.event_for_main = m.order_changed = false;
      if (c.bf_interval_s == 0)
        m.first_change = kInf;
    }
    return out;
  }
  // the ranking kept in order (submissions inserted, ticks re-sort it when it changed)
  std::erase_if(m.ranked, [&](uint32_t j) { return not m.waiting[j]; });
  for (size_t i = 0; i < queue.size(); i++)
    m.position[queue[i].job] = static_cast<uint32_t>(i);
  std::vector<uint32_t> order;
  order.reserve(queue.size());
  for (uint32_t j : m.ranked)
    order.push_back(m.position[j]);
  std::vector<char> gone(queue.size(), 0);
  uint32_t n = state.resources().core_count();
  auto start = [&](uint32_t i, std::vector<uint32_t> cores) {
    gone[i] = 1;
    started(queue[i].job, cores, now, time_limit(queue[i]));
    out.emplace_back(i, std::move(cores));
  };
  if (main_due) {
    // sched/builtin's loop: a partition whose job cannot start fails, its cores withdrawn for the
    // rest of the loop (so do the partitions overlapping them, at their next job that then lacks cores)
    CoreSet avail(n, state.free_words());
    std::vector<char> failed(c.partitions.size(), 0);
    size_t failures = 0;
    for (uint32_t i : order) {
      uint32_t p = setup_->jobs[queue[i].job].partition;
      if (failed[p])
        continue;
      CoreSet allowed = avail;
      allowed.intersect(setup_->partition_cores[p]);
      std::vector<uint32_t> cores;
      if (allowed.count() >= queue[i].demand.cores)
        cores = take(i, allowed);
      if (cores.empty()) {
        failed[p] = 1;
        avail.subtract(setup_->partition_cores[p]);
        if (++failures == failed.size())
          break; // every partition failed: no later job can start
        continue;
      }
      for (uint32_t core : cores)
        avail.reset(core);
      start(i, std::move(cores));
    }
    m.event_for_main = m.order_changed = false;
    m.last_main                        = now;
  }
  if (pass_due) {
    m.first_change = kInf;
    m.last_pass    = now;
    passes_++;
    backfill_pass(now, queue, state, order, gone, take, start);
  }
  return out;
}

std::vector<uint32_t> SlurmModel::tested(std::span<const QueuedJob> queue, const std::vector<uint32_t>& order,
                                         const std::vector<char>& gone) const
{
  // bf_max_job_user counts every job of the user looked at, bf_max_job_test every job tested:
  // neither depends on the map, so the jobs a pass tests are known before it plans any
  const SlurmConf& c = setup_->conf;
  std::unordered_map<uint32_t, uint32_t> per_user;
  std::vector<uint32_t> out;
  for (uint32_t i : order) {
    if (gone[i])
      continue;
    const SlurmJob& j = setup_->jobs[queue[i].job];
    if (c.bf_max_job_user > 0 && per_user[j.user]++ >= c.bf_max_job_user)
      continue;
    if (out.size() >= c.bf_max_job_test)
      break;
    out.push_back(i);
  }
  return out;
}

void SlurmModel::backfill_pass(double now, std::span<const QueuedJob> queue, const ClusterState& state,
                               const std::vector<uint32_t>& order, const std::vector<char>& gone, const Take& take,
                               const std::function<void(uint32_t, std::vector<uint32_t>)>& start)
{
  Impl& m            = *impl_;
  const SlurmConf& c = setup_->conf;
  const Resources& r = state.resources();
  uint32_t n         = r.core_count();
  // A job starts only if it fits on the free cores of its partition now; past the last tested job
  // that does (free cores only go), the pass would only plan: it stops there, a pass keeping nothing.
  std::vector<uint32_t> jobs = tested(queue, order, gone);
  size_t parts               = setup_->partition_cores.size();
  auto free_in               = [&]() {
    std::vector<uint32_t> f(parts);
    CoreSet free(n, state.free_words());
    for (size_t p = 0; p < parts; p++)
      f[p] = free.count_common(setup_->partition_cores[p]);
    return f;
  };
  std::vector<uint32_t> free_now = free_in();
  // least width of the tested jobs from k on, by partition (UINT32_MAX: none)
  std::vector<uint32_t> least((jobs.size() + 1) * parts, UINT32_MAX);
  for (size_t k = jobs.size(); k-- > 0;) {
    std::copy_n(least.begin() + static_cast<std::ptrdiff_t>((k + 1) * parts), parts,
                least.begin() + static_cast<std::ptrdiff_t>(k * parts));
    uint32_t& w = least[k * parts + setup_->jobs[queue[jobs[k]].job].partition];
    w           = std::min(w, queue[jobs[k]].demand.cores);
  }
  auto may_start_from = [&](size_t k) {
    for (size_t p = 0; p < parts; p++)
      if (least[k * parts + p] <= free_now[p])
        return true;
    return false;
  };
  if (not may_start_from(0))
    return;
  // running jobs hold their cores until their time limit ends (one that overran it: Slurm guesses
  // its end KillWait, 30 s, after its limit, and at least a second from now)
  std::vector<std::pair<double, const std::vector<uint32_t>*>> frees;
  frees.reserve(m.running.size());
  for (const auto& [job, run] : m.running) {
    double end = run.start + run.limit;
    if (end <= now)
      end = std::max(end + 30, now + 1);
    frees.emplace_back(end, &run.cores);
  }
  NodeSpace space(now, CoreSet(n, state.free_words()), std::move(frees));
  double res        = c.bf_resolution_s;
  double window_end = std::floor((now + c.bf_window_s) / res) * res;
  CoreSet whole(n);
  for (size_t k = 0; k < jobs.size(); k++) {
    if (not may_start_from(k))
      return;
    uint32_t i         = jobs[k];
    const QueuedJob& q = queue[i];
    const SlurmJob& j  = setup_->jobs[q.job];
    double limit       = time_limit(q);
    auto fit           = space.first_fit(q.demand.cores, limit, setup_->partition_cores[j.partition]);
    if (not fit || fit->first > window_end)
      continue; // beyond the window: no reservation
    if (fit->first <= now) {
      auto cores = take(i, fit->second);
      if (not cores.empty()) {
        CoreSet held(n);
        for (uint32_t core : cores)
          held.set(core);
        space.occupy(held, now, now + limit);
        start(i, std::move(cores));
        free_now = free_in();
        continue;
      }
    }
    // a reservation: the whole nodes of the lowest candidates, over the limit rounded to the
    // resolution (start down, end up), within the window
    double s = std::floor(fit->first / res) * res;
    double e = std::ceil((fit->first + limit) / res) * res;
    whole.assign_empty(n);
    uint32_t left = q.demand.cores;
    fit->second.for_each([&](uint32_t core) {
      if (left == 0)
        return;
      left--;
      const Node& node = r.nodes[r.cores[core].node];
      for (uint32_t x = node.first_core; x < node.first_core + node.cores; x++)
        whole.set(x);
    });
    space.occupy(whole, s, std::min(e, window_end));
  }
}

double SlurmModel::next_wake(double now, bool queue_empty) const
{
  const Impl& m = *impl_;
  if (queue_empty)
    return kInf;
  double t         = kInf;
  const auto& c    = setup_->conf;
  bool time_varies = c.multifactor && (c.weight_age > 0 || c.weight_fairshare > 0);
  if (time_varies)
    t = std::min(t, m.next_tick);
  if (m.order_changed)
    t = std::min(t, std::max(now, m.last_main + c.sched_interval_s));
  if (c.backfill && c.bf_interval_s > 0)
    t = std::min(t, std::max(now, m.pass_due()));
  return t;
}

} // namespace sgai::scheduling
