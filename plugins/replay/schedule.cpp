#include "plugins/replay/schedule.hpp"

#include <stdexcept>

namespace sgai::replay {

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
  else if (s == "double_binary_tree" || s == "doubleBinaryTree" || s == "dbt")
    out = Algorithm::double_binary_tree;
  else
    return false;
  return true;
}

void Schedule::index()
{
  by_rank.assign(ranks, std::vector<RankStep>(steps.size()));
  for (uint32_t k = 0; k < steps.size(); k++)
    for (uint32_t i = 0; i < steps[k].size(); i++) {
      by_rank[steps[k][i].src][k].sends.push_back(i);
      by_rank[steps[k][i].dst][k].recvs.push_back(i);
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
    }
  }
  s.type      = type;
  s.algorithm = algorithm;
  s.ranks     = ranks;
  s.index();
  return s;
}

} // namespace sgai::replay
