/* Events by time, those of one time in the order they were pushed: what a min-heap of (time,
 * sequence) gives, for a collective's work-out where thousands of events share each instant (ranks
 * in step, flows of one step ending together). A heap holds the distinct times only; each time has
 * its events in a list. Plain C++. */
#ifndef SGAI_PLUGINS_COMMUNICATOR_TIME_QUEUE_HPP
#define SGAI_PLUGINS_COMMUNICATOR_TIME_QUEUE_HPP

#include <algorithm>
#include <cstdint>
#include <functional>
#include <unordered_map>
#include <utility>
#include <vector>

namespace sgai::communicator {

template <class Item>
class TimeQueue {
public:
  bool empty() const { return times_.empty(); }
  /** The earliest time (not empty). */
  double when() const { return times_.front().first; }
  /** The first event pushed at that time (not empty). */
  const Item& front() const
  {
    const Bucket& b = buckets_[times_.front().second];
    return b.items[b.head];
  }
  void pop()
  {
    const uint32_t k = times_.front().second;
    Bucket& b        = buckets_[k];
    if (++b.head < b.items.size())
      return;
    std::pop_heap(times_.begin(), times_.end(), std::greater<>());
    times_.pop_back();
    of_time_.erase(b.when);
    b.items.clear(); // (its array is kept for another time)
    b.head = 0;
    free_.push_back(k);
    if (last_ == k)
      last_ = kNone;
  }
  void push(double when, const Item& item)
  {
    if (last_ == kNone || buckets_[last_].when != when) {
      auto [it, fresh] = of_time_.try_emplace(when, 0);
      if (fresh) {
        if (free_.empty()) {
          it->second = static_cast<uint32_t>(buckets_.size());
          buckets_.emplace_back();
        } else {
          it->second = free_.back();
          free_.pop_back();
        }
        buckets_[it->second].when = when;
        times_.emplace_back(when, it->second);
        std::push_heap(times_.begin(), times_.end(), std::greater<>());
      }
      last_ = it->second;
    }
    buckets_[last_].items.push_back(item);
  }

private:
  static constexpr uint32_t kNone = UINT32_MAX;
  struct Bucket {
    double when = 0;
    std::vector<Item> items; ///< in the order pushed, from head on
    size_t head = 0;
  };
  std::vector<Bucket> buckets_;
  std::vector<uint32_t> free_;
  std::vector<std::pair<double, uint32_t>> times_; ///< a min-heap of (time, bucket)
  std::unordered_map<double, uint32_t> of_time_;
  uint32_t last_ = kNone; ///< the bucket last pushed to
};

} // namespace sgai::communicator

#endif
