/* Machines switched off and on by the workload manager, as Batsim switches them (src/pstate.cpp):
 * hand-computed switching cases on medium_late's platform, and batsched's energy policies on
 * medium_late (energy adds up, the same work is done, less energy than EASY). */
#include "core/foundation/files.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/manager.hpp"
#include "sim_helpers.hpp"

#include <simgrid/plugins/energy.h>

#include <gtest/gtest.h>

#include <fstream>

using namespace sgai;
using sgai::test::figure;
namespace sg4 = simgrid::s4u;

namespace {

const char* kPlatform = "../shared/data/batsim/medium_late/platform.xml";

struct PowerRun {
  std::unique_ptr<sim::Simulation> sim;
  workload::Workload workload;
  std::unique_ptr<batch::WorkloadManager> manager;
};

std::filesystem::path write_workload(const std::string& name, const std::string& text)
{
  auto file = test::temp_dir() / name;
  std::ofstream(file) << text;
  return file;
}

std::unique_ptr<PowerRun> run(const std::filesystem::path& workload, batch::ManagerConfig cfg, uint32_t machines,
                              bool ok = true)
{
  auto r                 = std::make_unique<PowerRun>();
  r->workload            = workload::read_workload(workload);
  r->sim                 = std::make_unique<sim::Simulation>(sim::SimulationOptions{});
  auto platform          = r->sim->load_platform(kPlatform);
  cfg.max_resources      = machines;
  cfg.platform_file      = kPlatform;
  cfg.scheduler.backfill = scheduling::Backfill::easy;
  r->manager =
      std::make_unique<batch::WorkloadManager>(r->workload, batch::resources_from_engine(machines), nullptr, cfg);
  r->manager->start();
  r->sim->run();
  if (ok) {
    EXPECT_EQ(r->manager->error(), "");
  }
  return r;
}

double energy_of(const char* host)
{
  return sg_host_get_consumed_energy(sg4::Host::by_name(host));
}

// medium_late's machines (Batsim's energy platform): P-state 0 computes at 100 Mflop/s, 95 W idle;
// sleep_pstates 13:14:15: asleep 9.75 W; switching off: 1 flop at 0.16393442623 flop/s (6.1 s) at
// 100.996721311 W = 616.08 J; switching on: 1 flop at 0.00659978880676 flop/s (151.52 s) at
// 125.1743849 W = 18,966.42 J.
constexpr double kOff = 1 / 0.16393442623, kOn = 1 / 0.00659978880676;
constexpr double kOffJ = kOff * 100.996721311, kOnJ = kOn * 125.1743849;

} // namespace

TEST(Switching, OffAtZeroOnAt500AsBatsim)
{
  SGAI_REQUIRE_SHARED_DATA();
  // host0 is switched off at 0 and on at 500; a job of 651.52 s on host1 ends the run when host0
  // is on again: host0 used 616.08 + (500 - 6.1) x 9.75 + 18,966.42 = 24,398.03 J.
  auto w = write_workload("switch.json", R"({"nb_res": 2, "jobs": [
      {"id": "j", "subtime": 0, "walltime": 1000, "res": 1, "profile": "d"}],
      "profiles": {"d": {"type": "delay", "delay": 651.52}}})");
  batch::ManagerConfig cfg;
  cfg.switches = {{0, "host0", false}, {500, "host0", true}};
  auto r       = run(w, cfg, 2);
  EXPECT_NEAR(kOffJ, 616.08, 0.005);
  EXPECT_NEAR(kOnJ, 18966.42, 0.005);
  EXPECT_NEAR(energy_of("host0"), 616.08 + 4815.525 + 18966.42, 0.005);
  EXPECT_NEAR(energy_of("host0"), kOffJ + (500 - kOff) * 9.75 + kOnJ, 1e-6 * 24398.03);
  EXPECT_NEAR(500 + kOn, 651.52, 1e-6);
  const auto& job = r->manager->jobs()[0];
  EXPECT_EQ(job.cores, (std::vector<uint32_t>{1})); // host0 was switching off
  EXPECT_NEAR(job.finish_s, 651.52, 1e-6);
  // machine-seconds in each state, as Batsim counts them (each machine's last interval left out)
  EXPECT_NEAR(figure(*r->manager, "time_switching_off"), kOff, 1e-9);
  EXPECT_NEAR(figure(*r->manager, "time_sleeping"), 500 - kOff, 1e-9);
  EXPECT_NEAR(figure(*r->manager, "time_switching_on"), kOn, 1e-6);
  EXPECT_EQ(figure(*r->manager, "nb_machine_switches"), 2);
  // energy adds up: jobs + idle (switching and sleeping included) = the plugin's total
  double jobs = r->manager->jobs()[0].energy_j;
  EXPECT_NEAR(jobs, 651.52 * 95, 1e-6 * 651.52 * 95); // a delay job draws idle power, as in Batsim
  EXPECT_NEAR(jobs + r->manager->idle_energy_j(), energy_of("host0") + energy_of("host1"), 1e-6 * 8e4);
}

TEST(Switching, AJobWaitsForItsMachineToWake)
{
  SGAI_REQUIRE_SHARED_DATA();
  // One machine, off at 0 (6.1 s), on at 100 (151.52 s): the job submitted at 10 starts at 251.52.
  auto w = write_workload("wait.json", R"({"nb_res": 1, "jobs": [
      {"id": "j", "subtime": 10, "walltime": 100, "res": 1, "profile": "d"}],
      "profiles": {"d": {"type": "delay", "delay": 10}}})");
  batch::ManagerConfig cfg;
  cfg.switches = {{0, "host0", false}, {100, "host0", true}};
  auto r       = run(w, cfg, 1);
  EXPECT_NEAR(r->manager->jobs()[0].start_s, 100 + kOn, 1e-6);
  EXPECT_NEAR(r->manager->jobs()[0].finish_s, 110 + kOn, 1e-6);
  // 6.1 s switching off, 93.9 s asleep, 151.52 s switching on, then 10 s idle power (a delay job)
  double expected = kOffJ + (100 - kOff) * 9.75 + kOnJ + 10 * 95;
  EXPECT_NEAR(energy_of("host0"), expected, 1e-6 * expected);
}

TEST(Switching, OnlyAnIdleMachineCanBeSwitchedOff)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto w = write_workload("busy.json", R"({"nb_res": 1, "jobs": [
      {"id": "j", "subtime": 0, "walltime": 100, "res": 1, "profile": "d"}],
      "profiles": {"d": {"type": "delay", "delay": 50}}})");
  batch::ManagerConfig cfg;
  cfg.switches = {{10, "host0", false}};
  auto r       = run(w, cfg, 1, false);
  EXPECT_NE(r->manager->error().find("cannot switch host host0 off at 10 s: it is computing"), std::string::npos)
      << r->manager->error();
}

class EnergyPolicies : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(EnergyPolicies, MediumLate)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto [variant, file] = GetParam();
  batch::ManagerConfig cfg;
  cfg.power        = scheduling::read_power_options(file, variant);
  cfg.power_source = file;
  auto r           = run("../shared/data/batsim/medium_late/medium_late.json", cfg, 32);
  const auto& m    = *r->manager;
  EXPECT_EQ(figure(m, "jobs_success"), 801);
  // the same work: delay jobs hold their machines as long, whatever the schedule (Batsim's EASY:
  // 256,450.464 machine-seconds computing)
  EXPECT_NEAR(figure(m, "time_computing"), 256450.464, 1e-6);
  // less energy than EASY without switching (Batsim: 48,909,070.4 J)
  double energy = figure(m, "energy_j");
  EXPECT_LT(energy, 0.8 * 48909070.4);
  EXPECT_GT(figure(m, "nb_machine_switches"), 0);
  double jobs = 0;
  for (const auto& j : m.jobs())
    jobs += j.energy_j;
  EXPECT_NEAR(jobs + m.idle_energy_j(), energy, 1e-6 * energy);
  RecordProperty("energy_j", std::to_string(energy));
  RecordProperty("makespan_s", std::to_string(figure(m, "makespan_s")));
}

INSTANTIATE_TEST_SUITE_P(
    Batsched, EnergyPolicies,
    ::testing::Values(std::make_pair("energy_bf_monitoring_inertial", "deploy/energy/inertial.json"),
                      std::make_pair("energy_bf_monitoring_inertial", "deploy/energy/inertial_opportunistic.json"),
                      std::make_pair("energy_bf_subpart_sleeper", "deploy/energy/opportunistic.json"),
                      std::make_pair("energy_bf_subpart_sleeper", "deploy/energy/subpart.json")),
    [](const auto& param_info) { return std::filesystem::path(param_info.param.second).stem().string(); });
