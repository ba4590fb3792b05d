/* The experiment runner end to end, in process: the quick-start experiment and its outputs. */
#include "../unit/test_paths.hpp"
#include "chakra/generate.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "plugins/experiment/experiment.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <unistd.h>

using namespace sgai;

TEST(Experiment, RigidJobsWritesItsResults)
{
  auto out = test::temp_dir() / "rigid";
  experiment::Overrides o;
  o.output    = out;
  auto result = experiment::run_experiment("deploy/experiments/rigid-jobs.json", o);
  EXPECT_GT(result.simulated_time_s, 0);
  auto summary = nlohmann::json::parse(read_text_file(out / "summary.json"));
  EXPECT_EQ(summary["components"]["jobs"]["jobs"].get<int>(), 40);
  EXPECT_EQ(summary["seed"].get<int>(), 42);
  // energy_hosts.csv adds up to the plugin's total
  std::ifstream in(out / "energy_hosts.csv");
  std::string line;
  std::getline(in, line);
  double total = 0;
  while (std::getline(in, line))
    total += std::stod(line.substr(line.find(',') + 1));
  EXPECT_NEAR(total, summary["energy"]["hosts_j"].get<double>(), 1e-6 * total);
  EXPECT_GT(total, 0);
  for (const char* f : {"jobs.csv", "hierarchy.json", "platform.xml", "config.json"})
    EXPECT_TRUE(std::filesystem::exists(out / f)) << f;
  // every job ran on as many cores as it asked
  std::ifstream jobs(out / "jobs.csv");
  std::getline(jobs, line);
  int n = 0;
  while (std::getline(jobs, line))
    n++;
  EXPECT_EQ(n, 40);
  std::filesystem::remove_all(out);
}

TEST(Experiment, QuickstartIsABatchRun)
{
  auto out = test::temp_dir() / "quickstart";
  experiment::Overrides o;
  o.output      = out;
  auto result   = experiment::run_experiment("deploy/experiments/quickstart.json", o);
  auto summary  = nlohmann::json::parse(read_text_file(out / "summary.json"));
  const auto& b = summary["components"]["batch"];
  EXPECT_EQ(summary["network_model"].get<std::string>(), "LV08"); // a CPU cluster: SimGrid's default
  EXPECT_EQ(b["jobs"].get<int>(), 500);
  EXPECT_EQ(b["jobs_success"].get<int>(), 500);
  EXPECT_EQ(b["cores"].get<int>(), 100);
  EXPECT_DOUBLE_EQ(b["makespan_s"].get<double>(), result.simulated_time_s);
  // EASY backfilling on an overloaded 100-core machine: jobs wait, the machine is mostly busy
  EXPECT_GT(b["mean_waiting_time_s"].get<double>(), 0);
  EXPECT_GT(b["utilization"].get<double>(), 0.5);
  EXPECT_LE(b["utilization"].get<double>(), 1.0);
  double e = b["energy_j"].get<double>();
  EXPECT_NEAR(b["jobs_energy_j"].get<double>() + b["idle_energy_j"].get<double>(), e, 1e-6 * e);
  // the manager's 100 cores are part of gaia's 2,280 hosts
  EXPECT_LT(e, summary["energy"]["hosts_j"].get<double>());
  for (const char* f : {"jobs.csv", "schedule.json", "schedule.csv", "machine_states.csv", "energy.csv",
                        "pstate_changes.csv", "overutilization.csv"})
    EXPECT_TRUE(std::filesystem::exists(out / f)) << f;
  // nothing left of the staging folder
  for (const auto& entry : std::filesystem::directory_iterator(out.parent_path()))
    EXPECT_EQ(entry.path().filename().string().find(".sgai-tmp"), std::string::npos) << entry.path();
  std::filesystem::remove_all(out);
}

TEST(Experiment, ReplayRunsTheTracesOnThePlatformsGpus)
{
  auto out = test::temp_dir() / "replay-hgx";
  experiment::Overrides o;
  o.output      = out;
  auto result   = experiment::run_experiment("deploy/experiments/replay-hgx.json", o);
  auto summary  = nlohmann::json::parse(read_text_file(out / "summary.json"));
  const auto& r = summary["components"]["replay"];
  // a GPU fabric: CM02 without TCP factors, not SimGrid's default LV08 (fitted to TCP on Ethernet)
  EXPECT_EQ(summary["network_model"].get<std::string>(), "CM02");
  EXPECT_EQ(r["ranks"].get<int>(), 8);
  EXPECT_EQ(r["nodes"].get<int>(), 8 * 21);
  // one gradient bucket per layer (each layer's 100.7 MB of gradients is above 25 MiB), all-reduced
  // across the 8 data-parallel replicas
  EXPECT_EQ(r["collectives"].get<int>(), 4);
  EXPECT_NEAR(r["replay_end_s"].get<double>(), result.simulated_time_s, 1e-12);
  auto ranks = read_text_file(out / "ranks.csv");
  for (int g = 0; g < 8; g++)
    EXPECT_NE(ranks.find(",hgx-n0-gpu" + std::to_string(g) + ","), std::string::npos) << g;
  EXPECT_TRUE(std::filesystem::exists(out / "replay_log.csv"));
}

TEST(Experiment, ReplayNamesAMissingGpuHost)
{
  auto dir  = test::temp_dir();
  auto file = dir / "bad-replay.json";
  auto cwd  = std::filesystem::current_path();
  write_file_atomically(file, R"({"sgai_experiment": 1, "name": "bad-replay",
  "platform": {"file": ")" + (cwd / "platforms/hgx-h100.json").string() +
                                  R"("},
  "components": [{"type": "replay", "options": {
    "workloads": [")" + (cwd / "workloads/chakra/gpt-dp8/gpt").string() +
                                  R"("],
    "gpus": ["hgx-n0-gpu0", "hgx-n0-gpu1", "hgx-n0-gpu2", "hgx-n0-gpu3", "hgx-n0-gpu4", "hgx-n0-gpu5", "hgx-n0-gpu6", "gpu7"]}}]})");
  experiment::Overrides o;
  o.output = dir / "bad-replay-out";
  try {
    experiment::run_experiment(file, o);
    FAIL() << "no error";
  } catch (const InputError& e) {
    EXPECT_NE(std::string(e.what()).find("no host 'gpu7' in the platform"), std::string::npos) << e.what();
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "bad-replay-out"));
}

TEST(Experiment, ReplayRunsHierarchicalCollectivesOverTheDimensionsGiven)
{
  // a 64 MiB all-reduce over the 256 GPUs of 32 HGX-H100 nodes: ring inside each node, then ring
  // across the nodes (dimensions [8, 32])
  auto dir = test::temp_dir() / "hier";
  chakra::write_workload(dir, "ar", chakra::microbenchmark(chakra::CollectiveType::all_reduce, 256, 64 << 20));
  write_file_atomically(dir / "system.json", R"({"all-reduce-implementation": ["ring", "ring"]})");
  auto cwd = std::filesystem::current_path();
  write_file_atomically(dir / "e.json", R"({"sgai_experiment": 1, "name": "hier",
  "platform": {"file": ")" + (cwd / "platforms/hgx-h100-cluster.json").string() +
                                            R"("},
  "components": [{"type": "replay", "options": {"workloads": ["ar"], "system": "system.json", "dims": [8, 32]}}]})");
  experiment::Overrides o;
  o.output = dir / "out";
  experiment::run_experiment(dir / "e.json", o);
  auto csv = read_text_file(dir / "out" / "collectives.csv");
  // the columns of sgai replay's collectives.csv
  EXPECT_EQ(csv.substr(0, csv.find('\n')),
            "job,group,type,bytes,algorithm,ranks,start_ns,end_ns,duration_ns,algbw_GBps,busbw_GBps,protocol");
  EXPECT_NE(csv.find(",ALL_REDUCE,67108864,ring+ring,256,"), std::string::npos) << csv;
  auto summary = nlohmann::json::parse(read_text_file(dir / "out" / "summary.json"));
  EXPECT_EQ(summary["components"]["replay"]["ranks"].get<int>(), 256);
}
