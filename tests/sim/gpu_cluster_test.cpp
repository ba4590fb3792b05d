/* The GPU-cluster manager in SimGrid: contention between training jobs on shared links against a
 * hand computation, advancing against simulating every iteration, energy against the plugin, the
 * Tiresias trace alone. */
#include "chakra/builder.hpp"
#include "chakra/generate.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "generators/workload/batsim.hpp"
#include "generators/workload/gpu_traces.hpp"
#include "plugins/gpu_cluster/gpu_manager.hpp"
#include "sim_helpers.hpp"

#include <simgrid/plugins/energy.h>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <iostream>
#include <map>
#include <numeric>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

using namespace sgai;
namespace sg4 = simgrid::s4u;

namespace {

const char* kUplinkTree = "tests/fixtures/platforms/gpu_uplink_fattree.json";

struct Run {
  std::unique_ptr<sim::Simulation> sim;
  std::optional<platform::Platform> platform;
  workload::Workload workload;
  std::unique_ptr<gpu_cluster::GpuManager> manager;
};

std::unique_ptr<Run> run(const std::string& platform, const std::string& workload_json,
                         gpu_cluster::GpuManagerConfig cfg)
{
  auto r  = std::make_unique<Run>();
  auto wf = test::temp_dir() / "gpu-workload.json";
  write_file_atomically(wf, workload_json);
  r->workload = workload::read_workload(wf);
  sim::SimulationOptions o;
  o.simgrid_args = test::pure_cm02();
  r->sim         = std::make_unique<sim::Simulation>(o);
  r->platform    = r->sim->load_platform(platform);
  r->manager     = std::make_unique<gpu_cluster::GpuManager>(r->workload, *r->platform, cfg);
  r->manager->calibrate();
  r->manager->start();
  r->sim->run();
  EXPECT_EQ(r->manager->error(), "");
  return r;
}

/** Two 16-GPU data-parallel jobs: `iterations` of `compute` s and an all-reduce of `bytes`. */
std::string two_jobs(double bytes, double compute, int iterations)
{
  std::ostringstream s;
  s << R"({"jobs": [{"id": "a", "subtime": 0, "res": 16, "profile": "p"}, {"id": "b", "subtime": 0, "res": 16, "profile": "p"}],
           "profiles": {"p": {"type": "training", "model": "m", "iterations": )"
    << iterations << R"(, "compute_time": )" << compute << R"(, "gradient_bytes": )" << bytes << "}}}";
  return s.str();
}

std::vector<uint32_t> gpus_of_nodes(std::initializer_list<uint32_t> nodes)
{
  std::vector<uint32_t> g;
  for (uint32_t n : nodes)
    for (uint32_t k = 0; k < 8; k++)
      g.push_back(n * 8 + k);
  return g;
}

/** `count` figures that `body` computes in a child process (one Engine each); empty when the
 *  child fails. */
std::vector<double> in_child(size_t count, const std::function<std::vector<double>()>& body)
{
  int fds[2];
  if (::pipe(fds) != 0)
    return {};
  pid_t pid = ::fork();
  if (pid == 0) {
    ::close(fds[0]);
    std::vector<double> out = body();
    out.resize(count, -1);
    ssize_t k = ::write(fds[1], out.data(), out.size() * sizeof(double));
    ::_exit(k == static_cast<ssize_t>(out.size() * sizeof(double)) ? 0 : 1);
  }
  ::close(fds[1]);
  std::vector<double> got(count);
  size_t left = got.size() * sizeof(double);
  char* p     = reinterpret_cast<char*>(got.data());
  ssize_t k   = 0;
  while (left > 0 && (k = ::read(fds[0], p, left)) > 0) {
    p += k;
    left -= static_cast<size_t>(k);
  }
  ::close(fds[0]);
  int status = 0;
  ::waitpid(pid, &status, 0);
  if (left > 0)
    return {};
  return got;
}

double mix_iteration(const gpu_cluster::GpuJobRecord& r)
{
  return (r.end_s - r.start_s) / static_cast<double>(r.iterations);
}

} // namespace

TEST(GpuContention, JobsInTheirOwnLeavesIterateAsAlone)
{
  gpu_cluster::GpuManagerConfig cfg;
  cfg.exact  = true;
  cfg.nccl   = false; // sgai's ring, one chunk: the hand computation's
  cfg.pinned = {{"a", gpus_of_nodes({0, 1})}, {"b", gpus_of_nodes({8, 9})}}; // leaves 0 and 1
  auto r     = run(kUplinkTree, two_jobs(1 << 30, 0.01, 5), cfg);
  for (const auto& j : r->manager->jobs()) {
    ASSERT_TRUE(j.done);
    EXPECT_NEAR(mix_iteration(j), j.alone_iteration_s, 0.01 * j.alone_iteration_s);
    EXPECT_GT(j.alone_iteration_s, 0.01 + 30.0 * (1 << 30) / 16 / 63e9); // bound by PCIe inside a leaf
  }
}

TEST(GpuContention, JobsAcrossTheSameTwoLeavesShareTheUplinks)
{
  const double bytes = 1 << 30, compute = 0.01;
  const uint32_t n = 16;
  gpu_cluster::GpuManagerConfig cfg;
  cfg.exact  = true;
  cfg.nccl   = false; // sgai's ring, one chunk: the hand computation's
  cfg.pinned = {{"a", gpus_of_nodes({0, 8})}, {"b", gpus_of_nodes({1, 9})}}; // each over leaves 0 and 1
  auto r     = run(kUplinkTree, two_jobs(bytes, compute, 5), cfg);
  // SimGrid's routes: each ring crosses between the leaves once each way, over the same two uplinks
  // (leaf 0 up, leaf 1 down), which are the narrowest links of the crossing
  std::vector<sg4::Link*> ra, rb;
  double lat_a = 0, lat_b = 0;
  sg4::Host::by_name("hgx-n0-gpu7")->route_to(sg4::Host::by_name("hgx-n8-gpu0"), ra, &lat_a);
  sg4::Host::by_name("hgx-n1-gpu7")->route_to(sg4::Host::by_name("hgx-n9-gpu0"), rb, &lat_b);
  std::sort(ra.begin(), ra.end());
  std::sort(rb.begin(), rb.end());
  std::vector<sg4::Link*> shared;
  std::set_intersection(ra.begin(), ra.end(), rb.begin(), rb.end(), std::back_inserter(shared));
  ASSERT_EQ(shared.size(), 2U);
  double uplink = shared[0]->get_bandwidth();
  EXPECT_DOUBLE_EQ(uplink, 50e9);
  EXPECT_DOUBLE_EQ(shared[1]->get_bandwidth(), uplink);
  for (auto* l : ra)
    EXPECT_GE(l->get_bandwidth(), uplink);
  EXPECT_DOUBLE_EQ(lat_a, lat_b);
  // each ring step's crossing moves bytes / n at half the uplink after the route's latency; the
  // all-reduce is 2 (n - 1) such steps (the links inside the nodes are faster)
  double expected = compute + 2.0 * (n - 1) * (lat_a + bytes / n / (uplink / 2));
  for (const auto& j : r->manager->jobs()) {
    ASSERT_TRUE(j.done);
    EXPECT_NEAR(mix_iteration(j), expected, 0.01 * expected);
    EXPECT_GT(mix_iteration(j), 1.5 * j.alone_iteration_s); // slower than packed in one leaf
  }
  // link energy: the plugin's total is every link's idle power over the run plus the jobs' shares
  // (power above idle for the bytes each job put on each link)
  double plugin = 0, idle = 0, jobs = 0, end = sg4::Engine::get_clock();
  for (auto* l : sg4::Engine::get_instance()->get_all_links())
    if (const char* range = l->get_property("wattage_range")) {
      plugin += sg_link_get_consumed_energy(l);
      idle += std::stod(range) * end;
    }
  for (const auto& j : r->manager->jobs())
    jobs += j.link_energy_j;
  EXPECT_GT(jobs, 0);
  // (SimGrid's solver shares bandwidth to its maxmin/precision, 1e-5: the plugin's usage too)
  EXPECT_NEAR(idle + jobs, plugin, 2e-5 * plugin);
}

TEST(GpuContention, AdvancingAgreesWithSimulatingEveryIteration)
{
#if defined(__SANITIZE_ADDRESS__)
  // the sanitizer build (Debug, instrumented) checks the same on a smaller mix
  const uint32_t jobs = 8, base_iterations = 100, more_iterations = 200;
#else
  const uint32_t jobs = 20, base_iterations = 500, more_iterations = 1000;
#endif
  // 20 jobs of 1 to 16 GPUs arriving every 10 s on the uplink-bound fat tree, each on GPUs of its
  // own spread over nodes of several leaves, so that rings cross leaves and share uplinks (fixed
  // placements: the comparison is of iteration times, not of schedules that diverge when a job
  // ends a little earlier); each job's end within 1% of the exact run's
  std::mt19937_64 rng(7);
  std::ostringstream s;
  std::map<std::string, std::vector<uint32_t>> pinned;
  std::vector<uint32_t> free_slots(32, 8);
  s << R"({"jobs": [)";
  const uint32_t sizes[] = {1, 2, 4, 8, 16};
  for (uint32_t i = 0; i < jobs; i++) {
    uint32_t size = sizes[rng() % 5];
    auto& gpus    = pinned["j" + std::to_string(i)];
    for (uint32_t k = 0, node = (5 * i) % 32; gpus.size() < size; k++, node = (node + 9) % 32)
      if (free_slots[node] > 0)
        gpus.push_back(node * 8 + (8 - free_slots[node]--));
    s << (i ? "," : "") << R"({"id": "j)" << i << R"(", "subtime": )" << 10 * i << R"(, "res": )" << size
      << R"(, "profile": "p)" << i << R"("})";
  }
  s << R"(], "profiles": {)";
  for (uint32_t i = 0; i < jobs; i++)
    s << (i ? "," : "") << R"("p)" << i << R"(": {"type": "training", "model": "m", "iterations": )"
      << base_iterations + rng() % more_iterations << R"(, "compute_time": )"
      << 0.02 + 0.001 * static_cast<double>(rng() % 50) << R"(, "gradient_bytes": )" << (50 + rng() % 400) * 1e6 << "}";
  s << "}}";
  std::vector<double> end[2];
  uint64_t simulated[2] = {0, 0}, total = 0;
  for (int exact = 0; exact < 2; exact++) {
    gpu_cluster::GpuManagerConfig cfg;
    cfg.exact  = exact == 1;
    cfg.pinned = pinned;
    cfg.nccl   = false;
    // a child process per configuration: one Engine each
    auto got = in_child(jobs + 2, [&]() {
      auto r = run(kUplinkTree, s.str(), cfg);
      std::vector<double> out;
      double sim = 0, all = 0;
      for (const auto& j : r->manager->jobs()) {
        out.push_back(j.end_s);
        sim += static_cast<double>(j.simulated);
        all += static_cast<double>(j.iterations);
      }
      out.push_back(sim);
      out.push_back(all);
      return out;
    });
    ASSERT_EQ(got.size(), jobs + 2);
    total = static_cast<uint64_t>(got.back());
    got.pop_back();
    simulated[exact] = static_cast<uint64_t>(got.back());
    got.pop_back();
    end[exact] = got;
  }
  double worst = 0;
  for (size_t i = 0; i < end[0].size(); i++) {
    EXPECT_NEAR(end[0][i], end[1][i], 0.01 * end[1][i]) << "job " << i;
    worst = std::max(worst, std::fabs(end[0][i] / end[1][i] - 1));
  }
  EXPECT_EQ(simulated[1], total);
  std::cout << "advancing: " << simulated[0] << " of " << total << " iterations simulated; ends within " << worst
            << " of --exact's\n";
  // advancing skips most iterations; each job measures again after each of the 40 arrivals and
  // ends, until its iterations stop drifting
  EXPECT_LT(simulated[0], 0.6 * static_cast<double>(total))
      << simulated[0] << " of " << total << " simulated; ends within " << worst;
}

TEST(GpuEnergy, EachJobsEnergyIsItsKernelsAndTheRestIsIdle)
{
  // a mix with preemptions (2D-LAS, a low threshold) and restarts: each job's GPU energy is, on
  // each of its GPUs, idle power over its tenure plus (busy - idle) over its kernels; the GPUs'
  // energy outside every job is idle power over the time they were nobody's
  std::ostringstream s;
  s << R"({"jobs": [)";
  for (int i = 0; i < 20; i++)
    s << (i ? "," : "") << R"({"id": "j)" << i << R"(", "subtime": )" << 2 * i << R"(, "res": )" << 1 + (i % 4) * 2
      << R"(, "profile": "p)" << i << R"("})";
  s << R"(], "profiles": {)";
  for (int i = 0; i < 20; i++)
    s << (i ? "," : "") << R"("p)" << i << R"(": {"type": "training", "model": "m", "iterations": )" << 100 + 17 * i
      << R"(, "compute_time": )" << 0.05 + 0.01 * (i % 5) << R"(, "gradient_bytes": 2e8})";
  s << "}}";
  gpu_cluster::GpuManagerConfig cfg;
  cfg.scheduler.order               = scheduling::GpuOrder::las;
  cfg.scheduler.las_threshold_gpu_s = 20;
  cfg.restart_s                     = 0.5;
  auto r                            = run("platforms/hgx-h100.json", s.str(), cfg);
  const auto& jobs                  = r->manager->jobs();
  auto* gpu0                        = sg4::Host::by_name("hgx-n0-gpu0");
  unsigned long p                   = gpu0->get_pstate();
  double idle = sg_host_get_wattmin_at(gpu0, p), busy = sg_host_get_wattmax_at(gpu0, p);
  double kernel = 0, held_gpu_s = 0, jobs_j = 0, makespan = 0;
  uint32_t preempt = 0;
  for (size_t i = 0; i < jobs.size(); i++) {
    const auto& j = jobs[i];
    ASSERT_TRUE(j.done);
    double n        = r->workload.jobs[i].resources;
    kernel          = j.compute_s / (gpu0->get_pstate_speed(p) / gpu0->get_pstate_speed(0));
    double expected = n * (idle * j.run_s + (busy - idle) * static_cast<double>(j.iterations) * kernel);
    EXPECT_NEAR(j.gpu_energy_j, expected, 1e-6 * expected) << "job " << i;
    held_gpu_s += n * j.run_s;
    jobs_j += j.gpu_energy_j;
    makespan = std::max(makespan, j.end_s);
    preempt += j.preemptions;
  }
  EXPECT_GT(preempt, 0U);
  double plugin = 0;
  for (const auto& g : r->platform->gpus)
    plugin += sg_host_get_consumed_energy(sg4::Host::by_name(r->platform->hosts[g.host].name));
  double idle_j = idle * (8 * makespan - held_gpu_s);
  EXPECT_NEAR(jobs_j + idle_j, plugin, 1e-6 * plugin);
}

TEST(GpuTiresias, EachJobAloneTakesItsTraceDuration)
{
  SGAI_REQUIRE_SHARED_DATA();
  // every job of the 60-job trace alone (64 GPUs: nothing queues), packed as Tiresias measured it
  auto w = workload::tiresias_to_workload(test::shared_data("ml-clusters/tiresias/simulator/60_job.csv").string());
  std::ostringstream text;
  workload::write_batsim(w, text);
  gpu_cluster::GpuManagerConfig cfg;
  auto r     = run("platforms/tiresias-p100.json", text.str(), cfg);
  double jct = 0;
  for (size_t i = 0; i < w.jobs.size(); i++) {
    const auto& j = r->manager->jobs()[i];
    double d      = std::stod(w.jobs[i].extra_json.substr(w.jobs[i].extra_json.find("\"duration\":") + 11));
    EXPECT_NEAR(j.end_s - j.start_s, d, 0.01 * d) << w.jobs[i].id;
    EXPECT_DOUBLE_EQ(j.start_s, w.jobs[i].submit_s);
    jct += j.end_s - w.jobs[i].submit_s;
  }
  EXPECT_NEAR(jct / 60, 178.4, 0.01 * 178.4);
}

TEST(GpuGavel, OneGpuJobsAloneTakeTheirStepsOverTheirThroughput)
{
  SGAI_REQUIRE_SHARED_DATA();
  // the first 60 one-GPU jobs of the 2,000-job msr trace, all at once on the 64 V100s
  auto thr = workload::read_gavel_throughputs(
      test::shared_data("ml-clusters/gavel/scheduler/simulation_throughputs.json").string());
  auto w = workload::gavel_to_workload(
      test::shared_data("ml-clusters/gavel/scheduler/traces/msr/seed=0/11cb48.trace").string(), thr, {});
  workload::Workload one;
  for (const auto& j : w.jobs)
    if (j.resources == 1 && one.jobs.size() < 60) {
      one.jobs.push_back(j);
      one.jobs.back().submit_s = 0;
      one.jobs.back().profile  = static_cast<uint32_t>(one.profiles.size());
      one.profiles.push_back(w.profile_of(j));
    }
  std::ostringstream text;
  workload::write_batsim(one, text);
  auto r = run("platforms/gavel-v100.json", text.str(), {});
  for (size_t i = 0; i < one.jobs.size(); i++) {
    const auto& p = one.profile_of(one.jobs[i]);
    double alone  = static_cast<double>(p.iterations) / *thr.get("v100", p.model, 1);
    const auto& j = r->manager->jobs()[i];
    EXPECT_NEAR(j.end_s - j.start_s, alone, 0.01 * alone) << one.jobs[i].id;
    EXPECT_DOUBLE_EQ(j.start_s, 0);
  }
}

TEST(GpuPstates, AJobsCapStretchesItsKernelsByTheClockFraction)
{
  // three one-GPU jobs at P-states 0, 1 and 2 of an H100 (700, 500, 300 W), one at the cluster's
  // P-state 1: each iteration x the compute-clock fraction is the compute time (1e-9), and each GPU
  // is back at the cluster's P-state once its job has ended
  std::ostringstream s;
  s << R"({"jobs": [)";
  for (int i = 0; i < 4; i++)
    s << (i ? "," : "") << R"({"id": "j)" << i << R"(", "subtime": 0, "res": 1, "profile": "p)" << i << R"("})";
  s << R"(], "profiles": {)";
  for (int i = 0; i < 4; i++)
    s << (i ? "," : "") << R"("p)" << i
      << R"(": {"type": "training", "model": "m", "iterations": 50, "compute_time": 0.1)"
      << (i < 3 ? R"(, "pstate": )" + std::to_string(i) : std::string()) << "}";
  s << "}}";
  gpu_cluster::GpuManagerConfig cfg;
  cfg.pstate = 1;
  auto r     = run("platforms/hgx-h100.json", s.str(), cfg);
  auto* gpu0 = sg4::Host::by_name("hgx-n0-gpu0");
  for (int i = 0; i < 4; i++) {
    const auto& j = r->manager->jobs()[static_cast<size_t>(i)];
    int p         = i < 3 ? i : 1;
    double f      = gpu0->get_pstate_speed(static_cast<unsigned long>(p)) / gpu0->get_pstate_speed(0);
    EXPECT_NEAR(mix_iteration(j) * f, 0.1, 1e-9) << "P-state " << p;
  }
  EXPECT_LT(r->manager->jobs()[2].gpu_energy_j, r->manager->jobs()[0].gpu_energy_j); // 300 W: less energy
  for (const auto& g : r->platform->gpus)
    EXPECT_EQ(sg4::Host::by_name(r->platform->hosts[g.host].name)->get_pstate(), 1U);
}

TEST(GpuNccl, AJobsAllReduceRunsAsNcclWouldOnItsNode)
{
  // an 8-GPU job on one HGX H100 node, 1 GiB of gradients: NCCL's model picks NVLS with the Simple
  // protocol, and the all-reduce takes what sgai collective bench gives for 1 GiB on that node
  // (3,856.20 us, cli.collective_bench's figures); the job alone iterates at compute plus that
  auto r        = run("platforms/hgx-h100.json",
                      R"({"jobs": [{"id": "a", "subtime": 0, "res": 8, "profile": "p"}],
                   "profiles": {"p": {"type": "training", "model": "m", "iterations": 20, "compute_time": 0.1,
                                      "gradient_bytes": 1073741824}}})",
                      {});
  const auto& j = r->manager->jobs()[0];
  EXPECT_EQ(j.algorithm, "nvls/Simple");
  EXPECT_NEAR(j.alone_iteration_s - j.compute_s, 3856.20e-6, 0.01 * 3856.20e-6);
  EXPECT_NEAR(mix_iteration(j), j.alone_iteration_s, 1e-6 * j.alone_iteration_s);
}

// --- jobs replaying Chakra traces ----------------------------------------------------------------

namespace {

/** `ranks` ETs in temp_dir()/ets/<prefix>.N.et: each iteration computes for `compute` s (a recorded
 *  kernel), then all-reduces `bytes` over every rank: the synthetic profile's iteration as a trace. */
void write_allreduce_traces(const std::string& prefix, uint32_t ranks, double compute, uint64_t bytes)
{
  std::vector<chakra::Trace> traces;
  for (uint32_t r = 0; r < ranks; r++) {
    chakra::TraceBuilder b;
    uint64_t k = b.compute("gemm_forward_backward", 0, 0, {}, static_cast<uint64_t>(std::llround(compute * 1e6)));
    b.collective("gradients", chakra::CollectiveType::all_reduce, bytes, {k});
    traces.push_back(b.take());
  }
  chakra::write_workload(test::temp_dir() / "ets", prefix, traces);
}

} // namespace

TEST(GpuTraceJobs, ATraceOfTheSyntheticIterationRunsAsTheSyntheticJob)
{
  // two 16-GPU jobs across the same two leaves (their rings share the uplinks, as in
  // JobsAcrossTheSameTwoLeavesShareTheUplinks): one replays traces of compute + all-reduce, the
  // other is the synthetic profile of the same; both iterate at the hand computation's time, and
  // alone, moved bytes and link energy agree
  const double bytes = 1 << 30, compute = 0.01;
  const uint32_t n = 16;
  write_allreduce_traces("ar16", n, compute, 1 << 30);
  std::string w = R"({"jobs": [{"id": "trace", "subtime": 0, "res": 16, "profile": "t"},
                               {"id": "synthetic", "subtime": 0, "res": 16, "profile": "s"}],
    "profiles": {"t": {"type": "training", "model": "m", "iterations": 5, "traces": "ets/ar16"},
                 "s": {"type": "training", "model": "m", "iterations": 5, "compute_time": 0.01, "gradient_bytes": 1073741824}}})";
  gpu_cluster::GpuManagerConfig cfg;
  cfg.exact  = true;
  cfg.nccl   = false;
  cfg.pinned = {{"trace", gpus_of_nodes({0, 8})}, {"synthetic", gpus_of_nodes({1, 9})}};
  auto r     = run(kUplinkTree, w, cfg);
  std::vector<sg4::Link*> route;
  double lat = 0;
  sg4::Host::by_name("hgx-n0-gpu7")->route_to(sg4::Host::by_name("hgx-n8-gpu0"), route, &lat);
  double expected = compute + 2.0 * (n - 1) * (lat + bytes / n / (50e9 / 2));
  const auto& t   = r->manager->jobs()[0];
  const auto& s   = r->manager->jobs()[1];
  ASSERT_TRUE(t.done && s.done);
  EXPECT_EQ(t.iterations, 5U);
  EXPECT_EQ(t.simulated, 5U);
  EXPECT_EQ(t.algorithm, "trace");
  EXPECT_NEAR(mix_iteration(t), expected, 0.01 * expected);
  EXPECT_NEAR(mix_iteration(s), expected, 0.01 * expected);
  EXPECT_NEAR(t.alone_iteration_s, s.alone_iteration_s, 0.01 * s.alone_iteration_s);
  EXPECT_NEAR(t.compute_s, compute, 1e-9);
  EXPECT_NEAR(t.bytes_moved, s.bytes_moved, 1e-9 * s.bytes_moved);
  EXPECT_NEAR(t.bytes_moved, 5 * 2.0 * (n - 1) * bytes, 1e-9 * t.bytes_moved);
  EXPECT_GT(t.link_energy_j, 0);
  EXPECT_NEAR(t.link_energy_j, s.link_energy_j, 1e-6 * s.link_energy_j);
}

TEST(GpuTraceJobs, GeneratedIterationsAdvanceAsTheyReplay)
{
  // three jobs replaying a generated GPT iteration (DP 2 x TP 2 x PP 2, 4 microbatches) and a
  // synthetic one on the uplink-bound fat tree, each on 2 GPUs of 4 nodes in 4 leaves, so that
  // their data-parallel and pipeline traffic shares the uplinks: advancing at the measured iteration
  // time ends every job within 1% of replaying every iteration; g0 is slower than alone
#if defined(__SANITIZE_ADDRESS__)
  const int iterations = 12;
#else
  const int iterations = 40;
#endif
  std::ostringstream s;
  s << R"({"jobs": [{"id": "g0", "subtime": 0, "res": 8, "profile": "gpt"},
                    {"id": "g1", "subtime": 0.01, "res": 8, "profile": "gpt"},
                    {"id": "d0", "subtime": 0.02, "res": 8, "profile": "dp"},
                    {"id": "g2", "subtime": 0.05, "res": 8, "profile": "gpt"}],
      "profiles": {"gpt": {"type": "training", "model": "gpt", "iterations": )"
    << iterations << R"(, "parallelism": {"data": 2, "tensor": 2, "pipeline": 2, "microbatches": 4},
                           "transformer": {"layers": 4, "hidden": 2048, "sequence": 1024, "batch": 16}},
                   "dp": {"type": "training", "model": "m", "iterations": )"
    << 5 * iterations << R"(, "compute_time": 0.01, "gradient_bytes": 4e8}}})";
  std::map<std::string, std::vector<uint32_t>> pinned;
  const char* ids[] = {"g0", "g1", "g2", "d0"};
  for (uint32_t k = 0; k < 4; k++)
    for (uint32_t node = k; node < 32; node += 8)
      for (uint32_t g = 0; g < 2; g++)
        pinned[ids[k]].push_back(node * 8 + g);
  std::string alone = s.str(); // g0 alone: the other jobs' lines taken out
  for (const char* id : {R"({"id": "g1")", R"({"id": "d0")", R"({"id": "g2")"}) {
    size_t at = alone.find(id), to = alone.find('}', at);
    alone.erase(alone.rfind(',', at), to + 1 - alone.rfind(',', at));
  }
  std::vector<double> end[3];
  uint64_t simulated[3] = {0, 0, 0};
  for (int c = 0; c < 3; c++) { // advancing, exact, g0 alone (exact)
    gpu_cluster::GpuManagerConfig cfg;
    cfg.exact  = c > 0;
    cfg.pinned = pinned;
    if (c == 2)
      cfg.pinned = {{"g0", pinned["g0"]}};
    auto got = in_child(5, [&]() {
      auto r = run(kUplinkTree, c == 2 ? alone : s.str(), cfg);
      std::vector<double> out(5, -1);
      double sim = 0;
      for (size_t j = 0; j < r->manager->jobs().size(); j++) {
        const auto& x = r->manager->jobs()[j];
        out[j]        = x.done ? x.end_s : -1;
        sim += static_cast<double>(x.simulated);
      }
      out[4] = sim;
      return out;
    });
    ASSERT_EQ(got.size(), 5U);
    simulated[c] = static_cast<uint64_t>(got.back());
    got.pop_back();
    end[c] = got;
  }
  for (size_t i = 0; i < 4; i++) {
    EXPECT_GT(end[1][i], 0) << "job " << i;
    EXPECT_NEAR(end[0][i], end[1][i], 0.01 * end[1][i]) << "job " << i;
  }
  EXPECT_EQ(simulated[1], static_cast<uint64_t>(3 * iterations + 5 * iterations));
  EXPECT_LT(simulated[0], simulated[1]);
  EXPECT_EQ(simulated[2], static_cast<uint64_t>(iterations));
  EXPECT_GT(end[1][0], 1.5 * end[2][0]); // the jobs' traffic slows g0 down
}

TEST(GpuTraceJobs, RanksMustMatchTheJobsGpus)
{
  sim::SimulationOptions o;
  o.simgrid_args = test::pure_cm02();
  sim::Simulation sim(o);
  auto plat = sim.load_platform("platforms/hgx-h100.json");
  write_allreduce_traces("ar4", 4, 0.01, 1 << 20);
  auto wf = test::temp_dir() / "ranks.json";
  write_file_atomically(wf, R"({"jobs": [{"id": "gen", "subtime": 0, "res": 4, "profile": "gpt"},
                                         {"id": "ets", "subtime": 0, "res": 8, "profile": "t"}],
    "profiles": {"gpt": {"type": "training", "model": "gpt", "iterations": 1,
                         "parallelism": {"data": 2, "tensor": 2, "pipeline": 2},
                         "transformer": {"layers": 2, "hidden": 64, "sequence": 64, "batch": 2}},
                 "t": {"type": "training", "model": "m", "iterations": 1, "traces": "ets/ar4"}}})");
  auto w = workload::read_workload(wf);
  for (size_t i = 0; i < 2; i++) {
    workload::Workload one = w;
    one.jobs               = {w.jobs[i]};
    try {
      gpu_cluster::GpuManager m(one, *plat, {});
      FAIL() << "no error for job " << i;
    } catch (const InputError& e) {
      EXPECT_EQ(e.place(), i == 0 ? "job 'gen'" : "job 'ets'");
      EXPECT_EQ(e.message(), i == 0 ? "its profile 'gpt' has 8 ranks (one per GPU) but the job asks for 4 GPUs"
                                    : "its profile 't' has 4 ranks (one per GPU) but the job asks for 8 GPUs");
    }
  }
}

TEST(GpuTraceJobs, ADeadlockedTraceIsAnErrorNamingItsRanks)
{
  // rank 1 never issues the all-reduce rank 0 waits in: the calibration reports the deadlock
  sim::SimulationOptions o;
  o.simgrid_args = test::pure_cm02();
  sim::Simulation sim(o);
  auto plat = sim.load_platform("platforms/hgx-h100.json");
  std::vector<chakra::Trace> traces(2);
  {
    chakra::TraceBuilder b;
    b.collective("lonely", chakra::CollectiveType::all_reduce, 1 << 20);
    traces[0] = b.take();
    chakra::TraceBuilder c;
    c.compute("k", 0, 0, {}, 10);
    traces[1] = c.take();
  }
  chakra::write_workload(test::temp_dir() / "ets", "stuck", traces);
  auto wf = test::temp_dir() / "stuck.json";
  write_file_atomically(wf, R"({"jobs": [{"id": "s", "subtime": 0, "res": 2, "profile": "t"}],
    "profiles": {"t": {"type": "training", "model": "m", "iterations": 3, "traces": "ets/stuck"}}})");
  auto w = workload::read_workload(wf);
  gpu_cluster::GpuManager m(w, *plat, {});
  try {
    m.calibrate();
    FAIL() << "no error";
  } catch (const RunError& e) {
    std::string what = e.what();
    EXPECT_NE(what.find("the replay deadlocked: 1 rank(s) blocked: s:calibration rank 0:"), std::string::npos) << what;
  }
}
