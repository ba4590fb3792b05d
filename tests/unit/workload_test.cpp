/* SWF and Batsim workload readers, the SWF -> Batsim conversion and the statistics. */
#include "../fuzz/workload_fields.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/synthetic.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <map>
#include <set>
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
    auto msg = error_of([&, file = file] { read_swf(fixture("workloads/" + file)); });
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

TEST(Batsim, CommonJobsAndProfilesReadTheSameOnEitherPath)
{
  // read_batsim takes the common job and profile (only their own numeric fields) straight from the
  // document, the others field by field: each pair below differs only in a way that sends one of
  // them down the field-by-field path (a whole number written 2.0, a kept field, an id as a number)
  auto tmp = std::filesystem::temp_directory_path() / "sgai-two-paths.json";
  sgai::write_file_atomically(tmp, R"({"nb_res": 8, "profiles": {
      "d1": {"type": "delay", "delay": 12.5, "req_time": 20},
      "d2": {"type": "delay", "delay": 12.5, "req_time": 20, "command": "x"},
      "p1": {"type": "parallel_homogeneous", "cpu": 2e9, "com": 0, "req_ops": 3e9, "mem": 1, "mem_bw": 2.5},
      "p2": {"type": "parallel_homogeneous", "cpu": 2e9, "com": 0, "req_ops": 3e9, "mem": 1, "mem_bw": 2.5, "np": 4}},
    "jobs": [
      {"id": "a", "subtime": 1.5, "res": 2, "walltime": 30, "profile": "d1"},
      {"id": "b", "subtime": 1.5, "res": 2.0, "walltime": 30, "profile": "d2"},
      {"id": 7, "subtime": 2, "res": 3, "walltime": -1, "profile": "p1"},
      {"id": 8, "subtime": 2, "res": 3, "walltime": -1, "profile": "p2", "extra_data": {"k": 1}}]})");
  Workload w = read_batsim(tmp);
  std::filesystem::remove(tmp);
  ASSERT_EQ(w.jobs.size(), 4U);
  for (size_t i : {0, 2}) {
    const Job &a = w.jobs[i], &b = w.jobs[i + 1];
    EXPECT_EQ(a.submit_s, b.submit_s);
    EXPECT_EQ(a.resources, b.resources);
    EXPECT_EQ(a.walltime_s, b.walltime_s);
    const Profile &pa = w.profile_of(a), &pb = w.profile_of(b);
    EXPECT_EQ(pa.type, pb.type);
    EXPECT_EQ(pa.delay_s, pb.delay_s);
    EXPECT_EQ(pa.cpu, pb.cpu);
    EXPECT_EQ(pa.com, pb.com);
    EXPECT_EQ(pa.req_time_s, pb.req_time_s);
    EXPECT_EQ(pa.req_ops, pb.req_ops);
    EXPECT_EQ(pa.mem_mb, pb.mem_mb);
    EXPECT_EQ(pa.mem_bw_gbps, pb.mem_bw_gbps);
    EXPECT_TRUE(pa.extra_json.empty());
    EXPECT_FALSE(pb.extra_json.empty());
  }
  EXPECT_EQ(w.jobs[2].id, "7");
  EXPECT_EQ(w.jobs[0].resources, 2U);
  EXPECT_DOUBLE_EQ(*w.jobs[0].walltime_s, 30);
  EXPECT_FALSE(w.jobs[2].walltime_s);
  EXPECT_DOUBLE_EQ(*w.profile_of(w.jobs[2]).mem_bw_gbps, 2.5);
  // a duplicate id, a missing profile or a field of the wrong kind still names itself
  for (const char* bad :
       {R"({"id": "a", "subtime": 0, "res": 1, "profile": "d1"}, {"id": "a", "subtime": 0, "res": 1, "profile": "d1"})",
        R"({"id": "a", "subtime": 0, "res": 1, "profile": "nope"})",
        R"({"id": "a", "subtime": -1, "res": 1, "profile": "d1"})"}) {
    sgai::write_file_atomically(tmp, std::string(R"({"profiles": {"d1": {"type": "delay", "delay": 1}}, "jobs": [)") +
                                         bad + "]}");
    try {
      read_batsim(tmp);
      ADD_FAILURE() << "accepted " << bad;
    } catch (const sgai::InputError& e) {
      EXPECT_NE(std::string(e.what()).find("/jobs/"), std::string::npos) << e.what();
    }
  }
  std::filesystem::remove(tmp);
}

namespace {

/** read_batsim's fast path and its general path on one text: the fast one reads it (`fast`) or
 *  declines, and read_batsim gives what the document path gives, or the same error. */
void expect_same_on_both_paths(const std::string& text, bool fast, const std::string& what)
{
  auto tmp = std::filesystem::temp_directory_path() / "sgai-fast-path.json";
  sgai::write_file_atomically(tmp, text);
  auto quick = detail::read_batsim_common(text, tmp);
  EXPECT_EQ(quick.has_value(), fast) << what;
  Workload a, b;
  std::string ea = error_of([&] { a = read_batsim(tmp); });
  std::string eb = error_of([&] { b = detail::read_batsim_document(tmp); });
  EXPECT_EQ(ea, eb) << what;
  if (eb == "no error") {
    EXPECT_EQ(sgai::test::workload_fields(a), sgai::test::workload_fields(b)) << what;
    if (quick) {
      EXPECT_EQ(sgai::test::workload_fields(*quick), sgai::test::workload_fields(b)) << what;
    }
  }
  std::filesystem::remove(tmp);
}

} // namespace

TEST(Batsim, CommonWorkloadsReadStraightFromTheTextAsFromTheDocument)
{
  // generated and converted workloads (HDeepRM's fields and job_limits) take the fast path
  SyntheticSpec spec;
  spec.jobs       = 2000;
  spec.max_cores  = 256;
  spec.mem_max_mb = 4096;
  std::ostringstream generated;
  write_batsim(generate_workload(spec), generated);
  expect_same_on_both_paths(generated.str(), true, "generated");
  const std::string head = R"({"nb_res": 4, "profiles": {"d": {"type": "delay", "delay": 10}}, "jobs": [)";
  const std::string job  = R"({"id": "a", "subtime": 0, "res": 1, "profile": "d"})";
  // accepted: blanks, exponents, ids as numbers, -1 walltimes, keys in any order, ignored keys of any shape
  for (
      const std::string& text : std::vector<std::string>{
          head + job + "]}",
          "\n\t{ \"jobs\" : [ " + job + " ] , \"profiles\": {\"d\": {\"delay\": 1E1, \"type\": \"delay\"}}}\r\n",
          head + R"({"profile": "d", "res": 4294967295, "subtime": 2.5e-3, "walltime": -1, "id": 12}]})",
          head + R"({"id": 7.0, "subtime": 1e2, "res": 3, "walltime": 5, "profile": "d"}]})",
          R"({"description": {"a": [1, true, null, {"b": "c"}], "d": []}, "comments": "x", "date": 0, "command": false,
            "sgai": [], "jobs": [], "profiles": {}})",
          R"({"jobs": [], "profiles": {"z": {"type": "delay", "delay": 1}, "a": {"type": "parallel_homogeneous", "cpu": 1,
            "com": 0, "req_time": 3, "req_ops": 4, "mem": 0, "mem_bw": 2}, "m": {"type": "delay", "delay": 0}}})",
          head + job +
              R"(], "job_limits": {"max_core": 4, "reference_machine": {"speed_flops": 1.5e9}, "max_mem": 0.0}})"})
    expect_same_on_both_paths(text, true, text);
  // declined, and read the general way (to the same workload or the same error)
  for (const std::string& text : std::vector<std::string>{
           head + R"({"id": "a\u0041", "subtime": 0, "res": 1, "profile": "d"}]})",             // an escape
           head + R"({"id": "é", "subtime": 0, "res": 1, "profile": "d"}]})",                   // a byte above 127
           head + R"({"id": "a", "subtime": -0, "res": 1, "profile": "d"}]})",                  // -0
           head + R"({"id": "a", "subtime": 0, "res": 1, "walltime": -2, "profile": "d"}]})",   // -1 only
           head + R"({"id": "a", "subtime": 0, "res": 1.0, "profile": "d"}]})",                 // res not written whole
           head + R"({"id": "a", "subtime": 0, "res": 1, "res": 2, "profile": "d"}]})",         // a duplicate key
           head + job + "," + job + "]}",                                                       // a duplicate id
           head + R"({"id": "a", "subtime": 0, "res": 1, "profile": "nope"}]})",                // an unknown profile
           head + R"({"id": "a", "subtime": 1e400, "res": 1, "profile": "d"}]})",               // no double holds it
           head + R"({"id": "a", "subtime": 01, "res": 1, "profile": "d"}]})",                  // not JSON
           head + R"({"id": "a", "subtime": 0, "res": 1, "profile": "d", "extra_data": {}}]})", // a kept field
           head + job + R"(], "job_limits": {"max_core": 4, "max_core": 5}})", // a duplicate in job_limits
           head + job + R"(], "other": 1})",                                   // an unknown key
           head + job + "]} x",                                                // trailing text
           "\xEF\xBB\xBF" + head + job + "]}",                                 // a byte-order mark
           R"({"jobs": [], "profiles": {"p": {"type": "parallel", "cpu": [1], "com": [0]}}})", // another type
           R"({"jobs": [], "profiles": {"d": {"type": "delay"}}})",                            // a field missing
           R"({"jobs": [], "profiles": {"d": {"type": "delay", "delay": 1}, "d": {"type": "delay", "delay": 2}}})",
           R"({"profiles": {}})",
           R"([])",
           ""})
    expect_same_on_both_paths(text, false, text);
  // a real log converted as swf2json does (HDeepRM's fields, job_limits) takes the fast path
  SGAI_REQUIRE_SHARED_DATA();
  std::ostringstream converted;
  write_batsim(read_workload(sgai::test::shared_data("swf/NASA-iPSC-1993-3.1-cln.swf.gz")), converted);
  expect_same_on_both_paths(converted.str(), true, "NASA iPSC converted");
  // Batsim's own workloads keep their profiles' command, np, runtime: read the general way, the
  // same either way
  for (const auto& f : std::filesystem::directory_iterator(sgai::test::shared_data("batsim/workloads")))
    expect_same_on_both_paths(sgai::read_text_file(f.path()), false, f.path().string());
  std::string medium_late = sgai::read_text_file(sgai::test::shared_data("batsim/medium_late/medium_late.json"));
  expect_same_on_both_paths(medium_late, false, "medium_late");
}

TEST(Batsim, ReadsBatsimsOwnWorkloads)
{
  SGAI_REQUIRE_SHARED_DATA();
  Workload w = read_batsim(sgai::test::shared_data("batsim/medium_late/medium_late.json"));
  EXPECT_EQ(w.jobs.size(), 801U);
  EXPECT_EQ(*w.nb_res, 32U);
  EXPECT_EQ(*resources_made_for(w), 32U);
}

namespace {

/** Reads Batsim JSON text written to a file of the test's folder. */
Workload read_text(const std::string& text, const std::string& name = "w.json")
{
  auto file = sgai::test::temp_dir() / name;
  sgai::write_file_atomically(file, text);
  return read_batsim(file);
}

/** A workload of one job of `res` resources running profile "p", with other profiles. */
std::string one_job(const std::string& profiles, int res = 2)
{
  return R"({ "nb_res": 4, "jobs": [ { "id": 1, "subtime": 0, "res": )" + std::to_string(res) +
         R"(, "profile": "p" } ], "profiles": { )" + profiles + " } }";
}

/** What reading the text says: the error's message or "no error". */
std::string error_of_text(const std::string& text)
{
  return error_of([&] { read_text(text, "bad.json"); });
}

/** Written as Batsim JSON and read again. */
Workload round_trip(const Workload& w, const std::string& name = "rt.json")
{
  std::ostringstream out;
  write_batsim(w, out);
  return read_text(out.str(), name);
}

} // namespace

TEST(Batsim, ReadsEveryProfileTypeUnderBatsim5sNames)
{
  Workload w = read_text(R"({ "nb_res": 4, "comments": "x",
    "jobs": [ { "id": "a", "subtime": 0, "res": 2, "profile": "seq", "expected_state": "COMPLETED",
                "extra_data": { "k": 1 } } ],
    "profiles": {
      "d":    { "type": "DelayProfile", "delay": 3, "expected_execution_time": 3 },
      "ph":   { "type": "ParallelTaskHomogeneousProfile", "cpu": 1e9, "com": 1e6,
                "generation_strategy": "DefinedAmountsUsedForEachValue" },
      "pht":  { "type": "ParallelTaskHomogeneousProfile", "cpu": 1e9, "com": 1e6,
                "generation_strategy": "DefinedAmountsSpreadUniformly" },
      "pt":   { "type": "ParallelTaskProfile", "cpu": [1, 2], "com": [0, 3, 4, 0] },
      "comm": { "type": "ParallelTaskProfile", "com": [0, 3, 4, 0] },
      "comp": { "type": "ParallelTaskProfile", "cpu": [5, 6] },
      "io":   { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_read": 7, "storage": "nfs",
                "generation_strategy": "DefinedAmountsSpreadUniformly" },
      "io2":  { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_write": 8 },
      "sm":   { "type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "smpi/t/traces.txt", "mpi_size": 2 },
      "ut":   { "type": "TraceReplayProfile", "trace_type": "FractionalComputation", "trace": "../u.txt" },
      "seq":  { "type": "SequentialCompositionProfile", "repeat": 3, "seq": ["d", "ph", "d", "pt"] } } })",
                         "v5.json");
  auto p     = [&](const std::string& name) -> const Profile& {
    for (const auto& x : w.profiles)
      if (x.name == name)
        return x;
    throw std::runtime_error("no profile " + name);
  };
  EXPECT_EQ(p("d").type, ProfileType::delay);
  EXPECT_DOUBLE_EQ(p("d").delay_s, 3);
  EXPECT_EQ(p("d").extra_json, R"({"expected_execution_time":3})");
  EXPECT_EQ(p("ph").type, ProfileType::parallel_homogeneous);
  EXPECT_DOUBLE_EQ(p("ph").com, 1e6);
  EXPECT_EQ(p("pht").type, ProfileType::parallel_homogeneous_total);
  EXPECT_DOUBLE_EQ(p("pht").cpu, 1e9);
  EXPECT_EQ(p("pt").type, ProfileType::parallel);
  EXPECT_EQ(p("pt").com_matrix, (std::vector<double>{0, 3, 4, 0}));
  EXPECT_EQ(p("comm").cpu_vector, (std::vector<double>{0, 0})); // communication only: n from the matrix
  EXPECT_TRUE(p("comp").com_matrix.empty());                    // computation only
  EXPECT_EQ(p("io").type, ProfileType::parallel_homogeneous_pfs);
  EXPECT_DOUBLE_EQ(p("io").bytes_to_read, 7);
  EXPECT_DOUBLE_EQ(p("io").bytes_to_write, 0);
  EXPECT_EQ(p("io").storage, "nfs");
  EXPECT_TRUE(p("io").bytes_total);
  EXPECT_EQ(p("io2").storage, "pfs"); // Batsim's default label
  EXPECT_FALSE(p("io2").bytes_total);
  EXPECT_EQ(p("sm").type, ProfileType::smpi);
  EXPECT_EQ(p("sm").trace_file, "smpi/t/traces.txt");
  EXPECT_EQ(p("sm").trace_path, sgai::test::temp_dir() / "smpi/t/traces.txt");
  EXPECT_EQ(p("sm").extra_json, R"({"mpi_size":2})");
  EXPECT_EQ(p("ut").type, ProfileType::usage_trace);
  EXPECT_EQ(p("ut").trace_path, (sgai::test::temp_dir() / "../u.txt").lexically_normal());
  const Profile& seq = p("seq");
  EXPECT_EQ(seq.type, ProfileType::composed);
  EXPECT_EQ(seq.repeat, 3U);
  ASSERT_EQ(seq.sequence.size(), 4U);
  EXPECT_EQ(w.profiles[seq.sequence[0]].name, "d");
  EXPECT_EQ(w.profiles[seq.sequence[3]].name, "pt");
  EXPECT_EQ(w.jobs[0].extra_json, R"({"expected_state":"COMPLETED","extra_data":{"k":1}})");
  EXPECT_EQ(profile_types_used(w), (std::vector<std::string>{"composed", "delay", "parallel_homogeneous", "parallel"}));
  // written with Batsim 4's names and read back the same
  Workload back = round_trip(w);
  ASSERT_EQ(back.profiles.size(), w.profiles.size());
  for (size_t i = 0; i < w.profiles.size(); i++) {
    const Profile& a = w.profiles[i];
    const Profile& b = back.profiles[i];
    EXPECT_EQ(a.name, b.name);
    EXPECT_EQ(a.type, b.type) << a.name;
    EXPECT_EQ(a.cpu_vector, b.cpu_vector) << a.name;
    EXPECT_EQ(a.com_matrix, b.com_matrix) << a.name;
    EXPECT_EQ(a.sequence, b.sequence) << a.name;
    EXPECT_EQ(a.repeat, b.repeat) << a.name;
    EXPECT_EQ(a.bytes_total, b.bytes_total) << a.name;
    EXPECT_EQ(a.storage, b.storage) << a.name;
    EXPECT_EQ(a.trace_file, b.trace_file) << a.name;
    EXPECT_EQ(a.extra_json, b.extra_json) << a.name;
  }
  EXPECT_EQ(back.jobs[0].extra_json, w.jobs[0].extra_json);
}

TEST(Batsim, ReadsTheOlderNamesOfEachType)
{
  const std::vector<std::pair<const char*, ProfileType>> names = {
      {R"({ "type": "delay", "delay": 1 })", ProfileType::delay},
      {R"({ "type": "msg_par_hg", "cpu": 1, "com": 0 })", ProfileType::parallel_homogeneous},
      {R"({ "type": "ptask_homogeneous", "cpu": 1, "com": 0 })", ProfileType::parallel_homogeneous},
      {R"({ "type": "parallel_homogeneous_total", "cpu": 1, "com": 0 })", ProfileType::parallel_homogeneous_total},
      {R"({ "type": "msg_par_hg_tot", "cpu": 1, "com": 0 })", ProfileType::parallel_homogeneous_total},
      {R"({ "type": "ptask_homogeneous", "cpu": 1, "com": 0, "generation_strategy": "DefinedAmountsSpreadUniformly" })",
       ProfileType::parallel_homogeneous_total},
      {R"({ "type": "msg_par", "cpu": [1, 1], "com": [0, 0, 0, 0] })", ProfileType::parallel},
      {R"({ "type": "ptask", "cpu": [1, 1], "com": [0, 0, 0, 0] })", ProfileType::parallel},
      {R"({ "type": "parallel_homogeneous_pfs", "bytes_to_read": 1, "storage": "pfs" })",
       ProfileType::parallel_homogeneous_pfs},
      {R"({ "type": "msg_par_hg_pfs", "bytes_to_write": 1, "host": "pfs" })", ProfileType::parallel_homogeneous_pfs},
      {R"({ "type": "ptask_on_storage_homogeneous", "bytes_to_read": 1 })", ProfileType::parallel_homogeneous_pfs},
      {R"({ "type": "smpi", "trace": "t.txt" })", ProfileType::smpi},
      {R"({ "type": "usage_trace", "trace": "t.txt" })", ProfileType::usage_trace},
      {R"({ "type": "trace_replay", "trace_type": "smpi", "trace_file": "t.txt" })", ProfileType::smpi},
      {R"({ "type": "trace_replay", "trace_type": "usage", "trace_file": "t.txt" })", ProfileType::usage_trace},
  };
  for (const auto& [text, type] : names) {
    Workload w;
    ASSERT_EQ(error_of([&, text = text] { w = read_text(one_job(std::string(R"("p": )") + text)); }), "no error")
        << text;
    EXPECT_EQ(w.profiles[0].type, type) << text;
    EXPECT_EQ(round_trip(w).profiles[0].type, type) << text;
  }
  // composed, under its three names
  for (const char* name : {"composed", "sequential_composition", "SequentialCompositionProfile"}) {
    Workload w = read_text(one_job(std::string(R"("d": { "type": "delay", "delay": 1 }, "p": { "type": ")") + name +
                                   R"(", "seq": ["d"] })"));
    EXPECT_EQ(w.profiles[1].type, ProfileType::composed) << name;
    EXPECT_EQ(w.profiles[1].repeat, 1U) << name; // Batsim's default
  }
  // every type has its own stable name
  std::set<std::string> seen;
  for (auto t : {ProfileType::delay, ProfileType::parallel_homogeneous, ProfileType::parallel_homogeneous_total,
                 ProfileType::parallel, ProfileType::composed, ProfileType::parallel_homogeneous_pfs, ProfileType::smpi,
                 ProfileType::usage_trace})
    EXPECT_TRUE(seen.insert(to_string(t)).second) << to_string(t);
}

class BadProfile : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BadProfile, IsRejectedWithThePointerAndTheValue)
{
  auto [profiles, expected] = GetParam();
  std::string msg           = error_of_text(one_job(profiles));
  EXPECT_NE(msg.find("bad.json: "), std::string::npos) << msg;
  EXPECT_NE(msg.find(expected), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Fields, BadProfile,
    ::testing::Values(
        std::pair{R"("p": { "type": "ForkJoinCompositionProfile" })",
                  "at /profiles/p/type: unknown value 'ForkJoinCompositionProfile' (expected one of: 'delay'"},
        std::pair{R"("p": { "type": "DelayProfile", "delay": -1 })",
                  "at /profiles/p/delay: delay -1 must be a finite number >= 0"},
        std::pair{R"("p": { "type": "DelayProfile" })", "at /profiles/p: missing field 'delay'"},
        std::pair{R"("p": { "type": "ParallelTaskHomogeneousProfile", "cpu": -5, "com": 0 })",
                  "at /profiles/p/cpu: cpu -5 must be a finite number >= 0"},
        std::pair{R"("p": { "type": "ParallelTaskHomogeneousProfile", "cpu": 1, "com": "x" })", "at /profiles/p/com: "},
        std::pair{
            R"("p": { "type": "ParallelTaskHomogeneousProfile", "cpu": 1, "com": 0, "generation_strategy": "Spread" })",
            "at /profiles/p/generation_strategy: unknown value 'Spread'"},
        std::pair{
            R"("p": { "type": "parallel_homogeneous", "cpu": 1, "com": 0, "generation_strategy": "DefinedAmountsSpreadUniformly" })",
            "at /profiles/p/generation_strategy: unknown key 'generation_strategy'"},
        std::pair{R"("p": { "type": "ParallelTaskProfile" })",
                  "at /profiles/p: a ParallelTaskProfile needs 'cpu' (flops per resource), 'com'"},
        std::pair{R"("p": { "type": "parallel", "com": [0, 0, 0, 0] })", "at /profiles/p: missing field 'cpu'"},
        std::pair{R"("p": { "type": "ParallelTaskProfile", "com": [0, 0, 0] })",
                  "at /profiles/p/com: a parallel profile without cpu needs n x n com values (n >= 1), got 3"},
        std::pair{R"("p": { "type": "ParallelTaskProfile", "cpu": [1, 1], "com": [0, 0, 0] })",
                  "at /profiles/p/com: a parallel profile of 2 resources needs 4 com values (n x n), got 3"},
        std::pair{R"("p": { "type": "ParallelTaskProfile", "cpu": [1, -2] })",
                  "at /profiles/p/cpu/1: cpu -2 must be a finite number >= 0"},
        std::pair{R"("p": { "type": "ParallelTaskProfile", "cpu": [] })",
                  "at /profiles/p/cpu: a parallel profile needs one cpu amount per resource"},
        std::pair{R"("p": { "type": "ParallelTaskOnStorageHomogeneousProfile", "storage": "pfs" })",
                  "at /profiles/p: a storage profile needs 'bytes_to_read' or 'bytes_to_write'"},
        std::pair{R"("p": { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_read": -1 })",
                  "at /profiles/p/bytes_to_read: bytes_to_read -1 must be a finite number >= 0"},
        std::pair{R"("p": { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_write": 1e30 })",
                  "at /profiles/p/bytes_to_write: bytes_to_write 1e+30 is above 1e21 bytes"},
        std::pair{R"("p": { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_read": 1, "storage": "" })",
                  "at /profiles/p/storage: the storage label must not be empty"},
        std::pair{R"("p": { "type": "ParallelTaskOnStorageHomogeneousProfile", "bytes_to_read": 1, "storage": 3 })",
                  "at /profiles/p/storage: "},
        std::pair{R"("p": { "type": "msg_par_hg_pfs", "bytes_to_read": 1, "storage": "a", "host": "b" })",
                  "at /profiles/p/host: a storage profile names its storage once"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "filename": "t.txt" })",
                  "at /profiles/p: missing field 'trace_type'"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "trace_type": "MPI", "filename": "t.txt" })",
                  "at /profiles/p/trace_type: unknown value 'MPI'"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "trace_type": "SMPI" })",
                  "at /profiles/p: missing field 'filename'"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "" })",
                  "at /profiles/p/filename: the trace's file name must not be empty"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "/etc/t.txt" })",
                  "at /profiles/p/filename: trace '/etc/t.txt' must be relative to the workload's folder"},
        std::pair{R"("p": { "type": "TraceReplayProfile", "trace_type": "SMPI", "filename": "a", "trace": "b" })",
                  "at /profiles/p/trace: a trace replay profile names its trace once"},
        std::pair{R"("p": { "type": "smpi", "trace_type": "SMPI", "trace": "a" })",
                  "at /profiles/p/trace_type: unknown key 'trace_type'"},
        std::pair{R"("p": { "type": "DelayProfile", "delay": 1, "cpu": 1 })", "at /profiles/p/cpu: unknown key 'cpu'"},
        std::pair{R"("p": { "type": "DelayProfile", "delay": 1, "expected_execution": 1 })",
                  "at /profiles/p/expected_execution: unknown key 'expected_execution'"}),
    [](const ::testing::TestParamInfo<std::pair<const char*, const char*>>& p) {
      return "case" + std::to_string(p.index);
    });

TEST(Batsim, ComposedProfilesAreResolvedAndChecked)
{
  const std::string d = R"("d": { "type": "delay", "delay": 1 }, )";
  auto msg            = [&](const std::string& profiles) { return error_of_text(one_job(d + profiles)); };
  // unknown name, named with its place
  EXPECT_NE(msg(R"("p": { "type": "composed", "seq": ["d", "nope"] })")
                .find("at /profiles/p/seq/1: composed profile 'p' names profile 'nope', which is not in 'profiles' "
                      "(known: 'd', 'p')"),
            std::string::npos)
      << msg(R"("p": { "type": "composed", "seq": ["d", "nope"] })");
  // cycles: itself, or through others
  EXPECT_NE(msg(R"("p": { "type": "composed", "seq": ["d", "p"] })")
                .find("at /profiles/p/seq/1: composed profile 'p' runs itself: 'p' -> 'p'"),
            std::string::npos);
  std::string cycle = msg(R"("p": { "type": "composed", "seq": ["a"] }, "a": { "type": "composed", "seq": ["d", "b"] },
                             "b": { "type": "composed", "seq": ["a"] })");
  EXPECT_NE(cycle.find("at /profiles/b/seq/0: composed profile 'b' runs itself: 'a' -> 'b' -> 'a'"), std::string::npos)
      << cycle;
  // seq and repeat
  EXPECT_NE(msg(R"("p": { "type": "composed", "seq": [] })")
                .find("at /profiles/p/seq: a composed profile needs at least one profile name in 'seq'"),
            std::string::npos);
  EXPECT_NE(msg(R"("p": { "type": "composed", "seq": [1] })")
                .find("at /profiles/p/seq/0: 'seq' holds profile names: expected a string, got 1"),
            std::string::npos);
  EXPECT_NE(msg(R"("p": { "type": "composed" })").find("at /profiles/p: missing field 'seq'"), std::string::npos);
  for (const char* repeat : {"0", "-1", "1.5", "4294967296", "\"2\""})
    EXPECT_NE(msg(std::string(R"("p": { "type": "composed", "seq": ["d"], "repeat": )") + repeat + " }")
                  .find("at /profiles/p/repeat: "),
              std::string::npos)
        << repeat;
  Workload w = read_text(one_job(d + R"("p": { "type": "composed", "seq": ["d"], "repeat": 1000000000 })"));
  EXPECT_EQ(w.profiles[1].repeat, 1000000000U);
  // a sequence that expands to more than 1e9 profiles
  EXPECT_NE(msg(R"("p": { "type": "composed", "seq": ["d"], "repeat": 4294967295 })")
                .find("at /profiles/p: composed profile 'p' runs 4294967295 profiles in all"),
            std::string::npos);
  std::string big = msg(R"("p": { "type": "composed", "seq": ["a", "a"], "repeat": 1000 },
                           "a": { "type": "composed", "seq": ["d"], "repeat": 1000000 })");
  EXPECT_NE(big.find("at /profiles/p: composed profile 'p' runs 2e+09 profiles in all"), std::string::npos) << big;
  // a parallel profile in a sequence must have the job's size too
  std::string size = msg(R"("pt": { "type": "parallel", "cpu": [1, 1, 1], "com": [0, 0, 0, 0, 0, 0, 0, 0, 0] },
                            "p": { "type": "composed", "seq": ["d", "pt"] })");
  EXPECT_NE(size.find("at /jobs/0/res: job '1' asks for 2 resources but the parallel profile 'pt' of its composed "
                      "profile 'p' describes 3"),
            std::string::npos)
      << size;
}

TEST(Batsim, JobsKeepBatsimsAnnotationsAndRejectOtherKeys)
{
  auto job = [](const std::string& extra) {
    return R"({ "jobs": [ { "id": 1, "subtime": 0, "res": 1, "profile": "d", )" + extra +
           R"( } ], "profiles": { "d": { "type": "delay", "delay": 1 } } })";
  };
  Workload w =
      read_text(job(R"("description": "x", "expected_execution_time": 1, "NOT_A_smpi_ranks_to_hosts_mapping": [0])"));
  EXPECT_NE(w.jobs[0].extra_json.find(R"("description":"x")"), std::string::npos);
  EXPECT_EQ(round_trip(w).jobs[0].extra_json, w.jobs[0].extra_json);
  EXPECT_NE(error_of_text(job(R"("expected_time": 1)")).find("at /jobs/0/expected_time: unknown key 'expected_time'"),
            std::string::npos);
  // submission times go to 1e18 s (Batsim's test_long_workload submits at 1e17 s), durations to 1e12 s
  EXPECT_EQ(error_of_text(R"({ "jobs": [ { "id": 1, "subtime": 1e17, "res": 1, "profile": "d" } ],
                               "profiles": { "d": { "type": "delay", "delay": 1 } } })"),
            "no error");
  EXPECT_NE(error_of_text(R"({ "jobs": [ { "id": 1, "subtime": 2e18, "res": 1, "profile": "d" } ],
                               "profiles": { "d": { "type": "delay", "delay": 1 } } })")
                .find("at /jobs/0/subtime: submission time 2e+18 is above 1e18 s"),
            std::string::npos);
}

TEST(Batsim, ResourcesMadeFor)
{
  Workload w = read_batsim(fixture("workloads/tiny.json"));
  EXPECT_EQ(*resources_made_for(w), 4U);
  w.nb_res.reset();
  EXPECT_FALSE(resources_made_for(w));
  // HDeepRM's workloads (job_limits: swf2json, generate, SWF logs) run on the whole platform
  Workload swf = read_workload(fixture("workloads/tiny.swf"));
  EXPECT_EQ(*swf.nb_res, 8U);
  EXPECT_FALSE(resources_made_for(swf));
  EXPECT_FALSE(resources_made_for(round_trip(swf)));
}

TEST(Batsim, ReadsAllOfBatsimsWorkloadsUnchanged)
{
  SGAI_REQUIRE_SHARED_DATA();
  const std::map<std::string, std::vector<std::string>> expected = {
      {"example_workload_hpc_seed1_jobs250", {"delay"}},
      {"example_workload_hpc_seed2_jobs250", {"delay"}},
      {"example_workload_hpc_seed3_jobs250", {"delay"}},
      {"example_workload_hpc_seed4_jobs250", {"delay"}},
      {"example_workload_hpc_seed5_jobs250", {"delay"}},
      {"test_batsim_paper_workload_seed1", {"delay"}},
      {"test_case_study1", {"delay"}},
      {"test_compo_sequence_delay", {"composed", "delay"}},
      {"test_compo_sequence_ptaskcomp", {"composed", "parallel_homogeneous"}},
      {"test_delays", {"delay"}},
      {"test_energy_minimal_load0", {"delay"}},
      {"test_energy_minimal_load100", {"parallel_homogeneous"}},
      {"test_energy_minimal_load50", {"parallel_homogeneous"}},
      {"test_extra_data_desired_allocation", {"delay"}},
      {"test_extra_data_desired_allocation_object", {"delay"}},
      {"test_homo_ptasks", {"parallel_homogeneous", "parallel_homogeneous_total"}},
      {"test_long_workload", {"parallel_homogeneous", "parallel", "delay"}},
      {"test_one_computation_job", {"parallel_homogeneous"}},
      {"test_one_computation_job_tot", {"parallel_homogeneous_total"}},
      {"test_one_delay_job", {"delay"}},
      {"test_ptasks", {"parallel"}},
      {"test_same_submit_time", {"delay"}},
      {"test_smpi_collectives", {"smpi"}},
      {"test_smpi_compute_only", {"smpi"}},
      {"test_smpi_mapping", {"smpi"}},
      {"test_smpi_mixed_comp_comm", {"smpi"}},
      {"test_tuto_stencil", {"composed", "parallel_homogeneous_pfs", "parallel"}},
      {"test_usage_trace", {"delay", "usage_trace"}},
      {"test_various_profile_types",
       {"delay", "parallel", "parallel_homogeneous", "parallel_homogeneous_total", "composed"}},
      {"test_walltime", {"delay", "parallel_homogeneous"}},
      {"test_walltime_smpi", {"smpi"}},
  };
  size_t read = 0;
  for (const auto& f : std::filesystem::directory_iterator(sgai::test::shared_data("batsim/workloads"))) {
    if (f.path().extension() != ".json")
      continue;
    std::string name = f.path().stem().string();
    Workload w;
    ASSERT_EQ(error_of([&] { w = read_batsim(f.path()); }), "no error") << name;
    ASSERT_TRUE(expected.count(name)) << name;
    EXPECT_EQ(profile_types_used(w), expected.at(name)) << name;
    EXPECT_TRUE(w.nb_res) << name;
    Workload back = round_trip(w, name + ".json");
    EXPECT_EQ(profile_types_used(back), expected.at(name)) << name;
    read++;
  }
  EXPECT_EQ(read, 31U);
  // the traces, from the workload's folder
  Workload usage = read_batsim(sgai::test::shared_data("batsim/workloads/test_usage_trace.json"));
  size_t traces  = 0;
  for (const auto& p : usage.profiles)
    if (p.type == ProfileType::usage_trace &&
        p.trace_path.string().find("batsim/workloads/usage-trace/") != std::string::npos)
      traces++;
  EXPECT_EQ(traces, 6U);
}

class BogusWorkload : public ::testing::TestWithParam<std::pair<const char*, const char*>> {};

TEST_P(BogusWorkload, IsRejectedWithItsMessage)
{
  auto [file, expected] = GetParam();
  std::string msg       = error_of([&, file = file] { read_batsim(fixture(std::string("workloads/") + file)); });
  EXPECT_NE(msg.find(file), std::string::npos) << msg;
  EXPECT_NE(msg.find(expected), std::string::npos) << msg;
}

INSTANTIATE_TEST_SUITE_P(
    Fixtures, BogusWorkload,
    ::testing::Values(
        std::pair{"bogus_missing_profile.json", "at /jobs/0/profile: job '1' names profile 'nope', which is not in"},
        std::pair{"bogus_negative_subtime.json", "at /jobs/0/subtime: submission time -5 must be >= 0"},
        std::pair{"bogus_parallel_size.json", "at /jobs/0/res: job '1' asks for 3 resources but its parallel profile"},
        std::pair{"bogus_job_key.json", "at /jobs/0/walltim: unknown key 'walltim'"},
        std::pair{"bogus_duplicate_job.json", "at /jobs/1/id: duplicate job id 1"},
        std::pair{"bogus_zero_res.json", "at /jobs/0/res: value 0 out of range"},
        std::pair{"bogus_negative_delay.json", "at /profiles/d/delay: delay -3 must be a finite number >= 0"},
        std::pair{"bogus_huge_subtime.json", "at /jobs/0/subtime: submission time 1e+308 is above 1e18 s"},
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

TEST(Batsim, ProfileTypesRegisteredFromOutsideAreReadKeptAndWrittenBack)
{
  auto file = sgai::test::temp_dir() / "custom_profile.json";
  sgai::write_file_atomically(file, R"({"nb_res": 2, "jobs": [{"id": 1, "subtime": 0, "res": 2, "profile": "c"}],
    "profiles": {"c": {"type": "my_checkpointed", "cpu": 2e9, "phase": "warm", "req_time": 30}}})");
  // not registered: the reader names the type and lists the known ones
  EXPECT_NE(error_of([&] { read_batsim(file); }).find("my_checkpointed"), std::string::npos);
  EXPECT_FALSE(is_registered_profile_type("my_checkpointed"));
  register_profile_type("my_checkpointed");
  EXPECT_THROW(register_profile_type("delay"), std::invalid_argument); // Batsim's
  EXPECT_THROW(register_profile_type(""), std::invalid_argument);
  Workload w       = read_batsim(file);
  const Profile& p = w.profiles.at(0);
  EXPECT_EQ(p.type, ProfileType::custom);
  EXPECT_EQ(p.custom_type, "my_checkpointed");
  ASSERT_EQ(p.custom_fields.size(), 2U); // req_time is every profile's, not the type's
  EXPECT_DOUBLE_EQ(p.custom_number("cpu"), 2e9);
  EXPECT_EQ(p.custom_string("phase"), "warm");
  EXPECT_DOUBLE_EQ(*p.req_time_s, 30);
  EXPECT_THROW(p.custom_number("phase"), std::invalid_argument);
  EXPECT_THROW(p.custom_number("absent"), std::invalid_argument);
  std::ostringstream text;
  write_batsim(w, text);
  auto back = sgai::test::temp_dir() / "custom_profile_back.json";
  sgai::write_file_atomically(back, text.str());
  Workload again = read_batsim(back);
  EXPECT_EQ(again.profiles.at(0).custom_fields, p.custom_fields);
  EXPECT_EQ(again.profiles.at(0).custom_type, "my_checkpointed");
}
