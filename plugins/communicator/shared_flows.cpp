#include "plugins/communicator/shared_flows.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <unordered_map>

namespace sgai::communicator {

namespace {

constexpr double kInf = std::numeric_limits<double>::infinity();

/** Two levels of a max-min round equal but for rounding. */
bool level_equals(double a, double b)
{
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

std::vector<double> max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links_of,
                                  double precision)
{
  const size_t n = flows.size();
  std::vector<double> rate(n, -1); // -1: not fixed yet
  // the links in use, numbered here, with their flows
  std::unordered_map<uint32_t, size_t> local;
  std::vector<double> remaining, bound_of;
  std::vector<char> fat;
  std::vector<std::vector<std::pair<size_t, double>>> on; // per link: (flow, weight)
  size_t left = n;
  for (size_t f = 0; f < n; f++) {
    for (const auto& [link, weight] : flows[f]->links) {
      auto [it, fresh] = local.emplace(link, on.size());
      if (fresh) {
        on.emplace_back();
        remaining.push_back(links_of.capacity.at(link));
        bound_of.push_back(links_of.capacity.at(link));
        fat.push_back(link < links_of.fatpipe.size() ? links_of.fatpipe[link] : 0);
      }
      on[it->second].emplace_back(f, weight);
    }
    if (flows[f]->links.empty()) {
      rate[f] = flows[f]->bound > 0 ? flows[f]->bound : kInf;
      left--;
    }
  }
  const size_t links = on.size();
  std::vector<char> full(links, 0);
  auto fix = [&](size_t f, double v) {
    rate[f] = v;
    left--;
    for (const auto& [link, weight] : flows[f]->links) {
      const size_t i = local.at(link);
      if (fat[i])
        continue; // (a fat pipe keeps its capacity for each flow)
      remaining[i] -= weight * v;
      if (remaining[i] <= bound_of[i] * precision) // (lmm: no longer positive within its precision)
        full[i] = 1;
    }
  };
  std::vector<double> share(links);
  while (left > 0) {
    // the level every unfixed flow reaches on each link (its share x its penalty), and the lowest
    double level = kInf;
    for (size_t i = 0; i < links; i++) {
      share[i] = kInf;
      if (full[i])
        continue;
      double usage = 0;
      for (const auto& [f, weight] : on[i])
        if (rate[f] < 0)
          usage = fat[i] ? std::max(usage, weight / flows[f]->penalty) : usage + weight / flows[f]->penalty;
      if (usage > 0) {
        share[i] = remaining[i] / usage;
        level    = std::min(level, share[i]);
      }
    }
    double bounded = kInf; // the lowest level at which an unfixed flow meets its own bound
    for (size_t f = 0; f < n; f++)
      if (rate[f] < 0 && flows[f]->bound > 0)
        bounded = std::min(bounded, flows[f]->bound * flows[f]->penalty);
    if (bounded < level && not level_equals(bounded, level)) {
      for (size_t f = 0; f < n; f++)
        if (rate[f] < 0 && flows[f]->bound > 0 && level_equals(flows[f]->bound * flows[f]->penalty, bounded))
          fix(f, flows[f]->bound);
      continue;
    }
    if (not std::isfinite(level)) { // what is left crosses only full links: stalled, as lmm leaves it
      for (size_t f = 0; f < n; f++)
        if (rate[f] < 0)
          rate[f] = 0;
      break;
    }
    // every link at the lowest level is saturated: its unfixed flows take their share
    std::vector<size_t> saturated;
    for (size_t i = 0; i < links; i++)
      if (std::isfinite(share[i]) && level_equals(share[i], level))
        saturated.push_back(i);
    for (size_t i : saturated)
      for (const auto& [f, weight] : on[i])
        if (rate[f] < 0) {
          const double v = level / flows[f]->penalty;
          fix(f, flows[f]->bound > 0 ? std::min(v, flows[f]->bound) : v);
        }
  }
  return rate;
}

std::vector<double> shared_finish_times(double start, const std::vector<SharedFlow>& flows, const SharedLinks& links,
                                        double precision)
{
  const size_t n = flows.size();
  std::vector<double> end(n, std::numeric_limits<double>::quiet_NaN());
  std::vector<double> remains(n);
  std::vector<size_t> waiting(n); // by the end of their latency
  for (size_t f = 0; f < n; f++) {
    remains[f] = flows[f].bytes;
    waiting[f] = f;
  }
  std::sort(waiting.begin(), waiting.end(), [&](size_t a, size_t b) {
    return flows[a].latency != flows[b].latency ? flows[a].latency < flows[b].latency : a < b;
  });
  size_t next_in = 0;
  std::vector<size_t> active;
  std::vector<const SharedFlow*> view;
  double t     = start;
  size_t ended = 0;
  while (ended < n) {
    // the flows whose latency is paid by t enter (an empty one ends there)
    while (next_in < n && start + flows[waiting[next_in]].latency <= t) {
      const size_t f = waiting[next_in++];
      if (remains[f] <= 0) {
        end[f] = t;
        ended++;
      } else
        active.push_back(f);
    }
    const double next_enter = next_in < n ? start + flows[waiting[next_in]].latency : kInf;
    if (active.empty()) {
      t = next_enter;
      continue;
    }
    view.clear();
    for (size_t f : active)
      view.push_back(&flows[f]);
    const std::vector<double> rate = max_min_rates(view, links, precision);
    double next                    = next_enter;
    for (size_t k = 0; k < active.size(); k++) {
      if (not(rate[k] > 0)) // stalled: SimGrid would wait for an event that never comes here
        return std::vector<double>(n, std::numeric_limits<double>::quiet_NaN());
      next = std::min(next, t + remains[active[k]] / rate[k]);
    }
    const double delta = next - t;
    std::vector<size_t> still;
    for (size_t k = 0; k < active.size(); k++) {
      const size_t f = active[k];
      if (t + remains[f] / rate[k] <= next) {
        end[f] = next;
        ended++;
      } else {
        remains[f] -= rate[k] * delta;
        still.push_back(f);
      }
    }
    active.swap(still);
    t = next;
  }
  return end;
}

} // namespace sgai::communicator
