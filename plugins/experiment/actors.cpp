#include "plugins/experiment/actors.hpp"

#include "plugins/batch/deployment.hpp"
#include "plugins/replay/deployment.hpp"

#include <simgrid/s4u/Engine.hpp>

namespace sgai::experiment {

void register_actors(simgrid::s4u::Engine& engine)
{
  (void)engine; // each module registers on the Engine of the process, the one given here
  sgai_batch_register_actors();
  sgai_replay_register_actors();
}

std::vector<std::string> actor_functions()
{
  return {"sgai_workload_manager", "sgai_collective", "sgai_trace_replay"};
}

} // namespace sgai::experiment
