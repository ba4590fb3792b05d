#include "plugins/communicator/collective.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <stdexcept>
#include <string>

namespace sgai::communicator {

Collective::Collective(chakra::CollectiveType type, std::vector<simgrid::s4u::Host*> hosts, double bytes,
                       collectives::Algorithm algorithm, const CollectiveOptions& options, uint32_t root)
{
  if (hosts.empty())
    throw std::invalid_argument("a collective needs at least one host");
  if (not(bytes >= 0))
    throw std::invalid_argument("a collective's bytes must be 0 or more");
  auto n        = static_cast<uint32_t>(hosts.size());
  auto schedule = std::make_shared<const collectives::Schedule>(collectives::make_schedule(type, algorithm, n, root));
  run_          = std::make_shared<communicator::CollectiveRun>(schedule, std::move(hosts), bytes, options);
}

void Collective::run(uint32_t rank)
{
  if (rank >= size())
    throw std::invalid_argument("rank " + std::to_string(rank) + " of a collective of " + std::to_string(size()));
  run_->run_rank(rank);
}

uint32_t Collective::size() const
{
  return run_->schedule().ranks;
}

double run(chakra::CollectiveType type, const std::vector<simgrid::s4u::Host*>& hosts, double bytes,
           collectives::Algorithm algorithm, const CollectiveOptions& options, uint32_t root)
{
  auto c       = std::make_shared<Collective>(type, hosts, bytes, algorithm, options, root);
  double start = simgrid::s4u::Engine::get_clock();
  std::vector<simgrid::s4u::ActorPtr> ranks;
  for (uint32_t r = 0; r < hosts.size(); r++)
    ranks.push_back(simgrid::s4u::Actor::create("rank_" + std::to_string(r), hosts[r], [c, r]() { c->run(r); }));
  for (auto& a : ranks)
    a->join();
  return simgrid::s4u::Engine::get_clock() - start;
}

double all_reduce(const std::vector<simgrid::s4u::Host*>& hosts, double bytes, collectives::Algorithm algorithm,
                  const CollectiveOptions& options)
{
  return run(chakra::CollectiveType::all_reduce, hosts, bytes, algorithm, options);
}

} // namespace sgai::communicator
