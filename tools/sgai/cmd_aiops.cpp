/* sgai aiops: AI-ops platforms as PipeSim models them.
 *   run EXPERIMENT.json             the platform simulated (database and CSV summaries)
 *   query DB NAME [--week|--day|--pipeline N]   a dashboard query, as CSV
 *   plot DIR                        the figures of a run (tools/plot/aiops.py)
 *   fit OBS.csv --kind arrivals     an hour-of-week arrival profile fitted to a column of times
 *   fit OBS.csv --kind assets       a Gaussian mixture on log rows, columns and bytes (BIC)
 *   fit OBS.csv --kind training     per framework, its share and a mixture on log seconds
 *   fit OBS.csv --kind preprocess   seconds = a exp(b size) with log-normal noise
 * each written as an AI-ops model file. */
#include "core/aiops/arrivals.hpp"
#include "core/aiops/database.hpp"
#include "core/aiops/experiment.hpp"
#include "core/aiops/mixture.hpp"
#include "core/aiops/model.hpp"
#include "core/aiops/observations.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "core/foundation/units.hpp"
#include "plugins/aiops_sim/simulator.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <algorithm>
#include <cmath>
#include <fstream>
#include <iostream>
#include <limits>
#include <map>
#include <memory>
#include <sstream>
#include <unistd.h>

namespace sgai::cli {

namespace {

using namespace sgai::aiops;

struct FitArgs {
  std::string observations;
  std::string kind = "arrivals";
  std::string column;
  std::string time = "auto";
  std::string origin;
  std::optional<double> from, until, hold_out;
  double factor = 1;
  std::string out;
  std::string rows_column = "rows", columns_column = "columns", bytes_column = "bytes";
  std::string framework_column, size_column;
  int64_t max_components = 10;
  int64_t seed           = 1;
};

/** The values of a text column (frameworks), in file order. */
std::vector<std::string> read_text_column(const std::string& csv, const std::string& column)
{
  // numbers and names alike: read as times would reject names, so reuse the number reader's checks
  // only for the header; a framework is any text
  std::ifstream in(csv);
  std::string line;
  std::getline(in, line);
  std::vector<std::string> header;
  {
    std::stringstream ss(line);
    std::string cell;
    while (std::getline(ss, cell, ','))
      header.push_back(cell);
  }
  auto it = std::find(header.begin(), header.end(), column);
  if (it == header.end())
    throw InputError(csv, "line 1", "no column " + quote(column));
  auto idx = size_t(it - header.begin());
  std::vector<std::string> out;
  size_t n = 1;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty())
      continue;
    std::stringstream ss(line);
    std::string cell;
    std::vector<std::string> cells;
    while (std::getline(ss, cell, ','))
      cells.push_back(cell);
    if (idx >= cells.size())
      throw InputError(csv, "line " + std::to_string(n), "no column " + quote(column));
    out.push_back(cells[idx]);
  }
  return out;
}

double ks_against_samples(const std::vector<double>& data, const Mixture& m, uint64_t seed)
{
  std::mt19937_64 rng(seed);
  std::vector<double> s(100'000);
  for (double& v : s)
    v = m.sample(rng)[0];
  return ks_distance(data, s);
}

int run_fit_assets(const FitArgs& a)
{
  auto rows = read_number_column(a.observations, a.rows_column);
  auto cols = read_number_column(a.observations, a.columns_column);
  auto byts = read_number_column(a.observations, a.bytes_column);
  AssetModel x;
  std::vector<std::vector<double>> pts;
  size_t dropped = 0;
  for (size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] < x.min_rows || cols[i] < x.min_columns || not(byts[i] > 0)) {
      ++dropped;
      continue;
    }
    pts.push_back({std::log(rows[i]), std::log(cols[i]), std::log(byts[i])});
  }
  if (pts.size() < 2)
    throw InputError(a.observations, "",
                     std::to_string(pts.size()) + " assets with at least 50 rows, 2 columns and "
                                                  "some bytes: too few to fit");
  MixtureFitOptions o;
  o.max_components = size_t(a.max_components);
  o.seed           = uint64_t(a.seed);
  x.mixture        = fit_mixture_bic(pts, o);
  x.provenance     = "fitted by sgai aiops fit to " + std::filesystem::path(a.observations).filename().string() + ": " +
                 std::to_string(pts.size()) + " assets (" + std::to_string(dropped) +
                 " under 50 rows or 2 columns, or without bytes, left out), BIC over 1 to " +
                 std::to_string(a.max_components) + " components";
  Model m;
  m.assets = x;
  AtomicFile f(a.out);
  write_model(f.stream(), m);
  f.commit();
  std::cout << "Assets: " << pts.size() << " fitted, " << dropped << " left out; " << x.mixture.components.size()
            << " components by BIC\nWrote " << a.out << "\n";
  return 0;
}

int run_fit_training(const FitArgs& a)
{
  auto secs = read_number_column(a.observations, a.column);
  std::vector<std::string> fw;
  if (not a.framework_column.empty())
    fw = read_text_column(a.observations, a.framework_column);
  std::map<std::string, std::vector<std::vector<double>>> by;
  size_t dropped = 0;
  for (size_t i = 0; i < secs.size(); ++i) {
    if (not(secs[i] > 0)) {
      ++dropped;
      continue;
    }
    by[fw.empty() ? std::string("all") : fw[i]].push_back({std::log(secs[i])});
  }
  size_t total = secs.size() - dropped;
  if (total < 2)
    throw InputError(a.observations, "column " + quote(a.column), "fewer than two positive durations");
  TrainingModel t;
  MixtureFitOptions o;
  o.max_components = size_t(a.max_components);
  o.seed           = uint64_t(a.seed);
  auto& out        = std::cout;
  for (auto& [name, pts] : by) {
    if (pts.size() < 2)
      throw InputError(a.observations, "column " + quote(a.framework_column),
                       "framework " + quote(name) + " has fewer than two positive durations");
    TrainingModel::Framework f;
    f.share       = double(pts.size()) / double(total);
    f.log_seconds = fit_mixture_bic(pts, o);
    std::vector<double> data;
    for (const auto& p : pts)
      data.push_back(p[0]);
    out << "Framework " << name << ": " << pts.size() << " durations, share " << format_fixed(f.share, 4) << ", "
        << f.log_seconds.components.size() << " components; KS distance of 100,000 draws to the data "
        << format_fixed(ks_against_samples(data, f.log_seconds, uint64_t(a.seed)), 4) << "\n";
    t.frameworks[name] = std::move(f);
  }
  t.provenance = "fitted by sgai aiops fit to " + std::filesystem::path(a.observations).filename().string() +
                 ", column " + a.column + ": " + std::to_string(total) + " positive durations (" +
                 std::to_string(dropped) + " zero or negative left out), a mixture on ln seconds per framework";
  Model m;
  m.training = t;
  AtomicFile f(a.out);
  write_model(f.stream(), m);
  f.commit();
  out << "Wrote " << a.out << "\n";
  return 0;
}

int run_fit_preprocess(const FitArgs& a)
{
  auto size = read_number_column(a.observations, a.size_column);
  auto secs = read_number_column(a.observations, a.column);
  // ln t = ln a + b x: least squares
  double n = 0, sx = 0, sy = 0, sxx = 0, sxy = 0;
  for (size_t i = 0; i < secs.size(); ++i) {
    if (not(secs[i] > 0))
      continue;
    double y = std::log(secs[i]);
    n += 1;
    sx += size[i];
    sy += y;
    sxx += size[i] * size[i];
    sxy += size[i] * y;
  }
  double den = n * sxx - sx * sx;
  if (n < 3 || not(std::fabs(den) > 0))
    throw InputError(a.observations, "column " + quote(a.size_column),
                     "at least three positive durations over two or more sizes are needed");
  PreprocessModel p;
  p.b        = (n * sxy - sx * sy) / den;
  double lna = (sy - p.b * sx) / n;
  p.a        = std::exp(lna);
  double rss = 0;
  for (size_t i = 0; i < secs.size(); ++i)
    if (secs[i] > 0) {
      double e = std::log(secs[i]) - (lna + p.b * size[i]);
      rss += e * e;
    }
  p.sigma      = std::sqrt(rss / (n - 2));
  p.provenance = "fitted by sgai aiops fit to " + std::filesystem::path(a.observations).filename().string() +
                 ": least squares of ln seconds on " + a.size_column + " over " + std::to_string(int64_t(n)) + " tasks";
  Model m;
  m.preprocess = p;
  AtomicFile f(a.out);
  write_model(f.stream(), m);
  f.commit();
  std::cout << "Preprocessing: seconds = " << format_number(p.a) << " exp(" << format_number(p.b) << " x "
            << a.size_column << ") x LogNormal(0, " << format_number(p.sigma) << ")\nWrote " << a.out << "\n";
  return 0;
}

int run_fit(const FitArgs& a)
{
  if (a.kind != "assets" && a.column.empty())
    throw UsageError("--column is needed for --kind " + a.kind);
  if (a.kind == "preprocess" && a.size_column.empty())
    throw UsageError("--size-column is needed for --kind preprocess");
  check_output_file(a.out, {a.observations});
  if (a.kind == "assets")
    return run_fit_assets(a);
  if (a.kind == "training")
    return run_fit_training(a);
  if (a.kind == "preprocess")
    return run_fit_preprocess(a);
  const int origin = a.origin.empty() ? 0 : parse_origin(a.origin);
  if (origin < 0)
    throw UsageError("--origin: " + quote(a.origin) + " is no DAY:HOUR such as mon:00 or wed:16");
  TimeFormat format = a.time == "relative" ? TimeFormat::relative
                      : a.time == "epoch"  ? TimeFormat::epoch
                      : a.time == "iso"    ? TimeFormat::iso
                                           : TimeFormat::automatic;
  TimeColumn times  = read_time_column(a.observations, a.column, format);
  ArrivalFitOptions o;
  if (times.absolute) {
    if (not a.origin.empty())
      throw UsageError("--origin is for relative times: these are dates, whose weekday is known");
    o.origin_hour = kEpochHourOfWeek;
  } else {
    o.origin_hour = origin;
  }
  std::vector<double> t;
  for (double v : times.seconds)
    if ((not a.from || v >= *a.from) && (not a.until || v < *a.until))
      t.push_back(v);
  auto gaps = gaps_of(t);
  std::vector<std::pair<double, double>> fitted, held;
  for (auto g : gaps)
    (a.hold_out && g.first >= *a.hold_out ? held : fitted).push_back(g);
  if (fitted.size() < 2)
    throw InputError(a.observations, "column " + quote(a.column),
                     std::to_string(fitted.size()) + " gaps to fit: at least two are needed (three distinct times)");
  ArrivalProfile p;
  try {
    p = fit_arrivals(fitted, o);
  } catch (const std::invalid_argument& e) {
    throw InputError(a.observations, "column " + quote(a.column), e.what());
  }
  p.factor = a.factor;
  Model m;
  m.arrivals            = p;
  m.arrivals_provenance = "fitted by sgai aiops fit to " + std::filesystem::path(a.observations).filename().string() +
                          ", column " + a.column + ": " + std::to_string(fitted.size()) +
                          " gaps (same-second arrivals once), hours of the week " +
                          (times.absolute ? std::string("from the dates (UTC)")
                                          : "counted from t = 0 at hour " + std::to_string(o.origin_hour));
  AtomicFile f(a.out);
  write_model(f.stream(), m);
  f.commit();

  int families[4] = {}, own = 0;
  for (int h = 0; h < kHoursPerWeek; ++h) {
    if (p.fitted[size_t(h)] == 0)
      continue;
    ++own;
    families[int(p.hours[size_t(h)].family)]++;
  }
  auto& out = std::cout;
  out << "Arrivals: " << t.size() << " times, " << fitted.size() << " gaps fitted (same-second arrivals once)\n";
  out << "Hours of the week fitted on their own: " << own << " of 168 (lognormal " << families[1] << ", expweibull "
      << families[3] << ", pareto " << families[2] << "); the others take the overall fit ("
      << to_string(p.overall.family) << ", mean gap " << format_fixed(p.overall.mean(), 1) << " s)\n";
  if (a.hold_out) {
    if (held.empty())
      throw InputError(a.observations, "--hold-out", "no gap starts at or after " + format_number(*a.hold_out));
    HoldOut h = hold_out_test(p, fitted, held);
    out << "Held back: " << held.size() << " gaps; KS distance to uniform of their CDF values: profile "
        << format_fixed(h.ks_profile, 4) << ", one exponential " << format_fixed(h.ks_exponential, 4) << "\n";
  }
  out << "Wrote " << a.out << "\n";
  return 0;
}

struct RunArgs {
  std::string experiment, out = "aiops-out";
  int64_t seed    = 0;
  bool seed_given = false;
  std::string duration_text;
  std::string transfers;
  bool no_database = false;
  bool quiet       = false;
};

int run_run(const RunArgs& a, const Globals& globals)
{
  check_output_dir(a.out);
  ExperimentSpec spec = read_experiment(a.experiment);
  if (a.seed_given)
    spec.seed = uint64_t(a.seed);
  if (not a.duration_text.empty())
    spec.duration_s = *units::parse(a.duration_text, units::Quantity::time);
  if (not a.transfers.empty())
    spec.transfers = a.transfers == "contended" ? TransferMode::contended : TransferMode::analytic;
  StagingDir staging(a.out);
  aiops_sim::RunOptions o;
  o.output_dir   = staging.path();
  o.database     = not a.no_database;
  o.simgrid_args = globals.simgrid_args;
  bool tty       = isatty(STDERR_FILENO) != 0 && not a.quiet;
  if (tty)
    o.progress = [](double now, double duration, uint64_t pipelines) {
      std::cerr << "\r  day " << int64_t(now / 86400) << " of " << int64_t(std::ceil(duration / 86400)) << ", "
                << pipelines << " pipelines" << std::flush;
    };
  auto r = aiops_sim::run_experiment(spec, o);
  if (tty)
    std::cerr << "\r" << std::string(60, ' ') << "\r";
  staging.publish();
  if (not a.quiet) {
    std::cout << "AI-ops run of " << a.experiment << " ("
              << (spec.transfers == TransferMode::contended ? "contended" : "analytic") << " transfers, seed "
              << spec.seed << ")\n";
    std::cout.precision(6);
    for (const auto& [k, v] : r.figures) {
      // counts and bytes in full, measures to 6 significant digits
      std::cout << "  " << k << ": ";
      if (not std::isfinite(v))
        std::cout << "none";
      else if (v == std::floor(v) && std::fabs(v) < 9007199254740992.0)
        std::cout << format_plain(v);
      else
        std::cout << v;
      std::cout << "\n";
    }
    for (const std::string& note : r.notes)
      std::cout << "Note: " << note << ".\n";
    std::cout << "Wrote " << a.out << "/{" << (o.database ? "aiops.sqlite," : "") << "summary.csv,resources.csv"
              << (spec.deployed.models > 0 ? ",deployed.csv" : "") << "}\n";
  }
  return 0;
}

struct QueryArgs {
  std::string database, name;
  int64_t argument = 0;
  std::optional<int64_t> week, day, pipeline;
};

int run_query_command(const QueryArgs& a)
{
  int64_t arg = 0;
  if (a.name == "utilisation")
    arg = a.week.value_or(0);
  else if (a.name == "store")
    arg = a.day.value_or(0);
  else if (a.name == "pipeline") {
    if (not a.pipeline)
      throw UsageError("the pipeline query needs --pipeline ID");
    arg = *a.pipeline;
  }
  run_query(a.database, a.name, arg, std::cout);
  return 0;
}

} // namespace

void add_aiops_commands(CLI::App& app, const Globals& globals, Action& action)
{
  auto* aiops = app.add_subcommand("aiops", "AI-ops platforms (PipeSim): fitting, simulation, queries");
  aiops->require_subcommand(1);
  auto a    = std::make_shared<FitArgs>();
  auto* fit = aiops->add_subcommand("fit", "Fit a model to observations (a CSV file) and write a model file");
  add_path(fit, "observations", a->observations, "The observations: a CSV file with a header line")->required();
  fit->add_option("--kind", a->kind,
                  "What to fit: arrivals (an hour-of-week profile of a column of times), assets (a mixture on log "
                  "rows, columns, bytes), training (per framework, a mixture on log seconds), preprocess (seconds "
                  "against size)")
      ->check(CLI::IsMember({"arrivals", "assets", "training", "preprocess"}));
  fit->add_option("--column", a->column, "arrivals: the times; training, preprocess: the durations in seconds");
  fit->add_option("--rows-column", a->rows_column, "assets: rows (default rows)");
  fit->add_option("--columns-column", a->columns_column, "assets: columns (default columns)");
  fit->add_option("--bytes-column", a->bytes_column, "assets: bytes (default bytes)");
  fit->add_option("--framework-column", a->framework_column, "training: the framework of each (default: one stratum)");
  fit->add_option("--size-column", a->size_column, "preprocess: the data size");
  add_count(fit, "--max-components", a->max_components, "assets, training: the most mixture components BIC tries", 1,
            100);
  add_seed(fit, a->seed, "assets, training: the seed of EM's k-means++ starts (default 1)");
  fit->add_option("--time", a->time,
                  "auto (default: ISO 8601 dates, epoch seconds from 2000 on, else relative seconds), relative, "
                  "epoch or iso")
      ->check(CLI::IsMember({"auto", "relative", "epoch", "iso"}));
  fit->add_option("--origin", a->origin,
                  "Relative times: the weekday and hour of t = 0, as mon:00 .. sun:23 (default: hours counted "
                  "from t = 0)");
  add_real(fit, "--from", a->from, "Only times at or after this (seconds, in the file's time)", -1e18, 1e18);
  add_real(fit, "--until", a->until, "Only times before this", -1e18, 1e18);
  add_real(fit, "--hold-out", a->hold_out,
           "Gaps starting at or after this are held back from the fit and tested (KS distance printed)", -1e18, 1e18);
  add_real(fit, "--factor", a->factor, "The interarrival factor written into the model", 1e-6, 1e6);
  add_path(fit, "--out", a->out, "The model file to write (JSON)")->required();
  fit->callback([a, &action]() { action = [a]() { return run_fit(*a); }; });

  auto r    = std::make_shared<RunArgs>();
  auto* run = aiops->add_subcommand("run", "Simulate an AI-ops experiment: pipelines, pools, store traffic, staleness");
  add_path(run, "experiment", r->experiment, "The AI-ops experiment file (JSON, docs/aiops.md)")->required();
  add_path(run, "--out", r->out, "The output folder (default aiops-out): aiops.sqlite and CSV summaries");
  add_seed(run, r->seed, "The seed (default: the experiment's)");
  run->add_option("--transfers", r->transfers, "analytic or contended (default: the experiment's)")
      ->check(CLI::IsMember({"analytic", "contended"}));
  add_quantity(run, "--duration", r->duration_text, "The simulated duration (default: the experiment's), e.g. 1w, 365d",
               units::Quantity::time, 1, 1e12, "1 s to 1e12 s");
  run->add_flag("--no-database", r->no_database, "Only the CSV summaries (no SQLite database)");
  run->add_flag("--quiet", r->quiet, "No progress and no summary on the terminal");
  run->callback([r, &globals, &action, run]() {
    r->seed_given = run->count("--seed") > 0;
    action        = [r, &globals]() { return run_run(*r, globals); };
  });

  auto q      = std::make_shared<QueryArgs>();
  auto* query = aiops->add_subcommand("query", "A dashboard query on a run's database, printed as CSV");
  add_path(query, "database", q->database, "The run's aiops.sqlite")->required();
  query->add_option("name", q->name, "utilisation, arrivals, waits, store or pipeline")
      ->required()
      ->check(CLI::IsMember(query_names()));
  add_count(query, "--week", q->week, "utilisation: the week (0-based)", 0, 1 << 20);
  add_count(query, "--day", q->day, "store: the day (0-based)", 0, 1 << 24);
  add_count(query, "--pipeline", q->pipeline, "pipeline: its id", 0, int64_t(1) << 50);
  query->callback([q, &action]() { action = [q]() { return run_query_command(*q); }; });

  auto dir   = std::make_shared<std::string>();
  auto* plot = aiops->add_subcommand("plot", "Plot a run's folder: utilisation, arrivals per hour of the week, waits, "
                                             "store traffic, staleness, Q-Q plots (PNG files in the folder)");
  add_path(plot, "folder", *dir, "The output folder of sgai aiops run (with aiops.sqlite)")->required();
  plot->callback([dir, &action]() { action = [dir]() { return run_plot_script("aiops.py", *dir); }; });
}

} // namespace sgai::cli
