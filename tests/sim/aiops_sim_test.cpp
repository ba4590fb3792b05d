/* The AI-ops simulator (plugins/aiops_sim): the analytic transfer time against SimGrid's own lone
 * communications, the two transfer modes against each other, an arrival peak saturating the
 * training cluster and the store's link, drift-triggered retraining against a fixed schedule, and
 * runs that repeat. Each run is a forked child (one SimGrid Engine per process). */
#include "../unit/test_paths.hpp"
#include "core/aiops/database.hpp"
#include "core/aiops/distributions.hpp"
#include "core/aiops/experiment.hpp"
#include "core/aiops/model.hpp"
#include "core/aiops/observations.hpp"
#include "core/aiops/synth.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/sqlite/sqlite.hpp"
#include "plugins/aiops_sim/simulator.hpp"
#include "plugins/sim/lone_flow.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <map>
#include <random>
#include <sstream>
#include <sys/wait.h>
#include <unistd.h>

namespace fs = std::filesystem;
using namespace sgai;

namespace {

/** A CPU-only platform (SimGrid's default LV08 model, cross traffic on): a store behind a link of
 *  `store_bw`, a compute cluster of 2 nodes, a training cluster of `trainers` nodes. */
fs::path write_platform(const std::string& name, const std::string& store_bw, int trainers)
{
  fs::path file = test::temp_dir() / (name + ".json");
  std::ofstream(file) << R"({
  "sgai_platform": 1, "name": ")"
                      << name << R"(",
  "catalogues": [")" << fs::absolute("platforms/catalogues/accelerators.json").string()
                      << R"("],
  "granularity": "node",
  "types": {
    "node_types": {"server": {"processors": [{"type": "EPYC 7763", "number": 1}],
                              "memory": {"type": "DDR4-3200", "capacity": 256}}},
    "network_types": {"store link": {"bandwidth": ")"
                      << store_bw << R"(", "latency": "50us"}}
  },
  "clusters": [
    {"id": "store", "nodes": [{"type": "server", "number": 1}], "topology": {"kind": "flat", "link": {"type": "store link"}}},
    {"id": "compute", "nodes": [{"type": "server", "number": 2}], "topology": {"kind": "flat", "link": {"type": "Ethernet 100G"}}},
    {"id": "training", "nodes": [{"type": "server", "number": )"
                      << trainers << R"(}], "topology": {"kind": "flat", "link": {"type": "Ethernet 100G"}}}
  ],
  "global_links": {"type": "Ethernet 100G", "latency": "1us"}
})";
  return file;
}

const char* kPipelines = R"(
  "pipelines": [
    {"name": "adhoc", "share": 1, "tasks": [
      {"name": "prep", "kind": "preprocess"},
      {"name": "train", "kind": "train", "after": ["prep"]},
      {"name": "eval", "kind": "evaluate", "after": ["train"]},
      {"name": "compress", "kind": "compress", "after": ["eval"], "probability": 0.3},
      {"name": "deploy", "kind": "deploy", "after": ["compress"]}]}])";

/** Runs an experiment (JSON text) in a forked child into `out`; true when it succeeded. */
bool run_forked(const std::string& text, const fs::path& out, std::string* error = nullptr)
{
  fs::create_directories(out);
  fs::path err = out.string() + ".err";
  pid_t pid    = fork();
  if (pid == 0) {
    try {
      auto spec = aiops::parse_experiment(text, fs::current_path() / "experiment.json");
      aiops_sim::RunOptions o;
      o.output_dir = out;
      aiops_sim::run_experiment(spec, o);
      std::_Exit(0);
    } catch (const std::exception& e) {
      std::ofstream(err) << e.what();
      std::_Exit(1);
    }
  }
  int status = 0;
  waitpid(pid, &status, 0);
  if (error != nullptr && fs::exists(err))
    *error = read_text_file(err);
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::map<std::string, double> summary(const fs::path& dir)
{
  std::map<std::string, double> out;
  std::ifstream in(dir / "summary.csv");
  std::string line;
  std::getline(in, line);
  while (std::getline(in, line)) {
    auto comma                 = line.find(',');
    out[line.substr(0, comma)] = std::stod(line.substr(comma + 1));
  }
  return out;
}

struct TaskTimes {
  double ready, start, end, compute, bytes;
  int kind;
};

/** Every task of a run's database by (pipeline, task). */
std::map<std::pair<int64_t, int64_t>, TaskTimes> tasks(const fs::path& dir)
{
  sqlite::Database db(dir / "aiops.sqlite", sqlite::Database::Mode::read);
  auto s =
      db.prepare("SELECT pipeline, task, ready, start, end, compute_s, bytes_read + bytes_written, kind FROM tasks");
  std::map<std::pair<int64_t, int64_t>, TaskTimes> out;
  while (s.step())
    out[{s.integer(0), s.integer(1)}] = {s.real(2), s.real(3), s.real(4), s.real(5), s.real(6), int(s.integer(7))};
  return out;
}

int kind_id(const fs::path& dir, const std::string& name)
{
  sqlite::Database db(dir / "aiops.sqlite", sqlite::Database::Mode::read);
  auto s = db.prepare("SELECT id FROM kinds WHERE name = ?");
  s.bind(1, name);
  return s.step() ? int(s.integer(0)) : -1;
}

std::string experiment(const fs::path& platform, const std::string& extra, const std::string& pools,
                       const std::string& pipelines = kPipelines)
{
  return R"({"sgai_aiops_experiment": 1, "platform": ")" + platform.string() +
         R"(", "store": "store-n0", "model": "deploy/aiops/default-model.json", )" + extra + R"(, "pools": )" + pools +
         "," + pipelines + "}";
}

const char* kPools = R"([
    {"name": "compute", "hosts": ["compute"], "slots_per_host": 8,
     "kinds": ["preprocess", "evaluate", "compress", "validate", "deploy"]},
    {"name": "training", "hosts": ["training"], "kinds": ["train"]}])";

} // namespace

TEST(AiopsTransfer, TheIsolatedTimeIsWhatALoneCommunicationTakes)
{
  // one SHARED link (cross traffic loads it both ways), a split-duplex pair and a fat pipe, under
  // SimGrid's default LV08 model with its latency and bandwidth factors and TCP-gamma
  fs::path xml = test::temp_dir() / "links.xml";
  std::ofstream(xml) << R"(<?xml version='1.0'?>
<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">
<platform version="4.1">
  <zone id="z" routing="Full">
    <host id="store" speed="1Gf"/>
    <host id="a" speed="1Gf"/>
    <host id="b" speed="1Gf"/>
    <host id="c" speed="1Gf"/>
    <link id="shared" bandwidth="1.25GBps" latency="20us"/>
    <link id="duplex" bandwidth="10GBps" latency="3us" sharing_policy="SPLITDUPLEX"/>
    <link id="fat" bandwidth="800MBps" latency="7us" sharing_policy="FATPIPE"/>
    <link id="far" bandwidth="1GBps" latency="40ms"/>
    <route src="store" dst="a"><link_ctn id="shared"/><link_ctn id="duplex" direction="UP"/></route>
    <route src="store" dst="b"><link_ctn id="fat"/><link_ctn id="duplex" direction="DOWN"/></route>
    <route src="store" dst="c"><link_ctn id="far"/></route>
  </zone>
</platform>
)";
  sim::Simulation simulation;
  simulation.load_platform(xml);
  auto* store = simgrid::s4u::Host::by_name("store");
  std::vector<std::tuple<simgrid::s4u::Host*, simgrid::s4u::Host*, double>> cases;
  for (const char* h : {"a", "b", "c"})
    for (double bytes : {1.0, 1e3, 65536.0, 1e6, 3.3e8}) {
      cases.emplace_back(store, simgrid::s4u::Host::by_name(h), bytes);
      cases.emplace_back(simgrid::s4u::Host::by_name(h), store, bytes);
    }
  std::vector<double> measured;
  simgrid::s4u::Actor::create("probe", store, [&]() {
    for (const auto& [src, dst, bytes] : cases) {
      double t0 = simgrid::s4u::Engine::get_clock();
      simgrid::s4u::Comm::sendto(src, dst, uint64_t(bytes));
      measured.push_back(simgrid::s4u::Engine::get_clock() - t0);
    }
  });
  simulation.run();
  ASSERT_EQ(measured.size(), cases.size());
  for (size_t i = 0; i < cases.size(); ++i) {
    const auto& [src, dst, bytes] = cases[i];
    double predicted              = sim::isolated_transfer_time(src, dst, bytes);
    EXPECT_NEAR(predicted, measured[i], 1e-9 * measured[i])
        << src->get_name() << " -> " << dst->get_name() << ", " << bytes << " bytes";
  }
}

TEST(AiopsSim, AnalyticAndContendedAgreeWhenNoTransfersOverlap)
{
  // one slot runs every task, so no two transfers ever overlap; the store has no disk
  fs::path platform = write_platform("serial", "10Gbps", 1);
  std::string pools = R"([{"name": "all", "hosts": ["training-n0"],
      "kinds": ["preprocess", "train", "evaluate", "compress", "deploy"]}])";
  std::string extra = R"("duration": "2d", "interarrival_factor": 30, "seed": 5)";
  fs::path a = test::temp_dir() / "serial-analytic", c = test::temp_dir() / "serial-contended";
  std::string error;
  ASSERT_TRUE(run_forked(experiment(platform, extra + R"(, "transfers": "analytic")", pools), a, &error)) << error;
  ASSERT_TRUE(run_forked(experiment(platform, extra + R"(, "transfers": "contended")", pools), c, &error)) << error;
  auto ta = tasks(a), tc = tasks(c);
  ASSERT_GT(ta.size(), 300u);
  ASSERT_EQ(ta.size(), tc.size());
  double moved = 0;
  for (const auto& [key, x] : ta) {
    const TaskTimes& y = tc.at(key);
    EXPECT_NEAR(x.start, y.start, 1e-9 * std::max(1.0, x.start));
    EXPECT_NEAR(x.end, y.end, 1e-9 * std::max(1.0, x.end));
    moved += x.bytes;
  }
  EXPECT_GT(moved, 1e9); // the transfers were there
}

TEST(AiopsSim, AnArrivalPeakSaturatesTheTrainingClusterAndDelaysDownstreamTasks)
{
  // 4 training slots against about 3.4 busy on average (default model: 150 s of training per
  // pipeline, one every 44 s): the 16:00 peak (1.5x) saturates them, the 04:00 trough (0.5x) does not
  fs::path platform = write_platform("peak", "100Gbps", 4);
  fs::path out      = test::temp_dir() / "peak";
  std::string error;
  ASSERT_TRUE(run_forked(experiment(platform, R"("duration": "14d", "seed": 3)", kPools), out, &error)) << error;
  auto all       = tasks(out);
  int train      = kind_id(out, "train");
  int deploy     = kind_id(out, "deploy");
  double wait[2] = {0, 0}, delay[2] = {0, 0};
  int n[2] = {0, 0}, m[2] = {0, 0};
  for (const auto& [key, t] : all) {
    int hour = int(std::fmod(t.ready, 86400) / 3600);
    int when = hour >= 15 && hour < 19 ? 0 : hour >= 3 && hour < 7 ? 1 : -1;
    if (when < 0)
      continue;
    if (t.kind == train) {
      wait[when] += t.start - t.ready;
      ++n[when];
    }
  }
  // a pipeline's deploy task against its arrival: how long the pipeline took to reach production
  sqlite::Database db(out / "aiops.sqlite", sqlite::Database::Mode::read);
  auto s = db.prepare("SELECT p.arrival, t.start FROM tasks t JOIN pipelines p ON p.id = t.pipeline WHERE t.kind = ?");
  s.bind(1, int64_t(deploy));
  while (s.step()) {
    int hour = int(std::fmod(s.real(0), 86400) / 3600);
    int when = hour >= 15 && hour < 19 ? 0 : hour >= 3 && hour < 7 ? 1 : -1;
    if (when >= 0) {
      delay[when] += s.real(1) - s.real(0);
      ++m[when];
    }
  }
  ASSERT_GT(n[0], 500);
  ASSERT_GT(n[1], 100);
  double peak_wait = wait[0] / n[0], trough_wait = wait[1] / n[1];
  double peak_delay = delay[0] / m[0], trough_delay = delay[1] / m[1];
  std::cout << "train queue wait: 15-19 h " << peak_wait << " s, 03-07 h " << trough_wait << " s; deploy reached "
            << peak_delay << " s vs " << trough_delay << " s after arrival\n";
  EXPECT_GT(peak_wait, 5 * trough_wait + 60);
  EXPECT_GT(peak_delay, trough_delay + 0.8 * (peak_wait - trough_wait));
  // the training pool is busy nearly all the peak hours
  std::ostringstream u;
  aiops::run_query(out / "aiops.sqlite", "utilisation", 1, u);
  std::istringstream in(u.str());
  std::string line;
  double busy = 0;
  int hours   = 0;
  std::getline(in, line);
  while (std::getline(in, line))
    if (line.rfind("training,", 0) == 0) {
      int64_t h = std::stoll(line.substr(9, line.find(',', 9) - 9));
      if (h % 24 >= 16 && h % 24 < 19) {
        busy += std::stod(line.substr(line.rfind(',') + 1));
        ++hours;
      }
    }
  ASSERT_GT(hours, 0);
  EXPECT_GT(busy / hours, 0.9);
}

TEST(AiopsSim, ContendedReadsSlowDownWhenAPeakSaturatesTheStoreLink)
{
  // a 300 Mb/s store link against about 14 MB/s of store traffic on average: the peak crowds it
  fs::path platform = write_platform("storelink", "300Mbps", 8);
  fs::path a = test::temp_dir() / "store-analytic", c = test::temp_dir() / "store-contended";
  std::string error;
  std::string extra = R"("duration": "7d", "seed": 11)";
  ASSERT_TRUE(run_forked(experiment(platform, extra + R"(, "transfers": "analytic")", kPools), a, &error)) << error;
  ASSERT_TRUE(run_forked(experiment(platform, extra + R"(, "transfers": "contended")", kPools), c, &error)) << error;
  auto ta = tasks(a), tc = tasks(c);
  // a task's transfer time: what it spent outside its execution
  double ratio[2] = {0, 0};
  int n[2]        = {0, 0};
  for (const auto& [key, x] : ta) {
    auto it = tc.find(key);
    if (it == tc.end() || x.bytes < 1e8)
      continue;
    const TaskTimes& y = it->second;
    double analytic = x.end - x.start - x.compute, contended = y.end - y.start - y.compute;
    EXPECT_GT(contended, analytic * (1 - 1e-9)); // sharing never speeds a transfer up
    int hour = int(std::fmod(y.start, 86400) / 3600);
    int when = hour >= 14 && hour < 19 ? 0 : hour >= 2 && hour < 7 ? 1 : -1;
    if (when >= 0) {
      ratio[when] += contended / analytic;
      ++n[when];
    }
  }
  ASSERT_GT(n[0], 50);
  ASSERT_GT(n[1], 10);
  double peak = ratio[0] / n[0], trough = ratio[1] / n[1];
  std::cout << "large transfers, contended / analytic time: 14-19 h " << peak << ", 02-07 h " << trough << "\n";
  EXPECT_GT(peak, 1.3);
  EXPECT_GT(peak, trough + 0.2);
}

TEST(AiopsSim, DriftTriggeredRetrainingKeepsModelsFresherThanAFourWeekSchedule)
{
  fs::path platform     = write_platform("drift", "100Gbps", 4);
  std::string pipelines = R"(
  "pipelines": [
    {"name": "adhoc", "share": 1, "tasks": [
      {"name": "prep", "kind": "preprocess"}, {"name": "train", "kind": "train", "after": ["prep"]}]},
    {"name": "retrain", "share": 0, "tasks": [
      {"name": "prep", "kind": "preprocess"},
      {"name": "train", "kind": "train", "after": ["prep"]},
      {"name": "eval", "kind": "evaluate", "after": ["train"], "gate": 0.75},
      {"name": "deploy", "kind": "deploy", "after": ["eval"]}]}],
  "deployed": {"models": 60, "pipeline": "retrain", "initial_age": "4w", "drift": {
    "gradual": {"share": 0.6, "per_day": 0.01},
    "sudden": {"share": 0.3, "mean_onset": "14d", "magnitude": 0.3},
    "recurring": {"share": 0.1, "period": "7d", "amplitude": 0.2}}})";
  std::string extra     = R"("duration": "12w", "seed": 2, "interarrival_factor": 4)";
  fs::path s = test::temp_dir() / "schedule", t = test::temp_dir() / "threshold";
  std::string error;
  ASSERT_TRUE(run_forked(
      experiment(platform, extra + R"(, "triggers": [{"kind": "schedule", "value": "4w"}])", kPools, pipelines), s,
      &error))
      << error;
  ASSERT_TRUE(run_forked(
      experiment(platform, extra + R"(, "triggers": [{"kind": "threshold", "value": 0.1}])", kPools, pipelines), t,
      &error))
      << error;
  auto fs_ = summary(s), ft = summary(t);
  std::cout << "mean staleness: 4-week schedule " << fs_["mean_staleness"] << " (" << fs_["retrainings"]
            << " retrainings, " << fs_["retraining_compute_s"] << " compute s), threshold 0.1 " << ft["mean_staleness"]
            << " (" << ft["retrainings"] << " retrainings, " << ft["retraining_compute_s"] << " compute s)\n";
  EXPECT_LT(ft["mean_staleness"], 0.75 * fs_["mean_staleness"]);
  EXPECT_GT(fs_["retrainings"], 60 * 2); // about 3 per model in 12 weeks
  EXPECT_GT(ft["retrainings"], 0);
  // the threshold run never lets a model stay far above it: retraining takes minutes, not days
  sqlite::Database db(t / "aiops.sqlite", sqlite::Database::Mode::read);
  auto q = db.prepare("SELECT MAX(staleness) FROM samples WHERE event = 'triggered' AND time > 86400");
  ASSERT_TRUE(q.step());
  EXPECT_LT(q.real(0), 0.1 + 0.3 + 1e-9); // a sudden drift jumps past it by its magnitude at most
}

TEST(AiopsSim, TheSameSeedGivesTheSameOutputs)
{
  fs::path platform = write_platform("repeat", "1Gbps", 2);
  std::string text  = experiment(platform, R"("duration": "7d", "seed": 9, "transfers": "contended")", kPools);
  fs::path one = test::temp_dir() / "one", two = test::temp_dir() / "two", other = test::temp_dir() / "other";
  ASSERT_TRUE(run_forked(text, one));
  ASSERT_TRUE(run_forked(text, two));
  std::string changed = text;
  changed.replace(changed.find("\"seed\": 9"), 9, "\"seed\": 8");
  ASSERT_TRUE(run_forked(changed, other));
  for (const char* f : {"summary.csv", "resources.csv"})
    EXPECT_EQ(read_text_file(one / f), read_text_file(two / f)) << f;
  auto dump = [](const fs::path& dir) {
    std::ostringstream o;
    aiops::run_query(dir / "aiops.sqlite", "utilisation", 0, o);
    aiops::run_query(dir / "aiops.sqlite", "arrivals", 0, o);
    aiops::run_query(dir / "aiops.sqlite", "waits", 0, o);
    aiops::run_query(dir / "aiops.sqlite", "store", 3, o);
    aiops::run_query(dir / "aiops.sqlite", "pipeline", 1234, o);
    return o.str();
  };
  std::string d1 = dump(one);
  EXPECT_GT(d1.size(), 5000u);
  EXPECT_EQ(d1, dump(two));
  EXPECT_NE(d1, dump(other));
  EXPECT_NE(read_text_file(one / "summary.csv"), read_text_file(other / "summary.csv"));
}

TEST(AiopsSim, BadInputIsOneErrorAndNoOutput)
{
  fs::path platform = write_platform("bad", "1Gbps", 1);
  std::string error;
  fs::path out = test::temp_dir() / "bad-host";
  std::string pools =
      R"([{"name": "all", "hosts": ["gpu-farm"], "kinds": ["preprocess", "train", "evaluate", "compress", "deploy"]}])";
  EXPECT_FALSE(run_forked(experiment(platform, R"("duration": "1d")", pools), out, &error));
  EXPECT_NE(error.find("no host or cluster 'gpu-farm'"), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(out / "aiops.sqlite"));
  EXPECT_FALSE(fs::exists(out / "aiops.sqlite.partial"));
  // a task kind the model files give no times for
  std::string text = experiment(platform, R"("duration": "1d")", kPools);
  text.replace(text.find(R"("kinds": ["preprocess", "evaluate")"), 34,
               R"("kinds": ["preprocess", "audit", "evaluate")");
  text.replace(text.find(R"({"name": "eval", "kind": "evaluate")"), 35, R"({"name": "eval", "kind": "audit")");
  out = test::temp_dir() / "bad-kind";
  EXPECT_FALSE(run_forked(text, out, &error));
  EXPECT_NE(error.find("no times for task kind 'audit'"), std::string::npos) << error;
  // a model file without the sections a run needs
  std::string partial = experiment(platform, R"("duration": "1d")", kPools);
  partial.replace(partial.find("deploy/aiops/default-model.json"), 31, "deploy/aiops/openb-arrivals.json");
  out = test::temp_dir() / "bad-model";
  EXPECT_FALSE(run_forked(partial, out, &error));
  EXPECT_NE(error.find("\"assets\""), std::string::npos) << error;
  EXPECT_FALSE(fs::exists(out / "aiops.sqlite"));
}

// ------------------------------------------------------------------------------------ validation
// PipeSim's Figure 12 for sgai: what the simulator produces against the model it was given (the
// default model) and against the data a model was fitted to (the openb arrival profile, the Philly
// training-time mixture). Figures in docs/validation.md.

namespace {

std::vector<double> column_of(const fs::path& db, const std::string& sql)
{
  sqlite::Database d(db, sqlite::Database::Mode::read);
  auto s = d.prepare(sql);
  std::vector<double> out;
  while (s.step())
    out.push_back(s.real(0));
  return out;
}

std::vector<double> gaps_of_arrivals(const fs::path& db)
{
  auto t = column_of(db, "SELECT arrival FROM pipelines WHERE origin = 0 ORDER BY arrival");
  std::vector<double> g;
  for (size_t i = 1; i < t.size(); ++i)
    g.push_back(t[i] - t[i - 1]);
  return g;
}

/** KS distance between two distributions over the 168 hours of the week (counts per hour). */
double hour_of_week_ks(const std::vector<double>& a, const std::vector<double>& b)
{
  double ta = 0, tb = 0, ca = 0, cb = 0, d = 0;
  for (size_t h = 0; h < a.size(); ++h) {
    ta += a[h];
    tb += b[h];
  }
  for (size_t h = 0; h < a.size(); ++h) {
    ca += a[h] / ta;
    cb += b[h] / tb;
    d = std::max(d, std::fabs(ca - cb));
  }
  return d;
}

std::vector<double> arrivals_per_hour_of_week(const std::vector<double>& times, int origin_hour)
{
  std::vector<double> n(168, 0);
  for (double t : times)
    n[size_t((int64_t(std::floor(t / 3600)) + origin_hour) % 168)] += 1;
  return n;
}

/** A validation run: 16 training slots (no queueing to shift arrivals), the default model, then
 *  `fit` (a model file of deploy/aiops, or nothing). Empty when the run failed. */
fs::path validation_run(const std::string& name, const std::string& days, int seed, const std::string& fit = "")
{
  fs::path platform = write_platform(name, "100Gbps", 16);
  fs::path out      = test::temp_dir() / name;
  std::string text  = experiment(platform, R"("duration": ")" + days + R"(", "seed": )" + std::to_string(seed), kPools);
  if (not fit.empty())
    text.replace(text.find(R"("deploy/aiops/default-model.json")"), 33,
                 R"(["deploy/aiops/default-model.json", "deploy/aiops/)" + fit + R"("])");
  std::string error;
  if (not run_forked(text, out, &error)) {
    ADD_FAILURE() << error;
    return {};
  }
  return out;
}

} // namespace

TEST(AiopsValidation, TheSimulatorDrawsWhatTheDefaultModelSays)
{
  fs::path out = validation_run("valid", "28d", 4);
  ASSERT_FALSE(out.empty());
  fs::path db    = out / "aiops.sqlite";
  aiops::Model m = aiops::read_model("deploy/aiops/default-model.json");
  // training times against 200,000 draws of the model (framework by share, then its mixture)
  aiops::Synthesizer synth(m);
  std::mt19937_64 rng(99);
  std::vector<double> drawn;
  for (int i = 0; i < 200000; ++i)
    drawn.push_back(synth.train_seconds(synth.framework(rng), rng));
  auto train      = column_of(db, "SELECT compute_s FROM tasks t JOIN kinds k ON k.id = t.kind WHERE k.name = 'train'");
  double ks_train = aiops::ks_distance(train, drawn);
  // interarrival gaps, each through the CDF of its hour of the week
  auto times = column_of(db, "SELECT arrival FROM pipelines WHERE origin = 0 ORDER BY arrival");
  std::vector<double> u;
  for (size_t i = 1; i < times.size(); ++i)
    u.push_back(m.arrivals->cdf(times[i - 1], times[i] - times[i - 1]));
  double ks_gaps = aiops::ks_distance(u, [](double x) { return std::clamp(x, 0.0, 1.0); });
  // arrivals per hour of the week against the profile's rate (1 / mean gap)
  std::vector<double> expected(168);
  for (int h = 0; h < 168; ++h)
    expected[size_t(h)] = 1 / m.arrivals->hours[size_t(h)].mean();
  double ks_hours = hour_of_week_ks(arrivals_per_hour_of_week(times, m.arrivals->origin_hour), expected);
  std::cout << "default model, 28 days: " << train.size() << " training times, KS " << ks_train << "; " << u.size()
            << " gaps through their hour's CDF, KS to uniform " << ks_gaps << "; arrivals per hour of week, KS "
            << ks_hours << "\n";
  ASSERT_GT(train.size(), 40000u);
  EXPECT_LT(ks_train, 0.015);
  EXPECT_LT(ks_gaps, 0.015);
  EXPECT_LT(ks_hours, 0.02);
}

TEST(AiopsValidation, TheOpenbProfileReproducesTheTracesArrivals)
{
  SGAI_REQUIRE_SHARED_DATA();
  // the profile was fitted to the pods created on days 115 to 143; four simulated weeks against them
  fs::path out = validation_run("openb", "28d", 6, "openb-arrivals.json");
  ASSERT_FALSE(out.empty());
  std::vector<double> created;
  for (double t : aiops::read_number_column(
           test::shared_data("ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv"),
           "creation_time"))
    if (std::floor(t) >= 9936000 && std::floor(t) < 12355200)
      created.push_back(std::floor(t));
  std::sort(created.begin(), created.end());
  created.erase(std::unique(created.begin(), created.end()), created.end());
  std::vector<double> observed;
  for (size_t i = 1; i < created.size(); ++i)
    observed.push_back(created[i] - created[i - 1]);
  auto simulated  = gaps_of_arrivals(out / "aiops.sqlite");
  double ks_gaps  = aiops::ks_distance(simulated, observed);
  auto times      = column_of(out / "aiops.sqlite", "SELECT arrival FROM pipelines WHERE origin = 0");
  double ks_hours = hour_of_week_ks(arrivals_per_hour_of_week(times, 0), arrivals_per_hour_of_week(created, 0));
  std::cout << "openb profile, 28 days: " << simulated.size() << " simulated gaps against " << observed.size()
            << " observed, KS " << ks_gaps << "; arrivals per hour of week, KS " << ks_hours << "\n";
  ASSERT_GT(observed.size(), 5800u);
  EXPECT_LT(ks_gaps, 0.05);
  EXPECT_LT(ks_hours, 0.05);
}

TEST(AiopsValidation, ThePhillyFitReproducesPhillysRuntimes)
{
  SGAI_REQUIRE_SHARED_DATA();
  fs::path out = validation_run("philly", "14d", 8, "philly-training.json");
  ASSERT_FALSE(out.empty());
  std::vector<double> runtimes;
  for (double v : aiops::read_number_column(
           test::shared_data("ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2020/analysis/philly_runtime.csv"),
           "runtime"))
    if (v > 0)
      runtimes.push_back(v);
  auto train = column_of(out / "aiops.sqlite",
                         "SELECT compute_s FROM tasks t JOIN kinds k ON k.id = t.kind WHERE k.name = 'train'");
  double ks  = aiops::ks_distance(train, runtimes);
  std::cout << "Philly fit, 14 days: " << train.size() << " simulated training times against " << runtimes.size()
            << " runtimes, KS " << ks << "\n";
  ASSERT_EQ(runtimes.size(), 83152u);
  EXPECT_LT(ks, 0.02);
}
