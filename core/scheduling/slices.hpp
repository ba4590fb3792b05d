/* The schedule of a narrow machine (at most 512 cores) as batsched keeps it: time slices from now
 * on, each with its free cores as one bit set of 8 words, a slice beginning where a reservation
 * begins or ends (merged back into the one before when none does any more). The slices' times,
 * free-core counts and reservation counts are sorted arrays, their bit sets in a pool: first fit
 * passes the candidate starts with too few free cores on the counts alone, in one pass over an
 * array, and checks the others slice by slice until the window is covered or too few cores stay
 * free (a slice with too few cores at all ends every candidate whose window reaches it). A split
 * or a merge moves 20 bytes a later slice (time, count, reservations, bit set). ReservationSchedule (conservative.hpp)
 * keeps its reservations here when the machine is narrow. Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_SLICES_HPP
#define SGAI_CORE_SCHEDULING_SLICES_HPP

#include <array>
#include <cstdint>
#include <optional>
#include <vector>

namespace sgai::scheduling {

class SliceProfile {
public:
  static constexpr uint32_t kWords    = 8;
  static constexpr uint32_t kMaxCores = kWords * 64;
  using Mask                          = std::array<uint64_t, kWords>;

  /** Every one of `cores` (at most kMaxCores) free from `now` on. */
  void reset(uint32_t cores, double now);
  /** The present moves to `now` (never back): the slices that ended go. */
  void advance(double now);
  double now() const { return t_.front(); }

  /** Takes `cores` over [start, end) (start at or before now: from now; end may be infinity); they
   *  are free there. */
  void take(double start, double end, const Mask& cores);
  /** Gives back what take took, from now on. */
  void give(double start, double end, const Mask& cores);

  struct Fit {
    double start;
    Mask cores; ///< every core free over the whole window
  };
  /** The earliest slice beginning at or after `from` (now: the present) whose window of `duration`
   *  has `width` cores free throughout; `own` (cores over [own_start, own_end)) counted free. */
  std::optional<Fit> first_fit(uint32_t width, double duration, double from, const Mask* own = nullptr,
                               double own_start = 0, double own_end = 0) const;
  /** What freeing `cores` over [from, to) left free (looked at after: some may be taken again):
   *  lo, the earliest beginning of a run of free time of theirs reaching into the window, and hi,
   *  the latest end of one; the times where one of them is taken again after a run, into
   *  `regained`. False when none of them is free in the window any more. */
  bool opening(const Mask& cores, double from, double to, double& lo, double& hi, std::vector<double>& regained) const;
  /** The free cores at t (at or after now). */
  Mask free_at(double t) const;
  /** Slices from now on. */
  size_t size() const { return t_.size(); }

private:
  uint32_t words_ = 1;          ///< the words of a bit set in use
  std::vector<double> t_;       ///< each slice's beginning (the first: now)
  std::vector<uint32_t> count_; ///< its free cores
  std::vector<uint32_t> refs_;  ///< reservations beginning or ending there
  std::vector<uint32_t> mask_;  ///< its bit set in masks_
  std::vector<Mask> masks_;     ///< the pool
  std::vector<uint32_t> spare_; ///< bit sets of the pool no slice has
  /** The slice beginning at t (t > now, after slice `from`), split off the one holding t if there
   *  is none. */
  size_t at(double t, size_t from = 0);
  /** The slice beginning at t (there is one, at `from` or after). */
  size_t find(double t, size_t from = 0) const;
  void erase(size_t k);
};

} // namespace sgai::scheduling

#endif
