/* sgai sweep evaluate: Copper's evaluation (docs/sweep.md, docs/validation.md) on a space evaluated
 * in full once: the runs a strategy needs to reach an optimal point (--table strategies), the runs
 * a simulated analyst needs by insight, confidence and learning (--table analysts, the paper's
 * Figure 6), and the best quality within a maximum of runs with and without Copper's SLA suggestion
 * (--table sla, Figures 7-9). Means with bootstrap 95% intervals; deterministic given --seed,
 * whatever --threads. */
#include "core/foundation/error.hpp"
#include "core/sweep/analyst.hpp"
#include "core/sweep/strategy.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>

namespace sgai::cli {

namespace {

using namespace sgai::sweep;

struct EvaluateArgs {
  std::string space = "rastrigin";
  std::string campaign, runs_csv;
  std::vector<std::string> tables{"strategies"};
  std::vector<std::string> strategies{"grasp", "random", "full"};
  std::vector<std::string> insights{"bad", "good", "none"};
  std::vector<int64_t> confidences{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 100};
  std::vector<std::string> learning{"off", "on"};
  std::vector<int64_t> max_runs{30, 50, 100};
  std::vector<double> exploitation{0, 0.33, 0.66, 1};
  int64_t sla_confidence = 50;
  int64_t repetitions = 500, seed = 1, threads = 0;
  double beta = 0.5, belief = 1.0 / 3.0;
};

std::string fixed(double v, int digits)
{
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string shown(const Interval& iv, int digits)
{
  return fixed(iv.mean, digits) + " [" + fixed(iv.low, digits) + ", " + fixed(iv.high, digits) + "]";
}

uint64_t repetition_seed(const EvaluateArgs& a, size_t r)
{
  return uint64_t(a.seed) * 1000003 + uint64_t(r);
}

unsigned threads_of(const EvaluateArgs& a)
{
  return unsigned(a.threads);
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

void strategies_table(const EvaluateArgs& a, const Landscape& l)
{
  auto t0 = std::chrono::steady_clock::now();
  std::cout << "\nRuns to reach an optimal point, mean of " << a.repetitions
            << " repetitions [bootstrap 95%], GRASP's beta " << a.beta << ":\n\n| strategy | runs |\n|---|---|\n";
  for (const auto& name : a.strategies) {
    Strategy s = Strategy::grasp;
    if (not strategy_from_string(name, s))
      throw UsageError("unknown strategy " + quote(name) + " (grasp, random, full)");
    // (a full sweep draws nothing: one run stands for every repetition)
    auto runs =
        s == Strategy::full
            ? std::vector<double>(size_t(a.repetitions), double(runs_to_optimum(l, s, a.beta, uint64_t(a.seed))))
            : repeat<double>(size_t(a.repetitions), threads_of(a),
                             [&](size_t r) { return double(runs_to_optimum(l, s, a.beta, repetition_seed(a, r))); });
    std::cout << "| " << name << " | " << shown(bootstrap_mean(runs, uint64_t(a.seed)), 1) << " |\n";
  }
  std::cout << "\n(" << fixed(seconds_since(t0), 1) << " s)\n";
}

AnalystConfig config_of(const EvaluateArgs& a, const std::string& insight, int64_t confidence,
                        const std::string& learning)
{
  AnalystConfig c;
  if (not insight_from_string(insight, c.insight))
    throw UsageError("unknown insight " + quote(insight) + " (bad, good, none)");
  c.confidence_pct = uint32_t(confidence);
  c.learning       = learning == "on";
  c.beta           = a.beta;
  return c;
}

void analysts_table(const EvaluateArgs& a, const Landscape& l, const Beliefs& b)
{
  auto t0 = std::chrono::steady_clock::now();
  std::cout << "\nRuns to reach an optimal point by simulated analyst (insight, learning) and confidence, mean of "
            << a.repetitions << " repetitions [bootstrap 95%]:\n\n| confidence |";
  for (const auto& i : a.insights)
    for (const auto& ln : a.learning)
      std::cout << " " << i << ", learning " << ln << " |";
  std::cout << "\n|---|";
  for (size_t k = 0; k < a.insights.size() * a.learning.size(); ++k)
    std::cout << "---|";
  std::cout << "\n";
  for (int64_t conf : a.confidences) {
    std::cout << "| " << conf << "% |";
    for (const auto& i : a.insights)
      for (const auto& ln : a.learning) {
        AnalystConfig c = config_of(a, i, conf, ln);
        auto runs       = repeat<double>(size_t(a.repetitions), threads_of(a), [&](size_t r) {
          return double(analyst_runs_to_optimum(l, b, c, repetition_seed(a, r)));
        });
        std::cout << " " << shown(bootstrap_mean(runs, uint64_t(a.seed)), 1) << " |" << std::flush;
      }
    std::cout << "\n";
  }
  std::cout << "\n(" << fixed(seconds_since(t0), 1) << " s)\n";
}

void sla_table(const EvaluateArgs& a, const Landscape& l, const Beliefs& b)
{
  auto t0 = std::chrono::steady_clock::now();
  std::cout << "\nBest quality (f_worst - f) / (f_worst - f_opt) within the maximum of runs, analysts at "
            << a.sla_confidence << "% confidence; Copper's suggestion accepted from 70% of the maximum on; "
            << "mean of " << a.repetitions
            << " repetitions [bootstrap 95%]:\n\n| analyst | max runs | clusters | violation | without suggestion |";
  for (double e : a.exploitation)
    std::cout << " exploitation " << fixed(e, 2) << " |";
  std::cout << "\n|---|---|---|---|---|";
  for (size_t k = 0; k < a.exploitation.size(); ++k)
    std::cout << "---|";
  std::cout << "\n";
  for (const auto& i : a.insights)
    for (const auto& ln : a.learning)
      for (int64_t max_runs : a.max_runs) {
        AnalystConfig c = config_of(a, i, a.sla_confidence, ln);
        auto out        = repeat<SlaOutcome>(size_t(a.repetitions), threads_of(a), [&](size_t r) {
          return sla_experiment(l, b, c, uint64_t(max_runs), a.exploitation, repetition_seed(a, r));
        });
        std::vector<double> without, violation, clusters;
        std::vector<std::vector<double>> with(a.exploitation.size());
        for (const auto& o : out) {
          without.push_back(o.without);
          violation.push_back(o.violation ? 1 : 0);
          clusters.push_back(o.clusters ? 1 : 0);
          for (size_t k = 0; k < o.with.size(); ++k)
            with[k].push_back(o.with[k]);
        }
        auto share = [](const std::vector<double>& x) {
          double n = 0;
          for (double v : x)
            n += v;
          return fixed(100 * n / double(x.size()), 0) + "%";
        };
        std::cout << "| " << i << ", learning " << ln << " | " << max_runs << " | " << share(clusters) << " | "
                  << share(violation) << " | " << shown(bootstrap_mean(without, uint64_t(a.seed)), 4) << " |";
        for (const auto& w : with)
          std::cout << " " << shown(bootstrap_mean(w, uint64_t(a.seed)), 4) << " |";
        std::cout << "\n" << std::flush;
      }
  std::cout << "\n(" << fixed(seconds_since(t0), 1) << " s)\n";
}

int run_evaluate(const EvaluateArgs& a)
{
  if (a.campaign.empty() != a.runs_csv.empty())
    throw UsageError("--campaign and --runs-csv go together (a campaign and its runs from `sgai sweep export`)");
  if (a.campaign.empty() && a.space == "batch" && not std::filesystem::exists("deploy/campaigns/hdeeprm-kth.json"))
    throw UsageError("--space batch reads deploy/campaigns/hdeeprm-kth.json and its runs from the working directory: "
                     "run sgai from the repository's root, or give --campaign and --runs-csv");
  Landscape l   = a.campaign.empty() ? landscape(a.space) : landscape_from_runs(a.campaign, a.runs_csv);
  size_t optima = 0;
  for (uint64_t i = 0; i < l.value.size(); ++i)
    optima += l.optimal(i) ? 1 : 0;
  std::cout << l.name << ": " << l.space.count() << " points, optimum " << l.value[l.optimum] << " at point "
            << l.optimum << " (" << optima << " optimal point" << (optima == 1 ? "" : "s") << "), worst "
            << l.value[l.worst] << "; seed " << a.seed << "\n";
  for (const auto& t : a.tables) {
    if (t == "strategies")
      strategies_table(a, l);
    else {
      Beliefs b(l, a.belief);
      std::cout << "\nBelief boxes of " << fixed(a.belief, 3) << " of each parameter's values (widths";
      for (uint32_t w : b.width())
        std::cout << " " << w;
      std::cout << "), " << b.bad_boxes() << " bad placements\n";
      if (t == "analysts")
        analysts_table(a, l, b);
      else
        sla_table(a, l, b);
    }
  }
  return 0;
}

} // namespace

void add_sweep_evaluate(CLI::App& sweep, Action& action)
{
  auto e   = std::make_shared<EvaluateArgs>();
  auto* ev = sweep.add_subcommand("evaluate", "Copper's evaluation on a space evaluated in full once: strategies, "
                                              "simulated analysts, SLA suggestions");
  ev->add_option("--space", e->space,
                 "rosenbrock (4-D, 1,296 points), rastrigin (8,800), branin (900) or batch (sgai's batch manager, "
                 "108 configurations; run from the repository's root)")
      ->check(CLI::IsMember({"rosenbrock", "rastrigin", "branin", "batch"}));
  add_path(ev, "--campaign", e->campaign, "A campaign file whose space was run in full (instead of --space)");
  add_path(ev, "--runs-csv", e->runs_csv, "Its runs, as `sgai sweep export` writes them");
  ev->add_option("--table", e->tables,
                 "strategies (runs to the optimum), analysts (by insight, confidence, learning), sla (best quality "
                 "within a maximum of runs); default strategies")
      ->check(CLI::IsMember({"strategies", "analysts", "sla"}));
  ev->add_option("--strategy", e->strategies, "grasp, random, full (default: all three)")
      ->check(CLI::IsMember({"grasp", "random", "full"}));
  ev->add_option("--insight", e->insights, "The analysts' insights: bad, good, none (default: all three)")
      ->check(CLI::IsMember({"bad", "good", "none"}));
  ev->add_option("--confidence", e->confidences,
                 "The analysts' confidences in %, the share of runs from Copper's suggestions (default 0 10 .. 100)")
      ->check(CLI::Range(int64_t(0), int64_t(100)));
  ev->add_option("--learning", e->learning, "Learning from intermediate results: off, on (default: both)")
      ->check(CLI::IsMember({"off", "on"}));
  ev->add_option("--max-runs", e->max_runs, "The SLA's maximum runs (default 30 50 100)")
      ->check(CLI::Range(int64_t(1), int64_t(1000000)));
  ev->add_option("--exploitation", e->exploitation, "The SLA suggestion's exploitation levels (default 0 0.33 0.66 1)")
      ->check(CLI::Range(0.0, 1.0));
  add_count(ev, "--sla-confidence", e->sla_confidence, "The analysts' confidence in the SLA table, in % (default 50)",
            0, 100);
  add_real(ev, "--belief", e->belief, "A belief box's share of each parameter's values (default 1/3)", 0.01, 1);
  add_count(ev, "--repetitions", e->repetitions, "Repetitions per setting (default 500)", 1, 1000000);
  add_count(ev, "--threads", e->threads, "Repetitions at a time (default 0: the core count)", 0, 1024);
  add_seed(ev, e->seed, "The seed (default 1)");
  add_real(ev, "--beta", e->beta, "GRASP's greediness (default 0.5)", 0, 1);
  ev->callback([e, &action]() { action = [e]() { return run_evaluate(*e); }; });
}

} // namespace sgai::cli
