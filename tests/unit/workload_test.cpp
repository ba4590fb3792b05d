/* SWF and Batsim workload readers, the SWF -> Batsim conversion and the statistics. */
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/synthetic.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <sstream>

using namespace sgai::workload;
using sgai::test::error_of;
using sgai::test::fixture;

TEST(Swf, ReadsAllFieldsAndTheHeader)
{
  SwfLog log = read_swf(fixture("workloads/tiny.swf"));
  ASSERT_EQ(log.records.size(), 5U);
  EXPECT_EQ(*log.header_value("MaxProcs"), "8");
  EXPECT_EQ(*log.header_value("Computer"), "tiny test machine");
  const SwfRecord& r = log.records[3];
  EXPECT_EQ(r.job_number, 4);
  EXPECT_EQ(r.used_memory_kb, 2000);
  EXPECT_EQ(r.requested_memory_kb, 4000);
  EXPECT_EQ(r.requested_time, -1);
  EXPECT_EQ(r.line, 9U);
}

TEST(Swf, GzipIsReadTransparently)
{
  SGAI_REQUIRE_SHARED_DATA();
  EXPECT_EQ(read_swf(fixture("workloads/tiny.swf.gz")).records.size(), 5U);
  auto real = read_swf(sgai::test::shared_data("swf/NASA-iPSC-1993-3.1-cln.swf.gz"));
  EXPECT_EQ(real.records.size(), 18239U); // SOURCES.md: 18,239 jobs
}

TEST(Swf, CleaningAndSelection)
{
  SwfLog log = read_swf(fixture("workloads/tiny.swf"));
  auto all   = select_swf(log, {});
  EXPECT_EQ(all.read, 5U);
  EXPECT_EQ(all.records.size(), 3U);
  EXPECT_EQ(all.dropped.at("non-positive run time"), 1U);
  EXPECT_EQ(all.dropped.at("non-positive processor count"), 1U);
  EXPECT_EQ(all.records.front().submit_time, 0); // shifted by 100
  EXPECT_EQ(all.time_shift_s, 100);
  auto two = select_swf(log, {1, 2, true});
  ASSERT_EQ(two.records.size(), 2U);
  EXPECT_EQ(two.records[0].job_number, 4);
  EXPECT_EQ(two.records[0].submit_time, 0);
  EXPECT_EQ(two.records[1].submit_time, 10);
  // without cleaning, only the job without a processor count is dropped (a Batsim job needs one)
  EXPECT_EQ(select_swf(log, {0, std::nullopt, false}).records.size(), 4U);
}

TEST(Swf, BadLinesNameTheirNumber)
{
  EXPECT_NE(error_of([] {
              read_swf(fixture("workloads/bogus_fields.swf"));
            }).find("bogus_fields.swf: line 3: expected the 18 fields of the Standard Workload Format, got 17"),
            std::string::npos);
  EXPECT_NE(error_of([] {
              read_swf(fixture("workloads/bogus_number.swf"));
            }).find("line 2: field 4 (run time) '4x0' is not a number"),
            std::string::npos);
  EXPECT_NE(error_of([] { read_swf(fixture("workloads/missing.swf")); }).find("cannot open"), std::string::npos);
}

TEST(Swf, OutOfRangeValuesNameTheirLineFieldAndValue)
{
  const std::vector<std::pair<std::string, std::string>> cases = {
      {"bogus_processors.swf", "line 3: field 5 (allocated processors) '10000000000' is above 4,294,967,295"},
      {"bogus_processors_fraction.swf", "line 3: field 5 (allocated processors) '2.5' is not a whole number"},
      {"bogus_run_time.swf", "line 3: field 4 (run time) '1e300' is above 1e12 s"},
      {"bogus_requested_time.swf", "line 2: field 9 (requested time) '2e12' is above 1e12 s"},
      {"bogus_submit_time.swf", "line 2: field 2 (submit time) '1e13' is above 1e12 s"},
      {"bogus_max_procs.swf", "line 1: header MaxProcs '-5' is not a processor count"},
      {"bogus_empty.swf", "bogus_empty.swf: no job"},
  };
  for (const auto& [file, expected] : cases) {
    auto msg = error_of([&] { read_swf(fixture("workloads/" + file)); });
    EXPECT_NE(msg.find(file), std::string::npos) << msg;
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
  }
}

TEST(Swf2Json, UnknownValuesNeverBecomeWhatTheReaderRejects)
{
  auto file = sgai::test::temp_dir() / "unknown.swf";
  sgai::write_file_atomically(file, "; MaxProcs: -1\n"
                                    " 1 -1 0 -1 2 -1 -1 2 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    " 2 100 0 -5 0 -1 -1 -1 60 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    " 3 50 0 -7 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n"
                                    " 4 70 0 30 4 -1 -1 4 -1 -1 1 1 1 -1 -1 -1 -1 -1\n");
  SwfLog log = read_swf(file);
  auto sel   = select_swf(log, {0, std::nullopt, false});
  ASSERT_EQ(sel.records.size(), 3U); // job 2 has no processor count
  EXPECT_EQ(sel.time_shift_s, 50);
  SwfConversion conv;
  conv.walltime = true;
  SwfConversionReport report;
  auto w = swf_to_workload(log, sel, conv, &report);
  EXPECT_EQ(report.run_time_unknown, 2U);
  EXPECT_EQ(*w.nb_res, 4U); // MaxProcs -1: the widest job
  for (const auto& j : w.jobs) {
    EXPECT_GE(j.submit_s, 0);
    EXPECT_GE(j.resources, 1U);
    EXPECT_GE(w.profile_of(j).cpu, 0);
  }
  std::ostringstream text;
  write_batsim(w, text);
  auto back = sgai::test::temp_dir() / "unknown.json";
  sgai::write_file_atomically(back, text.str());
  EXPECT_EQ(read_batsim(back).jobs.size(), 3U);
}

TEST(Swf2Json, FollowsTheHDeepRMThesis)
{
  SwfLog log = read_swf(fixture("workloads/tiny.swf"));
  SwfConversion c;
  c.reference_speed = 1e9;
  c.seed            = 3;
  SwfConversionReport report;
  Workload w = swf_to_workload(log, select_swf(log, {}), c, &report);
  ASSERT_EQ(w.jobs.size(), 3U);
  const Job& j     = w.jobs[1]; // SWF job 4: run 20 s, requested time unknown, 1 proc
  const Profile& p = w.profile_of(j);
  EXPECT_EQ(j.id, "4");
  EXPECT_EQ(j.resources, 1U);
  EXPECT_DOUBLE_EQ(p.cpu, 20e9);       // run time x reference speed
  EXPECT_DOUBLE_EQ(*p.req_time_s, 20); // unknown: the run time
  EXPECT_DOUBLE_EQ(*p.req_ops, 20e9);
  EXPECT_DOUBLE_EQ(*p.mem_mb, 4); // requested memory 4000 KB -> 4 MB
  EXPECT_GE(*p.mem_bw_gbps, 4);
  EXPECT_LE(*p.mem_bw_gbps, 24);
  EXPECT_FALSE(j.walltime_s);
  EXPECT_DOUBLE_EQ(*w.profile_of(w.jobs[2]).mem_mb, 1); // used memory 1000 KB when nothing requested
  EXPECT_EQ(report.requested_time_unknown, 1U);
  EXPECT_EQ(report.memory_unknown, 1U);
  EXPECT_EQ(*w.nb_res, 8U);
  EXPECT_NE(w.job_limits_json.find("\"max_time\":100"), std::string::npos) << w.job_limits_json;
  // same seed, same draws; other values when asked for
  Workload again = swf_to_workload(log, select_swf(log, {}), c);
  EXPECT_EQ(*again.profile_of(again.jobs[1]).mem_bw_gbps, *p.mem_bw_gbps);
  c.mem_bw_values = {8, 16};
  c.walltime      = true;
  Workload choice = swf_to_workload(log, select_swf(log, {}), c);
  for (const auto& job : choice.jobs) {
    double bw = *choice.profile_of(job).mem_bw_gbps;
    EXPECT_TRUE(bw == 8 || bw == 16);
    EXPECT_TRUE(job.walltime_s);
  }
  // written and read back as Batsim JSON
  std::ostringstream out;
  write_batsim(w, out);
  auto doc = sgai::json::parse(out.str(), "mem.json");
  (void)doc;
}

TEST(Batsim, ReadsJobsAndProfiles)
{
  Workload w = read_batsim(fixture("workloads/tiny.json"));
  ASSERT_EQ(w.jobs.size(), 3U);
  EXPECT_EQ(*w.nb_res, 4U);
  EXPECT_EQ(w.jobs[0].id, "1");
  EXPECT_EQ(w.jobs[1].id, "b");
  EXPECT_DOUBLE_EQ(*w.jobs[0].walltime_s, 10);
  EXPECT_FALSE(w.jobs[1].walltime_s); // -1: none
  EXPECT_EQ(w.profile_of(w.jobs[0]).type, ProfileType::delay);
  EXPECT_NE(w.profile_of(w.jobs[0]).extra_json.find("sleep 5"), std::string::npos);
  const Profile& ph = w.profile_of(w.jobs[1]);
  EXPECT_DOUBLE_EQ(*ph.mem_mb, 100);
  EXPECT_DOUBLE_EQ(*requested_time(w, w.jobs[1]), 20);
  EXPECT_DOUBLE_EQ(*requested_time(w, w.jobs[0]), 10);
  EXPECT_EQ(w.profile_of(w.jobs[2]).cpu_vector.size(), 2U);
  // round trip
  std::ostringstream out;
  write_batsim(w, out);
  auto tmp = std::filesystem::temp_directory_path() / "sgai-tiny-roundtrip.json";
  sgai::write_file_atomically(tmp, out.str());
  Workload back = read_batsim(tmp);
  EXPECT_EQ(back.jobs.size(), 3U);
  EXPECT_EQ(back.profile_of(back.jobs[2]).com_matrix, w.profile_of(w.jobs[2]).com_matrix);
  std::filesystem::remove(tmp);
}

TEST(Batsim, ReadsBatsimsOwnWorkloads)
{
  SGAI_REQUIRE_SHARED_DATA();
  Workload w = read_batsim(sgai::test::shared_data("batsim/medium_late/medium_late.json"));
  EXPECT_EQ(w.jobs.size(), 801U);
  EXPECT_EQ(*w.nb_res, 32U);
  for (const auto& f : std::filesystem::directory_iterator(sgai::test::shared_data("batsim/workloads"))) {
    std::string name = f.path().filename().string();
    // the other profile types (sequence, smpi, usage traces, ...) are not supported
    std::string msg = error_of([&] { read_batsim(f.path()); });
    EXPECT_TRUE(msg == "no error" || msg.find("unknown value") != std::string::npos) << name << ": " << msg;
  }
}

class BogusWorkload : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BogusWorkload, IsRejectedWithItsMessage)
{
  auto [file, expected] = GetParam();
  std::string msg       = error_of([&] { read_batsim(fixture(std::string("workloads/") + file)); });
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find(expected), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BogusWorkload,
    ::testing::Values(
        std::pair{"bogus_missing_profile.json", "at /jobs/0/profile: job '1' names profile 'nope', which is not in"},
        std::pair{"bogus_negative_subtime.json", "at /jobs/0/subtime: submission time -5 must be >= 0"},
        std::pair{"bogus_profile_type.json", "at /profiles/s/type: unknown value 'smpi' (expected one of: 'delay'"},
        std::pair{"bogus_parallel_size.json", "at /jobs/0/res: job '1' asks for 3 resources but its parallel profile"},
        std::pair{"bogus_job_key.json", "at /jobs/0/walltim: unknown key 'walltim'"},
        std::pair{"bogus_duplicate_job.json", "at /jobs/1/id: duplicate job id 1"},
        std::pair{"bogus_zero_res.json", "at /jobs/0/res: value 0 out of range"},
        std::pair{"bogus_negative_delay.json", "at /profiles/d/delay: delay -3 must be a finite number >= 0"},
        std::pair{"bogus_huge_subtime.json", "at /jobs/0/subtime: submission time 1e+308 is above 1e12 s"},
        std::pair{"bogus_huge_walltime.json", "at /jobs/0/walltime: walltime 2000000000000.0 is above 1e12 s"},
        std::pair{"bogus_huge_delay.json", "at /profiles/d/delay: delay 1e+300 is above 1e12 s"},
        std::pair{"bogus_huge_req_time.json", "at /profiles/p/req_time: req_time 10000000000000.0 is above 1e12 s"}),
    // Test names from the fixture (bogus_<name>.json -> name), not the parameters' addresses.
    [](const ::testing::TestParamInfo<std::pair<const char*, const char*>>& p) {
      std::string n = p.param.first;
      return n.substr(6, n.size() - 11);
    });

TEST(Stats, QuantilesInterpolateLikeNumpy)
{
  auto s = summarize({4, 1, 3, 2});
  EXPECT_EQ(s.count, 4U);
  EXPECT_DOUBLE_EQ(s.min, 1);
  EXPECT_DOUBLE_EQ(s.q1, 1.75);
  EXPECT_DOUBLE_EQ(s.median, 2.5);
  EXPECT_DOUBLE_EQ(s.q3, 3.25);
  EXPECT_DOUBLE_EQ(s.p95, 3.85);
  EXPECT_DOUBLE_EQ(s.max, 4);
  EXPECT_DOUBLE_EQ(s.mean, 2.5);
  Workload w = read_batsim(fixture("workloads/tiny.json"));
  EXPECT_EQ(field_values(w, "size"), (std::vector<double>{2, 1, 2}));
  EXPECT_EQ(field_values(w, "mem_bw"), (std::vector<double>{8}));
}

TEST(Synthetic, DrawsWithinTheirRangesAndRepeatWithTheSeed)
{
  SyntheticSpec s;
  s.jobs         = 5000;
  s.max_cores    = 64;
  s.min_run_s    = 60;
  s.max_run_s    = 3600;
  s.overestimate = 2;
  s.mem_min_mb   = 100;
  s.mem_max_mb   = 200;
  s.seed         = 3;
  auto w         = generate_workload(s);
  ASSERT_EQ(w.jobs.size(), 5000U);
  size_t serial = 0;
  double last   = 0;
  for (const auto& j : w.jobs) {
    const auto& p = w.profile_of(j);
    EXPECT_GE(j.submit_s, last);
    last = j.submit_s;
    serial += j.resources == 1;
    EXPECT_TRUE(j.resources == 1 || (j.resources >= 2 && j.resources <= 64 && (j.resources & (j.resources - 1)) == 0))
        << j.resources;
    double run = p.cpu / s.reference_speed;
    EXPECT_GE(run, 60 * (1 - 1e-12));
    EXPECT_LE(run, 3600 * (1 + 1e-12));
    EXPECT_GE(*p.req_time_s, run * (1 - 1e-12));
    EXPECT_LE(*p.req_time_s, 2 * run * (1 + 1e-12));
    EXPECT_GE(*p.mem_mb, 100);
    EXPECT_LE(*p.mem_mb, 200);
    EXPECT_GE(*p.mem_bw_gbps, 4);
    EXPECT_LE(*p.mem_bw_gbps, 24);
  }
  EXPECT_EQ(w.jobs.front().submit_s, 0);
  // 25% one-core jobs, mean inter-arrival 60 s: within 4 standard deviations
  EXPECT_NEAR(static_cast<double>(serial) / 5000, 0.25, 4 * std::sqrt(0.25 * 0.75 / 5000));
  EXPECT_NEAR(last / 4999, 60, 4 * 60 / std::sqrt(4999.0));
  auto again = generate_workload(s);
  for (size_t i = 0; i < w.jobs.size(); i++) {
    EXPECT_EQ(w.jobs[i].submit_s, again.jobs[i].submit_s);
    EXPECT_EQ(w.profiles[i].cpu, again.profiles[i].cpu);
  }
  s.seed = 4;
  EXPECT_NE(generate_workload(s).jobs[1].submit_s, w.jobs[1].submit_s);
}

TEST(Synthetic, InterarrivalForALoad)
{
  SyntheticSpec s;
  s.max_cores       = 8; // sizes 1 (25%), 2, 4, 8 (25% each of the rest): mean 1/4 + 3/4 x 14/3 = 3.75
  s.serial_fraction = 0.25;
  s.min_run_s       = 100;
  s.max_run_s       = 100;
  EXPECT_DOUBLE_EQ(interarrival_for_load(s, 10, 0.5), 3.75 * 100 / 5);
  s.max_run_s = 100 * std::exp(1.0); // log-uniform mean: (max - min) / ln(max / min)
  EXPECT_NEAR(interarrival_for_load(s, 10, 0.5), 3.75 * 100 * (std::exp(1.0) - 1) / 5, 1e-9);
  EXPECT_THROW(interarrival_for_load(s, 0, 0.5), std::invalid_argument);
  s.overestimate = 0.5;
  EXPECT_THROW(generate_workload(s), std::invalid_argument);
}
