#include "core/scheduling/conservative.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <limits>

namespace sgai::scheduling {

namespace {
constexpr double kInf = std::numeric_limits<double>::infinity();

/** first_fit: slices intersected whole before going word by word. */
constexpr size_t kRows = 8;
} // namespace

ReservationSchedule::ReservationSchedule(uint32_t cores, double now)
    : cores_(cores)
    , nf_((cores + 63) / 64)
    , nw_((nf_ + 63) / 64)
{
  own_dense_.assign(nf_, 0);
  by_core_.resize(cores);
  start_empty(now);
}

void ReservationSchedule::start_empty(double now)
{
  slices_.assign(1, Slice{now, 0, 0});
  counts_.assign(1, cores_);
  free_slots_.clear();
  bits_.assign(nf_ + nw_, ~uint64_t{0}); // slot 0: every core free
  if (cores_ % 64 != 0)
    bits_[nf_ - 1] = (uint64_t{1} << (cores_ % 64)) - 1;
  if (nf_ % 64 != 0)
    bits_[nf_ + nw_ - 1] = (uint64_t{1} << (nf_ % 64)) - 1;
  touched(0);
}

void ReservationSchedule::keep_only(const std::vector<uint32_t>& jobs)
{
  std::vector<std::pair<uint32_t, Reservation>> kept;
  for (uint32_t job : jobs)
    if (auto it = reservations_.find(job); it != reservations_.end())
      kept.emplace_back(job, std::move(it->second));
  reservations_.clear();
  for (auto& on : by_core_)
    on.clear();
  freed_.clear();
  start_empty(now());
  for (auto& [job, r] : kept)
    reserve(job, r.start, r.end, std::move(r.cores));
}

uint32_t ReservationSchedule::copy_slot(uint32_t from)
{
  const size_t stride = nf_ + nw_;
  uint32_t slot;
  if (not free_slots_.empty()) {
    slot = free_slots_.back();
    free_slots_.pop_back();
  } else {
    slot = static_cast<uint32_t>(bits_.size() / stride);
    bits_.resize(bits_.size() + stride);
  }
  std::copy_n(bits_.begin() + static_cast<std::ptrdiff_t>(from * stride), stride,
              bits_.begin() + static_cast<std::ptrdiff_t>(slot * stride));
  return slot;
}

size_t ReservationSchedule::slice_of(double t) const
{
  auto it = std::upper_bound(slices_.begin(), slices_.end(), t, [](double v, const Slice& s) { return v < s.begin; });
  return it == slices_.begin() ? 0 : static_cast<size_t>(it - slices_.begin()) - 1;
}

void ReservationSchedule::advance(double now)
{
  if (not(now > slices_.front().begin))
    return;
  size_t i = slice_of(now);
  for (size_t k = 0; k < i; k++)
    free_slots_.push_back(slices_[k].slot);
  slices_.erase(slices_.begin(), slices_.begin() + static_cast<std::ptrdiff_t>(i));
  counts_.erase(counts_.begin(), counts_.begin() + static_cast<std::ptrdiff_t>(i));
  touched(0);
  slices_.front().begin = now;
}

size_t ReservationSchedule::split_at(double t)
{
  if (t == kInf)
    return slices_.size();
  size_t i = slice_of(t);
  if (not(t > slices_[i].begin))
    return i;
  Slice tail{t, 0, copy_slot(slices_[i].slot)};
  slices_.insert(slices_.begin() + static_cast<std::ptrdiff_t>(i + 1), tail);
  counts_.insert(counts_.begin() + static_cast<std::ptrdiff_t>(i + 1), counts_[i]);
  touched(i + 1);
  return i + 1;
}

void ReservationSchedule::merge_with_previous(size_t i)
{
  if (i == 0 || i >= slices_.size() || slices_[i].edges > 0)
    return;
  assert(std::equal(free_of(slices_[i - 1]), free_of(slices_[i - 1]) + nf_, free_of(slices_[i])));
  free_slots_.push_back(slices_[i].slot);
  slices_.erase(slices_.begin() + static_cast<std::ptrdiff_t>(i));
  counts_.erase(counts_.begin() + static_cast<std::ptrdiff_t>(i));
  touched(i);
}

void ReservationSchedule::to_words(const std::vector<uint32_t>& cores, std::vector<Word>& out)
{
  // A job's cores are few words (the lowest-numbered are contiguous), in order but for cores
  // chosen for memory.
  out.clear();
  bool sorted = true;
  for (uint32_t c : cores) {
    uint64_t bit = uint64_t{1} << (c & 63);
    if (not out.empty() && out.back().index == c >> 6) {
      out.back().bits |= bit;
    } else {
      sorted = sorted && (out.empty() || out.back().index < c >> 6);
      out.push_back({c >> 6, bit});
    }
  }
  if (sorted)
    return;
  std::sort(out.begin(), out.end(), [](const Word& a, const Word& b) { return a.index < b.index; });
  size_t m = 0;
  for (const Word& w : out)
    if (m > 0 && out[m - 1].index == w.index)
      out[m - 1].bits |= w.bits;
    else
      out[m++] = w;
  out.resize(m);
}

void ReservationSchedule::apply(const std::vector<uint32_t>& cores, double start, double end, bool take)
{
  bool start_edge = not(start < now()); // a running job's start is in the past
  start           = std::max(start, now());
  if (not(end > start))
    return;
  size_t first = split_at(start);
  size_t last  = split_at(end);
  // Slice boundaries are where reservations begin or end (batsched's): counted in `edges`.
  auto edge = [&](size_t i) {
    if (i >= slices_.size())
      return;
    if (take)
      slices_[i].edges++;
    else if (slices_[i].edges > 0)
      slices_[i].edges--;
  };
  if (start_edge)
    edge(first);
  edge(last);
  to_words(cores, masks_);
  auto n = static_cast<uint32_t>(cores.size());
  touched(first);
  for (size_t k = first; k < last; k++) {
    uint64_t* free  = free_of(slices_[k]);
    uint64_t* words = words_of(slices_[k]);
    for (const Word& w : masks_) {
      uint64_t& word = free[w.index];
      assert((take ? word & w.bits : ~word & w.bits) == w.bits);
      word ^= w.bits;
      uint64_t nonzero = uint64_t{1} << (w.index & 63);
      if (word == 0)
        words[w.index >> 6] &= ~nonzero;
      else
        words[w.index >> 6] |= nonzero;
    }
    counts_[k] = take ? counts_[k] - n : counts_[k] + n;
  }
  // A boundary where nothing begins or ends any more goes.
  merge_with_previous(last);
  merge_with_previous(first);
}

std::optional<ReservationSchedule::Fit> ReservationSchedule::first_fit(uint32_t width, double duration, size_t from,
                                                                       const Reservation* own, bool all) const
{
  const size_t n = slices_.size();
  // The job's own reservation, as if it were not there: its cores count as free in the slices
  // [own_first, own_last) (its start and end are slice boundaries).
  size_t own_first = n, own_last = n;
  uint32_t own_count = 0;
  if (own != nullptr && own->end > now()) {
    own_first = slice_of(std::max(own->start, now()));
    own_last  = own->end == kInf ? n : slice_of(own->end);
    assert(slices_[own_first].begin == std::max(own->start, now()));
    assert(own_last == n || slices_[own_last].begin == own->end);
    own_count = static_cast<uint32_t>(own->cores.size());
    to_words(own->cores, own_words_);
    for (const Word& w : own_words_)
      own_dense_[w.index] = w.bits;
  }
  auto mine      = [&](size_t j) { return own_first <= j && j < own_last; };
  auto count_of  = [&](size_t j) { return counts_[j] + (mine(j) ? own_count : 0); };
  auto free_word = [&](size_t j, uint32_t k) { return free_of(slices_[j])[k] | (mine(j) ? own_dense_[k] : 0); };
  // Candidates &= the free cores of slice j: whether at least `width` remain.
  auto intersect = [&](size_t j) {
    uint32_t count = 0;
    size_t kept    = 0;
    for (const Word& w : candidates_)
      if (uint64_t bits = w.bits & free_word(j, w.index)) {
        candidates_[kept++] = {w.index, bits};
        if (count < width) // enough is enough: counting the rest would not change the outcome
          count += ones(bits);
      }
    candidates_.resize(kept);
    return count >= width;
  };
  // Anchors i in order; the window [i, last) only grows at both ends. `fewest` holds the window's
  // slices by increasing free cores (a monotone queue from `head`): its first is intersected
  // first, to fail fast. `low`: the last slice seen with fewer than `width` free cores: every
  // anchor whose window holds it fails.
  update_blocks();
  std::optional<Fit> found;
  fewest_.clear();
  size_t head = 0;
  size_t last = from;
  size_t low  = n;
  for (size_t i = from; i < n && not found;) {
    if (last <= i) {
      // A fresh window: its anchor, then its far end first (in a busy schedule a slice without
      // `width` free cores is found there at once, and every anchor up to it fails), walking back.
      if (count_of(i) < width) { // the next anchor with enough free cores, on the dense counts
        for (i++; i < n && counts_[i] < width && not mine(i);)
          i += (i % kBlock == 0 && block_max_[i / kBlock] < width && (i + kBlock <= own_first || i >= own_last))
                   ? kBlock // a whole block of slices without enough free cores
                   : 1;
        continue;
      }
      double end = slices_[i].begin + duration;
      auto past  = std::lower_bound(slices_.begin() + static_cast<std::ptrdiff_t>(i), slices_.end(), end,
                                    [](const Slice& s, double t) { return s.begin < t; });
      size_t k   = std::max(i, static_cast<size_t>(past - slices_.begin()) - 1); // the window's last slice
      while (k > i && count_of(k) >= width)
        k--;
      if (k > i) {
        i = k + 1;
        continue;
      }
      last = i;
      fewest_.clear();
      head = 0;
    }
    double window_end = slices_[i].begin + duration;
    for (; last < n && (last == i || slices_[last].begin < window_end); last++) {
      uint32_t count = count_of(last);
      if (count < width)
        low = last;
      while (fewest_.size() > head && count_of(fewest_.back()) >= count)
        fewest_.pop_back();
      fewest_.push_back(last);
    }
    if (low < n && low >= i) {
      i = low + 1;
      continue;
    }
    while (fewest_[head] < i)
      head++;
    const size_t tightest = fewest_[head];
    candidates_.clear();
    const uint64_t* first_free  = free_of(slices_[i]);
    const uint64_t* first_words = words_of(slices_[i]);
    for (size_t w = 0; w < nw_; w++)
      for (uint64_t bits = first_words[w]; bits != 0; bits &= bits - 1) {
        auto k = static_cast<uint32_t>(w * 64) + static_cast<uint32_t>(std::countr_zero(bits));
        candidates_.push_back({k, first_free[k]});
      }
    if (mine(i)) { // the own cores' words, merged in
      size_t m = candidates_.size();
      for (const Word& w : own_words_)
        candidates_.push_back(w);
      std::inplace_merge(candidates_.begin(), candidates_.begin() + static_cast<std::ptrdiff_t>(m), candidates_.end(),
                         [](const Word& a, const Word& b) { return a.index < b.index; });
      size_t k = 0;
      for (const Word& w : candidates_)
        if (k > 0 && candidates_[k - 1].index == w.index)
          candidates_[k - 1].bits |= w.bits;
        else
          candidates_[k++] = w;
      candidates_.resize(k);
    }
    // Slice by slice over the tightest and the first few of the window (most failures show
    // there), then word by word, the lowest first, each over the rest of the window until it has
    // no core left: done as soon as `width` cores are found (unless `all` are wanted).
    const size_t rows = std::min(last, i + 1 + kRows);
    bool fits         = tightest == i || intersect(tightest);
    for (size_t j = i + 1; fits && j < rows; j++)
      if (j != tightest)
        fits = intersect(j);
    uint32_t count = 0;
    size_t kept    = 0;
    for (size_t c = 0; fits && c < candidates_.size() && (count < width || all); c++) {
      uint64_t bits = candidates_[c].bits;
      for (size_t j = rows; bits != 0 && j < last; j++)
        bits &= free_word(j, candidates_[c].index);
      if (bits != 0) {
        candidates_[kept++] = {candidates_[c].index, bits};
        count += ones(bits);
      }
    }
    if (fits && count >= width) {
      candidates_.resize(kept);
      found.emplace(Fit{slices_[i].begin, {}});
      found->cores.reserve(width);
      for (const Word& w : candidates_)
        for (uint64_t bits = w.bits; bits != 0 && found->cores.size() < width; bits &= bits - 1)
          found->cores.push_back(w.index * 64 + static_cast<uint32_t>(std::countr_zero(bits)));
    }
    i++;
  }
  for (const Word& w : own_words_)
    own_dense_[w.index] = 0;
  own_words_.clear();
  return found;
}

void ReservationSchedule::update_blocks() const
{
  const size_t n = counts_.size(), blocks = (n + kBlock - 1) / kBlock;
  block_max_.resize(blocks);
  for (size_t b = std::min(blocks_from_, n) / kBlock; b < blocks; b++)
    block_max_[b] = *std::max_element(counts_.begin() + static_cast<std::ptrdiff_t>(b * kBlock),
                                      counts_.begin() + static_cast<std::ptrdiff_t>(std::min(n, (b + 1) * kBlock)));
  blocks_from_ = SIZE_MAX;
}

CoreSet ReservationSchedule::last_candidates() const
{
  CoreSet out(cores_);
  for (const Word& w : candidates_)
    for (uint64_t bits = w.bits; bits != 0; bits &= bits - 1)
      out.set(w.index * 64 + static_cast<uint32_t>(std::countr_zero(bits)));
  return out;
}

void ReservationSchedule::reserve(uint32_t job, double start, double end, std::vector<uint32_t> cores)
{
  assert(reservations_.count(job) == 0);
  apply(cores, start, end, true);
  for (uint32_t c : cores) {
    auto& on = by_core_[c];
    on.insert(std::upper_bound(on.begin(), on.end(), Held{start, end, job}), Held{start, end, job});
  }
  reservations_[job] = Reservation{start, end, std::move(cores), false, seq_};
}

bool ReservationSchedule::remove(uint32_t job)
{
  auto it = reservations_.find(job);
  if (it == reservations_.end())
    return false;
  Reservation gone = std::move(it->second);
  reservations_.erase(it);
  apply(gone.cores, gone.start, gone.end, false);
  for (uint32_t c : gone.cores) {
    auto& on = by_core_[c];
    auto at  = std::lower_bound(on.begin(), on.end(), Held{gone.start, gone.end, job});
    while (at != on.end() && at->job != job)
      ++at;
    assert(at != on.end());
    on.erase(at);
  }
  // (the freed cores are looked at when a job asks may_move: a job moving earlier is taken out,
  // then placed again, and what it leaves free is only known then)
  if (double from = std::max(gone.start, now()); from < gone.end)
    freed_.push_back({std::move(gone.cores), from, gone.end});
  return true;
}

void ReservationSchedule::mark_movable(const std::vector<uint32_t>& cores, double from, double to)
{
  const double a = std::max(from, now());
  if (not(a < to))
    return;
  // The maximal free intervals of the freed cores that meet [a, to). A job holding a freed core
  // where such an interval ends may grow into it (marked); any other job may take one that begins
  // at or before its start and lasts at least its requested time (the opening: the earliest
  // beginning and the longest length, an over-estimate).
  double lo_min = kInf, longest = 0;
  for (uint32_t c : cores) {
    const auto& on = by_core_[c];
    // From the last reservation beginning at or before a (those before it end before a).
    auto k = std::upper_bound(on.begin(), on.end(), Held{a, kInf, 0});
    if (k != on.begin())
      --k;
    double lo = now();
    for (; k != on.end() && k->start < to; ++k) {
      if (k->start > lo && k->start > a) { // the gap [lo, start) meets [a, to): k holds c after it
        lo_min                          = std::min(lo_min, lo);
        longest                         = std::max(longest, k->start - lo);
        reservations_.at(k->job).marked = true;
      }
      lo = std::max(lo, k->end);
    }
    if (lo < to) {
      lo_min  = std::min(lo_min, lo);
      longest = std::max(longest, k == on.end() ? kInf : k->start - lo);
      if (k != on.end())
        reservations_.at(k->job).marked = true;
    }
  }
  if (lo_min < kInf)
    openings_.push_back({++seq_, lo_min, longest});
}

void ReservationSchedule::look_at_freed()
{
  for (const Freed& f : freed_)
    mark_movable(f.cores, f.from, f.to);
  freed_.clear();
}

bool ReservationSchedule::may_move(const Reservation& r)
{
  look_at_freed();
  if (r.marked)
    return true;
  // (a hair shorter: a window that first_fit's own arithmetic would find is never missed)
  const double enough = (r.end - r.start) * (1 - 1e-9);
  auto o              = std::upper_bound(openings_.begin(), openings_.end(), r.seen,
                                         [](uint64_t v, const Opening& x) { return v < x.seq; });
  for (; o != openings_.end(); ++o)
    if (o->lo <= r.start && o->length >= enough) // a window there starts before the job's, or holds it
      return true;
  proven_unchanged_++;
  return false;
}

void ReservationSchedule::confirm(const Reservation& r) const
{
  r.marked = false;
  r.seen   = seq_;
}

void ReservationSchedule::forget_openings(uint64_t seq)
{
  auto o =
      std::upper_bound(openings_.begin(), openings_.end(), seq, [](uint64_t v, const Opening& x) { return v < x.seq; });
  openings_.erase(openings_.begin(), o);
}

const ReservationSchedule::Reservation* ReservationSchedule::find(uint32_t job) const
{
  auto it = reservations_.find(job);
  return it == reservations_.end() ? nullptr : &it->second;
}

CoreSet ReservationSchedule::free_at(double t) const
{
  CoreSet out(cores_);
  const uint64_t* words = free_of(slices_[slice_of(std::max(t, now()))]);
  for (size_t k = 0; k < nf_; k++)
    for (uint64_t bits = words[k]; bits != 0; bits &= bits - 1)
      out.set(static_cast<uint32_t>(k * 64) + static_cast<uint32_t>(std::countr_zero(bits)));
  return out;
}

} // namespace sgai::scheduling
