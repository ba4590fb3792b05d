#include "chakra/feeder.hpp"

#include "core/foundation/error.hpp"

#include <algorithm>
#include <optional>
#include <unordered_set>

namespace sgai::chakra {

Feeder::Feeder(EtReader reader)
    : Feeder(std::move(reader), Options{})
{
}

Feeder::Feeder(EtReader reader, Options options)
    : reader_(std::move(reader))
    , options_(options)
{
  if (options_.window < 1)
    options_.window = 1;
  // grows with the trace: a replay holds one feeder per rank, most of them over small traces
  index_.reserve(std::min<size_t>(options_.window, 1024));
}

Feeder::Entry* Feeder::find(uint64_t id)
{
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &slots_[it->second];
}

const Feeder::Entry* Feeder::find(uint64_t id) const
{
  auto it = index_.find(id);
  return it == index_.end() ? nullptr : &slots_[it->second];
}

Feeder::Entry& Feeder::at(uint64_t id)
{
  return slots_[index_.at(id)];
}

bool Feeder::is_completed(uint64_t id) const
{
  auto it = completed_.upper_bound(id);
  if (it == completed_.begin())
    return false;
  --it;
  return id <= it->second;
}

void Feeder::mark_completed(uint64_t id)
{
  completed_count_++;
  auto next       = completed_.upper_bound(id);
  bool joins_prev = false;
  auto prev       = next;
  if (next != completed_.begin()) {
    prev       = std::prev(next);
    joins_prev = prev->second + 1 == id;
  }
  bool joins_next = next != completed_.end() && id + 1 == next->first;
  if (joins_prev && joins_next) {
    prev->second = next->second;
    completed_.erase(next);
  } else if (joins_prev) {
    prev->second = id;
  } else if (joins_next) {
    uint64_t last = next->second;
    completed_.erase(next);
    completed_.emplace(id, last);
  } else {
    completed_.emplace(id, id);
  }
}

void Feeder::admit(uint32_t slot, uint64_t offset)
{
  Entry& e    = slots_[slot];
  uint64_t id = e.node.id;
  if (index_.count(id) || is_completed(id)) {
    free_slots_.push_back(slot);
    throw InputError(reader_.name(), "byte " + std::to_string(offset), "duplicate node id " + std::to_string(id));
  }
  index_.emplace(id, slot);
  e.pending = 0;
  e.issued  = false;
  e.children.clear();
  auto add_parent = [&](uint64_t p, bool data) {
    if (p == id) {
      if (data)
        throw InputError(reader_.name(), "node " + std::to_string(id),
                         "dependency cycle: node " + std::to_string(id) + " has itself as a data dependency");
      ctrl_ignored_++; // a node listed among its own control parents
      return;
    }
    if (is_completed(p))
      return;
    if (Entry* parent = find(p))
      parent->children.push_back(slot);
    else
      waiting_on_[p].push_back({slot, data});
    e.pending++;
  };
  // each parent counts once, as data when it is both a data and a control parent
  const auto& data = e.node.data_deps;
  const auto& ctrl = e.node.ctrl_deps;
  if (data.size() + (options_.control ? ctrl.size() : 0) <= 8) {
    uint64_t seen[8];
    size_t n = 0;
    for (const auto* list : {&data, &ctrl})
      for (uint64_t p : *list) {
        if (list == &ctrl && not options_.control)
          break;
        if (std::find(seen, seen + n, p) != seen + n)
          continue;
        seen[n++] = p;
        add_parent(p, list == &data);
      }
  } else {
    std::unordered_set<uint64_t> seen;
    for (const auto* list : {&data, &ctrl})
      for (uint64_t p : *list)
        if ((list == &data || options_.control) && seen.insert(p).second)
          add_parent(p, list == &data);
  }
  // children read before this node waited for it
  if (auto w = waiting_on_.find(id); w != waiting_on_.end()) {
    for (const auto& c : w->second)
      e.children.push_back(c.child);
    waiting_on_.erase(w);
  }
  if (e.pending == 0)
    ready_.push_back(slot);
}

void Feeder::fill(size_t limit)
{
  for (size_t n = 0; n < limit && not eof_ && index_.size() < options_.window; n++) {
    uint64_t offset = reader_.offset();
    uint32_t slot;
    if (not free_slots_.empty()) {
      slot = free_slots_.back();
      free_slots_.pop_back();
    } else {
      slot = static_cast<uint32_t>(slots_.size());
      slots_.emplace_back();
    }
    if (not reader_.next(slots_[slot].node)) {
      free_slots_.push_back(slot);
      eof_ = true;
      break;
    }
    admit(slot, offset);
    if (not ready_.empty())
      break;
  }
}

const Node* Feeder::next_issuable()
{
  if (ready_.empty()) {
    // With nodes in flight, completions will release the waiting ones: read ahead only while fewer
    // than `lookahead` nodes wait. With nothing in flight, something must be found: read on.
    size_t waiting = index_.size() - in_flight_;
    fill(in_flight_ == 0 ? options_.window : (waiting < options_.lookahead ? options_.lookahead - waiting : 0));
  }
  if (ready_.empty()) {
    if (in_flight_ > 0 || index_.empty())
      return nullptr; // wait for completions, or done
    if (not release_missing_control())
      diagnose_stuck();
  }
  uint32_t slot = ready_.front();
  ready_.pop_front();
  Entry& e = slots_[slot];
  e.issued = true;
  in_flight_++;
  return &e.node;
}

void Feeder::complete(uint64_t id)
{
  auto it = index_.find(id);
  if (it == index_.end() || not slots_[it->second].issued)
    throw std::logic_error("Feeder::complete(" + std::to_string(id) + "): this node was not issued");
  for (uint32_t c : slots_[it->second].children)
    if (--slots_[c].pending == 0)
      ready_.push_back(c);
  free_slots_.push_back(it->second);
  index_.erase(it);
  in_flight_--;
  mark_completed(id);
}

const Node* Feeder::lookup(uint64_t id) const
{
  const Entry* e = find(id);
  return e ? &e->node : nullptr;
}

bool Feeder::finished()
{
  if (not ready_.empty() || in_flight_ > 0)
    return false;
  fill(options_.window);
  return eof_ && index_.empty();
}

bool Feeder::release_missing_control()
{
  // Nothing can run: the parents still awaited are either further in the file than the window
  // reaches or absent. Control edges to them are dropped (counted); data edges are not.
  size_t before = ready_.size();
  for (auto it = waiting_on_.begin(); it != waiting_on_.end();) {
    auto& list = it->second;
    for (size_t i = 0; i < list.size();) {
      if (list[i].data) {
        i++;
        continue;
      }
      Entry& child = slots_[list[i].child];
      ctrl_ignored_++;
      if (--child.pending == 0)
        ready_.push_back(list[i].child);
      list[i] = list.back();
      list.pop_back();
    }
    it = list.empty() ? waiting_on_.erase(it) : std::next(it);
  }
  std::sort(ready_.begin() + static_cast<std::ptrdiff_t>(before), ready_.end(),
            [&](uint32_t a, uint32_t b) { return slots_[a].node.id < slots_[b].node.id; }); // deterministic order
  return ready_.size() > before;
}

void Feeder::diagnose_stuck()
{
  if (not eof_)
    throw InputError(reader_.name(), "byte " + std::to_string(reader_.offset()),
                     "no node is issuable among the " + std::to_string(index_.size()) +
                         " read ahead: parents come later than the window allows (raise the window) or the "
                         "trace has a cycle");
  // A parent that never appeared?
  if (not waiting_on_.empty()) {
    auto it        = std::min_element(waiting_on_.begin(), waiting_on_.end(),
                                      [](const auto& a, const auto& b) { return a.first < b.first; });
    uint64_t child = UINT64_MAX;
    for (const auto& w : it->second)
      child = std::min(child, slots_[w.child].node.id);
    throw InputError(reader_.name(), "node " + std::to_string(child),
                     "node " + std::to_string(child) + " depends on node " + std::to_string(it->first) +
                         ", which is not in the trace");
  }
  // Otherwise every waiting node waits on another waiting node: follow parents to a cycle.
  uint64_t start = index_.begin()->first;
  for (const auto& [id, slot] : index_)
    start = std::min(start, id);
  bool through_control = false;
  auto waiting_parent  = [&](uint64_t id) -> std::optional<std::pair<uint64_t, bool>> {
    const Node& n = at(id).node;
    for (const auto* list : {&n.data_deps, &n.ctrl_deps}) {
      if (list == &n.ctrl_deps && not options_.control)
        break;
      for (uint64_t p : *list)
        if (const Entry* e = find(p); e && not e->issued)
          return std::pair{p, list == &n.ctrl_deps};
    }
    return std::nullopt;
  };
  std::vector<uint64_t> path;
  std::vector<bool> control_edge;
  std::unordered_map<uint64_t, size_t> at;
  uint64_t cur = start;
  while (not at.count(cur)) {
    at[cur] = path.size();
    path.push_back(cur);
    auto next = waiting_parent(cur);
    if (not next)
      break;
    control_edge.push_back(next->second);
    cur = next->first;
  }
  std::string cycle;
  size_t from = at.count(cur) ? at[cur] : 0;
  for (size_t i = from; i < path.size(); i++) {
    cycle += std::to_string(path[i]) + " -> ";
    through_control = through_control || (i < control_edge.size() && control_edge[i]);
  }
  cycle += std::to_string(cur);
  throw InputError(reader_.name(), "node " + std::to_string(cur),
                   "dependency cycle: " + cycle +
                       (through_control ? " (through control dependencies: traces converted from PyTorch record the "
                                          "call hierarchy there; replay them on data dependencies only: --deps data)"
                                        : ""));
}

std::optional<Deps> deps_from_string(std::string_view text)
{
  if (text == "auto")
    return Deps::automatic;
  if (text == "all")
    return Deps::all;
  if (text == "data")
    return Deps::data;
  return std::nullopt;
}

bool pytorch_converted(const GlobalMetadata& metadata)
{
  return metadata.attr("pid") && metadata.attr("start_ts") && metadata.attr("finish_ts");
}

bool follow_control(Deps deps, const GlobalMetadata& metadata)
{
  switch (deps) {
  case Deps::all:
    return true;
  case Deps::data:
    return false;
  case Deps::automatic:
    break;
  }
  return not pytorch_converted(metadata);
}

} // namespace sgai::chakra
