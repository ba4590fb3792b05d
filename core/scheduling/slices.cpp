#include "core/scheduling/slices.hpp"

#include <algorithm>
#include <bit>
#include <cassert>
#include <iterator>
#include <limits>

#if defined(__SSE2__)
#include <emmintrin.h>
#endif

namespace sgai::scheduling {

namespace {

inline uint32_t mask_count(const SliceProfile::Mask& m)
{
  uint32_t n = 0;
  for (uint64_t w : m)
    n += static_cast<uint32_t>(std::popcount(w));
  return n;
}

// (the builds target x86-64 without -mpopcnt: the functions that count bits have a clone with the
// instruction, chosen when the program loads where the processor has it)
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define SGAI_POPCNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define SGAI_POPCNT_CLONES
#endif

/** The first k in [i, end) with counts[k] >= width, or end: four counts a comparison where the
 *  processor has SSE2 (every x86-64 one). */
inline size_t first_at_least(const uint32_t* counts, size_t i, size_t end, uint32_t width)
{
#if defined(__SSE2__)
  const __m128i below = _mm_set1_epi32(static_cast<int>(width) - 1); // (counts and widths < 2^31)
  for (; i + 4 <= end; i += 4) {
    const __m128i c = _mm_loadu_si128(reinterpret_cast<const __m128i*>(counts + i));
    if (const int hit = _mm_movemask_ps(_mm_castsi128_ps(_mm_cmpgt_epi32(c, below))); hit != 0)
      return i + static_cast<size_t>(std::countr_zero(static_cast<unsigned>(hit)));
  }
#endif
  while (i < end && counts[i] < width)
    i++;
  return i;
}

template <typename T>
void insert_at(std::vector<T>& v, size_t k, T x)
{
  v.insert(v.begin() + static_cast<std::ptrdiff_t>(k), x);
}

template <typename T>
void erase_at(std::vector<T>& v, size_t k)
{
  v.erase(v.begin() + static_cast<std::ptrdiff_t>(k));
}

} // namespace

void SliceProfile::reset(uint32_t cores, double now)
{
  assert(cores <= kMaxCores);
  words_ = std::max<uint32_t>(1, (cores + 63) / 64);
  Mask all{};
  for (uint32_t c = 0; c < cores; c += 64)
    all[c / 64] = cores - c >= 64 ? ~uint64_t{0} : (uint64_t{1} << (cores - c)) - 1;
  t_.assign(1, now);
  count_.assign(1, cores);
  refs_.assign(1, 0);
  mask_.assign(1, 0);
  masks_.assign(1, all);
  spare_.clear();
}

size_t SliceProfile::find(double t, size_t from) const
{
  const auto it = std::lower_bound(t_.begin() + static_cast<std::ptrdiff_t>(from), t_.end(), t);
  assert(it != t_.end() && *it == t);
  return static_cast<size_t>(it - t_.begin());
}

size_t SliceProfile::at(double t, size_t from)
{
  // (t > now: not the first; a window's end is a few slices after its start: looked for from there)
  auto it = t_.begin() + static_cast<std::ptrdiff_t>(from) + 1;
  for (size_t step = 1; it < t_.end() && *it <= t; step *= 2)
    it += static_cast<std::ptrdiff_t>(std::min<size_t>(step, static_cast<size_t>(t_.end() - it)));
  it             = std::upper_bound(t_.begin() + static_cast<std::ptrdiff_t>(from), it, t);
  const size_t k = static_cast<size_t>(it - t_.begin());
  if (t_[k - 1] == t)
    return k - 1;
  uint32_t m;
  if (spare_.empty()) {
    m = static_cast<uint32_t>(masks_.size());
    masks_.push_back(masks_[mask_[k - 1]]);
  } else {
    m = spare_.back();
    spare_.pop_back();
    masks_[m] = masks_[mask_[k - 1]];
  }
  insert_at(t_, k, t);
  insert_at(count_, k, count_[k - 1]);
  insert_at(refs_, k, 0U);
  insert_at(mask_, k, m);
  return k;
}

void SliceProfile::erase(size_t k)
{
  assert(k > 0 && masks_[mask_[k]] == masks_[mask_[k - 1]]); // (nothing begins or ends there any more)
  spare_.push_back(mask_[k]);
  erase_at(t_, k);
  erase_at(count_, k);
  erase_at(refs_, k);
  erase_at(mask_, k);
}

void SliceProfile::advance(double now)
{
  if (not(now > t_.front()))
    return;
  const size_t k = static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), now) - t_.begin()) - 1;
  if (k > 0) {
    spare_.insert(spare_.end(), mask_.begin(), mask_.begin() + static_cast<std::ptrdiff_t>(k));
    const auto drop = [k](auto& v) { v.erase(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k)); };
    drop(t_);
    drop(count_);
    drop(refs_);
    drop(mask_);
  }
  t_.front() = now;
}

SGAI_POPCNT_CLONES void SliceProfile::take(double start, double end, const Mask& cores)
{
  const double now = t_.front();
  if (not(end > now))
    return;
  const bool later = start > now;
  const size_t s   = later ? at(start) : 0;
  const bool ends  = end != std::numeric_limits<double>::infinity();
  const size_t e   = ends ? at(end, s) : t_.size(); // (after s: s stays where it is)
  for (size_t k = s; k < e; k++) {
    Mask& free    = masks_[mask_[k]];
    uint32_t left = 0;
    for (uint32_t w = 0; w < words_; w++) {
      assert((free[w] & cores[w]) == cores[w]);
      free[w] &= ~cores[w];
      left += static_cast<uint32_t>(std::popcount(free[w]));
    }
    count_[k] = left;
  }
  if (later)
    refs_[s]++;
  if (ends)
    refs_[e]++;
}

SGAI_POPCNT_CLONES void SliceProfile::give(double start, double end, const Mask& cores)
{
  const double now = t_.front();
  if (not(end > now))
    return; // (its slices went by)
  const bool later = start > now;
  const size_t s   = later ? find(start) : 0;
  const bool ends  = end != std::numeric_limits<double>::infinity();
  const size_t e   = ends ? find(end, s) : t_.size();
  for (size_t k = s; k < e; k++) {
    Mask& free    = masks_[mask_[k]];
    uint32_t left = 0;
    for (uint32_t w = 0; w < words_; w++) {
      free[w] |= cores[w];
      left += static_cast<uint32_t>(std::popcount(free[w]));
    }
    count_[k] = left;
  }
  if (ends && --refs_[e] == 0) // (the later first: s stays where it is)
    erase(e);
  if (later && --refs_[s] == 0)
    erase(s);
}

SGAI_POPCNT_CLONES std::optional<SliceProfile::Fit> SliceProfile::first_fit(uint32_t width, double duration,
                                                                            double from, const Mask* own,
                                                                            double own_start, double own_end) const
{
  const size_t n           = t_.size();
  size_t i                 = static_cast<size_t>(std::lower_bound(t_.begin(), t_.end(), from) - t_.begin());
  const uint32_t own_count = own != nullptr ? mask_count(*own) : 0;
  const Mask none{};
  const Mask& extra = own != nullptr ? *own : none;
  // (own's cores are free in its window: the slices [os, oe), from the one where it begins to the
  // one before the one where it ends)
  size_t os = n, oe = n;
  if (own != nullptr) {
    os = static_cast<size_t>(std::lower_bound(t_.begin(), t_.end(), own_start) - t_.begin());
    oe = static_cast<size_t>(std::lower_bound(t_.begin() + static_cast<std::ptrdiff_t>(os), t_.end(), own_end) -
                             t_.begin());
  }
  auto owned                   = [&](size_t k) { return k >= os && k < oe; };
  const uint32_t words         = words_;
  const uint32_t* const counts = count_.data();
  for (; i < n; i++) {
    // the next candidate with enough free cores
    i = first_at_least(counts, i, os, width);
    if (i >= os && i < oe) // (own's cores count in its window)
      i = first_at_least(counts, i, oe, width > own_count ? width - own_count : 0);
    if (i >= oe)
      i = first_at_least(counts, i, n, width);
    if (i == n)
      break;
    const double until = t_[i] + duration;
    // the window's slices on their counts first: one with too few cores at all ends every
    // candidate whose window reaches it, so the candidates up to it are passed at once
    size_t e = i + 1;
    if (own == nullptr) {
      while (e < n && t_[e] < until && counts[e] >= width)
        e++;
    } else {
      while (e < n && t_[e] < until && counts[e] + (owned(e) ? own_count : 0) >= width)
        e++;
    }
    if (e < n && t_[e] < until) {
      i = e;
      continue;
    }
    const bool in = owned(i);
    Mask acc      = masks_[mask_[i]];
    if (in)
      for (uint32_t w = 0; w < words; w++)
        acc[w] |= extra[w];
    bool fits = true;
    for (size_t j = i + 1; j < e; j++) {
      const bool on    = owned(j);
      const Mask& free = masks_[mask_[j]];
      Mask next;
      uint64_t changed = 0;
      for (uint32_t w = 0; w < words; w++) {
        next[w] = acc[w] & (free[w] | (on ? extra[w] : 0));
        changed |= next[w] ^ acc[w];
      }
      if (changed == 0)
        continue;
      uint32_t left = 0;
      for (uint32_t w = 0; w < words; w++) {
        acc[w] = next[w];
        left += static_cast<uint32_t>(std::popcount(next[w]));
      }
      if (left < width) {
        // (the cores free over the slices from k to j, k going back from j: every candidate up
        // to the last k where fewer than w are left has them in its window, and fails)
        Mask back = free;
        if (on)
          for (uint32_t w = 0; w < words; w++)
            back[w] |= extra[w];
        size_t k = j;
        for (;;) {
          uint32_t n_back = 0;
          for (uint32_t w = 0; w < words; w++)
            n_back += static_cast<uint32_t>(std::popcount(back[w]));
          if (n_back < width || k == i + 1)
            break;
          k--;
          const Mask& f = masks_[mask_[k]];
          const bool o  = owned(k);
          for (uint32_t w = 0; w < words; w++)
            back[w] &= f[w] | (o ? extra[w] : 0);
        }
        uint32_t n_back = 0;
        for (uint32_t w = 0; w < words; w++)
          n_back += static_cast<uint32_t>(std::popcount(back[w]));
        if (n_back < width)
          i = k; // (the outer loop goes on after it)
        fits = false;
        break;
      }
    }
    if (fits)
      return Fit{t_[i], acc};
  }
  return std::nullopt;
}

bool SliceProfile::opening(const Mask& cores, double from, double to, double& lo, double& hi,
                           std::vector<double>& regained) const
{
  const size_t n = t_.size();
  from           = std::max(from, t_.front());
  if (not(to > from))
    return false;
  const size_t s = static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), from) - t_.begin()) - 1;
  // forward: the freed cores free in each slice of the window, then those still free after it
  Mask cur{};
  double first = std::numeric_limits<double>::infinity();
  size_t k     = s;
  for (; k < n; k++) {
    const Mask& free  = masks_[mask_[k]];
    const bool inside = t_[k] < to;
    uint64_t lost = 0, some = 0;
    for (uint32_t w = 0; w < words_; w++) {
      lost |= cur[w] & ~free[w];
      cur[w] = (inside ? cores[w] : cur[w]) & free[w];
      some |= cur[w];
    }
    if (lost != 0)
      regained.push_back(t_[k]);
    if (some != 0 && first == std::numeric_limits<double>::infinity())
      first = t_[k];
    if (not inside && some == 0)
      break;
  }
  hi = k < n ? t_[k] : std::numeric_limits<double>::infinity();
  if (first == std::numeric_limits<double>::infinity())
    return false;
  lo = first;
  if (first == t_[s]) { // (runs free where the window begins reach back as far as they are free)
    Mask back = masks_[mask_[s]];
    for (uint32_t w = 0; w < words_; w++)
      back[w] &= cores[w];
    for (size_t j = s; j-- > 0;) {
      uint64_t some = 0;
      for (uint32_t w = 0; w < words_; w++) {
        back[w] &= masks_[mask_[j]][w];
        some |= back[w];
      }
      if (some == 0)
        break;
      lo = t_[j];
    }
  }
  return true;
}

SliceProfile::Mask SliceProfile::free_at(double t) const
{
  const size_t k = static_cast<size_t>(std::upper_bound(t_.begin(), t_.end(), t) - t_.begin());
  return masks_[mask_[k == 0 ? 0 : k - 1]];
}

} // namespace sgai::scheduling
