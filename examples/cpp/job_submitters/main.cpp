/* Jobs submitted while the simulation runs: sgai's workload manager, started by a deployment file,
 * takes the jobs of sgai's job submitter (a workload file) and of one of the program's own actors,
 * which makes its jobs in code.
 *   job_submitters PLATFORM.xml DEPLOYMENT.xml */
#include <sgai/plugins/batch/deployment.hpp>
#include <sgai/plugins/batch/manager.hpp>
#include <sgai/plugins/experiment/actors.hpp>
#include <sgai/plugins/sim/deployment.hpp>

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>

#include <fstream>
#include <iostream>
#include <memory>
#include <stdexcept>
#include <string>
#include <vector>

namespace {

/** "interactive_user COUNT EVERY": COUNT jobs of 20 s of computing on one machine, one every EVERY
 *  seconds from t = 5, submitted to the manager named workload_manager. */
void interactive_user(std::vector<std::string> args)
{
  try {
    if (args.size() != 3)
      throw std::invalid_argument("interactive_user takes COUNT and EVERY");
    const int count    = std::stoi(args[1]);
    const double every = std::stod(args[2]);
    auto w             = std::make_shared<sgai::workload::Workload>();
    w->name            = "interactive";
    w->source          = "interactive_user";
    sgai::workload::Profile p;
    p.name = "compute_20";
    p.type = sgai::workload::ProfileType::parallel_homogeneous;
    p.cpu  = 20e9; // flops on each machine: 20 s at 1 Gflop/s
    w->profiles.push_back(p);
    for (int i = 0; i < count; i++) {
      sgai::workload::Job j;
      j.id         = "i" + std::to_string(i);
      j.resources  = 1;
      j.walltime_s = 30;
      j.profile    = 0;
      w->jobs.push_back(j);
    }
    std::shared_ptr<const sgai::workload::Workload> jobs = w;
    sgai::batch::WorkloadManager* manager                = nullptr;
    for (int i = 0; i < count; i++) {
      simgrid::s4u::this_actor::sleep_until(5 + i * every);
      if (manager == nullptr)
        manager = sgai::batch::deployed_workload_manager("workload_manager");
      if (manager == nullptr)
        throw std::invalid_argument("no workload manager named workload_manager runs");
      manager->submit(jobs, static_cast<size_t>(i)); // submitted now
    }
    if (manager != nullptr)
      manager->end_submissions(); // the manager ends once every submitter has ended
  } catch (const std::exception& e) {
    sgai::sim::fail_deployment("interactive_user", e.what()); // stops the simulation, kept as deployment_error()
  }
}

} // namespace

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PLATFORM.xml DEPLOYMENT.xml\n";
    return 2;
  }
  sgai::experiment::register_actors(engine); // before the platform: it turns SimGrid's host energy plugin on
  engine.register_function("interactive_user", &interactive_user);
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
