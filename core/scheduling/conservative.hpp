/* The schedule conservative backfilling keeps between steps, as batsched keeps it: every running
 * job and every waiting job holds a reservation, the same cores over [start, end). Reservations are
 * placed first-fit on the lowest-numbered cores free over their whole window (batsched's `basic`
 * selector).
 *
 * The schedule is kept as each core's reservations and the free intervals between them (gaps): a
 * core is free over [t, t + d) when one of its gaps begins at or before t and ends at or after
 * t + d. The earliest such t for w cores is a gap's beginning (or now), so first fit walks the gaps
 * that begin after now in time order, skipping blocks of gaps shorter than d, with the gaps open
 * now found in a tree over the cores. A reservation changes the gaps of its own cores only: its
 * cost is its width, not the span of its window nor the size of the schedule. Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_CONSERVATIVE_HPP
#define SGAI_CORE_SCHEDULING_CONSERVATIVE_HPP

#include "core/scheduling/policies.hpp"
#include "core/scheduling/slices.hpp"

#include <algorithm>
#include <cstdint>
#include <deque>
#include <optional>
#include <span>
#include <utility>
#include <vector>

namespace sgai::scheduling {

/** How a ReservationSchedule keeps its reservations: automatic (slices on machines of at most
 *  SliceProfile::kMaxCores cores, gaps on wider ones), or one of them (tests compare the two). */
enum class ScheduleLayout { automatic, gaps, slices };

class ReservationSchedule {
public:
  /** Cores by word of 64: word `index`, the cores `bits` (bit j: core 64 index + j). */
  struct Word {
    uint32_t index;
    uint64_t bits;
  };
  struct Reservation {
    double start = 0;
    double end   = 0; ///< infinity: held until removed
    std::vector<uint32_t> cores;
    mutable bool marked   = false; ///< a freed core was taken again where its window begins
    mutable uint64_t seen = 0;     ///< the openings made before it was placed or last found unchanged
    uint32_t job          = 0;
    std::vector<Word> words; ///< its cores by word (set when it is reserved)
  };
  struct Fit {
    double start = 0;
    std::vector<uint32_t> cores; ///< the lowest-numbered cores free over the whole window
  };
  /** The free intervals a removal left: a job beginning at or after `lo` and requesting at most
   *  `length` may move into one (the earliest beginning and the longest length over them). */
  struct Opening {
    uint64_t seq;
    double lo, length;
  };

  /** Every core free from `now` on. */
  ReservationSchedule(uint32_t cores, double now, ScheduleLayout layout = ScheduleLayout::automatic);
  /** Whether the reservations are kept as slices (a narrow machine): may_move then proves
   *  nothing, and every waiting job is searched again (first fit costs little there). */
  bool narrow() const { return narrow_; }

  /** The present moves to `now` (never back). */
  void advance(double now);
  double now() const { return now_; }

  /** Earliest time, now (from = 0) or the from-th time after now where a reservation begins or
   *  ends, at which `width` cores stay free for `duration` seconds; none when there is none. `own`:
   *  a reservation of this schedule to search as if it were not there (a job placed again: most
   *  land where they were). `all`: find every core free over the window, for last_candidates(). */
  std::optional<Fit> first_fit(uint32_t width, double duration, size_t from = 0, const Reservation* own = nullptr,
                               bool all = false);
  /** Every core free over the window of the last fit found with `all`. */
  CoreSet last_candidates() const;

  /** Holds `cores` (free over the window) for `job` over [start, end); end may be infinity. */
  void reserve(uint32_t job, double start, double end, std::vector<uint32_t> cores);
  /** Frees what is left (from now on) of the job's reservation; false when it had none. */
  bool remove(uint32_t job);
  /** The job's reservation, or null. */
  const Reservation* find(uint32_t job) const;

  /** Whether placing the job again (first_fit with its reservation as `own`) could give another
   *  start or other cores than its reservation's. False only when that is proven: first fit could
   *  only change through cores freed since the job was placed. Each removal that frees cores marks
   *  the jobs whose windows begin where a freed core is taken again (they may grow into it), and
   *  leaves an opening: the free intervals of its cores (a job may take one at least its requested
   *  time long that begins at or before its start). */
  bool may_move(const Reservation& r);
  /** Whether an opening can move the reservation (r's start and length against it). */
  static bool opens(const Opening& o, const Reservation& r) { return o.lo <= r.start && o.length >= enough(r); }
  /** The length an opening must have to hold the reservation (a hair shorter than its own: a
   *  window that first_fit's own arithmetic would find is never missed). */
  static double enough(const Reservation& r) { return (r.end - r.start) * (1 - 1e-9); }
  /** Marks what the removals since the last call may move (may_move calls it; a step without
   *  waiting jobs calls it so that nothing piles up). */
  void look_at_freed();
  /** Whether removals are waiting for look_at_freed. */
  bool freed_pending() const { return not freed_.empty(); }
  /** The removals since the last look_at_freed concern no job: every waiting job was taken out,
   *  to be placed again from scratch. */
  void forget_freed()
  {
    freed_.clear();
    freed_words_.clear();
    freed_masks_.clear();
  }
  /** Every reservation but those of `jobs` (when they have one) goes, as remove() would take them
   *  out one by one (the schedule is built again around the kept ones), and no removal is
   *  remembered: the jobs whose reservations went are to be placed again from scratch. */
  void keep_only(const std::vector<uint32_t>& jobs);
  /** A fit's core list not reserved, for the next fits (no allocation a placement). */
  void recycle(std::vector<uint32_t>&& cores)
  {
    if (narrow_ && recycled_.size() < kRecycled)
      recycled_.push_back(std::move(cores));
  }
  /** The job's reservation is what placing it again now would give (it was found unchanged). */
  void confirm(const Reservation& r) const;
  /** How many times may_move proved a job unchanged (for tests and benchmarks). */
  uint64_t proven_unchanged() const { return proven_unchanged_; }
  /** Counts jobs proven unchanged without asking may_move (a caller that indexes the openings). */
  void count_unchanged(uint64_t n) { proven_unchanged_ += n; }
  /** The openings made so far: those up to `seq` are forgotten once every waiting job was placed
   *  again or found unchanged after them. */
  uint64_t openings_made() const { return seq_; }
  void forget_openings(uint64_t seq);
  /** The openings made after the `seq`-th (those not forgotten). */
  std::span<const Opening> openings_after(uint64_t seq) const;
  /** The jobs marked by look_at_freed since the last call (a job may appear more than once). */
  void take_marked(std::vector<uint32_t>& out)
  {
    out.clear();
    out.swap(marked_log_);
  }
  /** A narrow machine's look_at_freed marks no job: it gives the times where a core it found free
   *  is taken again after (the jobs beginning there may grow into it) instead, here. */
  void take_regained(std::vector<double>& out)
  {
    out.clear();
    out.swap(regained_);
  }
  /** Whether look_at_freed keeps the jobs it marks for take_marked (off by default). */
  void log_marks(bool on) { log_marks_ = on; }

  /** 1 + the distinct times after now where a reservation begins or ends: the slices of batsched's
   *  profile. */
  size_t slice_count() const { return 1 + edges().size(); }
  size_t size() const { return count_; }
  /** Cores free at t (t >= now; before now: at now): for tests. */
  CoreSet free_at(double t) const;

private:
  static void to_words(const std::vector<uint32_t>& cores, std::vector<Word>& out);

  // ---- a narrow machine's slices (narrow_), instead of the gaps below
  bool narrow_ = false;
  SliceProfile slices_;
  std::vector<SliceProfile::Mask> held_; ///< by job: its reservation's cores
  /** Core lists of reservations gone, for the next fits (no allocation a placement). */
  std::vector<std::vector<uint32_t>> recycled_;
  std::vector<SliceProfile::Mask> freed_masks_; ///< the removals' cores not looked at yet
  std::vector<double> regained_;
  static constexpr size_t kRecycled = 64;
  std::optional<Fit> first_fit_slices(uint32_t width, double duration, double from, const Reservation* own, bool all);

  uint32_t cores_;
  size_t words_; ///< (cores_ + 63) / 64
  double now_;
  /** The reservations by job (jobs are a workload's indices: dense); a deque, so that a reservation
   *  stays where it is while others come. `present`: whether job k has one. */
  std::deque<Reservation> reservations_;
  std::vector<uint8_t> present_;
  size_t count_ = 0;
  Reservation* slot(uint32_t job)
  {
    return job < present_.size() && present_[job] != 0 ? &reservations_[job] : nullptr;
  }
  /** A reservation on a word's cores: [start, end) for `job` on `bits`. */
  struct Held {
    double start, end;
    uint32_t job;
    uint64_t bits;
  };
  /** Each word's reservations by start: a core's (those holding its bit) are disjoint. A wide
   *  reservation is one entry a word, not one a core. */
  std::vector<std::vector<Held>> by_word_;
  /** The times after now where reservations begin or end, in order. */
  std::vector<double> edges() const;

  // ---- the gaps: the free intervals [a, b) between a core's reservations (a = -infinity before
  // its first, b = infinity after its last unless that one is held for ever)
  /** Per core, its latest gap beginning at or before now (none: a = b = -infinity); it may have
   *  ended (b <= now: the core is busy now). */
  std::vector<double> now_a_, now_b_;
  /** Max of now_b_ over each word's cores, a tree over the words (leaves_ leaves; node k's
   *  children 2k, 2k + 1). */
  std::vector<double> tree_;
  size_t leaves_ = 1;
  void refresh_word(uint32_t k);
  /** The cores whose gap open now ends at or after `until`, lowest first, `limit` at most. */
  void open_now(double until, size_t limit, std::vector<std::pair<double, uint32_t>>& out) const;
  /** The gaps beginning after now, grouped by (a, b): the cores sharing that gap, by word, in
   *  blocks of at most 2 kGapBlock groups by (a, b), each block with its longest gap (first fit
   *  skips the blocks of gaps too short). A wide reservation leaves few groups. */
  struct GapGroup {
    double a, b;
    std::vector<Word> words; ///< by index, no zero bits
    uint32_t count = 0;      ///< cores
  };
  struct GapBlock {
    std::vector<GapGroup> groups;
    double longest = 0;
    double first_a = 0, first_b = 0; ///< the first group's (a, b): blocks are searched without their groups
    void measure();
    void refirst()
    {
      first_a = groups.front().a;
      first_b = groups.front().b;
    }
  };
  static constexpr size_t kGapBlock = 32;
  std::vector<GapBlock> blocks_;
  size_t block_of(double a, double b) const;
  /** A gap [a, b) of some cores (words by index): one change of hold or lift. */
  struct Change {
    double a, b;
    uint32_t word;
    uint64_t bits;
  };
  static void sort_changes(std::vector<Change>& v); ///< by (a, b, word)
  /** The cores of `changes` [from, to) (one (a, b), words increasing) gain, or lose, the gap. */
  void add_gap(const Change* from, const Change* to);
  void drop_gap(const Change* from, const Change* to);
  /** The gaps on either side of a reservation on a word's `bits`, the entry at `at` (or where it
   *  would go): (previous end, next start) of the cores, grouped, into `out`. */
  void neighbours(const std::vector<Held>& on, size_t at, bool skip_at, uint32_t word, uint64_t bits,
                  std::vector<Change>& out);
  /** Puts `job`'s [start, end) on the cores, or takes it off: each word's list and the gaps. */
  void hold(uint32_t job, const Reservation& r, bool take);
  void start_empty();
  std::vector<Word> merged_;
  std::vector<uint32_t> touched_;
  std::vector<Change> changes_, around_;
  std::vector<std::pair<double, uint64_t>> before_, after_; ///< neighbours' scratch: (time, bits)

  // first fit's scratch space
  struct Active {
    double b;
    const GapGroup* group; ///< null: the cores `bits` of word `word` (open now, or lifted)
    uint32_t word;
    uint64_t bits;
    uint32_t count; ///< cores it holds (a group's, less own's)
    bool operator>(const Active& o) const { return b > o.b; }
  };
  std::vector<Active> active_;                    ///< a min-heap on the end
  std::vector<std::pair<double, uint32_t>> open_; ///< the gaps open now, long enough
  std::vector<uint32_t> candidates_;              ///< the last fit's cores free over its window
  std::vector<uint64_t> marks_;                   ///< candidates as bits (zero between calls)
  /** first_fit's `own` reservation, lifted: its cores' joined gaps beginning after now (by a),
   *  their gaps open now (end, core), and the gaps it splits (not there while it is lifted). */
  std::vector<Change> lifted_, excluded_;
  std::vector<std::pair<double, uint32_t>> lifted_now_;
  void lift(const Reservation& own);
  /** The group's cores that the lifted reservation holds in word `word` (zero: none). */
  uint64_t excluded_bits(const GapGroup& g, uint32_t word) const;
  uint32_t excluded_count(const GapGroup& g) const;

  uint64_t proven_unchanged_ = 0;
  struct Freed {
    size_t begin, end; ///< its words in freed_words_
    double from, to;
  };

  std::vector<Freed> freed_;      ///< removals not looked at yet
  std::vector<Word> freed_words_; ///< their cores
  std::vector<Opening> openings_; ///< by seq
  uint64_t seq_ = 0;              ///< openings made so far
  std::vector<uint32_t> marked_log_;
  bool log_marks_ = false;
  /** After a removal: the opening its cores leave, and the jobs holding a freed core where one of
   *  its free intervals ends marked (they may grow into it). */
  void mark_movable(std::span<const Word> words, double from, double to);
};

/** Waiting jobs' reservations by start, to find those an opening may move (start at or after its
 *  beginning, `enough` at most its length) without visiting the others: sorted blocks, each with
 *  its least `enough`. Plain C++. */
class StartIndex {
public:
  void insert(double start, uint64_t key, double enough);
  void erase(double start, uint64_t key);
  void clear() { blocks_.clear(); }
  /** Calls f(key) for each entry with start >= lo and enough <= length, until f returns false. */
  template <typename F>
  void query(double lo, double length, F f) const
  {
    for (const Block& b : blocks_) {
      if (b.entries.back().start < lo || b.least > length)
        continue;
      for (const Entry& e : b.entries)
        if (e.start >= lo && e.enough <= length && not f(e.key))
          return;
    }
  }

  /** Calls f(key) for each entry beginning at `start`, until f returns false. */
  template <typename F>
  void starting_at(double start, F f) const
  {
    for (const Block& b : blocks_) {
      if (b.entries.back().start < start)
        continue;
      for (const Entry& e : b.entries) {
        if (e.start > start)
          return;
        if (e.start == start && not f(e.key))
          return;
      }
    }
  }

private:
  struct Entry {
    double start;
    uint64_t key;
    double enough;
  };
  struct Block {
    std::vector<Entry> entries; ///< by (start, key)
    double least = 0;
    void measure();
  };
  static constexpr size_t kBlock = 64;
  std::vector<Block> blocks_;
  size_t block_of(double start, uint64_t key) const;
};

} // namespace sgai::scheduling

#endif
