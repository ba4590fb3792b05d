/* A job profile of one's own: "checkpointed" jobs compute `cpu` flops on each core, then write a
 * checkpoint for `checkpoint` seconds, `phases` times. The program registers the kind with
 * sgai::batch::register_profile_kind (the workload reader accepts the type from then on), then
 * runs sgai's workload manager on a workload using it, from a deployment file.
 *   custom_profile PLATFORM.xml DEPLOYMENT.xml */
#include <sgai/plugins/batch/profiles/profile_run.hpp>
#include <sgai/plugins/experiment/actors.hpp>

#include <simgrid/s4u/Engine.hpp>

#include <cstdint>
#include <fstream>
#include <iostream>
#include <memory>
#include <optional>
#include <string>

namespace {

using sgai::batch::Placement;
using sgai::batch::ProfileRun;
using sgai::batch::Stage;

/** Its stages: computing (an execution per host, as many threads as the job has cores there), then
 *  waiting while the checkpoint is written, `phases` times. */
class Checkpointed : public ProfileRun {
public:
  Checkpointed(double cpu, double checkpoint_s, uint32_t phases, const Placement& where)
      : cpu_(cpu)
      , checkpoint_s_(checkpoint_s)
      , stages_left_(2 * phases)
      , where_(where)
  {
  }
  std::optional<Stage> next() override
  {
    if (stages_left_ == 0)
      return std::nullopt;
    Stage s;
    if (stages_left_-- % 2 == 0)
      s.execs = sgai::batch::per_host_execs(where_, {cpu_});
    else
      s.delay_s = checkpoint_s_;
    return s;
  }

private:
  double cpu_, checkpoint_s_;
  uint32_t stages_left_;
  Placement where_;
};

std::string cannot_run(const sgai::workload::Workload& /*w*/, const sgai::workload::Profile& p, uint32_t /*resources*/,
                       const sgai::scheduling::Resources& /*r*/)
{
  try {
    if (p.custom_number("cpu") < 0 || p.custom_number("checkpoint") < 0 || p.custom_number("phases") < 1)
      return "checkpointed profile " + p.name + ": cpu and checkpoint must be >= 0, phases >= 1";
  } catch (const std::invalid_argument& e) {
    return e.what(); // a field missing or not a number
  }
  return "";
}

bool communicates(const sgai::workload::Workload& /*w*/, const sgai::workload::Profile& /*p*/, uint32_t /*resources*/)
{
  return false;
}

std::unique_ptr<ProfileRun> start(const sgai::workload::Workload& /*w*/, const sgai::workload::Profile& p,
                                  const Placement& where)
{
  return std::make_unique<Checkpointed>(p.custom_number("cpu"), p.custom_number("checkpoint"),
                                        static_cast<uint32_t>(p.custom_number("phases")), where);
}

} // namespace

int main(int argc, char** argv)
{
  simgrid::s4u::Engine engine(&argc, argv);
  if (argc != 3) {
    std::cerr << "usage: " << argv[0] << " PLATFORM.xml DEPLOYMENT.xml\n";
    return 2;
  }
  sgai::batch::register_profile_kind("checkpointed", {nullptr, &cannot_run, &communicates, &start});
  sgai::experiment::register_actors(engine);
  engine.load_platform(argv[1]);
  engine.load_deployment(argv[2]);
  engine.run();
  if (not sgai::sim::deployment_error().empty()) {
    std::cerr << "error: " << sgai::sim::deployment_error() << "\n";
    return 1;
  }
  std::cout << "simulated " << simgrid::s4u::Engine::get_clock() << " s\n";
  std::ifstream jobs("results/jobs.csv");
  for (std::string line; std::getline(jobs, line);)
    std::cout << line << "\n";
  return jobs.eof() ? 0 : 1;
}
