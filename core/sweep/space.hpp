/* A campaign's search space (Copper, ../shared/papers/copper.txt §2.2): a grid of parameter values,
 * each point one value index per parameter. Points are numbered in row-major order (the last
 * parameter varies fastest), so a full sweep is points 0 .. count() - 1. Pure code. */
#ifndef SGAI_CORE_SWEEP_SPACE_HPP
#define SGAI_CORE_SWEEP_SPACE_HPP

#include <cstddef>
#include <cstdint>
#include <vector>

namespace sgai::sweep {

using Point = std::vector<uint32_t>;

struct Space {
  std::vector<uint32_t> sizes; ///< values per parameter (each at least 1)

  size_t dimensions() const { return sizes.size(); }
  /** Points in the grid (the product of the sizes). */
  uint64_t count() const;
  Point point(uint64_t index) const;
  uint64_t index(const Point& p) const;
  /** Coordinates in [0, 1]: index / (size - 1) per parameter (0 for a parameter of one value), the
   *  scale on which distances (local search, DBSCAN) are measured. */
  std::vector<double> normalised(const Point& p) const;
  double distance(const Point& a, const Point& b) const;
};

} // namespace sgai::sweep

#endif
