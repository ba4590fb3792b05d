/* A SimGrid program of one's own that starts sgai's workload manager from a deployment file, with
 * a job selection policy of its own registered from outside the library.
 *   batch_deployment PLATFORM.xml DEPLOYMENT.xml */
#include <sgai/core/scheduling/policies.hpp>
#include <sgai/plugins/experiment/actors.hpp>

#include <simgrid/s4u/Engine.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <span>
#include <string>

namespace {

/** "longest_first": the waiting job with the longest requested time goes first (ties: the earliest
 *  arrived). */
class LongestFirst : public sgai::scheduling::JobPolicy {
public:
  size_t pick(std::span<const sgai::scheduling::QueuedJob> queue, std::mt19937_64& /*rng*/) const override
  {
    size_t best = 0;
    for (size_t i = 1; i < queue.size(); i++)
      if (queue[i].requested_time_s > queue[best].requested_time_s)
        best = i;
    return best;
  }
};

} // namespace

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PLATFORM.xml DEPLOYMENT.xml\n";
    return 2;
  }
  sgai::scheduling::register_job_policy({"longest_first", "longest requested time first"},
                                        [] { return std::make_unique<LongestFirst>(); });
  sgai::experiment::register_actors(engine); // before the platform: it turns SimGrid's host energy plugin on
  engine.load_platform(argv[1]);
  engine.load_deployment(argv[2]);
  engine.run();
  if (not sgai::sim::deployment_error().empty()) {
    std::cerr << "error: " << sgai::sim::deployment_error() << "\n";
    return 1;
  }
  std::cout << "simulated " << simgrid::s4u::Engine::get_clock() << " s\n";
  std::ifstream jobs("results/jobs.csv"); // where the deployment file's out= argument put it
  for (std::string line; std::getline(jobs, line);)
    std::cout << line << "\n";
  return jobs.eof() ? 0 : 1;
}
