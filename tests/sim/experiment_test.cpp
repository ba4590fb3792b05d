/* The experiment runner end to end, in process: the quick-start experiment and its outputs. */
#include "generators/util/files.hpp"
#include "plugins/experiment/experiment.hpp"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include <fstream>
#include <unistd.h>

using namespace sgai;

TEST(Experiment, QuickstartWritesItsResults)
{
  auto out = std::filesystem::temp_directory_path() / ("sgai-test-" + std::to_string(::getpid())) / "quickstart";
  experiment::Overrides o;
  o.output    = out;
  auto result = experiment::run_experiment("deploy/experiments/quickstart.json", o);
  EXPECT_GT(result.simulated_time_s, 0);
  auto summary = nlohmann::json::parse(read_text_file(out / "summary.json"));
  EXPECT_EQ(summary["components"]["jobs"]["jobs"].get<double>(), 40);
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
}
