#include "core/collectives/schedule.hpp"

#include "core/collectives/algorithms/common.hpp"

#include <stdexcept>

namespace sgai::collectives {

const char* to_string(Algorithm a)
{
  switch (a) {
  case Algorithm::ring:
    return "ring";
  case Algorithm::direct:
    return "direct";
  case Algorithm::halving_doubling:
    return "halving_doubling";
  case Algorithm::double_binary_tree:
    return "double_binary_tree";
  case Algorithm::astra_tree:
    return "doubleBinaryTree";
  case Algorithm::nvls:
    return "nvls";
  }
  return "?";
}

bool algorithm_from_string(std::string_view s, Algorithm& out)
{
  if (s == "ring")
    out = Algorithm::ring;
  else if (s == "direct")
    out = Algorithm::direct;
  else if (s == "halving_doubling" || s == "halvingDoubling")
    out = Algorithm::halving_doubling;
  else if (s == "double_binary_tree" || s == "dbt")
    out = Algorithm::double_binary_tree;
  else if (s == "doubleBinaryTree" || s == "astra_tree")
    out = Algorithm::astra_tree;
  else if (s == "nvls")
    out = Algorithm::nvls;
  else
    return false;
  return true;
}

void Schedule::index()
{
  by_rank_.assign(ranks, RankIndex{});
  const size_t n = steps.size();
  for (RankIndex& r : by_rank_)
    r.offsets.assign(2 * n + 1, 0);
  // counts first (step k's sends into offsets[2k + 1], its receives into [2k + 2]), then their
  // running sums: offsets[2k] is where step k's sends begin
  for (size_t k = 0; k < n; k++)
    for (const Transfer& t : steps[k]) {
      by_rank_[t.src].offsets[2 * k + 1]++;
      by_rank_[t.dst].offsets[2 * k + 2]++;
    }
  for (RankIndex& r : by_rank_) {
    for (size_t j = 1; j <= 2 * n; j++)
      r.offsets[j] += r.offsets[j - 1];
    r.items.resize(r.offsets[2 * n]);
  }
  // then each transfer at its rank's next free place of the step (in steps[k]'s order)
  std::vector<std::vector<uint32_t>> next(ranks);
  for (uint32_t r = 0; r < ranks; r++)
    next[r] = by_rank_[r].offsets;
  for (size_t k = 0; k < n; k++)
    for (uint32_t i = 0; i < steps[k].size(); i++) {
      const Transfer& t                               = steps[k][i];
      by_rank_[t.src].items[next[t.src][2 * k]++]     = i;
      by_rank_[t.dst].items[next[t.dst][2 * k + 1]++] = i;
    }
}

size_t Schedule::transfer_count() const
{
  size_t n = 0;
  for (const auto& s : steps)
    n += s.size();
  return n;
}

double Schedule::bytes_sent(uint32_t rank, double bytes) const
{
  double f = 0;
  for (const auto& s : steps)
    for (const auto& t : s)
      if (t.src == rank)
        f += t.fraction;
  return f * bytes;
}

Schedule make_schedule(CollectiveType type, Algorithm algorithm, uint32_t ranks, uint32_t root)
{
  if (ranks == 0)
    throw std::invalid_argument("a collective needs at least one rank");
  if (root >= ranks)
    throw std::invalid_argument("root rank " + std::to_string(root) + " is not among the " + std::to_string(ranks) +
                                " ranks");
  Schedule s;
  if (ranks > 1) {
    switch (algorithm) {
    case Algorithm::ring:
      s = algorithms::ring(type, ranks, root);
      break;
    case Algorithm::direct:
      s = algorithms::direct(type, ranks, root);
      break;
    case Algorithm::halving_doubling:
      s = algorithms::halving_doubling(type, ranks, root);
      break;
    case Algorithm::double_binary_tree:
      s = algorithms::double_binary_tree(type, ranks, root);
      break;
    case Algorithm::astra_tree:
      s = algorithms::astra_double_binary_tree(type, ranks, root);
      break;
    case Algorithm::nvls:
      s = algorithms::nvls(type, ranks);
      break;
    }
  }
  s.type      = type;
  s.algorithm = algorithm;
  s.ranks     = ranks;
  s.index();
  return s;
}

Schedule make_multidim_schedule(CollectiveType type, const std::vector<uint32_t>& dims,
                                const std::vector<Algorithm>& algorithms, uint32_t root,
                                AllReduceComposition composition, const std::vector<bool>& involved)
{
  if (dims.empty() || algorithms.size() != dims.size())
    throw std::invalid_argument("one algorithm per dimension is needed (" + std::to_string(dims.size()) +
                                " dimensions, " + std::to_string(algorithms.size()) + " algorithms)");
  uint64_t total = 1;
  for (uint32_t d : dims)
    total *= d;
  if (total == 0 || total > UINT32_MAX)
    throw std::invalid_argument("bad dimension sizes");
  const auto n = static_cast<uint32_t>(total);
  // the dimensions the collective runs along, with their sizes; the others count as one rank
  std::vector<uint32_t> size(dims.size());
  bool all = true, any = false;
  for (size_t i = 0; i < dims.size(); i++) {
    bool in = i >= involved.size() || involved[i];
    size[i] = in ? dims[i] : 1;
    all     = all && in;
    any     = any || (in && dims[i] > 1);
  }
  if (not any && n > 1) { // nothing to run along: no step
    Schedule none;
    none.type      = type;
    none.algorithm = algorithms[0];
    none.ranks     = n;
    none.index();
    return none;
  }
  if (dims.size() == 1 && all)
    return make_schedule(type, algorithms[0], n, root);

  Schedule out;
  out.type      = type;
  out.algorithm = algorithms[0];
  out.ranks     = n;
  // one phase: `t` by dimension i's algorithm in every group along i, fractions scaled by `scale`
  auto phase = [&](CollectiveType t, size_t i, double scale) {
    uint32_t stride = 1;
    for (size_t j = 0; j < i; j++)
      stride *= dims[j];
    if (size[i] == 1)
      return;
    Schedule s   = make_schedule(t, algorithms[i], dims[i]);
    out.lanes    = std::max(out.lanes, s.lanes);
    size_t first = out.steps.size();
    out.steps.resize(first + s.steps.size());
    out.step_dim.resize(first + s.steps.size(), static_cast<uint32_t>(i));
    for (uint32_t base = 0; base < n; base++) {
      if ((base / stride) % dims[i] != 0)
        continue;
      for (size_t k = 0; k < s.steps.size(); k++)
        for (const auto& tr : s.steps[k])
          out.steps[first + k].push_back(
              {base + tr.src * stride, base + tr.dst * stride, tr.fraction * scale, tr.reduce, tr.lane});
    }
  };
  const size_t D = dims.size();
  std::vector<double> buffer(D, 1.0); // buffer of dimension i's phase, as a fraction of the whole
  for (size_t i = 1; i < D; i++)
    buffer[i] = buffer[i - 1] / size[i - 1];
  switch (canonical(type)) {
  case CollectiveType::all_reduce:
    if (composition == AllReduceComposition::baseline) {
      for (size_t i = 0; i < D; i++)
        phase(CollectiveType::all_reduce, i, 1.0);
      break;
    }
    {
      size_t last = D - 1; // the last dimension with more than one rank takes the all-reduce
      while (last > 0 && size[last] == 1)
        last--;
      for (size_t i = 0; i < last; i++)
        phase(CollectiveType::reduce_scatter, i, buffer[i]);
      phase(CollectiveType::all_reduce, last, buffer[last]);
      for (size_t i = last; i-- > 0;)
        phase(CollectiveType::all_gather, i, buffer[i] / size[i]);
    }
    break;
  case CollectiveType::reduce_scatter:
    for (size_t i = 0; i < D; i++)
      phase(CollectiveType::reduce_scatter, i, buffer[i]);
    break;
  case CollectiveType::all_gather: {
    // the last dimension first, on one contribution; each phase's input grows by the dimensions done
    double contribution = 1;
    for (size_t i = D; i-- > 0;) {
      phase(CollectiveType::all_gather, i, contribution);
      contribution *= size[i];
    }
    break;
  }
  case CollectiveType::all_to_all:
    for (size_t i = 0; i < D; i++)
      phase(CollectiveType::all_to_all, i, 1.0);
    break;
  default:
    return make_schedule(type, algorithms[0], n, root);
  }
  out.index();
  return out;
}

} // namespace sgai::collectives
