/* AI-ops foundations: the distributions and their maximum-likelihood fits, the hour-of-week arrival
 * profile (with the held-back public trace of Alibaba's openb pods), the model file, observations in
 * CSV, and the SQLite wrapper on a real database file. */
#include "core/aiops/arrivals.hpp"
#include "core/aiops/database.hpp"
#include "core/aiops/distributions.hpp"
#include "core/aiops/drift.hpp"
#include "core/aiops/experiment.hpp"
#include "core/aiops/mixture.hpp"
#include "core/aiops/model.hpp"
#include "core/aiops/observations.hpp"
#include "core/aiops/synth.hpp"
#include "core/foundation/error.hpp"
#include "core/sqlite/sqlite.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <unistd.h>

using namespace sgai::aiops;
namespace fs = std::filesystem;

namespace {

fs::path scratch(const std::string& name)
{
  fs::path d = fs::temp_directory_path() / ("sgai-aiops-test-" + std::to_string(::getpid()));
  fs::create_directories(d);
  return d / name;
}

std::vector<double> draw(const Distribution& d, size_t n, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<double> x(n);
  for (double& v : x)
    v = d.sample(rng);
  return x;
}

TEST(AiopsDistributions, MaximumLikelihoodRecoversEachFamily)
{
  const std::vector<Distribution> truth = {
      {Family::exponential, {0.02, 0, 0}},
      {Family::lognormal, {3.0, 1.2, 0}},
      {Family::pareto, {2.5, 40.0, 0}},
      {Family::expweibull, {2.0, 0.7, 30.0}},
  };
  for (const Distribution& d : truth) {
    auto x         = draw(d, 20'000, 7);
    Distribution f = fit(d.family, x);
    for (int i = 0; i < parameters(d.family); ++i)
      EXPECT_NEAR(f.p[size_t(i)], d.p[size_t(i)], 0.08 * std::fabs(d.p[size_t(i)])) << to_string(d.family) << " " << i;
    // the fit is as close to the sample as the truth is
    double ks_fit   = ks_distance(x, [&f](double v) { return f.cdf(v); });
    double ks_truth = ks_distance(x, [&d](double v) { return d.cdf(v); });
    EXPECT_LE(ks_fit, ks_truth + 0.005) << to_string(d.family);
    EXPECT_LT(ks_fit, 0.015) << to_string(d.family);
    // quantile inverts the CDF
    for (double u : {0.01, 0.3, 0.5, 0.9, 0.999})
      EXPECT_NEAR(f.cdf(f.quantile(u)), u, 1e-9) << to_string(d.family);
  }
  // the mean by integration agrees with the sample's
  Distribution ew{Family::expweibull, {2.0, 0.7, 30.0}};
  auto x   = draw(ew, 200'000, 11);
  double m = 0;
  for (double v : x)
    m += v;
  EXPECT_NEAR(ew.mean(), m / double(x.size()), 0.01 * ew.mean());
  EXPECT_THROW(fit(Family::lognormal, {1.0, 0.0, 2.0}), std::invalid_argument);
}

TEST(AiopsDistributions, TheBestFitBySseFindsTheFamilyOfTheData)
{
  for (const Distribution& d :
       {Distribution{Family::lognormal, {2.0, 0.5, 0}}, Distribution{Family::expweibull, {4.0, 0.5, 10.0}},
        Distribution{Family::pareto, {1.5, 5.0, 0}}}) {
    auto x         = draw(d, 2'000, 3);
    Distribution b = fit_best({Family::lognormal, Family::expweibull, Family::pareto}, x);
    EXPECT_LT(ks_distance(x, [&b](double v) { return b.cdf(v); }), 0.03) << to_string(d.family);
    EXPECT_LE(sse(b, x), sse(fit(d.family, x), x) + 1e-12) << to_string(d.family);
  }
  // Rosenbrock: Nelder-Mead finds (1, 1)
  auto r = nelder_mead(
      [](const std::vector<double>& v) { return 100 * std::pow(v[1] - v[0] * v[0], 2) + std::pow(1 - v[0], 2); },
      {-1.2, 1.0}, {0.5, 0.5}, 5000, 1e-14);
  EXPECT_NEAR(r[0], 1, 1e-3);
  EXPECT_NEAR(r[1], 1, 1e-3);
}

TEST(AiopsMixture, FittingSelfCheckOnAKnownThreeComponentMixture)
{
  // assets in log space (rows, columns, bytes), three kinds of data set, correlated
  Mixture known;
  known.components = {
      {0.5, {std::log(2e3), std::log(12), std::log(2e5)}, {{0.8, 0.1, 0.7}, {0.1, 0.3, 0.3}, {0.7, 0.3, 1.1}}},
      {0.3, {std::log(5e5), std::log(40), std::log(1e8)}, {{1.0, -0.2, 0.8}, {-0.2, 0.5, 0.2}, {0.8, 0.2, 1.2}}},
      {0.2, {std::log(5e7), std::log(300), std::log(4e10)}, {{0.5, 0.0, 0.4}, {0.0, 0.2, 0.1}, {0.4, 0.1, 0.6}}},
  };
  ASSERT_TRUE(known.valid());
  std::mt19937_64 rng(42);
  std::vector<std::vector<double>> x(10'000);
  for (auto& p : x)
    p = known.sample(rng);
  MixtureFitOptions o;
  o.max_components = 5;
  o.restarts       = 2;
  Mixture fitted   = fit_mixture_bic(x, o);
  EXPECT_TRUE(fitted.valid());
  EXPECT_EQ(fitted.components.size(), 3u); // BIC finds the three
  std::mt19937_64 again(43);
  std::vector<std::vector<double>> s(100'000);
  for (auto& p : s)
    p = fitted.sample(again);
  for (size_t dim = 0; dim < 3; ++dim) {
    std::vector<double> v;
    for (const auto& p : s)
      v.push_back(p[dim]);
    double ks = ks_distance(v, [&known, dim](double q) { return known.marginal_cdf(dim, q); });
    EXPECT_LE(ks, 0.02) << "marginal " << dim;
  }
  // training time: log seconds, one dimension
  Mixture train;
  train.components = {
      {0.6, {std::log(10)}, {{0.5}}}, {0.3, {std::log(180)}, {{0.8}}}, {0.1, {std::log(3600)}, {{0.3}}}};
  std::vector<std::vector<double>> t(10'000);
  for (auto& p : t)
    p = train.sample(rng);
  Mixture tf = fit_mixture_bic(t, o);
  std::vector<double> v;
  for (int i = 0; i < 100'000; ++i)
    v.push_back(tf.sample(again)[0]);
  EXPECT_LE(ks_distance(v, [&train](double q) { return train.marginal_cdf(0, q); }), 0.02);
  EXPECT_THROW(fit_mixture({{1.0, 2.0}, {1.0}}, 1), std::invalid_argument);
}

TEST(AiopsArrivals, TheProfileFollowsTheHourOfTheWeek)
{
  // busy hours (9 to 17 every day) with 60 s gaps, quiet ones with 600 s gaps, over 4 weeks
  std::mt19937_64 rng(5);
  std::vector<double> times;
  double t = 0;
  while (t < 4 * 7 * 86400.0) {
    times.push_back(t);
    int hour    = int(std::fmod(t / 3600, 24));
    double mean = hour >= 9 && hour < 17 ? 60 : 600;
    t += std::max(1.0, std::exponential_distribution<double>(1 / mean)(rng));
  }
  ArrivalProfile p = fit_arrivals(gaps_of(times));
  EXPECT_NEAR(p.mean(12 * 3600), 60, 10);
  EXPECT_NEAR(p.mean(3 * 3600), 600, 150);
  EXPECT_NEAR(p.mean((24 * 5 + 12) * 3600), 60, 10); // Saturday noon, counted from t = 0
  EXPECT_EQ(p.hour_of(169 * 3600.0), 1);
  ArrivalProfile shifted = p;
  shifted.origin_hour    = 72;
  EXPECT_EQ(shifted.hour_of(0), 72);
  shifted.factor = 2;
  EXPECT_NEAR(shifted.cdf(0, 400), p.cdf(72 * 3600.0, 200), 1e-12); // hour 72 of the week, gaps twice as long
}

TEST(AiopsArrivals, HeldBackOpenbGapsFollowTheFittedProfile)
{
  const fs::path csv =
      "../shared/data/ml-clusters/alibaba-clusterdata/cluster-trace-gpu-v2023/csv/openb_pod_list_default.csv";
  if (not fs::exists(csv))
    GTEST_SKIP() << "no ../shared/data";
  // creation_time: seconds from the trace's start; day 115 on, 8,125 of the 8,152 pods
  TimeColumn c = read_time_column(csv, "creation_time", TimeFormat::relative);
  std::vector<double> t;
  for (double v : c.seconds)
    if (v >= 9'936'000)
      t.push_back(v);
  ASSERT_EQ(t.size(), 8125u);
  auto gaps        = gaps_of(t);
  const double cut = 9'936'000 + 28 * 86400.0;
  std::vector<std::pair<double, double>> fitted, held;
  for (auto g : gaps)
    (g.first < cut ? fitted : held).push_back(g);
  ASSERT_EQ(fitted.size(), 5845u);
  ASSERT_EQ(held.size(), 2080u);
  ArrivalProfile p = fit_arrivals(fitted);
  HoldOut h        = hold_out_test(p, fitted, held);
  double ks        = h.ks_profile;
  double ks_exp    = h.ks_exponential;
  EXPECT_LE(ks, 0.15);
  EXPECT_LT(ks, ks_exp);
  EXPECT_NEAR(ks_exp, 0.27, 0.01); // the issue's reference for one exponential
  RecordProperty("ks_profile", std::to_string(ks));
}

TEST(AiopsModel, TheModelFileRoundTripsAndRejectsBadParameters)
{
  ArrivalProfile p;
  p.origin_hour = 16;
  p.factor      = 1.5;
  p.overall     = {Family::expweibull,
                   {
                       1.2,
                       0.6,
                       250,
               }};
  for (int h = 0; h < kHoursPerWeek; ++h) {
    p.hours[size_t(h)]  = {h % 2 ? Family::lognormal : Family::pareto, {1.0 + h, 2.0, 0}};
    p.fitted[size_t(h)] = uint64_t(h);
  }
  Model m;
  m.arrivals            = p;
  m.arrivals_provenance = "test";
  std::ostringstream out;
  write_model(out, m);
  Model back = parse_model(out.str(), "model.json");
  ASSERT_TRUE(back.arrivals);
  EXPECT_EQ(back.arrivals->origin_hour, 16);
  EXPECT_EQ(back.arrivals->factor, 1.5);
  for (int h = 0; h < kHoursPerWeek; ++h) {
    EXPECT_EQ(back.arrivals->hours[size_t(h)].family, p.hours[size_t(h)].family);
    EXPECT_EQ(back.arrivals->hours[size_t(h)].p, p.hours[size_t(h)].p);
  }
  auto error = [](const std::string& text) {
    try {
      parse_model(text, "bad.json");
    } catch (const sgai::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  std::string good     = out.str();
  std::string negative = good;
  negative.replace(negative.find("[1.2"), 4, "[-1.2");
  EXPECT_NE(error(negative).find("/arrivals/overall/params"), std::string::npos) << error(negative);
  std::string short_profile = good;
  auto last                 = short_profile.rfind("{\"hour\": 167");
  short_profile.erase(short_profile.rfind(",", last),
                      short_profile.find("}", last) - short_profile.rfind(",", last) + 1);
  EXPECT_NE(error(short_profile).find("168 hours"), std::string::npos) << error(short_profile);
  EXPECT_NE(error("{\"sgai_aiops_model\": 1, \"arivals\": {}}").find("arivals"), std::string::npos);
}

TEST(AiopsModel, MixturesRoundTripAndACovarianceMustBePositiveDefinite)
{
  Model m;
  AssetModel a;
  a.mixture.components = {{0.25, {1, 2, 3}, {{1, 0.5, 0}, {0.5, 2, 0}, {0, 0, 1}}},
                          {0.75, {4, 5, 6}, {{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}}};
  m.assets             = a;
  TrainingModel t;
  t.frameworks["tensorflow"]                        = {0.32, {}};
  t.frameworks["tensorflow"].log_seconds.components = {{1.0, {std::log(180)}, {{1.0}}}};
  t.frameworks["sparkml"]                           = {0.68, {}};
  t.frameworks["sparkml"].log_seconds.components    = {{1.0, {std::log(10)}, {{0.5}}}};
  m.training                                        = t;
  m.preprocess                                      = PreprocessModel{2.0, 0.001, 0.3, "assumed"};
  std::ostringstream out;
  write_model(out, m);
  Model back = parse_model(out.str(), "model.json");
  ASSERT_TRUE(back.assets && back.training && back.preprocess);
  EXPECT_EQ(back.assets->mixture.components[0].covariance, a.mixture.components[0].covariance);
  EXPECT_EQ(back.training->frameworks.at("sparkml").share, 0.68);
  EXPECT_EQ(back.preprocess->b, 0.001);
  std::string bad = out.str();
  bad.replace(bad.find("[[1, 0.5, 0]"), 12, "[[1, 5.0, 0]");
  try {
    parse_model(bad, "model.json");
    FAIL() << "no error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find("positive definite"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("/assets/log_rows_columns_bytes/components/0/covariance"), std::string::npos)
        << e.what();
  }
  std::string shares = out.str();
  shares.replace(shares.find("\"share\": 0.68"), 13, "\"share\": 0.60");
  EXPECT_THROW(parse_model(shares, "model.json"), sgai::InputError);
}

TEST(AiopsModel, TheShippedDefaultModelHoldsThePapersNumbers)
{
  Model m = read_model("deploy/aiops/default-model.json");
  ASSERT_TRUE(m.arrivals && m.assets && m.training && m.preprocess);
  // PipeSim: 63% SparkML, 32% TensorFlow, 3% PyTorch, 1% Caffe, 1% other
  EXPECT_EQ(m.training->frameworks.at("sparkml").share, 0.63);
  EXPECT_EQ(m.training->frameworks.at("tensorflow").share, 0.32);
  EXPECT_EQ(m.training->frameworks.at("pytorch").share, 0.03);
  // median training times: 180 s TensorFlow, 10 s SparkML (a log-normal's median is e^mu)
  EXPECT_NEAR(std::exp(m.training->frameworks.at("tensorflow").log_seconds.components[0].mean[0]), 180, 1e-9);
  EXPECT_NEAR(std::exp(m.training->frameworks.at("sparkml").log_seconds.components[0].mean[0]), 10, 1e-9);
  // a mean interarrival of 44 s over the week (arrivals per hour weigh each hour's mean gap)
  double rate = 0;
  for (int h = 0; h < kHoursPerWeek; ++h)
    rate += 1 / m.arrivals->hours[size_t(h)].mean();
  EXPECT_NEAR(kHoursPerWeek / rate, 44, 0.44);
  // the peak around 16:00: the shortest gaps
  EXPECT_LT(m.arrivals->mean(16 * 3600), m.arrivals->mean(4 * 3600));
  EXPECT_EQ(m.assets->min_rows, 50);
  Model openb = read_model("deploy/aiops/openb-arrivals.json");
  ASSERT_TRUE(openb.arrivals);
  EXPECT_NE(openb.arrivals_provenance.find("openb_pod_list_default.csv"), std::string::npos);
}

TEST(AiopsModel, EveryBogusModelFileIsAnErrorNamingTheFile)
{
  size_t seen = 0;
  for (const auto& entry : fs::directory_iterator("tests/fixtures/aiops")) {
    std::string name = entry.path().filename().string();
    if (name.rfind("bogus_", 0) != 0 || entry.path().extension() != ".json")
      continue;
    ++seen;
    try {
      read_model(entry.path());
      ADD_FAILURE() << name << ": no error";
    } catch (const sgai::InputError& e) {
      EXPECT_NE(std::string(e.what()).find(entry.path().string()), std::string::npos) << e.what();
    }
  }
  EXPECT_GE(seen, 5u);
}

TEST(AiopsObservations, TimesAndErrorsNameTheLineAndColumn)
{
  auto file = [](const std::string& name, const std::string& text) {
    fs::path p = scratch(name);
    std::ofstream(p) << text;
    return p;
  };
  auto iso     = file("iso.csv", "id,when\na,2023-05-01T16:00:00Z\nb,2023-05-01 19:30:00+02:00\n");
  TimeColumn c = read_time_column(iso, "when", TimeFormat::automatic);
  EXPECT_TRUE(c.absolute);
  EXPECT_DOUBLE_EQ(c.seconds[0], 1682956800.0);
  EXPECT_DOUBLE_EQ(c.seconds[1], 1682956800.0 + 5400);
  ArrivalProfile p;
  p.origin_hour = kEpochHourOfWeek;
  EXPECT_EQ(p.hour_of(c.seconds[0]), 16); // Monday 16:00
  EXPECT_EQ(parse_origin("wed:16"), 2 * 24 + 16);
  EXPECT_EQ(parse_origin("monday:25"), -1);
  auto message = [](const fs::path& f, const std::string& column) {
    try {
      read_time_column(f, column, TimeFormat::automatic);
    } catch (const sgai::InputError& e) {
      return std::string(e.what());
    }
    return std::string("no error");
  };
  auto bad = file("bad.csv", "t\n5\n7\nx\n");
  EXPECT_NE(message(bad, "t").find("line 4, column 't'"), std::string::npos) << message(bad, "t");
  auto down = file("down.csv", "t\n5\n7\n6\n");
  EXPECT_NE(message(down, "t").find("line 4"), std::string::npos);
  EXPECT_NE(message(down, "t").find("decrease"), std::string::npos);
  EXPECT_NE(message(bad, "when").find("no column 'when'"), std::string::npos);
}

const char* kExperiment = R"({
  "sgai_aiops_experiment": 1,
  "platform": "../platforms/gaia.json", "store": "store-0", "model": "default-model.json",
  "duration": "1w", "transfers": "contended", "seed": 7,
  "pools": [
    {"name": "compute", "hosts": ["c0", "c1"], "slots_per_host": 4,
     "kinds": ["preprocess", "evaluate", "compress", "validate", "deploy"]},
    {"name": "training", "hosts": ["g0"], "kinds": ["train"]}],
  "pipelines": [
    {"name": "retrain", "share": 0.8, "tasks": [
      {"name": "prep", "kind": "preprocess"},
      {"name": "train", "kind": "train", "after": ["prep"]},
      {"name": "eval", "kind": "evaluate", "after": ["train"], "gate": 0.7},
      {"name": "compress", "kind": "compress", "after": ["eval"], "probability": 0.3},
      {"name": "deploy", "kind": "deploy", "after": ["eval", "compress"]}]},
    {"name": "transfer", "share": 0.2, "parent": "retrain", "tasks": [
      {"name": "train", "kind": "train"}]}],
  "deployed": {"models": 3, "pipeline": "retrain", "drift": {"sudden": {"share": 1, "magnitude": 0.4}}},
  "triggers": [{"kind": "threshold", "value": 0.1}, {"kind": "schedule", "value": "4w"}]
})";

TEST(AiopsExperiment, AnExperimentFileIsReadAndChecked)
{
  ExperimentSpec e = parse_experiment(kExperiment, "deploy/aiops/x.json");
  EXPECT_EQ(e.platform, fs::path("deploy/aiops/../platforms/gaia.json"));
  EXPECT_EQ(e.duration_s, 7 * 86400.0);
  EXPECT_EQ(e.transfers, TransferMode::contended);
  ASSERT_EQ(e.pools.size(), 2u);
  EXPECT_EQ(e.pools[0].slots_per_host, 4u);
  ASSERT_EQ(e.pipelines.size(), 2u);
  const PipelineSpec& p = e.pipelines[0];
  EXPECT_EQ(p.tasks[3].probability, 0.3);
  ASSERT_TRUE(p.tasks[2].gate);
  // the order respects every "after": deploy after eval and compress
  std::vector<size_t> pos(p.tasks.size());
  for (size_t k = 0; k < p.order.size(); ++k)
    pos[p.order[k]] = k;
  for (size_t i = 0; i < p.tasks.size(); ++i)
    for (const std::string& a : p.tasks[i].after)
      for (size_t j = 0; j < p.tasks.size(); ++j)
        if (p.tasks[j].name == a) {
          EXPECT_LT(pos[j], pos[i]);
        }
  EXPECT_EQ(e.triggers[1].value, 4 * 7 * 86400.0);
  auto message = [](std::string text) {
    try {
      parse_experiment(text, "x.json");
    } catch (const sgai::InputError& err) {
      return std::string(err.what());
    }
    return std::string("no error");
  };
  auto with = [](const std::string& from, const std::string& to) {
    std::string t = kExperiment;
    auto at       = t.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return t.replace(at, from.size(), to);
  };
  EXPECT_NE(message(with(R"("name": "prep", "kind": "preprocess")",
                         R"("name": "prep", "kind": "preprocess", "after": ["deploy"])"))
                .find("cycle"),
            std::string::npos);
  EXPECT_NE(message(with(R"("kind": "compress")", R"("kind": "quantize")")).find("no executor"), std::string::npos);
  EXPECT_NE(message(with(R"("probability": 0.3)", R"("probability": 1.3)")).find("/pipelines/0/tasks/3/probability"),
            std::string::npos);
  EXPECT_NE(message(with(R"("after": ["train"], "gate")", R"("after": ["trian"], "gate")")).find("'trian'"),
            std::string::npos);
  EXPECT_NE(message(with(R"("parent": "retrain")", R"("parent": "nothing")")).find("no pipeline"), std::string::npos);
  EXPECT_NE(message(with(R"("seed": 7)", R"("sead": 7)")).find("sead"), std::string::npos);
  EXPECT_NE(message(with(R"("duration": "1w")", R"("duration": "-1w")")).find("duration"), std::string::npos);
  EXPECT_NE(message(with(R"("value": 0.1)", R"("value": 0)")).find("above 0"), std::string::npos);
  EXPECT_NE(message(with(R"("pipeline": "retrain")", R"("pipeline": "nothing")")).find("/deployed/pipeline"),
            std::string::npos);
  EXPECT_NE(message(with(R"("models": 3)", R"("models": 0)")).find("deployed"), std::string::npos);
  EXPECT_NE(message(with(R"("share": 1, "magnitude": 0.4)", R"("share": 0)")).find("positive share"),
            std::string::npos);
  // the store may carry a disk; several model files merge
  ExperimentSpec d = parse_experiment(
      with(
          R"("store": "store-0", "model": "default-model.json")",
          R"("store": {"host": "store-0", "disk": {"read": "500MBps", "write": "400MBps"}}, "model": ["a.json", "b.json"])"),
      "deploy/aiops/x.json");
  EXPECT_EQ(d.store, "store-0");
  EXPECT_EQ(d.store_disk_read, 500e6);
  EXPECT_EQ(d.store_disk_write, 400e6);
  ASSERT_EQ(d.models.size(), 2u);
  EXPECT_EQ(d.models[1], fs::path("deploy/aiops/b.json"));
}

TEST(AiopsDrift, CrossingTimesAndIntegralsAreExact)
{
  Drift g;
  g.kind = DriftKind::gradual;
  g.rate = 0.01 / 86400; // 1% a day
  EXPECT_DOUBLE_EQ(g.crossing(0.1), 10 * 86400.0);
  EXPECT_NEAR(g.staleness(g.crossing(0.1)), 0.1, 1e-12);
  EXPECT_DOUBLE_EQ(g.staleness(200 * 86400.0), 1.0); // all lost, no further
  Drift s;
  s.kind      = DriftKind::sudden;
  s.onset     = 5000;
  s.magnitude = 0.3;
  EXPECT_EQ(s.crossing(0.2), 5000);
  EXPECT_TRUE(std::isinf(s.crossing(0.5)));
  EXPECT_DOUBLE_EQ(s.integral(8000), 0.3 * 3000);
  Drift r;
  r.kind      = DriftKind::recurring;
  r.period    = 7 * 86400.0;
  r.amplitude = 0.2;
  EXPECT_NEAR(r.staleness(r.crossing(0.1)), 0.1, 1e-12);
  EXPECT_NEAR(r.crossing(0.1), r.period / 4, 1e-6); // half the amplitude a quarter period in
  EXPECT_TRUE(std::isinf(r.crossing(0.25)));
  // every integral against a midpoint sum
  for (const Drift* d : {&g, &s, &r})
    for (double age : {3600.0, 86400.0 * 3, 86400.0 * 150}) {
      int n      = 200000;
      double sum = 0;
      for (int i = 0; i < n; ++i)
        sum += d->staleness((i + 0.5) * age / n) * age / n;
      EXPECT_NEAR(d->integral(age), sum, 1e-4 * std::max(1.0, sum)) << to_string(d->kind) << " " << age;
    }
}

TEST(AiopsSynth, DrawsFollowTheDefaultModel)
{
  Model m = read_model("deploy/aiops/default-model.json");
  Synthesizer s(m);
  std::mt19937_64 rng(3);
  std::map<std::string, int> fw;
  std::vector<double> spark, sizes;
  int n = 20000;
  for (int i = 0; i < n; ++i) {
    Asset a = s.asset(rng);
    EXPECT_GE(a.rows, 50);
    EXPECT_GE(a.columns, 2);
    size_t f = s.framework(rng);
    ++fw[s.frameworks()[f]];
    if (s.frameworks()[f] == "sparkml")
      spark.push_back(s.train_seconds(f, rng));
    sizes.push_back(s.model_bytes(rng));
    double metric = s.metric(rng);
    EXPECT_TRUE(metric >= 0 && metric <= 1);
  }
  // the paper's mix and SparkML's median of 10 s
  EXPECT_NEAR(fw["sparkml"] / double(n), 0.63, 0.015);
  EXPECT_NEAR(fw["tensorflow"] / double(n), 0.32, 0.015);
  std::sort(spark.begin(), spark.end());
  EXPECT_NEAR(spark[spark.size() / 2], 10, 0.6);
  EXPECT_TRUE(s.knows("evaluate"));
  EXPECT_FALSE(s.knows("quantize"));
  // compression: training time with 10% noise
  double sum = 0;
  for (int i = 0; i < 10000; ++i)
    sum += s.compress_seconds(100, rng);
  EXPECT_NEAR(sum / 10000, 100, 1);
  // a model without a section a run needs
  Model partial = m;
  partial.models.reset();
  EXPECT_THROW(Synthesizer{partial}, std::invalid_argument);
}

TEST(AiopsModel, LaterModelFilesReplaceSections)
{
  Model base = read_model("deploy/aiops/default-model.json");
  Model fit  = read_model("deploy/aiops/openb-arrivals.json");
  ASSERT_TRUE(fit.arrivals);
  EXPECT_FALSE(fit.training);
  merge(base, fit);
  EXPECT_EQ(base.arrivals->overall.p, fit.arrivals->overall.p);
  EXPECT_TRUE(base.training && base.tasks && base.models);
  // what is written reads back the same
  std::ostringstream out;
  write_model(out, base);
  Model again = parse_model(out.str(), "again.json");
  EXPECT_EQ(again.tasks->log_seconds.size(), base.tasks->log_seconds.size());
  EXPECT_EQ(again.models->compress_size, base.models->compress_size);
}

TEST(AiopsDatabase, RowsGoInFromAThreadAndTheQueriesReadThem)
{
  fs::path file = scratch("run.sqlite");
  Names names;
  names.pipelines = {"p"};
  names.kinds     = {"train"};
  names.resources = {{"training", "pool", 2}, {"store", "store", 0}};
  {
    DatabaseWriter w(file, names, {{"origin_hour", "0"}});
    for (int64_t i = 0; i < 50000; ++i) { // several batches
      double t = double(i) * 40;
      w.add(TaskRow{i, 0, 0, 0, int32_t(i % 2), t, t + double(i % 7), t + 30, 20, 1e6, 2e5});
      PipelineRow p;
      p.id      = i;
      p.arrival = t;
      p.end     = t + 30;
      p.wait    = double(i % 7);
      w.add(p);
    }
    w.add(HourRow{0, 0, 3600, 7200, 0, 90, 9e7, 1e6});
    w.add(HourRow{1, 5, 0, 0, 0, 0, 4e8, 2e8});
    std::vector<ArrivalHourRow> arrivals{{0, 90, 0, 0}, {1, 80, 2, 0.1}};
    w.finish(arrivals);
  }
  EXPECT_FALSE(fs::exists(file.string() + ".partial"));
  std::ostringstream u, a, wq, st, p;
  run_query(file, "utilisation", 0, u);
  EXPECT_EQ(u.str(), "resource,hour,utilisation\ntraining,0,0.5\n");
  run_query(file, "arrivals", 0, a);
  EXPECT_NE(a.str().find("\n1,80\n"), std::string::npos) << a.str();
  run_query(file, "waits", 0, wq);
  // day 0: pipelines 0..2159, waits i % 7: median 3, p95 6
  EXPECT_NE(wq.str().find("\n0,2160,3,6\n"), std::string::npos) << wq.str().substr(0, 200);
  run_query(file, "store", 0, st);
  EXPECT_NE(st.str().find("\n5,400000000,200000000\n"), std::string::npos) << st.str();
  run_query(file, "pipeline", 12, p);
  EXPECT_NE(p.str().find("\n0,train,training,0,480,485,510,20,1000000,200000\n"), std::string::npos) << p.str();
  EXPECT_THROW(run_query(file, "pipeline", 999999, p), sgai::InputError);
  // an error before finish() leaves no file behind
  fs::path broken = scratch("broken.sqlite");
  {
    DatabaseWriter w(broken, names, {});
    w.add(TaskRow{});
  }
  EXPECT_FALSE(fs::exists(broken));
  EXPECT_FALSE(fs::exists(broken.string() + ".partial"));
}

TEST(Sqlite, AWrapperOverARealDatabaseFile)
{
  fs::path file = scratch("runs.sqlite");
  {
    sgai::sqlite::Database db(file, sgai::sqlite::Database::Mode::create);
    db.set_schema_version(3);
    db.exec("CREATE TABLE tasks (id INTEGER PRIMARY KEY, name TEXT, start REAL)");
    auto insert = db.prepare("INSERT INTO tasks (id, name, start) VALUES (?1, ?2, ?3)");
    {
      sgai::sqlite::Database::Transaction tx(db);
      for (int64_t i = 0; i < 1000; ++i)
        insert.bind(1, i).bind(2, std::string_view("task " + std::to_string(i))).bind(3, 0.5 * double(i)).run();
      tx.commit();
    }
    try { // a failed transaction leaves nothing
      sgai::sqlite::Database::Transaction tx(db);
      insert.bind(1, int64_t(5000)).bind(2, std::string_view("lost")).bind(3, 1.0).run();
      throw std::runtime_error("interrupted");
    } catch (const std::runtime_error&) {
    }
    EXPECT_THROW(db.exec("INSERT INTO nowhere VALUES (1)"), sgai::RunError);
  }
  sgai::sqlite::Database db(file, sgai::sqlite::Database::Mode::read);
  EXPECT_EQ(db.schema_version(), 3);
  auto q = db.prepare("SELECT COUNT(*), SUM(start), MAX(name) FROM tasks");
  ASSERT_TRUE(q.step());
  EXPECT_EQ(q.integer(0), 1000);
  EXPECT_DOUBLE_EQ(q.real(1), 0.5 * 999 * 1000 / 2);
  EXPECT_EQ(q.text(2), "task 999");
  // not a database: an InputError naming the file
  fs::path text = scratch("not.sqlite");
  std::ofstream(text) << "hello, this is no database at all, just some text that is long enough\n";
  try {
    sgai::sqlite::Database bad(text, sgai::sqlite::Database::Mode::read);
    FAIL() << "no error";
  } catch (const sgai::InputError& e) {
    EXPECT_NE(std::string(e.what()).find(text.string()), std::string::npos) << e.what();
  }
}

} // namespace
