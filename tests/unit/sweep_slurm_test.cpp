/* The Slurm runner's reading of Slurm's outputs and its array task wrapper (core/sweep/slurm),
 * on outputs copied from slurm-wlm 22.05 and on the wrapper run by sh with Slurm's variables set. */
#include "core/sweep/slurm.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <unistd.h>

using namespace sgai::sweep::slurm;

TEST(SweepSlurm, ConfigValue)
{
  std::string cfg = "Configuration data as of 2026-11-27T06:00:00\n"
                    "AccountingStorageType   = (null)\n"
                    "MaxArraySize            = 1001\n"
                    "MinJobAge               = 300 sec\n";
  EXPECT_EQ(config_value(cfg, "MaxArraySize"), "1001");
  EXPECT_EQ(config_value(cfg, "MinJobAge"), "300 sec");
  EXPECT_FALSE(config_value(cfg, "MaxJobCount"));
}

TEST(SweepSlurm, ParsableJobId)
{
  EXPECT_EQ(parsable_job_id("123\n"), "123");
  EXPECT_EQ(parsable_job_id("456;cluster\n"), "456");
  EXPECT_FALSE(parsable_job_id("sbatch: error: invalid partition specified: x\n"));
}

TEST(SweepSlurm, QueueAndJobStates)
{
  auto q = queue_states("7_0 RUNNING\n7_1 RUNNING\n7_2 PENDING\nnot a line at all\n");
  ASSERT_EQ(q.size(), 3U);
  EXPECT_EQ(q["7_2"], "PENDING");
  // `scontrol -o show job 7`: one line per task still known, finished ones included
  auto j = job_states("JobId=8 ArrayJobId=7 ArrayTaskId=0 JobName=sgai-x UserId=root(0) JobState=COMPLETED "
                      "Reason=None\n"
                      "JobId=9 ArrayJobId=7 ArrayTaskId=1 JobName=sgai-x JobState=CANCELLED Reason=None\n"
                      "JobId=7 ArrayJobId=7 ArrayTaskId=2 JobName=sgai-x JobState=RUNNING\n");
  ASSERT_EQ(j.size(), 3U);
  EXPECT_EQ(j["7_0"], "COMPLETED");
  EXPECT_EQ(j["7_1"], "CANCELLED");
  EXPECT_TRUE(in_flight(j["7_2"]));
  EXPECT_FALSE(in_flight(j["7_0"]));
  EXPECT_FALSE(in_flight(j["7_1"]));
  EXPECT_TRUE(in_flight("PENDING"));
  EXPECT_TRUE(in_flight("COMPLETING"));
}

TEST(SweepSlurm, TheWrapperWritesItsResultWhole)
{
  // the wrapper run as Slurm runs it, with a fake sgai that writes a summary and exits 3
  namespace fs = std::filesystem;
  fs::path d   = fs::temp_directory_path() / ("sgai-wrapper-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d / "runs" / "42");
  {
    std::ofstream(d / "fake-sgai") << "#!/bin/sh\necho \"$@\"\nexit 3\n";
    std::ofstream(d / "chunk.txt") << "17\n42\n";
    std::ofstream(d / "task.sh") << wrapper_script((d / "fake-sgai").string(), (d / "runs").string(), "/base dir");
  }
  fs::permissions(d / "fake-sgai", fs::perms::owner_all);
  std::string cmd =
      "cd '" + d.string() + "' && SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_JOB_ID=5 SLURM_JOB_ID=6 sh task.sh chunk.txt";
  ASSERT_EQ(std::system(cmd.c_str()), 0);
  std::ifstream in(d / "runs" / "42" / "result.json");
  std::stringstream text;
  text << in.rdbuf();
  auto r = parse_result(text.str());
  ASSERT_TRUE(r) << text.str();
  EXPECT_EQ(r->exit_status, 3);
  EXPECT_EQ(r->task, "5_1");
  EXPECT_GE(r->ended, r->started);
  EXPECT_GT(r->started, 1e9);
  std::ifstream log(d / "runs" / "42" / "log.txt");
  std::string line;
  std::getline(log, line);
  EXPECT_EQ(line, "run " + (d / "runs" / "42" / "experiment.json").string() + " --out " +
                      (d / "runs" / "42" / "out").string() + " --base-dir /base dir");
  // no temporary file left beside it
  size_t files = 0;
  for (const auto& e : fs::directory_iterator(d / "runs" / "42")) {
    (void)e;
    ++files;
  }
  EXPECT_EQ(files, 2U); // log.txt, result.json
  EXPECT_FALSE(parse_result("{\"exit_status\": \"x\"}"));
  EXPECT_FALSE(parse_result("not json"));
  fs::remove_all(d);
}
