/* sgai aiops: AI-ops platforms as PipeSim models them.
 *   fit OBS.csv --kind arrivals   an hour-of-week arrival profile fitted to a column of times,
 *                                 written as an AI-ops model file */
#include "aiops/arrivals.hpp"
#include "aiops/model.hpp"
#include "aiops/observations.hpp"
#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/numbers.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"

#include <cmath>
#include <iostream>
#include <limits>
#include <memory>

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
};

int run_fit(const FitArgs& a)
{
  check_output_file(a.out, {a.observations});
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
    std::vector<double> u, ue, all;
    for (auto g : fitted)
      all.push_back(g.second);
    Distribution e = fit(Family::exponential, all);
    for (auto g : held) {
      u.push_back(p.cdf(g.first, g.second));
      ue.push_back(e.cdf(g.second));
    }
    auto uniform = [](double x) { return std::clamp(x, 0.0, 1.0); };
    out << "Held back: " << held.size() << " gaps; KS distance to uniform of their CDF values: profile "
        << format_fixed(ks_distance(u, uniform), 4) << ", one exponential " << format_fixed(ks_distance(ue, uniform), 4)
        << "\n";
  }
  out << "Wrote " << a.out << "\n";
  return 0;
}

} // namespace

void add_aiops_commands(CLI::App& app, Action& action)
{
  auto* aiops = app.add_subcommand("aiops", "AI-ops platforms (PipeSim): fitting arrivals and assets");
  aiops->require_subcommand(1);
  auto a    = std::make_shared<FitArgs>();
  auto* fit = aiops->add_subcommand("fit", "Fit a model to observations (a CSV file) and write a model file");
  add_path(fit, "observations", a->observations, "The observations: a CSV file with a header line")->required();
  fit->add_option("--kind", a->kind, "What to fit: arrivals (an hour-of-week profile of a column of times)")
      ->check(CLI::IsMember({"arrivals"}));
  fit->add_option("--column", a->column, "The column holding the times")->required();
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
}

} // namespace sgai::cli
