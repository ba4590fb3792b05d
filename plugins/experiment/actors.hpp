/* sgai's actors for SimGrid deployment files, all at once:
 *
 *   simgrid::s4u::Engine e(&argc, argv);
 *   sgai::register_actors(e);             // before load_platform: it turns on the energy plugin
 *   e.load_platform("platform.xml");
 *   e.load_deployment("deployment.xml");
 *   e.run();
 *   if (not sgai::sim::deployment_error().empty()) ...
 *
 * Each module registers its own too (sgai_batch_register_actors(), plugins/batch/deployment.hpp;
 * sgai_replay_register_actors(), plugins/replay/deployment.hpp). The functions:
 * "sgai_workload_manager" (the workload manager on a workload), "sgai_collective" (a collective
 * benchmark among hosts), "sgai_trace_replay" (a Chakra trace replayed on GPUs). `sgai run
 * PLATFORM DEPLOYMENT.xml` does the same. */
#ifndef SGAI_PLUGINS_EXPERIMENT_ACTORS_HPP
#define SGAI_PLUGINS_EXPERIMENT_ACTORS_HPP

#include "plugins/sim/deployment.hpp" // deployment_error(), deployment_outputs()

#include <simgrid/forward.h>

#include <string>
#include <vector>

namespace sgai::experiment {

/** Registers every sgai actor function on the Engine (names above) and turns on the plugins they
 *  read (SimGrid's host energy, sgai's GPU model): call it before loading the platform. */
void register_actors(simgrid::s4u::Engine& engine);
/** The names register_actors registers. */
std::vector<std::string> actor_functions();

} // namespace sgai::experiment

#endif
