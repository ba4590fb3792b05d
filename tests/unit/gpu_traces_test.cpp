/* Training profiles in workloads and the GPU-cluster trace converters (Tiresias, Gavel, Alibaba). */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/gpu_traces.hpp"
#include "test_paths.hpp"

#include <gtest/gtest.h>

#include <sstream>

using namespace sgai::workload;
using sgai::test::error_of;
using sgai::test::temp_dir;

namespace {

std::string write(const std::string& name, const std::string& text)
{
  auto p = temp_dir() / name;
  sgai::write_file_atomically(p, text);
  return p.string();
}

uint64_t skipped(const GpuTraceReport& r, const std::string& start)
{
  for (const auto& [why, n] : r.skipped)
    if (why.rfind(start, 0) == 0)
      return n;
  return 0;
}

constexpr double MiB = 1024.0 * 1024.0;

const char* throughputs_json = R"J({
  "v100": {
    "('ResNet-18 (batch size 64)', 1)": {"null": 10.0, "('LM (batch size 5)', 1)": [5.0, 4.0]},
    "('ResNet-18 (batch size 64)', 2)": {"null": 16.0},
    "('A3C', 1)": {"null": 4.0}
  },
  "k80": {
    "('A3C', 1)": {"null": 1.0}
  }
})J";

} // namespace

TEST(Training, ProfilesRoundTripThroughBatsimJson)
{
  auto file        = write("train.json", R"({
    "jobs": [ {"id": "a", "subtime": 0, "res": 8, "profile": "p"},
              {"id": "b", "subtime": 5, "res": 2, "profile": "q"} ],
    "profiles": {
      "p": {"type": "training", "model": "vgg19", "iterations": 100, "iteration_time": 0.25,
            "gradient_bytes": 573675110.4, "gpu_type": "P100 SXM2 16GB"},
      "q": {"type": "training", "model": "LM", "iterations": 7, "compute_time": 0.5}
    }
  })");
  Workload w       = read_batsim(file);
  const Profile& p = w.profile_of(w.jobs[0]);
  EXPECT_EQ(p.type, ProfileType::training);
  EXPECT_EQ(p.model, "vgg19");
  EXPECT_EQ(p.iterations, 100U);
  EXPECT_DOUBLE_EQ(*p.iteration_s, 0.25);
  EXPECT_FALSE(p.compute_s);
  EXPECT_DOUBLE_EQ(p.gradient_bytes, 573675110.4);
  EXPECT_EQ(p.gpu_type, "P100 SXM2 16GB");
  const Profile& q = w.profile_of(w.jobs[1]);
  EXPECT_DOUBLE_EQ(*q.compute_s, 0.5);
  EXPECT_EQ(q.gradient_bytes, 0);
  EXPECT_EQ(profile_types_used(w), std::vector<std::string>{"training"});
  std::ostringstream out;
  write_batsim(w, out);
  Workload back = read_batsim(write("train-back.json", out.str()));
  EXPECT_EQ(back.profile_of(back.jobs[0]).model, "vgg19");
  EXPECT_DOUBLE_EQ(*back.profile_of(back.jobs[0]).iteration_s, 0.25);
  EXPECT_DOUBLE_EQ(back.profile_of(back.jobs[0]).gradient_bytes, 573675110.4);
  EXPECT_DOUBLE_EQ(*back.profile_of(back.jobs[1]).compute_s, 0.5);
  EXPECT_EQ(back.jobs[1].resources, 2U);
}

TEST(Training, TraceAndGeneratedProfilesRoundTrip)
{
  auto file        = write("train-traces.json", R"({
    "jobs": [ {"id": "a", "subtime": 0, "res": 8, "profile": "ets"},
              {"id": "b", "subtime": 5, "res": 16, "profile": "gen"} ],
    "profiles": {
      "ets": {"type": "training", "model": "gpt", "iterations": 10, "traces": "ets/gpt", "comm_groups": "ets/gpt.groups.json"},
      "gen": {"type": "training", "model": "gpt-1b", "iterations": 7,
              "parallelism": {"data": 2, "tensor": 4, "pipeline": 2, "microbatches": 8, "bucket": "50MiB"},
              "transformer": {"layers": 24, "hidden": 2048, "sequence": 2048, "batch": 16}}
    }
  })");
  Workload w       = read_batsim(file);
  const Profile& e = w.profile_of(w.jobs[0]);
  EXPECT_TRUE(e.replays_traces());
  EXPECT_EQ(e.traces, "ets/gpt");
  EXPECT_EQ(e.traces_path, (std::filesystem::path(file).parent_path() / "ets/gpt").lexically_normal());
  EXPECT_EQ(e.comm_groups_path, (std::filesystem::path(file).parent_path() / "ets/gpt.groups.json").lexically_normal());
  const Profile& g = w.profile_of(w.jobs[1]);
  ASSERT_TRUE(g.generated);
  EXPECT_EQ(g.generated->ranks(), 16U);
  EXPECT_EQ(g.generated->microbatches, 8U);
  EXPECT_EQ(g.generated->bucket_bytes, 50U << 20);
  EXPECT_EQ(g.generated->layers, 24U);
  EXPECT_EQ(g.generated->bytes_per_element, 2U);
  std::ostringstream out;
  write_batsim(w, out);
  Workload back = read_batsim(write("train-traces-back.json", out.str()));
  EXPECT_EQ(back.profile_of(back.jobs[0]).traces, "ets/gpt");
  EXPECT_EQ(back.profile_of(back.jobs[0]).comm_groups, "ets/gpt.groups.json");
  const auto& bg = *back.profile_of(back.jobs[1]).generated;
  EXPECT_EQ(bg.tensor, 4U);
  EXPECT_EQ(bg.bucket_bytes, 50U << 20);
  EXPECT_EQ(bg.hidden, 2048U);
}

TEST(Training, BadProfilesNameTheirField)
{
  auto bad = [](const std::string& profile) {
    return error_of([&]() {
      read_batsim(write("bad-train.json", R"({"jobs": [{"id": "a", "subtime": 0, "res": 1, "profile": "p"}],
                                             "profiles": {"p": )" +
                                              profile + "}}"));
    });
  };
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "iteration_time": 1, "compute_time": 1})")
                .find("at /profiles/p: a training profile gives one of 'iteration_time'"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "traces": "ets/x", "compute_time": 1})")
                .find("not several"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3})").find("needs one of 'iteration_time'"),
            std::string::npos);
  // Chakra traces and generated iterations
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "traces": "/abs/ets"})")
                .find("at /profiles/p/traces: traces '/abs/ets' must be relative to the workload's folder"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "traces": "ets/x", "gradient_bytes": 5})")
                .find("at /profiles/p/gradient_bytes: gradient_bytes: a job replaying Chakra traces"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "compute_time": 1, "comm_groups": "g.json"})")
                .find("at /profiles/p/comm_groups: 'comm_groups' names the communicator groups of Chakra traces"),
            std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 3, "parallelism": {"data": 2, "tensor": 1, "pipeline": 1}})")
          .find("at /profiles/p: a training profile with 'parallelism' needs 'transformer'"),
      std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 3, "parallelism": {"data": 2, "tensor": 1, "pipeline": 4},
                    "transformer": {"layers": 2, "hidden": 64, "sequence": 64, "batch": 2}})")
          .find("at /profiles/p/parallelism: the model has 2 layers for 4 pipeline stages"),
      std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 3, "parallelism": {"data": 0, "tensor": 1, "pipeline": 1},
                    "transformer": {"layers": 2, "hidden": 64, "sequence": 64, "batch": 2}})")
          .find("/profiles/p/parallelism/data"),
      std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 3, "parallelism": {"data": 256, "tensor": 256, "pipeline": 2},
                    "transformer": {"layers": 2, "hidden": 64, "sequence": 64, "batch": 2}})")
          .find("makes 131072 ranks, above 65536"),
      std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "compute_time": 1,
                    "transformer": {"layers": 2, "hidden": 64, "sequence": 64, "batch": 2}})")
                .find("at /profiles/p/transformer: 'transformer' describes the model"),
            std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 0, "compute_time": 1})").find("/profiles/p/iterations"),
      std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "iteration_time": 0})")
                .find("iteration_time 0 must be positive"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "", "iterations": 3, "iteration_time": 1})")
                .find("the model's name must not be empty"),
            std::string::npos);
  EXPECT_NE(bad(R"({"type": "training", "model": "m", "iterations": 3, "compute_time": 1, "gradient_bytes": -1})")
                .find("gradient_bytes -1 must be a finite number >= 0"),
            std::string::npos);
  EXPECT_NE(
      bad(R"({"type": "training", "model": "m", "iterations": 3, "compute_time": 1, "layers": 4})").find("layers"),
      std::string::npos);
}

TEST(Tiresias, IterationTimeIsDurationOverIterationsAndGradientsFollowModelsPy)
{
  auto file = write("tiresias.csv", "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n"
                                    "0,1,30,606,vgg19,164,30\n"
                                    "1,8,0,133,googlenet,147,23\n");
  GpuTraceReport r;
  Workload w = tiresias_to_workload(file, &r);
  ASSERT_EQ(w.jobs.size(), 2U);
  EXPECT_EQ(r.rows, 2U);
  EXPECT_EQ(r.gpus, 9U);
  EXPECT_EQ(w.jobs[0].id, "1"); // submission order
  EXPECT_EQ(w.jobs[0].resources, 8U);
  const Profile& g = w.profile_of(w.jobs[0]);
  EXPECT_DOUBLE_EQ(*g.iteration_s, 147.0 / 133);
  EXPECT_DOUBLE_EQ(g.gradient_bytes, 56.6 * MiB); // inception3's, as Tiresias falls back
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_NE(r.notes[0].first.find("googlenet"), std::string::npos);
  const Profile& v = w.profile_of(w.jobs[1]);
  EXPECT_DOUBLE_EQ(*v.iteration_s * 606, 164); // alone, the job lasts its trace duration
  EXPECT_DOUBLE_EQ(v.gradient_bytes, 547.1 * MiB);
  EXPECT_TRUE(v.gpu_type.empty()); // a requirement: the converters leave it to the user
  EXPECT_NE(w.jobs[1].extra_json.find("\"measured_on\":\"P100 SXM2 16GB\""), std::string::npos);
  EXPECT_NE(w.jobs[1].extra_json.find("\"duration\":164"), std::string::npos);
}

TEST(Tiresias, BadRowsNameFileLineAndColumn)
{
  const std::string head = "job_id,num_gpu,submit_time,iterations,model_name,duration,interval\n";
  auto err               = [&](const std::string& rows) {
    return error_of([&]() { tiresias_to_workload(write("bad.csv", head + rows)); });
  };
  EXPECT_NE(
      err("0,1,0,5,vgg19,10,0\n1,2,-5,10,vgg19,100,0\n").find("bad.csv: line 3, column submit_time: '-5' is negative"),
      std::string::npos);
  EXPECT_NE(err("0,0,0,5,vgg19,10,0\n").find("line 2, column num_gpu: '0' is out of range"), std::string::npos);
  EXPECT_NE(err("0,1,0,,vgg19,10,0\n").find("line 2, column iterations: '' is missing"), std::string::npos);
  EXPECT_NE(err("0,1,0,5,vgg19,0,0\n").find("column duration: '0' must be positive"), std::string::npos);
  EXPECT_NE(err("0,1,0,5,vgg19\n").find("line 2: 5 fields where the header has 7"), std::string::npos);
  EXPECT_NE(err("0,1,0,5,vgg19,10,0\n0,1,0,5,vgg19,10,0\n").find("names a job already read"), std::string::npos);
  EXPECT_NE(error_of([&]() {
              tiresias_to_workload(write("nohead.csv", "job_id,num_gpu\n"));
            }).find("the header has no column 'submit_time'"),
            std::string::npos);
}

TEST(Gavel, ThroughputAtTheCountElseOneGpuPlusTheAllReduce)
{
  auto thr   = read_gavel_throughputs(write("thr.json", throughputs_json));
  auto trace = write("g.trace", "ResNet-18 (batch size 64)\tcmd\t-n\t1\t1000\t5.0\t2\n"
                                "ResNet-18 (batch size 64)\tcmd\t-n\t1\t500\t0.000000\t4\n"
                                "A3C\tcmd\twd\t-n\t1\t40\t1\t1\t-1.0\t7\n");
  GpuTraceReport r;
  Workload w = gavel_to_workload(trace, thr, {}, &r);
  ASSERT_EQ(w.jobs.size(), 3U);
  // 4 GPUs: no throughput measured alone at 4, so the one-GPU time plus the all-reduce
  const Profile& four = w.profile_of(w.jobs[0]);
  EXPECT_EQ(w.jobs[0].resources, 4U);
  EXPECT_DOUBLE_EQ(*four.compute_s, 0.1);
  EXPECT_FALSE(four.iteration_s);
  EXPECT_DOUBLE_EQ(four.gradient_bytes, 4.0 * 11'173'962);
  const Profile& two = w.profile_of(w.jobs[1]);
  EXPECT_DOUBLE_EQ(*two.iteration_s, 1 / 16.0);
  EXPECT_EQ(two.iterations, 1000U);
  EXPECT_NE(w.jobs[1].extra_json.find("\"measured_on\":\"V100 SXM2 16GB\""), std::string::npos);
  EXPECT_DOUBLE_EQ(w.jobs[1].submit_s, 5);
  // the 10-field physical_cluster format: arrival last, scale factor seventh
  EXPECT_DOUBLE_EQ(w.jobs[2].submit_s, 7);
  EXPECT_DOUBLE_EQ(*w.profile_of(w.jobs[2]).iteration_s, 0.25);
  // a count without a throughput and a type without a gradient size or a one-GPU throughput: an error
  auto none = write("none.trace", "A3C\tcmd\t-n\t1\t40\t0\t1\nCycleGAN\tcmd\t-n\t1\t40\t3\t2\n");
  EXPECT_NE(error_of([&]() {
              gavel_to_workload(none, thr, {});
            }).find("none.trace: line 2, column job type: 'CycleGAN' has no v100 throughput at 2 GPUs"),
            std::string::npos);
  EXPECT_NE(error_of([&]() {
              gavel_to_workload(write("f.trace", "A3C\tcmd\t-n\t1\t40\t0\n"), thr, {});
            }).find("line 1: 6 tab-separated fields"),
            std::string::npos);
  EXPECT_NE(error_of([&]() {
              gavel_to_workload(write("n.trace", "A3C\tcmd\t-n\t1\t40\t-2\t1\n"), thr, {});
            }).find("line 1, column arrival: '-2' is negative"),
            std::string::npos);
  EXPECT_NE(error_of([&]() {
              read_gavel_throughputs(write("t.json", R"J({"v100": {"(A3C, 1)": {"null": 1}}})J"));
            }).find("a key is ('job type', GPU count)"),
            std::string::npos);
}

TEST(Alibaba, WholeGpuPodsThatRanBecomeJobs)
{
  auto thr  = read_gavel_throughputs(write("thr.json", throughputs_json));
  auto pods = write("pods.csv", "name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation_time,"
                                "deletion_time,scheduled_time\n"
                                "p0,1000,100,0,0,,LS,Running,0,100,0\n"      // no GPU
                                "p1,1000,100,1,500,,LS,Running,0,100,0\n"    // a fraction
                                "p2,1000,100,2,1000,,LS,Pending,5,100,\n"    // never ran
                                "p3,1000,100,2,1000,,BE,Failed,10,50,20\n"   // failed: kept
                                "p4,1000,100,1,1000,,LS,Running,30,200,40\n" // running at the end: censored
                                "p5,1000,100,1,1000,,LS,Succeeded,40,80,45\n");
  GpuTraceReport r;
  Workload w = alibaba_to_workload(pods, thr, {}, &r);
  ASSERT_EQ(w.jobs.size(), 3U);
  EXPECT_EQ(r.rows, 6U);
  EXPECT_EQ(r.gpus, 4U);
  EXPECT_EQ(skipped(r, "no GPU"), 1U);
  EXPECT_EQ(skipped(r, "a fraction"), 1U);
  EXPECT_EQ(skipped(r, "never scheduled"), 1U);
  EXPECT_EQ(w.jobs[0].id, "p3");
  EXPECT_DOUBLE_EQ(w.jobs[0].submit_s, 10);
  EXPECT_NE(w.jobs[0].extra_json.find("\"pod_phase\":\"Failed\""), std::string::npos);
  EXPECT_NE(w.jobs[0].extra_json.find("\"duration\":30"), std::string::npos);
  EXPECT_NE(w.jobs[1].extra_json.find("\"censored\":true"), std::string::npos);
  EXPECT_EQ(w.jobs[2].extra_json.find("censored"), std::string::npos);
  for (const auto& j : w.jobs) { // iterations x iteration time = the duration, within one iteration
    const Profile& p = w.profile_of(j);
    double t         = p.iteration_s ? *p.iteration_s : *p.compute_s;
    double d         = j.id == "p3" ? 30 : j.id == "p4" ? 160 : 35;
    EXPECT_NEAR(static_cast<double>(p.iterations) * t, d, t / 2 + 1e-9) << j.id;
  }
  // the model: a seeded choice, the same each time, another with another seed for some pod
  Workload again = alibaba_to_workload(pods, thr, {});
  for (size_t i = 0; i < w.jobs.size(); i++)
    EXPECT_EQ(w.profile_of(w.jobs[i]).model, again.profile_of(again.jobs[i]).model);
  GpuTraceReport be;
  EXPECT_EQ(alibaba_to_workload(pods, thr, {"BE", 0, "v100", std::nullopt}, &be).jobs.size(), 1U);
  EXPECT_EQ(skipped(be, "qos LS"), 2U);
  auto bad = write("badpods.csv", "name,num_gpu,gpu_milli,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                  "q,1,1000,LS,Running,30,40,45\n");
  EXPECT_NE(error_of([&]() {
              alibaba_to_workload(bad, thr, {});
            }).find("badpods.csv: line 2, column deletion_time: '40' is not after the pod's scheduled_time 45"),
            std::string::npos);
  auto neg = write("negpods.csv", "name,num_gpu,gpu_milli,qos,pod_phase,creation_time,deletion_time,scheduled_time\n"
                                  "q,-1,1000,LS,Running,50,60,55\n");
  EXPECT_NE(error_of([&]() { alibaba_to_workload(neg, thr, {}); }).find("line 2, column num_gpu: '-1' is negative"),
            std::string::npos);
}

TEST(Alibaba, The2023PodListAsTheIssueCountsIt)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto thr = read_gavel_throughputs(sgai::test::shared_data("ml-clusters/gavel/scheduler/simulation_throughputs.json"));
  GpuTraceReport r;
  Workload w = alibaba_to_workload(
      sgai::test::shared_data("ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv"),
      thr, {}, &r);
  EXPECT_EQ(r.rows, 8152U);
  EXPECT_EQ(w.jobs.size(), 3630U);
  EXPECT_EQ(r.gpus, 3998U);
  EXPECT_EQ(skipped(r, "no GPU"), 1088U);
  EXPECT_EQ(skipped(r, "a fraction"), 3078U);
  EXPECT_EQ(skipped(r, "never scheduled"), 356U);
  size_t censored = 0;
  for (const auto& j : w.jobs)
    censored += j.extra_json.find("\"censored\":true") != std::string::npos;
  EXPECT_EQ(censored, 21U);
}

TEST(Tiresias, The60JobTrace)
{
  SGAI_REQUIRE_SHARED_DATA();
  GpuTraceReport r;
  Workload w = tiresias_to_workload(sgai::test::shared_data("ml-clusters/tiresias/simulator/60_job.csv"), &r);
  ASSERT_EQ(w.jobs.size(), 60U);
  double total = 0;
  for (const auto& j : w.jobs)
    total += static_cast<double>(w.profile_of(j).iterations) * *w.profile_of(j).iteration_s;
  EXPECT_NEAR(total / 60, 178.4, 0.05); // the mean duration, as the trace gives it
  ASSERT_EQ(r.notes.size(), 1U);
  EXPECT_EQ(r.notes[0].second, 6U); // the six googlenet jobs
}

TEST(Gavel, The2000JobMsrTrace)
{
  SGAI_REQUIRE_SHARED_DATA();
  auto thr = read_gavel_throughputs(sgai::test::shared_data("ml-clusters/gavel/scheduler/simulation_throughputs.json"));
  GpuTraceReport r;
  Workload w = gavel_to_workload(sgai::test::shared_data("ml-clusters/gavel/scheduler/traces/msr/seed=0/11cb48.trace"),
                                 thr, {}, &r);
  EXPECT_EQ(w.jobs.size(), 2000U);
  for (size_t i = 1; i < w.jobs.size(); i++)
    ASSERT_LE(w.jobs[i - 1].submit_s, w.jobs[i].submit_s);
  for (const auto& j : w.jobs) { // one-GPU jobs: total_steps / throughput alone
    const Profile& p = w.profile_of(j);
    if (j.resources == 1) {
      ASSERT_TRUE(p.iteration_s) << j.id;
    }
    ASSERT_GT(p.gradient_bytes, 0) << j.id;
  }
}
