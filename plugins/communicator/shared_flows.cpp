#include "plugins/communicator/shared_flows.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cmath>
#include <limits>

namespace sgai::communicator {

namespace {

/** Two levels of a max-min round equal but for rounding. */
bool level_equals(double a, double b)
{
  return std::fabs(a - b) <= 1e-12 * std::max(std::fabs(a), std::fabs(b));
}

} // namespace

void max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links_of, double precision,
                   MaxMinScratch& m, std::vector<double>& rate)
{
  const size_t n = flows.size();
  rate.assign(n, -1); // -1: not fixed yet
  // the links in use, numbered here in the order the flows meet them, with their flows (CSR)
  if (++m.round == 0) {
    std::fill(m.stamp.begin(), m.stamp.end(), 0);
    m.round = 1;
  }
  m.global.clear();
  m.count.clear();
  size_t left = n;
  for (size_t f = 0; f < n; f++) {
    for (const auto& [link, weight] : flows[f]->links) {
      if (link >= m.stamp.size()) {
        m.stamp.resize(link + 1, 0);
        m.local.resize(link + 1, 0);
      }
      if (m.stamp[link] != m.round) {
        m.stamp[link] = m.round;
        m.local[link] = static_cast<uint32_t>(m.global.size());
        m.global.push_back(link);
        m.count.push_back(0);
      }
      m.count[m.local[link]]++;
    }
    if (flows[f]->links.empty()) {
      rate[f] = flows[f]->bound > 0 ? flows[f]->bound : kInf;
      left--;
    }
  }
  const size_t links = m.global.size();
  m.start.assign(links + 1, 0);
  for (size_t i = 0; i < links; i++)
    m.start[i + 1] = m.start[i] + m.count[i];
  m.entries.resize(m.start[links]);
  m.remaining.resize(links);
  m.bound.resize(links);
  m.fat.resize(links);
  m.full.assign(links, 0);
  m.share.resize(links);
  for (size_t i = 0; i < links; i++) {
    const uint32_t l = m.global[i];
    m.remaining[i]   = links_of.capacity.at(l);
    m.bound[i]       = m.remaining[i];
    m.fat[i]         = l < links_of.fatpipe.size() ? links_of.fatpipe[l] : 0;
    m.count[i]       = m.start[i]; // (the next place to fill)
  }
  for (size_t f = 0; f < n; f++)
    for (const auto& [link, weight] : flows[f]->links)
      m.entries[m.count[m.local[link]]++] = {static_cast<uint32_t>(f), weight};
  // each link's usage (the sum, or on a fat pipe the largest, of its unfixed flows' weight /
  // penalty) and unfixed flows, kept as flows are fixed (as lmm keeps them)
  m.usage.assign(links, 0);
  auto fat_usage = [&](size_t i) {
    double usage = 0;
    for (uint32_t e = m.start[i]; e < m.start[i + 1]; e++)
      if (rate[m.entries[e].first] < 0)
        usage = std::max(usage, m.entries[e].second / flows[m.entries[e].first]->penalty);
    return usage;
  };
  for (size_t i = 0; i < links; i++) {
    m.count[i] = m.start[i + 1] - m.start[i]; // (now: its unfixed flows)
    if (m.fat[i])
      m.usage[i] = fat_usage(i);
    else
      for (uint32_t e = m.start[i]; e < m.start[i + 1]; e++)
        m.usage[i] += m.entries[e].second / flows[m.entries[e].first]->penalty;
  }
  auto fix = [&](size_t f, double v) {
    rate[f] = v;
    left--;
    for (const auto& [link, weight] : flows[f]->links) {
      const size_t i = m.local[link];
      m.count[i]--;
      if (m.fat[i]) { // (a fat pipe keeps its capacity for each flow)
        m.usage[i] = fat_usage(i);
        continue;
      }
      m.remaining[i] -= weight * v;
      m.usage[i] -= weight / flows[f]->penalty;
      if (m.remaining[i] <= m.bound[i] * precision) // (lmm: no longer positive within its precision)
        m.full[i] = 1;
    }
  };
  while (left > 0) {
    // the level every unfixed flow reaches on each link (its share x its penalty), and the lowest
    double level = kInf;
    for (size_t i = 0; i < links; i++) {
      m.share[i] = kInf;
      if (m.full[i] || m.count[i] == 0 || not(m.usage[i] > 0))
        continue;
      m.share[i] = m.remaining[i] / m.usage[i];
      level      = std::min(level, m.share[i]);
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
    m.saturated.clear();
    for (size_t i = 0; i < links; i++)
      if (std::isfinite(m.share[i]) && level_equals(m.share[i], level))
        m.saturated.push_back(static_cast<uint32_t>(i));
    for (uint32_t i : m.saturated)
      for (uint32_t e = m.start[i]; e < m.start[i + 1]; e++) {
        const uint32_t f = m.entries[e].first;
        if (rate[f] < 0) {
          const double v = level / flows[f]->penalty;
          fix(f, flows[f]->bound > 0 ? std::min(v, flows[f]->bound) : v);
        }
      }
  }
}

std::vector<double> max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links,
                                  double precision)
{
  MaxMinScratch scratch;
  std::vector<double> rate;
  max_min_rates(flows, links, precision, scratch, rate);
  return rate;
}

FlowNetwork::FlowNetwork(const SharedLinks& links, double precision, bool fat_pipes_exact, double time_precision,
                         bool added_in_simgrids_order)
    : links_(links)
    , precision_(precision)
    , time_precision_(time_precision)
    , fat_pipes_exact_(fat_pipes_exact)
    , added_in_simgrids_order_(added_in_simgrids_order)
{
}

uint32_t FlowNetwork::add(double now, const SharedFlow& f, double lone_end)
{
  uint32_t id = 0;
  if (not free_.empty()) {
    id = free_.back();
    free_.pop_back();
  } else {
    id = static_cast<uint32_t>(flows_.size());
    flows_.emplace_back();
    mark_.push_back(0);
    in_part_.push_back(0);
  }
  now_        = std::max(now_, now);
  Flow& x     = flows_[id];
  x.f.latency = f.latency; // (the slot's arrays keep their capacity)
  x.f.bytes   = f.bytes;
  x.f.penalty = f.penalty;
  x.f.bound   = f.bound;
  x.f.links.assign(f.links.begin(), f.links.end());
  x.remains  = x.f.bytes;
  x.rate     = 0;
  x.last     = now;
  x.lone_end = lone_end;
  x.live     = true;
  x.active   = false;
  x.shared   = false;
  x.version++;
  x.slot.resize(x.f.links.size());
  for (size_t k = 0; k < x.f.links.size(); k++) {
    const uint32_t l = x.f.links[k].first;
    if (l >= on_link_.size()) {
      on_link_.resize(l + 1);
      on_link_k_.resize(l + 1);
    }
    auto& users = on_link_[l];
    if (not users.empty()) { // they meet: none of them ends at its lone time
      x.shared = true;
      // (with two or more, each was marked when the second came)
      if (users.size() == 1) {
        flows_[users[0]].shared = true;
        stalled_                = stalled_ || not(flows_[users[0]].f.bytes > 0);
      }
      const bool fat = l < links_.fatpipe.size() && links_.fatpipe[l] != 0;
      stalled_       = stalled_ || not(x.f.bytes > 0) || (fat && not fat_pipes_exact_);
    }
    x.slot[k] = static_cast<uint32_t>(users.size());
    users.push_back(id);
    on_link_k_[l].push_back(static_cast<uint32_t>(k));
  }
  live_++;
  if (x.f.latency > 0) {
    heap_.push_back({now + x.f.latency, seq_++, id, x.version, true});
    std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
  } else { // its bandwidth phase from now on
    x.active = true;
    if (x.f.links.empty())
      bare_.push_back(id);
  }
  // (lmm marks each link of a new flow, in the route's order, even while the flow pays its latency)
  for (const auto& [l, w] : flows_[id].f.links)
    mark(l);
  return id;
}

void FlowNetwork::push_end(uint32_t id, double now)
{
  const Flow& x = flows_[id];
  double at     = now;
  if (x.remains > 0)
    at = now + x.remains / x.rate;
  heap_.push_back({at, seq_++, id, x.version, false});
  std::push_heap(heap_.begin(), heap_.end(), std::greater<>());
}

template <class Active, class Reached>
void FlowNetwork::closure(uint32_t l, std::vector<uint32_t>& link_round, std::vector<uint32_t>& flow_round,
                          uint32_t round, Active active, Reached reached)
{
  if (link_round[l] == round)
    return;
  link_round[l] = round;
  reached(l);
  stack_.assign(1, l);
  while (not stack_.empty()) {
    const uint32_t c = stack_.back();
    stack_.pop_back();
    for (uint32_t g : on_link_[c]) {
      if (not active(g) || flow_round[g] == round)
        continue;
      flow_round[g] = round;
      for (const auto& [d, w] : flows_[g].f.links)
        if (link_round[d] != round) {
          link_round[d] = round;
          reached(d);
          stack_.push_back(d);
        }
    }
  }
}

void FlowNetwork::mark(uint32_t l)
{
  // lmm::System::update_modified_cnst_set: a link already marked this round is not visited again,
  // so a flow that entered its bandwidth phase on it since is not followed to its other links
  if (link_mark_.size() < on_link_.size())
    link_mark_.resize(on_link_.size(), 0);
  closure(
      l, link_mark_, mark_, round_, [this](uint32_t g) { return flows_[g].active; },
      [this](uint32_t d) { marked_.push_back(d); });
}

bool FlowNetwork::enter_order_matters(size_t before)
{
  round_b_++;
  link_b_.resize(on_link_.size(), 0);
  for (auto* v : {&entering_b_, &active_b_, &visit_b_})
    v->resize(flows_.size(), 0);
  for (size_t i = 0; i < before; i++)
    link_b_[marked_[i]] = round_b_;
  for (const auto& [g, at] : entered_)
    entering_b_[g] = round_b_;
  auto active = [&](uint32_t g) { return entering_b_[g] == round_b_ ? active_b_[g] == round_b_ : flows_[g].active; };
  auto mark_b = [&](uint32_t l) { closure(l, link_b_, visit_b_, round_b_, active, [](uint32_t) {}); };
  for (size_t i = 0; i < entered_.size();) { // each run of equal times, last first
    size_t j = i;
    while (j < entered_.size() && entered_[j].second == entered_[i].second)
      j++;
    for (size_t k = j; k-- > i;) {
      const uint32_t g = entered_[k].first;
      active_b_[g]     = round_b_;
      mark_b(flows_[g].f.links[0].first);
    }
    i = j;
  }
  size_t count = 0;
  for (uint32_t l = 0; l < link_b_.size(); l++)
    count += link_b_[l] == round_b_ ? 1 : 0;
  if (count != marked_.size())
    return true;
  for (uint32_t l : marked_)
    if (link_b_[l] != round_b_)
      return true;
  return false;
}

template <class Marked>
void FlowNetwork::shares(const std::vector<uint32_t>& links, Marked marked, std::vector<uint32_t>& part,
                         std::vector<double>& rate)
{
  part_round_++;
  part.clear();
  for (uint32_t l : links)
    for (uint32_t g : on_link_[l])
      if (flows_[g].active && in_part_[g] != part_round_) {
        in_part_[g] = part_round_;
        part.push_back(g);
      }
  for (uint32_t g : bare_)
    if (flows_[g].live && flows_[g].active && in_part_[g] != part_round_) {
      in_part_[g] = part_round_;
      part.push_back(g);
    }
  std::sort(part.begin(), part.end()); // (the same order whatever the order of the changes)
  size_t cuts = 0;
  for (uint32_t g : part)
    for (const auto& [l, w] : flows_[g].f.links)
      if (not marked(l)) {
        cuts++;
        break;
      }
  cut_.clear();
  cut_.reserve(cuts); // (view_ points into it)
  view_.clear();
  for (uint32_t g : part) {
    const SharedFlow& f = flows_[g].f;
    bool whole          = true;
    for (const auto& [l, w] : f.links)
      whole = whole && marked(l);
    if (whole) {
      view_.push_back(&f);
      continue;
    }
    SharedFlow& c = cut_.emplace_back();
    c.latency     = f.latency;
    c.bytes       = f.bytes;
    c.penalty     = f.penalty;
    c.bound       = f.bound;
    for (const auto& lw : f.links)
      if (marked(lw.first))
        c.links.push_back(lw);
    view_.push_back(&c);
  }
  if (not part.empty())
    max_min_rates(view_, links_, precision_, scratch_, rate);
}

void FlowNetwork::solve(double now)
{
  // lmm's selective update: the flows under way on the links marked this round, sharing only those
  // links (a flow's link left unmarked does not bound it this time, as in SimGrid's lazy update)
  std::vector<uint32_t>& part = part_;
  shares(
      marked_, [this](uint32_t l) { return link_mark_[l] == round_; }, part, rate_);
  if (check_b_) { // the other order of the enters: every flow must get the same share
    check_b_ = false;
    round_b_++;
    for (size_t i = after_enters_; i < marked_.size(); i++)
      links_b_.push_back(marked_[i]);
    for (uint32_t l : links_b_)
      link_b_[l] = round_b_;
    link_b_.resize(on_link_.size(), 0);
    shares(
        links_b_, [this](uint32_t l) { return link_b_[l] == round_b_; }, part_b_, rate_b_);
    auto same = [](double a, double b) { return a == b || std::abs(a - b) <= 1e-9 * std::max(a, b); };
    // (a flow in one part only keeps its share in the other)
    size_t a = 0, b = 0;
    while (a < part.size() || b < part_b_.size()) {
      const uint32_t fa = a < part.size() ? part[a] : UINT32_MAX, fb = b < part_b_.size() ? part_b_[b] : UINT32_MAX;
      const double ra = fa <= fb ? rate_[a] : flows_[fb].rate, rb = fb <= fa ? rate_b_[b] : flows_[fa].rate;
      stalled_ = stalled_ || not same(ra, rb);
      a += fa <= fb ? 1 : 0;
      b += fb <= fa ? 1 : 0;
    }
  }
  bare_.clear();
  marked_.clear();
  round_++;
  const std::vector<double>& rate = rate_;
  for (size_t k = 0; k < part.size(); k++) {
    Flow& x = flows_[part[k]];
    if (x.rate == rate[k] && x.rate > 0)
      continue; // (its end stays where it was)
    if (x.rate > 0) {
      x.remains -= x.rate * (now - x.last);
      if (x.remains < 0)
        x.remains = 0;
    }
    x.last = now;
    x.rate = rate[k];
    x.version++;
    if (not(x.rate > 0) && x.remains > 0) {
      stalled_ = true; // SimGrid would wait for an event that never comes
      continue;
    }
    push_end(part[k], now);
  }
}

double FlowNetwork::next_event()
{
  if (not marked_.empty() || not bare_.empty())
    solve(now_);
  return peek();
}

double FlowNetwork::peek()
{
  if (stalled_)
    return std::numeric_limits<double>::quiet_NaN();
  while (not heap_.empty()) {
    const Event& e = heap_.front();
    const Flow& x  = flows_[e.flow];
    if (x.live && x.version == e.version && (e.enter ? not x.active : x.active))
      return e.at;
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
  }
  return kInf;
}

void FlowNetwork::remove(uint32_t id)
{
  Flow& x = flows_[id];
  for (size_t k = 0; k < x.f.links.size(); k++) {
    const uint32_t l     = x.f.links[k].first;
    auto& users          = on_link_[l];
    auto& places         = on_link_k_[l];
    const uint32_t moved = users.back(), moved_k = places.back();
    users[x.slot[k]]            = moved;
    places[x.slot[k]]           = moved_k;
    flows_[moved].slot[moved_k] = x.slot[k]; // (the flow itself when it was the last)
    users.pop_back();
    places.pop_back();
  }
  if (x.shared)
    shared_count_++;
  x.live   = false;
  x.active = false;
  x.version++;
  free_.push_back(id);
  live_--;
}

void FlowNetwork::advance(double t, std::vector<std::pair<uint32_t, double>>& ended)
{
  if (t > now_ && (not marked_.empty() || not bare_.empty()))
    solve(now_);
  now_ = std::max(now_, t);
  // As SimGrid's engine: all that falls within the time precision of t happens at t, in the heap's
  // order; a flow entering its bandwidth phase marks its first link then (lmm enables it), a flow
  // that ended marks its first link after every event of the instant (its communication is
  // destroyed then) and leaves; then shares are solved.
  popped_.clear();
  entered_.clear();
  const size_t marked_before = marked_.size();
  while (true) {
    const double next = peek();
    if (not(next <= t + time_precision_))
      break;
    const Event e = heap_.front();
    std::pop_heap(heap_.begin(), heap_.end(), std::greater<>());
    heap_.pop_back();
    Flow& x = flows_[e.flow];
    if (e.enter) {
      x.active = true;
      x.last   = now_;
      x.rate   = 0;
      if (e.at > now_)
        x.lone_end = -1; // (its bandwidth phase starts at the instant, before its lone-flow time says)
      if (x.f.links.empty())
        bare_.push_back(e.flow);
      else {
        mark(x.f.links[0].first);
        entered_.emplace_back(e.flow, e.at);
      }
      continue;
    }
    x.version++;                               // (its end is out of the heap: no other comes out)
    popped_.emplace_back(e.flow, e.at > now_); // (early: it ends at the instant, not at its own time)
  }
  bool ties = false;
  for (size_t i = 1; i < entered_.size() && not added_in_simgrids_order_; i++)
    ties = ties || entered_[i].second == entered_[i - 1].second;
  if (ties && enter_order_matters(marked_before)) {
    if (check_b_)
      stalled_ = true; // (a second such instant before the shares are worked out: not followed)
    check_b_ = true;
    links_b_.clear();
    for (uint32_t l = 0; l < link_b_.size(); l++)
      if (link_b_[l] == round_b_)
        links_b_.push_back(l);
    after_enters_ = marked_.size();
  }
  for (const auto& [id, early] : popped_) {
    Flow& x = flows_[id];
    if (not x.f.links.empty())
      mark(x.f.links[0].first);
    ended.emplace_back(id, x.shared || x.lone_end < 0 || early ? now_ : x.lone_end);
    remove(id);
  }
}

std::vector<double> shared_finish_times(double start, const std::vector<SharedFlow>& flows, const SharedLinks& links,
                                        double precision)
{
  const size_t n = flows.size();
  std::vector<double> end(n, std::numeric_limits<double>::quiet_NaN());
  FlowNetwork net(links, precision);
  for (const SharedFlow& f : flows)
    net.add(start, f); // (numbered 0 to n - 1: nothing has ended yet)
  std::vector<std::pair<uint32_t, double>> ended;
  while (true) {
    const double t = net.next_event();
    if (std::isnan(t))
      return std::vector<double>(n, std::numeric_limits<double>::quiet_NaN());
    if (std::isinf(t))
      break;
    ended.clear();
    net.advance(t, ended);
    for (const auto& [f, at] : ended)
      end[f] = at;
  }
  return end;
}

} // namespace sgai::communicator
