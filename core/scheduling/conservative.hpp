/* The schedule conservative backfilling keeps between steps, as batsched keeps it: every running
 * job and every waiting job holds a reservation, the same cores over [start, end), in a profile of
 * time slices (the cores free in each). Reservations are placed first-fit on the lowest-numbered
 * cores free over their whole window (batsched's `basic` selector). Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_CONSERVATIVE_HPP
#define SGAI_CORE_SCHEDULING_CONSERVATIVE_HPP

#include "core/scheduling/policies.hpp"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <unordered_map>
#include <vector>

namespace sgai::scheduling {

class ReservationSchedule {
public:
  struct Reservation {
    double start = 0;
    double end   = 0; ///< infinity: held until removed
    std::vector<uint32_t> cores;
    mutable bool marked   = false; ///< a freed core was taken again where its window begins
    mutable uint64_t seen = 0;     ///< the openings made before it was placed or last found unchanged
  };
  struct Fit {
    double start = 0;
    std::vector<uint32_t> cores; ///< the lowest-numbered cores free over the whole window
  };

  /** Every core free from `now` on. */
  ReservationSchedule(uint32_t cores, double now);

  /** The present moves to `now` (never back): the slices that ended are dropped. */
  void advance(double now);
  double now() const { return slices_.front().begin; }

  /** Earliest slice start, from the `from`-th slice on (0: now), at which `width` cores stay free
   *  for `duration` seconds; none when no slice offers it. `own`: a reservation of this schedule
   *  to search as if it were not there (a job placed again: most land where they were). `all`:
   *  find every core free over the window, for last_candidates(). */
  std::optional<Fit> first_fit(uint32_t width, double duration, size_t from = 0, const Reservation* own = nullptr,
                               bool all = false) const;
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
  /** Marks what the removals since the last call may move (may_move calls it; a step without
   *  waiting jobs calls it so that nothing piles up). */
  void look_at_freed();
  /** The removals since the last look_at_freed concern no job: every waiting job was taken out,
   *  to be placed again from scratch. */
  void forget_freed() { freed_.clear(); }
  /** Every reservation but those of `jobs` (when they have one) goes, as remove() would take them
   *  out one by one (the schedule is built again around the kept ones), and no removal is
   *  remembered: the jobs whose reservations went are to be placed again from scratch. */
  void keep_only(const std::vector<uint32_t>& jobs);
  /** The job's reservation is what placing it again now would give (it was found unchanged). */
  void confirm(const Reservation& r) const;
  /** How many times may_move proved a job unchanged (for tests and benchmarks). */
  uint64_t proven_unchanged() const { return proven_unchanged_; }
  /** The openings made so far: those up to `seq` are forgotten once every waiting job was placed
   *  again or found unchanged after them. */
  uint64_t openings_made() const { return seq_; }
  void forget_openings(uint64_t seq);

  size_t slice_count() const { return slices_.size(); }
  size_t size() const { return reservations_.size(); }
  /** Cores free over [t, next slice) for the slice containing t (t >= now): for tests. */
  CoreSet free_at(double t) const;

private:
  /** A slice is 16 bytes, its sets of cores in `bits_` (a slot each): a slice inserted or erased
   *  moves the ones after it, a plain copy of 16 bytes each. */
  struct Slice {
    double begin;   ///< it lasts until the next slice's begin; the last one forever
    uint32_t edges; ///< reservations beginning or ending at `begin` (slices after the first)
    uint32_t slot;  ///< its sets in bits_: free (the cores held by no reservation, nf_ words), then
                    ///< words (bit k: free word k is not zero; few are when the platform is busy)
  };
  /** A word of a set of cores: few of them are non-zero when the platform is busy. */
  struct Word {
    uint32_t index;
    uint64_t bits;
  };
  uint32_t cores_;
  size_t nf_, nw_;                   ///< words of a slice's free set, of its words set
  std::vector<uint64_t> bits_;       ///< the slices' sets, nf_ + nw_ words a slot
  std::vector<uint32_t> free_slots_; ///< slots of slices gone
  uint64_t* free_of(const Slice& s) { return bits_.data() + s.slot * (nf_ + nw_); }
  const uint64_t* free_of(const Slice& s) const { return bits_.data() + s.slot * (nf_ + nw_); }
  uint64_t* words_of(const Slice& s) { return free_of(s) + nf_; }
  const uint64_t* words_of(const Slice& s) const { return free_of(s) + nf_; }
  uint32_t copy_slot(uint32_t from); ///< a new slot holding the sets of slot `from`
  void start_empty(double now);      ///< one slice from now on, every core free in it
  std::vector<Slice> slices_;        ///< by begin, at least one
  std::vector<uint32_t> counts_;     ///< cores free in each slice (dense: first_fit walks them)
  /** The most cores free in each block of kBlock slices (first_fit skips the blocks without
   *  enough), valid for the blocks before blocks_from_'s. */
  static constexpr size_t kBlock = 64;
  mutable std::vector<uint32_t> block_max_;
  mutable size_t blocks_from_ = 0;
  void touched(size_t slice) { blocks_from_ = std::min(blocks_from_, slice); }
  void update_blocks() const;
  std::unordered_map<uint32_t, Reservation> reservations_;
  mutable std::vector<Word> candidates_;    ///< first_fit's intersection, its non-zero words
  mutable std::vector<size_t> fewest_;      ///< first_fit's window slices by increasing free cores
  mutable std::vector<Word> own_words_;     ///< first_fit's `own` cores, by word
  mutable std::vector<uint64_t> own_dense_; ///< the same, indexed by word (zero elsewhere)
  std::vector<Word> masks_;                 ///< apply's cores, by word

  /** A reservation on a core: [start, end) for `job`. */
  struct Held {
    double start, end;
    uint32_t job;
    bool operator<(const Held& o) const { return start < o.start; }
  };
  std::vector<std::vector<Held>> by_core_; ///< each core's reservations by start (disjoint)
  uint64_t proven_unchanged_ = 0;
  struct Freed {
    std::vector<uint32_t> cores;
    double from, to;
  };
  std::vector<Freed> freed_; ///< removals not looked at yet
  /** The free intervals a removal left: a job beginning at or after `lo` and requesting at most
   *  `length` may move into one (the earliest beginning and the longest length over them). */
  struct Opening {
    uint64_t seq;
    double lo, length;
  };
  std::vector<Opening> openings_; ///< by seq
  uint64_t seq_ = 0;              ///< openings made so far
  /** After a removal: the opening its cores leave, and the jobs holding a freed core where one of
   *  its free intervals ends marked (they may grow into it). */
  void mark_movable(const std::vector<uint32_t>& cores, double from, double to);
  size_t slice_of(double t) const; ///< index of the slice containing t (t >= now)
  size_t split_at(double t);       ///< index of the slice beginning at t (size() for infinity)
  void apply(const std::vector<uint32_t>& cores, double start, double end, bool take);
  static void to_words(const std::vector<uint32_t>& cores, std::vector<Word>& out);
  void merge_with_previous(size_t i); ///< slices i-1 and i become one when no edge separates them
};

} // namespace sgai::scheduling

#endif
