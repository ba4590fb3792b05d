#include "core/sweep/space.hpp"

#include <cmath>
#include <stdexcept>

namespace sgai::sweep {

uint64_t Space::count() const
{
  uint64_t n = 1;
  for (uint32_t s : sizes)
    n *= s;
  return sizes.empty() ? 0 : n;
}

Point Space::point(uint64_t index) const
{
  Point p(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    p[d] = uint32_t(index % sizes[d]);
    index /= sizes[d];
  }
  return p;
}

uint64_t Space::index(const Point& p) const
{
  if (p.size() != sizes.size())
    throw std::invalid_argument("a point of another space");
  uint64_t i = 0;
  for (size_t d = 0; d < sizes.size(); ++d) {
    if (p[d] >= sizes[d])
      throw std::invalid_argument("a value index beyond its parameter's values");
    i = i * sizes[d] + p[d];
  }
  return i;
}

std::vector<double> Space::normalised(const Point& p) const
{
  std::vector<double> x(p.size());
  for (size_t d = 0; d < p.size(); ++d)
    x[d] = sizes[d] > 1 ? double(p[d]) / double(sizes[d] - 1) : 0.0;
  return x;
}

double Space::distance(const Point& a, const Point& b) const
{
  auto x = normalised(a), y = normalised(b);
  double s = 0;
  for (size_t d = 0; d < x.size(); ++d)
    s += (x[d] - y[d]) * (x[d] - y[d]);
  return std::sqrt(s);
}

} // namespace sgai::sweep
