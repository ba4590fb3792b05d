/* The workload manager in SimGrid: energy adds up, HDeepRM's learning scenario, Batsim's EASY
 * schedule of medium_late, walltime kills, rejections, communicating jobs. */
#include "core/foundation/files.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/manager.hpp"
#include "sim_helpers.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

using namespace sgai;
using sgai::test::figure;
namespace sg4 = simgrid::s4u;

namespace {

double plugin_host_energy()
{
  double total = 0;
  for (const sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts())
    if (h->get_property("wattage_per_state"))
      total += sg_host_get_consumed_energy(h);
  return total;
}

struct Run {
  std::unique_ptr<sim::Simulation> sim;
  std::optional<platform::Platform> platform;
  workload::Workload workload;
  std::unique_ptr<batch::WorkloadManager> manager;
};

std::unique_ptr<Run> run(const std::string& platform, const std::string& workload, batch::ManagerConfig cfg,
                         std::optional<platform::Granularity> g = {}, std::vector<std::string> args = {})
{
  auto r      = std::make_unique<Run>();
  r->workload = workload::read_workload(workload);
  if (batch::WorkloadManager::needs_ptask_model(r->workload))
    args.insert(args.begin(), "--cfg=host/model:ptask_L07");
  sim::SimulationOptions o;
  o.simgrid_args = args;
  r->sim         = std::make_unique<sim::Simulation>(o);
  platform::LoadOptions lo;
  lo.granularity = g;
  r->platform    = r->sim->load_platform(platform, lo);
  auto res       = r->platform ? batch::resources_from_platform(*r->platform, cfg.max_resources)
                               : batch::resources_from_engine(cfg.max_resources);
  r->manager =
      std::make_unique<batch::WorkloadManager>(r->workload, std::move(res), r->platform ? &*r->platform : nullptr, cfg);
  r->manager->start();
  r->sim->run();
  EXPECT_EQ(r->manager->error(), "");
  return r;
}

batch::ManagerConfig config(const std::string& jobs, const std::string& resources,
                            scheduling::Backfill b = scheduling::Backfill::none)
{
  batch::ManagerConfig c;
  c.scheduler.job_policy      = jobs;
  c.scheduler.resource_policy = resources;
  c.scheduler.backfill        = b;
  return c;
}

} // namespace

class EnergyInvariant : public ::testing::TestWithParam<platform::Granularity> {};

TEST_P(EnergyInvariant, JobsPlusIdleEqualThePluginTotal)
{
  auto cfg                = config("first", "first");
  cfg.check_energy_series = true;
  auto r =
      run("tests/fixtures/platforms/tiny_nodes.json", "tests/fixtures/workloads/interference.json", cfg, GetParam());
  const auto& m = *r->manager;
  double jobs   = 0;
  for (const auto& j : m.jobs())
    jobs += j.energy_j;
  double total = plugin_host_energy();
  EXPECT_GT(total, 0);
  EXPECT_NEAR(jobs + m.idle_energy_j(), total, 1e-6 * total);
  EXPECT_NEAR(figure(m, "energy_j"), total, 1e-6 * total);
  // energy.csv's running total matches a reading of every host at every sample
  EXPECT_LE(m.series_error_j(), 1e-9 * total);
  EXPECT_NEAR(m.series_energy_j(), total, 1e-9 * total);
  EXPECT_GT(figure(m, "overutilization_spans"), 0);
  EXPECT_GT(figure(m, "pstate_changes"), 0);
  // job e ran past its 2 s walltime; job f asks for 11 of 10 cores
  const auto& w = r->workload;
  for (size_t i = 0; i < w.jobs.size(); i++) {
    if (w.jobs[i].id == "e") {
      EXPECT_EQ(m.jobs()[i].state, batch::FinalState::walltime_reached);
      EXPECT_DOUBLE_EQ(m.jobs()[i].finish_s - m.jobs()[i].start_s, 2);
    } else if (w.jobs[i].id == "f") {
      EXPECT_EQ(m.jobs()[i].state, batch::FinalState::rejected);
    } else if (w.jobs[i].id == "g") {
      EXPECT_EQ(m.jobs()[i].state, batch::FinalState::success);
      EXPECT_DOUBLE_EQ(m.jobs()[i].finish_s - m.jobs()[i].start_s, 3);
    } else {
      EXPECT_EQ(m.jobs()[i].state, batch::FinalState::success) << w.jobs[i].id;
    }
  }
}

INSTANTIATE_TEST_SUITE_P(Granularities, EnergyInvariant,
                         ::testing::Values(platform::Granularity::core, platform::Granularity::processor,
                                           platform::Granularity::node),
                         [](const ::testing::TestParamInfo<platform::Granularity>& param_info) {
                           return std::string(platform::to_string(param_info.param));
                         });

TEST(EnergyInvariant, HoldsOnSimGridXml)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto r =
      run("../shared/data/batsim/medium_late/platform.xml", "../shared/data/batsim/medium_late/medium_late.json", [] {
        auto c                = config("first", "first", scheduling::Backfill::easy);
        c.max_resources       = 32;
        c.check_energy_series = true;
        return c;
      }());
  double jobs = 0;
  for (const auto& j : r->manager->jobs())
    jobs += j.energy_j;
  double total = plugin_host_energy() - sg_host_get_consumed_energy(sg4::Host::by_name("master_host"));
  // hosts beyond the first 32 stay idle and are not the manager's
  double used = figure(*r->manager, "energy_j");
  EXPECT_NEAR(jobs + r->manager->idle_energy_j(), used, 1e-6 * used);
  EXPECT_LE(used, total);
  EXPECT_LE(r->manager->series_error_j(), 1e-9 * used);
}

class LearningScenario : public ::testing::TestWithParam<std::tuple<const char*, double, double>> {};

TEST_P(LearningScenario, ReproducesTheThesisRewards)
{
  SGAI_REQUIRE_SHARED_DATA();
  // platforms/learning: one node, processors of 2 x 4 and 2 x 4.4 Gflop/s at 32 GB/s; two jobs at
  // t=0 of one core, 24 GB/s and 21 Gflop. The makespan reward is the flop/s in use after the decision.
  auto [resources, reward, makespan] = GetParam();
  auto cfg                           = config("shortest", resources);
  cfg.series                         = 1; // machine_states (written on request)
  auto r = run("platforms/learning.json", "../shared/data/platforms/hdeeprm/workload_examples/learning.json", cfg);
  const auto& dir = test::temp_dir();
  r->manager->write_outputs(dir);
  std::ifstream in(dir / "machine_states.csv");
  std::string header, first;
  std::getline(in, header);
  std::getline(in, first);
  EXPECT_EQ(header.substr(0, 18), "time,flops_in_use,");
  EXPECT_DOUBLE_EQ(std::stod(first.substr(first.find(',') + 1)), reward);
  EXPECT_NEAR(figure(*r->manager, "makespan_s"), makespan, 1e-9);
}

INSTANTIATE_TEST_SUITE_P(PolicyPairs, LearningScenario,
                         ::testing::Values(std::tuple{"low_power", 6e9, 7.0},          // both on the slow processor
                                           std::tuple{"high_gflops", 6.6e9, 21 / 3.3}, // both on the fast one
                                           std::tuple{"high_mem_bw", 8.4e9, 5.25}),    // spread: shortest
                         [](const auto& param_info) { return std::string(std::get<0>(param_info.param)); });

TEST_P(LearningScenario, ADecisionHookChoosesThePair)
{
  SGAI_REQUIRE_SHARED_DATA();
  // The same scenario with fixed "first"/"first" policies and a decision maker choosing the pair at
  // the one decision point (two jobs submitted at t=0: one step), as a learning agent would.
  auto [resources, reward, makespan] = GetParam();
  auto cfg                           = config("first", "first");
  int calls                          = 0;
  std::string pair                   = resources;
  cfg.decide                         = [&calls, pair](const batch::DecisionPoint& p) {
    calls++;
    EXPECT_EQ(p.now, 0);
    EXPECT_EQ(p.scheduler->queue_size(), 2U);
    EXPECT_EQ(p.cluster->free_cores(), p.resources->core_count());
    return batch::PolicyChoice{"shortest", pair};
  };
  auto r = run("platforms/learning.json", "../shared/data/platforms/hdeeprm/workload_examples/learning.json", cfg);
  EXPECT_EQ(calls, 1);
  EXPECT_NEAR(figure(*r->manager, "makespan_s"), makespan, 1e-9);
}

TEST(BatsimEquivalence, EasyBackfillingOnMediumLate)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto cfg          = config("first", "first", scheduling::Backfill::easy);
  cfg.max_resources = 32; // Batsim ran it on 32 machines
  auto r =
      run("../shared/data/batsim/medium_late/platform.xml", "../shared/data/batsim/medium_late/medium_late.json", cfg);
  std::ifstream in(test::shared_data("batsim/medium_late/easy/out_jobs.csv"));
  std::string line;
  std::getline(in, line); // job_id,hacky_job_id,workload_name,submission_time,...,starting_time(7),...,finish_time(9)
  std::map<std::string, std::pair<double, double>> batsim;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    batsim[f[0]] = {std::stod(f[7]), std::stod(f[9])};
  }
  const auto& w = r->workload;
  ASSERT_EQ(batsim.size(), w.jobs.size());
  size_t same        = 0;
  double makespan_bs = 0, makespan = 0;
  for (size_t i = 0; i < w.jobs.size(); i++) {
    auto [start, finish] = batsim.at(w.jobs[i].id);
    same += std::abs(r->manager->jobs()[i].start_s - start) < 1e-4;
    makespan_bs = std::max(makespan_bs, finish);
    makespan    = std::max(makespan, r->manager->jobs()[i].finish_s);
  }
  EXPECT_GE(static_cast<double>(same) / static_cast<double>(w.jobs.size()), 0.99);
  EXPECT_NEAR(makespan, makespan_bs, 1e-3 * makespan_bs);
  RecordProperty("same_starting_time", static_cast<int>(same));
  // Batsim's out_schedule.csv: its energy and its machine-seconds computing and idle (each
  // machine's last interval left out)
  std::ifstream sf(test::shared_data("batsim/medium_late/easy/out_schedule.csv"));
  std::string keys, values;
  std::getline(sf, keys);
  std::getline(sf, values);
  std::map<std::string, double> bs;
  std::stringstream ks(keys), vs(values);
  for (std::string k, v; std::getline(ks, k, ',') && std::getline(vs, v, ',');)
    bs[k] = std::stod(v);
  const auto& m = *r->manager;
  EXPECT_NEAR(figure(m, "energy_j"), bs.at("consumed_joules"), 1e-6 * bs.at("consumed_joules"));
  EXPECT_NEAR(figure(m, "time_computing"), bs.at("time_computing"), 1e-6);
  EXPECT_NEAR(figure(m, "time_idle"), bs.at("time_idle"), 1e-6);
  EXPECT_EQ(figure(m, "nb_computing_machines"), bs.at("nb_computing_machines"));
}

TEST(Communication, ParallelTasksCrossTheNetwork)
{
  auto r =
      run("tests/fixtures/platforms/tiny_flat.json", "tests/fixtures/workloads/tiny.json", config("first", "first"));
  for (const auto& j : r->manager->jobs())
    EXPECT_EQ(j.state, batch::FinalState::success);
  // job 3: 1 and 2 Gflop on two cores with 1 MB each way: longer than its computation alone
  const auto& j3 = r->manager->jobs()[2];
  EXPECT_GT(j3.finish_s - j3.start_s, 2e9 / 4e9);
}

/* A job on hosts of different speeds: its execution on the faster host ends first. That is no
 * event for the scheduler (Batsim's job is one activity): no decision point there, and the host's
 * idle time until the job ends is still the job's energy, read exactly. Hand computed: job a runs
 * 2 Gflop on h0 (1 Gf, 2 s) and h1 (2 Gf, 1 s); b waits from 0.5 s for both hosts. */
TEST(EnergyInvariant, AHostDoneBeforeItsJobIsNoEventAndIdlesForTheJob)
{
  const auto dir = test::temp_dir() / "uneven";
  std::filesystem::create_directories(dir);
  {
    std::ofstream x(dir / "platform.xml");
    x << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="main" routing="Full">
    <host id="master_host" speed="1Gf"/>
    <host id="h0" speed="1Gf"><prop id="wattage_per_state" value="100:200"/><prop id="wattage_off" value="10"/></host>
    <host id="h1" speed="2Gf"><prop id="wattage_per_state" value="100:200"/><prop id="wattage_off" value="10"/></host>
  </zone>
</platform>
)";
    std::ofstream w(dir / "workload.json");
    w << R"({ "nb_res": 2,
  "jobs": [ { "id": "a", "subtime": 0, "res": 2, "walltime": 10, "profile": "uneven" },
            { "id": "b", "subtime": 0.5, "res": 2, "walltime": 10, "profile": "nap" } ],
  "profiles": { "uneven": { "type": "parallel_homogeneous", "cpu": 2e9, "com": 0 },
                "nap": { "type": "delay", "delay": 1 } } }
)";
  }
  auto cfg                = config("first", "first", scheduling::Backfill::easy);
  cfg.check_energy_series = true;
  cfg.series              = 2; // the energy series, checked against a reading of every host
  std::vector<double> points;
  cfg.decide = [&points](const batch::DecisionPoint& p) {
    points.push_back(p.now);
    return batch::PolicyChoice{};
  };
  auto r        = run((dir / "platform.xml").string(), (dir / "workload.json").string(), cfg);
  const auto& m = *r->manager;
  ASSERT_EQ(m.jobs().size(), 2U);
  EXPECT_DOUBLE_EQ(m.jobs()[0].start_s, 0);
  EXPECT_DOUBLE_EQ(m.jobs()[0].finish_s, 2);
  EXPECT_DOUBLE_EQ(m.jobs()[1].start_s, 2);
  EXPECT_DOUBLE_EQ(m.jobs()[1].finish_s, 3);
  EXPECT_EQ(points, (std::vector<double>{0, 0.5, 2})); // a, b submitted; a ended (not h1 done at 1 s)
  // a: h0 busy 2 s at 200 W; h1 busy 1 s at 200 W, then idle 1 s at 100 W while a holds it
  EXPECT_NEAR(m.jobs()[0].energy_j, 2 * 200 + 1 * 200 + 1 * 100, 1e-9);
  // b: both hosts idle (a delay job computes nothing) for 1 s
  EXPECT_NEAR(m.jobs()[1].energy_j, 2 * 100, 1e-9);
  EXPECT_NEAR(m.jobs()[0].energy_j + m.jobs()[1].energy_j + m.idle_energy_j(), figure(m, "energy_j"), 1e-9);
  EXPECT_LE(m.series_error_j(), 1e-9);
}

/* Jobs from submitter actors (Batsim's job submitters): medium_late's jobs split between two
 * actors, each submitting its share at the jobs' submission times to a manager with no workload
 * of its own, are scheduled as Batsim scheduled the one workload. */
TEST(Submitters, SubmittedJobsAreScheduledAsTheWorkload)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto whole = workload::read_workload("../shared/data/batsim/medium_late/medium_late.json");
  std::vector<std::shared_ptr<const workload::Workload>> parts;
  for (int k = 0; k < 2; k++) {
    auto part  = std::make_shared<workload::Workload>(whole);
    part->name = "part" + std::to_string(k);
    part->jobs.clear();
    for (size_t i = k; i < whole.jobs.size(); i += 2)
      part->jobs.push_back(whole.jobs[i]);
    parts.push_back(part);
  }
  sim::SimulationOptions o;
  sim::Simulation sim(o);
  sim.load_platform("../shared/data/batsim/medium_late/platform.xml", {});
  auto cfg          = config("first", "first", scheduling::Backfill::easy);
  cfg.max_resources = 32;
  cfg.submitters    = 2;
  workload::Workload none;
  batch::WorkloadManager manager(none, batch::resources_from_engine(32), nullptr, cfg);
  manager.start();
  // what cannot be submitted is refused, naming it, and nothing is submitted (checked here, out of
  // any actor: the sanitizers cannot follow an exception thrown on an actor's stack)
  try {
    manager.submit(parts[0], parts[0]->jobs.size());
    ADD_FAILURE() << "an index out of range was taken";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("is not in the workload"), std::string::npos) << e.what();
  }
  for (const auto& part : parts)
    sg4::Actor::create("submitter", sg4::Host::by_name("master_host"), [&manager, part]() {
      for (size_t i = 0; i < part->jobs.size(); i++) {
        sg4::this_actor::sleep_until(part->jobs[i].submit_s);
        manager.submit(part, i);
      }
      manager.end_submissions();
    });
  sim.run();
  ASSERT_EQ(manager.error(), "");
  ASSERT_TRUE(manager.finished());
  EXPECT_THROW(manager.end_submissions(), std::invalid_argument);   // a third end: more than 2
  EXPECT_THROW(manager.submit(parts[0], 0), std::invalid_argument); // every submitter has ended

  std::ifstream in(test::shared_data("batsim/medium_late/easy/out_jobs.csv"));
  std::string line;
  std::getline(in, line);
  std::map<std::string, double> batsim_start;
  while (std::getline(in, line)) {
    std::vector<std::string> f;
    std::stringstream ss(line);
    for (std::string x; std::getline(ss, x, ',');)
      f.push_back(x);
    batsim_start[f[0]] = std::stod(f[7]);
  }
  const auto& w = manager.workload();
  ASSERT_EQ(w.jobs.size(), whole.jobs.size());
  size_t same = 0;
  for (size_t i = 0; i < w.jobs.size(); i++) {
    same += std::abs(manager.jobs()[i].start_s - batsim_start.at(w.jobs[i].id)) < 1e-4;
    // the job as submitted: its submission time and profile (by name) those of the file
    const auto& original = *std::find_if(whole.jobs.begin(), whole.jobs.end(),
                                         [&](const workload::Job& j) { return j.id == w.jobs[i].id; });
    EXPECT_EQ(w.jobs[i].submit_s, original.submit_s);
    EXPECT_EQ(w.profile_of(w.jobs[i]).name, whole.profile_of(original).name);
  }
  EXPECT_GE(static_cast<double>(same) / static_cast<double>(w.jobs.size()), 0.99);
  RecordProperty("same_starting_time", static_cast<int>(same));
}
