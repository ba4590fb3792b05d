/* Collectives for a user's own S4U actors: the schedules sgai's trace replay runs (ring, direct,
 * halving-doubling, NCCL's double binary tree, ...) executed as S4U communications between the
 * group's hosts, with the costs of CollectiveRun (plugins/communicator/communicator.hpp).
 *
 * From one actor, the whole collective (it starts an actor per rank and waits for them):
 *
 *   double t = sgai::communicator::all_reduce(gpus, 256e6);               // ring, one chunk
 *   double t = sgai::communicator::all_reduce(gpus, 256e6, sgai::collectives::Algorithm::double_binary_tree);
 *
 * From the ranks' own actors (each calls run with its rank; the call returns when that rank has
 * sent and received everything):
 *
 *   auto c = std::make_shared<sgai::communicator::Collective>(CollectiveType::all_reduce, gpus, 256e6);
 *   // in rank r's actor:  c->run(r);
 */
#ifndef SGAI_PLUGINS_COMMUNICATOR_COLLECTIVE_HPP
#define SGAI_PLUGINS_COMMUNICATOR_COLLECTIVE_HPP

#include "core/collectives/schedule.hpp"
#include "plugins/communicator/communicator.hpp"

#include <simgrid/forward.h>

#include <memory>
#include <vector>

namespace sgai::communicator {

using collectives::Algorithm;
using collectives::CollectiveType;

/** One collective among `hosts` (rank i on hosts[i]), `bytes` per rank's buffer as Chakra's
 *  comm_size (schedule.hpp). std::invalid_argument for an empty group or a combination the
 *  algorithm does not have (halving-doubling over 6 ranks). */
class Collective {
public:
  Collective(CollectiveType type, std::vector<simgrid::s4u::Host*> hosts, double bytes,
             collectives::Algorithm algorithm = collectives::Algorithm::ring, const CollectiveOptions& options = {},
             uint32_t root = 0);
  /** Rank r's part, in the calling actor (any host); returns when it is done. */
  void run(uint32_t rank);
  uint32_t size() const;

private:
  std::shared_ptr<communicator::CollectiveRun> run_;
};

/** The whole collective from the calling actor: an actor per rank on its host, joined; returns
 *  the simulated seconds it took. */
double run(CollectiveType type, const std::vector<simgrid::s4u::Host*>& hosts, double bytes,
           collectives::Algorithm algorithm = collectives::Algorithm::ring, const CollectiveOptions& options = {},
           uint32_t root = 0);
/** run(all_reduce, ...). */
double all_reduce(const std::vector<simgrid::s4u::Host*>& hosts, double bytes,
                  collectives::Algorithm algorithm = collectives::Algorithm::ring,
                  const CollectiveOptions& options = {});

} // namespace sgai::communicator

#endif
