#include "core/scheduling/conservative.hpp"

#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <cmath>
#include <functional>
#include <iterator>
#include <limits>
#include <tuple>

namespace sgai::scheduling {

namespace {

/** Calls f(j) for each bit j set in `bits`, lowest first. */
template <typename F>
void each_bit(uint64_t bits, F f)
{
  for (; bits != 0; bits &= bits - 1)
    f(static_cast<uint32_t>(std::countr_zero(bits)));
}
} // namespace

ReservationSchedule::ReservationSchedule(uint32_t cores, double now, ScheduleLayout layout)
    : cores_(cores)
    , words_((cores + 63) / 64)
    , now_(now)
{
  narrow_ = cores <= SliceProfile::kMaxCores &&
            (layout == ScheduleLayout::slices || (layout == ScheduleLayout::automatic && cores > 0));
  if (narrow_)
    slices_.reset(cores, now);
  while (leaves_ < std::max<size_t>(words_, 1))
    leaves_ *= 2;
  by_word_.resize(words_);
  marks_.assign(words_, 0);
  start_empty();
}

void ReservationSchedule::start_empty()
{
  // Every core one gap, open now and for ever.
  now_a_.assign(cores_, -kInf);
  now_b_.assign(cores_, kInf);
  tree_.assign(2 * leaves_, -kInf);
  for (size_t k = 0; k < words_; k++)
    tree_[leaves_ + k] = kInf;
  for (size_t k = leaves_ - 1; k >= 1; k--)
    tree_[k] = std::max(tree_[2 * k], tree_[2 * k + 1]);
  blocks_.clear();
}

void ReservationSchedule::keep_only(const std::vector<uint32_t>& jobs)
{
  std::vector<std::pair<uint32_t, Reservation>> kept;
  for (uint32_t job : jobs)
    if (Reservation* r = slot(job))
      kept.emplace_back(job, std::move(*r));
  std::fill(present_.begin(), present_.end(), uint8_t{0});
  count_ = 0;
  for (auto& on : by_word_)
    on.clear();
  forget_freed();
  if (narrow_)
    slices_.reset(cores_, now_);
  else
    start_empty();
  for (auto& [job, r] : kept)
    reserve(job, r.start, r.end, std::move(r.cores));
}

std::vector<double> ReservationSchedule::edges() const
{
  std::vector<double> out;
  for (size_t job = 0; job < present_.size(); job++) {
    if (present_[job] == 0)
      continue;
    for (double t : {reservations_[job].start, reservations_[job].end})
      if (t > now_ && t != kInf)
        out.push_back(t);
  }
  std::sort(out.begin(), out.end());
  out.erase(std::unique(out.begin(), out.end()), out.end());
  return out;
}

void ReservationSchedule::advance(double now)
{
  if (not(now > now_))
    return;
  now_ = now;
  if (narrow_) {
    slices_.advance(now);
    return;
  }
  // The gaps that began since are open now (in time order: a core's latest one wins).
  std::vector<uint32_t>& touched = touched_;
  touched.clear();
  size_t k = 0;
  for (; k < blocks_.size(); k++) {
    auto& g  = blocks_[k].groups;
    auto end = std::find_if(g.begin(), g.end(), [&](const GapGroup& x) { return x.a > now; });
    for (auto it = g.begin(); it != end; ++it)
      for (const Word& w : it->words) {
        each_bit(w.bits, [&](uint32_t j) {
          now_a_[w.index * 64 + j] = it->a;
          now_b_[w.index * 64 + j] = it->b;
        });
        touched.push_back(w.index);
      }
    if (end != g.end()) {
      g.erase(g.begin(), end);
      blocks_[k].measure();
      blocks_[k].refirst();
      break;
    }
  }
  blocks_.erase(blocks_.begin(), blocks_.begin() + static_cast<std::ptrdiff_t>(k));
  std::sort(touched.begin(), touched.end());
  touched.erase(std::unique(touched.begin(), touched.end()), touched.end());
  for (uint32_t w : touched)
    refresh_word(w);
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

// ------------------------------------------------------------------------------ gaps open now

void ReservationSchedule::refresh_word(uint32_t k)
{
  double m        = -kInf;
  const size_t hi = std::min<size_t>(cores_, (size_t{k} + 1) * 64);
  for (size_t c = size_t{k} * 64; c < hi; c++)
    m = std::max(m, now_b_[c]);
  size_t n = leaves_ + k;
  tree_[n] = m;
  for (n /= 2; n >= 1; n /= 2) {
    double up = std::max(tree_[2 * n], tree_[2 * n + 1]);
    if (tree_[n] == up)
      break;
    tree_[n] = up;
  }
}

void ReservationSchedule::open_now(double until, size_t limit, std::vector<std::pair<double, uint32_t>>& out) const
{
  // Depth first, left to right, into the subtrees holding a gap long enough.
  auto visit = [&](auto& self, size_t n) -> void {
    if (out.size() >= limit || not(tree_[n] >= until))
      return;
    if (n >= leaves_) {
      const size_t k = n - leaves_, hi = std::min<size_t>(cores_, (k + 1) * 64);
      for (size_t c = k * 64; c < hi && out.size() < limit; c++)
        if (now_b_[c] >= until)
          out.emplace_back(now_b_[c], static_cast<uint32_t>(c));
      return;
    }
    self(self, 2 * n);
    self(self, 2 * n + 1);
  };
  visit(visit, 1);
}

// ----------------------------------------------------------------------- gaps beginning later

void ReservationSchedule::GapBlock::measure()
{
  longest = 0;
  for (const GapGroup& g : groups)
    longest = std::max(longest, g.b - g.a);
}

size_t ReservationSchedule::block_of(double a, double b) const
{
  // The last block whose first group is not after (a, b) (the first block if none).
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), std::make_pair(a, b),
                             [](const std::pair<double, double>& k, const GapBlock& blk) {
                               return k < std::make_pair(blk.first_a, blk.first_b);
                             });
  return it == blocks_.begin() ? 0 : static_cast<size_t>(it - blocks_.begin()) - 1;
}

void ReservationSchedule::sort_changes(std::vector<Change>& v)
{
  // (in order already when the cores share their neighbours, as a wide job's mostly do) The
  // changes of one word and one gap are made one.
  auto less = [](const Change& x, const Change& y) { return std::tie(x.a, x.b, x.word) < std::tie(y.a, y.b, y.word); };
  if (not std::is_sorted(v.begin(), v.end(), less))
    std::sort(v.begin(), v.end(), less);
  size_t m = 0;
  for (const Change& c : v)
    if (m > 0 && v[m - 1].a == c.a && v[m - 1].b == c.b && v[m - 1].word == c.word)
      v[m - 1].bits |= c.bits;
    else
      v[m++] = c;
  v.resize(m);
}

namespace {
bool group_before(double a1, double b1, double a2, double b2)
{
  return a1 < a2 || (a1 == a2 && b1 < b2);
}
} // namespace

void ReservationSchedule::add_gap(const Change* from, const Change* to)
{
  const double a = from->a, b = from->b;
  if (not(a > now_)) { // open now (or ended before now: the core is busy now)
    for (const Change* c = from; c != to; ++c) {
      each_bit(c->bits, [&](uint32_t j) {
        const uint32_t core = c->word * 64 + j;
        if (a >= now_a_[core] || now_b_[core] == -kInf) {
          now_a_[core] = a;
          now_b_[core] = b;
        }
      });
      refresh_word(c->word);
    }
    return;
  }
  uint32_t count = 0;
  for (const Change* c = from; c != to; ++c)
    count += ones(c->bits);
  if (blocks_.empty()) {
    GapGroup fresh{a, b, {}, count};
    for (const Change* c = from; c != to; ++c)
      fresh.words.push_back({c->word, c->bits});
    blocks_.push_back(GapBlock{{std::move(fresh)}, b - a, a, b});
    return;
  }
  size_t k = block_of(a, b);
  auto& g  = blocks_[k].groups;
  auto at  = std::lower_bound(
       g.begin(), g.end(), std::make_pair(a, b),
       [](const GapGroup& y, const std::pair<double, double>& x) { return group_before(y.a, y.b, x.first, x.second); });
  if (at == g.end() || at->a != a || at->b != b) {
    at                 = g.insert(at, GapGroup{a, b, {}, 0});
    blocks_[k].longest = std::max(blocks_[k].longest, b - a);
    if (at == g.begin())
      blocks_[k].refirst();
  }
  // (the words merged: both lists by index)
  std::vector<Word>& words = at->words;
  if (words.empty() || words.back().index < from->word) {
    for (const Change* c = from; c != to; ++c)
      words.push_back({c->word, c->bits});
  } else {
    std::vector<Word>& merged = merged_;
    merged.clear();
    auto w = words.begin();
    for (const Change* c = from; c != to; ++c) {
      for (; w != words.end() && w->index < c->word; ++w)
        merged.push_back(*w);
      if (w != words.end() && w->index == c->word) {
        assert((w->bits & c->bits) == 0);
        merged.push_back({c->word, w->bits | c->bits});
        ++w;
      } else {
        merged.push_back({c->word, c->bits});
      }
    }
    merged.insert(merged.end(), w, words.end());
    words.assign(merged.begin(), merged.end());
  }
  at->count += count;
  if (g.size() > 2 * kGapBlock) { // split in two
    GapBlock tail;
    tail.groups.assign(std::make_move_iterator(g.begin() + kGapBlock), std::make_move_iterator(g.end()));
    g.resize(kGapBlock);
    blocks_[k].measure();
    tail.measure();
    tail.refirst();
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(k + 1), std::move(tail));
  }
}

void ReservationSchedule::drop_gap(const Change* from, const Change* to)
{
  const double a = from->a, b = from->b;
  if (not(a > now_)) {
    for (const Change* c = from; c != to; ++c) {
      each_bit(c->bits, [&](uint32_t j) {
        const uint32_t core = c->word * 64 + j;
        if (now_a_[core] == a && now_b_[core] == b)
          now_a_[core] = now_b_[core] = -kInf;
      });
      refresh_word(c->word);
    }
    return;
  }
  size_t k = block_of(a, b);
  assert(k < blocks_.size());
  auto& g = blocks_[k].groups;
  auto at = std::lower_bound(
      g.begin(), g.end(), std::make_pair(a, b),
      [](const GapGroup& y, const std::pair<double, double>& x) { return group_before(y.a, y.b, x.first, x.second); });
  assert(at != g.end() && at->a == a && at->b == b);
  auto w = at->words.begin();
  for (const Change* c = from; c != to; ++c) {
    while (w->index < c->word)
      ++w;
    assert(w->index == c->word && (w->bits & c->bits) == c->bits);
    w->bits &= ~c->bits;
    at->count -= ones(c->bits);
  }
  if (at->count > 0) {
    std::erase_if(at->words, [](const Word& x) { return x.bits == 0; });
    return;
  }
  const bool first = at == g.begin();
  g.erase(at);
  if (g.empty()) {
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(k));
    return;
  }
  if (b - a >= blocks_[k].longest)
    blocks_[k].measure();
  if (first)
    blocks_[k].refirst();
}

// -------------------------------------------------------------------------------- reservations

void ReservationSchedule::neighbours(const std::vector<Held>& on, size_t at, bool skip_at, uint32_t word, uint64_t bits,
                                     std::vector<Change>& out)
{
  // Each core's previous reservation: the last before `at` holding its bit; its next: the first
  // after. Cores with the same (previous end, next start) go together.
  before_.clear();
  after_.clear();
  uint64_t left = bits;
  for (size_t i = at; i > 0 && left != 0; i--)
    if (uint64_t hit = on[i - 1].bits & left) {
      before_.emplace_back(on[i - 1].end, hit);
      left &= ~hit;
    }
  if (left != 0)
    before_.emplace_back(-kInf, left);
  left = bits;
  for (size_t i = skip_at ? at + 1 : at; i < on.size() && left != 0; i++)
    if (uint64_t hit = on[i].bits & left) {
      after_.emplace_back(on[i].start, hit);
      left &= ~hit;
    }
  if (left != 0)
    after_.emplace_back(kInf, left);
  for (const auto& [pe, pb] : before_)
    for (const auto& [ns, nb] : after_)
      if (uint64_t both = pb & nb)
        out.push_back({pe, ns, word, both});
}

void ReservationSchedule::hold(uint32_t job, const Reservation& r, bool take)
{
  // Each word's list, and the gaps around the reservation on its cores (before the change).
  around_.clear();
  for (const Word& w : r.words) {
    auto& on = by_word_[w.index];
    if (take) {
      auto at = std::upper_bound(on.begin(), on.end(), r.start, [](double t, const Held& h) { return t < h.start; });
      neighbours(on, static_cast<size_t>(at - on.begin()), false, w.index, w.bits, around_);
      on.insert(at, Held{r.start, r.end, job, w.bits});
    } else {
      auto at = std::lower_bound(on.begin(), on.end(), r.start, [](const Held& h, double t) { return h.start < t; });
      while (at != on.end() && at->job != job)
        ++at;
      assert(at != on.end());
      neighbours(on, static_cast<size_t>(at - on.begin()), true, w.index, w.bits, around_);
      on.erase(at);
    }
  }
  // The gaps each side go and the joined one comes (removal), or the other way round; all that
  // goes first (a core's gap open now is replaced, not kept). `joined`: the gaps around the
  // reservation as they are without it; else those on either side of it.
  auto apply = [&](bool add, bool joined) {
    changes_.clear();
    for (const Change& c : around_) {
      if (joined) {
        changes_.push_back(c);
        continue;
      }
      if (c.a < r.start)
        changes_.push_back({c.a, r.start, c.word, c.bits});
      if (r.end < c.b)
        changes_.push_back({r.end, c.b, c.word, c.bits});
    }
    sort_changes(changes_);
    for (size_t i = 0; i < changes_.size();) {
      size_t k = i;
      while (k < changes_.size() && changes_[k].a == changes_[i].a && changes_[k].b == changes_[i].b)
        k++;
      if (add)
        add_gap(changes_.data() + i, changes_.data() + k);
      else
        drop_gap(changes_.data() + i, changes_.data() + k);
      i = k;
    }
  };
  apply(false, take);
  apply(true, not take);
}

void ReservationSchedule::reserve(uint32_t job, double start, double end, std::vector<uint32_t> cores)
{
  assert(slot(job) == nullptr);
  if (job >= present_.size()) {
    present_.resize(size_t{job} + 1, 0);
    reservations_.resize(size_t{job} + 1);
  }
  present_[job] = 1;
  count_++;
  Reservation& r = reservations_[job];
  r.start        = start;
  r.end          = end;
  r.cores        = std::move(cores);
  r.marked       = false;
  r.seen         = seq_;
  r.job          = job;
  if (narrow_) { // (its cores as one bit set, kept by job: no words)
    if (job >= held_.size())
      held_.resize(size_t{job} + 1);
    SliceProfile::Mask& m = held_[job];
    m                     = {};
    for (uint32_t c : r.cores)
      m[c >> 6] |= uint64_t{1} << (c & 63);
    slices_.take(start, end, m);
    return;
  }
  to_words(r.cores, r.words);
  hold(job, r, true);
}

bool ReservationSchedule::remove(uint32_t job)
{
  Reservation* gone = slot(job);
  if (gone == nullptr)
    return false;
  present_[job] = 0;
  count_--;
  if (narrow_) {
    slices_.give(gone->start, gone->end, held_[job]);
    if (double from = std::max(gone->start, now_); from < gone->end) { // (looked at as the gaps' are)
      freed_.push_back({freed_masks_.size(), freed_masks_.size() + 1, from, gone->end});
      freed_masks_.push_back(held_[job]);
    }
    if (recycled_.size() < kRecycled) // (first fit's next fit takes it)
      recycled_.push_back(std::move(gone->cores));
    std::vector<uint32_t>().swap(gone->cores);
    return true;
  }
  hold(job, *gone, false);
  // (the freed cores are looked at when a job asks may_move: a job moving earlier is taken out,
  // then placed again, and what it leaves free is only known then)
  if (double from = std::max(gone->start, now_); from < gone->end) {
    freed_.push_back({freed_words_.size(), freed_words_.size() + gone->words.size(), from, gone->end});
    freed_words_.insert(freed_words_.end(), gone->words.begin(), gone->words.end());
  }
  // (its memory goes: a machine's every job passes through here once at least)
  std::vector<uint32_t>().swap(gone->cores);
  std::vector<Word>().swap(gone->words);
  return true;
}

// ------------------------------------------------------------------------------------- first fit

void ReservationSchedule::lift(const Reservation& own)
{
  // Each of its cores: the gaps on either side of it go, one gap from the reservation before it
  // to the one after it comes.
  around_.clear();
  for (const Word& w : own.words) {
    const auto& on = by_word_[w.index];
    auto at = std::lower_bound(on.begin(), on.end(), own.start, [](const Held& h, double t) { return h.start < t; });
    while (at != on.end() && at->job != own.job)
      ++at;
    assert(at != on.end());
    neighbours(on, static_cast<size_t>(at - on.begin()), true, w.index, w.bits, around_);
  }
  for (const Change& c : around_) {
    if (c.a < own.start && c.a > now_)
      excluded_.push_back({c.a, own.start, c.word, c.bits});
    if (own.end < c.b && own.end > now_)
      excluded_.push_back({own.end, c.b, c.word, c.bits});
    if (c.a > now_)
      lifted_.push_back(c);
    else // (its gap open now, whatever the tree says)
      each_bit(c.bits, [&](uint32_t j) { lifted_now_.emplace_back(c.b, c.word * 64 + j); });
  }
  auto by_core = [](const auto& x, const auto& y) { return x.second < y.second; };
  if (not std::is_sorted(lifted_now_.begin(), lifted_now_.end(), by_core))
    std::sort(lifted_now_.begin(), lifted_now_.end(), by_core);
  sort_changes(lifted_);
  sort_changes(excluded_);
}

uint64_t ReservationSchedule::excluded_bits(const GapGroup& g, uint32_t word) const
{
  auto it = std::lower_bound(
      excluded_.begin(), excluded_.end(), std::make_tuple(g.a, g.b, word),
      [](const Change& x, const std::tuple<double, double, uint32_t>& k) { return std::tie(x.a, x.b, x.word) < k; });
  return it != excluded_.end() && it->a == g.a && it->b == g.b && it->word == word ? it->bits : 0;
}

uint32_t ReservationSchedule::excluded_count(const GapGroup& g) const
{
  // (own's cores whose gap this is are in the group)
  auto it    = std::lower_bound(excluded_.begin(), excluded_.end(), g,
                                [](const Change& x, const GapGroup& y) { return group_before(x.a, x.b, y.a, y.b); });
  uint32_t n = 0;
  for (; it != excluded_.end() && it->a == g.a && it->b == g.b; ++it)
    n += ones(it->bits);
  return n;
}

std::optional<ReservationSchedule::Fit> ReservationSchedule::first_fit(uint32_t width, double duration, size_t from,
                                                                       const Reservation* own, bool all)
{
  double t0 = now_;
  if (from > 0) {
    // (rare: a job whose nodes lack the memory now; the times are gathered then)
    std::vector<double> times = edges();
    if (times.size() < from)
      return std::nullopt;
    t0 = times[from - 1];
  }
  if (narrow_)
    return first_fit_slices(width, duration, t0, own, all);
  // The job's own reservation, as if it were not there (lift: the gaps it splits, joined).
  lifted_.clear();
  lifted_now_.clear();
  excluded_.clear();
  const bool lifted = own != nullptr && own->end > now_;
  if (lifted)
    lift(*own);
  // A min-heap of the gaps begun by the candidate time t, on their ends: those ending before
  // t + duration leave it; t is the answer once they hold `width` cores. The gaps open now first
  // (lowest first: if enough of them are, the answer is now and they are the cores).
  const double until = t0 + duration;
  const size_t limit = from == 0 && not all ? width : SIZE_MAX;
  open_.clear();
  open_now(until, limit == SIZE_MAX ? limit : limit + lifted_now_.size(), open_);
  if (lifted) {
    // (own's cores of lifted_now_, by core: their gap open now is the joined one)
    std::erase_if(open_, [&](const std::pair<double, uint32_t>& x) {
      auto it = std::lower_bound(lifted_now_.begin(), lifted_now_.end(), x.second,
                                 [](const std::pair<double, uint32_t>& y, uint32_t c) { return y.second < c; });
      return it != lifted_now_.end() && it->second == x.second;
    });
    // (both by core: merged)
    const size_t kept = open_.size();
    for (const auto& x : lifted_now_)
      if (x.first >= until)
        open_.push_back(x);
    std::inplace_merge(open_.begin(), open_.begin() + static_cast<std::ptrdiff_t>(kept), open_.end(),
                       [](const auto& x, const auto& y) { return x.second < y.second; });
    if (open_.size() > limit)
      open_.resize(limit);
  }
  auto later = std::greater<Active>();
  active_.clear();
  for (const auto& [b, c] : open_)
    active_.push_back({b, nullptr, c >> 6, uint64_t{1} << (c & 63), 1});
  std::make_heap(active_.begin(), active_.end(), later);
  size_t held    = active_.size();
  double t       = t0;
  auto enough_at = [&](double at) {
    while (not active_.empty() && active_.front().b < at + duration) {
      held -= active_.front().count;
      std::pop_heap(active_.begin(), active_.end(), later);
      active_.pop_back();
    }
    return held >= width;
  };
  // One gap (a group, or lifted cores): a new candidate time ends the last one.
  auto consider = [&](double a, double b, const GapGroup* g, uint32_t word, uint64_t bits) {
    if (a > t) {
      if (enough_at(t))
        return true;
      t = a;
    }
    if (b >= t + duration) {
      // (own splits only the gaps ending where it begins and beginning where it ends)
      const bool split = lifted && (g != nullptr) && (g->b == own->start || g->a == own->end);
      uint32_t n       = g == nullptr ? ones(bits) : g->count - (split ? excluded_count(*g) : 0);
      if (n > 0) {
        active_.push_back({b, g, word, bits, n});
        std::push_heap(active_.begin(), active_.end(), later);
        held += n;
      }
    }
    return false;
  };
  size_t next_lifted = 0;
  auto lifted_until  = [&](double a) { // the lifted cores' gaps beginning before a
    for (; next_lifted < lifted_.size() && lifted_[next_lifted].a < a; next_lifted++) {
       const Change& c = lifted_[next_lifted];
       if (consider(c.a, c.b, nullptr, c.word, c.bits))
        return true;
    }
     return false;
  };
  // (a block is skipped when its longest gap is shorter than the duration by more than first
  // fit's own rounding could make up)
  bool found = false;
  for (size_t k = 0; k < blocks_.size() && not found; k++) {
    const GapBlock& blk = blocks_[k];
    if (blk.longest + 1e-9 * (duration + std::abs(blk.groups.back().a)) < duration)
      continue;
    for (const GapGroup& g : blk.groups) {
      // (a gap too short for the window from max(t, a) adds nothing: passed without a look; the
      // candidate time only needs checking where a gap is added)
      if (g.b < std::max(t, g.a) + duration)
        continue;
      if (lifted_until(g.a) || consider(g.a, g.b, &g, 0, 0)) {
        found = true;
        break;
      }
    }
  }
  found = found || lifted_until(kInf) || enough_at(t);
  if (not found)
    return std::nullopt;
  // The cores of the gaps left, in order: through a bit set.
  for (const Active& x : active_)
    if (x.group == nullptr)
      marks_[x.word] |= x.bits;
    else
      for (const Word& w : x.group->words)
        marks_[w.index] |= x.count == x.group->count ? w.bits : w.bits & ~excluded_bits(*x.group, w.index);
  // (only the lowest `width` are the fit, written in place; all of them only when last_candidates
  // will be asked)
  Fit fit{t, {}};
  size_t need = width;
  if (all) {
    need = 0;
    for (uint64_t m : marks_)
      need += ones(m);
  }
  std::vector<uint32_t>& out = all ? candidates_ : fit.cores;
  out.resize(need);
  uint32_t* at        = out.data();
  uint32_t* const end = at + need;
  for (size_t k = 0; k < marks_.size(); k++) {
    for (uint64_t bits = marks_[k]; bits != 0 && at != end; bits &= bits - 1)
      *at++ = static_cast<uint32_t>(k * 64) + static_cast<uint32_t>(std::countr_zero(bits));
    marks_[k] = 0;
  }
  if (all)
    fit.cores.assign(candidates_.begin(), candidates_.begin() + width);
  else
    candidates_.clear(); // (last_candidates: a fit found with `all` only)
  return fit;
}

std::optional<ReservationSchedule::Fit>
ReservationSchedule::first_fit_slices(uint32_t width, double duration, double from, const Reservation* own, bool all)
{
  const bool lifted = own != nullptr && own->end > now_;
  auto found = slices_.first_fit(width, duration, from, lifted ? &held_[own->job] : nullptr, lifted ? own->start : 0,
                                 lifted ? own->end : 0);
  if (not found)
    return std::nullopt;
  // (the lowest `width` are the fit; all of them only when last_candidates will be asked)
  Fit fit{found->start, {}};
  if (not recycled_.empty()) {
    fit.cores = std::move(recycled_.back());
    recycled_.pop_back();
  }
  size_t need = width;
  if (all) {
    need = 0;
    for (uint64_t m : found->cores)
      need += ones(m);
  }
  std::vector<uint32_t>& out = all ? candidates_ : fit.cores;
  out.resize(need);
  uint32_t* at        = out.data();
  uint32_t* const end = at + need;
  for (uint32_t k = 0; k < SliceProfile::kWords && at != end; k++)
    for (uint64_t bits = found->cores[k]; bits != 0 && at != end; bits &= bits - 1)
      *at++ = k * 64 + static_cast<uint32_t>(std::countr_zero(bits));
  if (all)
    fit.cores.assign(candidates_.begin(), candidates_.begin() + width);
  else
    candidates_.clear();
  return fit;
}

CoreSet ReservationSchedule::last_candidates() const
{
  CoreSet out(cores_);
  for (uint32_t c : candidates_)
    out.set(c);
  return out;
}

// ------------------------------------------------------------------------ what a removal frees

void ReservationSchedule::mark_movable(std::span<const Word> words, double from, double to)
{
  const double a = std::max(from, now_);
  if (not(a < to))
    return;
  // The maximal free intervals of the freed cores that meet [a, to). A job holding a freed core
  // where such an interval ends may grow into it (marked); any other job may take one that begins
  // at or before its start and lasts at least its requested time (the opening: the earliest
  // beginning and the longest length, an over-estimate). Each core from its last reservation
  // beginning at or before a (those before it end before a), a word's cores side by side.
  double lo_min = kInf, longest = 0;
  auto mark = [&](uint32_t job) {
    reservations_[job].marked = true;
    if (log_marks_)
      marked_log_.push_back(job);
  };
  for (const Word& w : words) {
    const auto& on = by_word_[w.index];
    const size_t p = static_cast<size_t>(
        std::upper_bound(on.begin(), on.end(), a, [](double t, const Held& h) { return t < h.start; }) - on.begin());
    size_t first[64];
    double lo[64];
    uint64_t left = w.bits;
    each_bit(w.bits, [&](uint32_t j) {
      first[j] = p;
      lo[j]    = now_;
    });
    for (size_t i = p; i > 0 && left != 0; i--)
      if (uint64_t hit = on[i - 1].bits & left) {
        each_bit(hit, [&](uint32_t j) { first[j] = i - 1; });
        left &= ~hit;
      }
    size_t start = p;
    each_bit(w.bits, [&](uint32_t j) { start = std::min(start, first[j]); });
    uint64_t active = w.bits;
    auto tail       = [&](uint32_t j, const Held* k) { // the core's interval after its last reservation seen
      if (lo[j] < to) {
              lo_min  = std::min(lo_min, lo[j]);
              longest = std::max(longest, k == nullptr ? kInf : k->start - lo[j]);
              if (k != nullptr)
          mark(k->job);
      }
    };
    for (size_t i = start; i < on.size() && active != 0; i++) {
      const Held& k = on[i];
      uint64_t bits = k.bits & active;
      if (bits == 0)
        continue;
      each_bit(bits, [&](uint32_t j) {
        if (i < first[j])
          return;
        if (not(k.start < to)) {
          tail(j, &k);
          active &= ~(uint64_t{1} << j);
          return;
        }
        if (k.start > lo[j] && k.start > a) { // the gap [lo, start) meets [a, to): k holds the core after it
          lo_min  = std::min(lo_min, lo[j]);
          longest = std::max(longest, k.start - lo[j]);
          mark(k.job);
        }
        lo[j] = std::max(lo[j], k.end);
      });
    }
    each_bit(active, [&](uint32_t j) { tail(j, nullptr); });
  }
  if (lo_min < kInf)
    openings_.push_back({++seq_, lo_min, longest});
}

void ReservationSchedule::look_at_freed()
{
  if (narrow_) {
    double lo = 0, hi = 0;
    for (const Freed& f : freed_)
      if (slices_.opening(freed_masks_[f.begin], f.from, f.to, lo, hi, regained_))
        openings_.push_back({++seq_, lo, hi - lo});
    forget_freed();
    return;
  }
  for (const Freed& f : freed_)
    mark_movable({freed_words_.data() + f.begin, f.end - f.begin}, f.from, f.to);
  forget_freed();
}

bool ReservationSchedule::may_move(const Reservation& r)
{
  if (narrow_)
    return true;
  look_at_freed();
  if (r.marked)
    return true;
  // (a hair shorter: a window that first_fit's own arithmetic would find is never missed)
  for (const Opening& o : openings_after(r.seen))
    if (opens(o, r)) // a window there starts before the job's, or holds it
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
  return job < present_.size() && present_[job] != 0 ? &reservations_[job] : nullptr;
}

std::span<const ReservationSchedule::Opening> ReservationSchedule::openings_after(uint64_t seq) const
{
  auto o =
      std::upper_bound(openings_.begin(), openings_.end(), seq, [](uint64_t v, const Opening& x) { return v < x.seq; });
  return {openings_.data() + (o - openings_.begin()), static_cast<size_t>(openings_.end() - o)};
}

CoreSet ReservationSchedule::free_at(double t) const
{
  t = std::max(t, now_);
  CoreSet out(cores_);
  if (narrow_) {
    const SliceProfile::Mask m = slices_.free_at(t);
    for (uint32_t c = 0; c < cores_; c++)
      if ((m[c >> 6] >> (c & 63)) & 1U)
        out.set(c);
    return out;
  }
  for (size_t k = 0; k < words_; k++) {
    uint64_t busy = 0;
    for (const Held& h : by_word_[k])
      if (h.start <= t && t < h.end)
        busy |= h.bits;
    for (uint32_t c = static_cast<uint32_t>(k * 64); c < std::min<size_t>(cores_, (k + 1) * 64); c++)
      if (not((busy >> (c & 63)) & 1U))
        out.set(c);
  }
  return out;
}

} // namespace sgai::scheduling

namespace sgai::scheduling {

void StartIndex::Block::measure()
{
  least = kInf;
  for (const Entry& e : entries)
    least = std::min(least, e.enough);
}

size_t StartIndex::block_of(double start, uint64_t key) const
{
  auto it = std::upper_bound(blocks_.begin(), blocks_.end(), std::make_pair(start, key),
                             [](const std::pair<double, uint64_t>& k, const Block& b) {
                               return k < std::make_pair(b.entries.front().start, b.entries.front().key);
                             });
  return it == blocks_.begin() ? 0 : static_cast<size_t>(it - blocks_.begin()) - 1;
}

void StartIndex::insert(double start, uint64_t key, double enough)
{
  if (blocks_.empty()) {
    blocks_.push_back(Block{{Entry{start, key, enough}}, enough});
    return;
  }
  size_t k = block_of(start, key);
  auto& e  = blocks_[k].entries;
  auto at  = std::upper_bound(
       e.begin(), e.end(), std::make_pair(start, key),
       [](const std::pair<double, uint64_t>& x, const Entry& y) { return x < std::make_pair(y.start, y.key); });
  e.insert(at, Entry{start, key, enough});
  blocks_[k].least = std::min(blocks_[k].least, enough);
  if (e.size() > 2 * kBlock) {
    Block tail{{e.begin() + kBlock, e.end()}, 0};
    e.resize(kBlock);
    blocks_[k].measure();
    tail.measure();
    blocks_.insert(blocks_.begin() + static_cast<std::ptrdiff_t>(k + 1), std::move(tail));
  }
}

void StartIndex::erase(double start, uint64_t key)
{
  if (blocks_.empty())
    return;
  size_t k = block_of(start, key);
  auto& e  = blocks_[k].entries;
  auto at  = std::lower_bound(
       e.begin(), e.end(), std::make_pair(start, key),
       [](const Entry& y, const std::pair<double, uint64_t>& x) { return std::make_pair(y.start, y.key) < x; });
  if (at == e.end() || at->start != start || at->key != key)
    return;
  double enough = at->enough;
  e.erase(at);
  if (e.empty())
    blocks_.erase(blocks_.begin() + static_cast<std::ptrdiff_t>(k));
  else if (enough <= blocks_[k].least)
    blocks_[k].measure();
}

} // namespace sgai::scheduling
