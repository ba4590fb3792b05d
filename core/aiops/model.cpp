#include "core/aiops/model.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_writer.hpp"

#include <cmath>

namespace sgai::aiops {

namespace {

void write_distribution(json::Writer& j, const Distribution& d)
{
  j.field("family", to_string(d.family)).key("params").begin_array(true);
  for (int i = 0; i < parameters(d.family); ++i)
    j.value(d.p[size_t(i)]);
  j.end_array();
}

Distribution read_distribution(json::Object& o)
{
  Distribution d;
  auto fv            = o.required("family");
  std::string family = fv.choice({"exponential", "lognormal", "pareto", "expweibull"});
  family_from_string(family, d.family);
  auto pv     = o.required("params");
  auto params = pv.array();
  if (params.size() != size_t(parameters(d.family)))
    pv.fail("a " + family + " takes " + std::to_string(parameters(d.family)) + " parameters, not " +
            std::to_string(params.size()));
  for (size_t i = 0; i < params.size(); ++i) {
    double v = params[i].number();
    if (not std::isfinite(v))
      params[i].fail("a parameter must be finite");
    d.p[i] = v;
  }
  if (not d.valid())
    pv.fail("parameters out of their domain for a " + family + " (rates, sigmas, shapes and scales are positive)");
  return d;
}

void write_mixture(json::Writer& j, const Mixture& m)
{
  j.key("components").begin_array();
  for (const Gaussian& g : m.components) {
    j.begin_object(true).field("weight", g.weight).key("mean").begin_array(true);
    for (double v : g.mean)
      j.value(v);
    j.end_array().key("covariance").begin_array(true);
    for (const auto& row : g.covariance) {
      j.begin_array(true);
      for (double v : row)
        j.value(v);
      j.end_array();
    }
    j.end_array().end_object();
  }
  j.end_array();
}

std::vector<double> read_numbers(const json::Value& v, size_t n, const std::string& what)
{
  auto a = v.array();
  if (n > 0 && a.size() != n)
    v.fail(what + " holds " + std::to_string(n) + " numbers, not " + std::to_string(a.size()));
  std::vector<double> out;
  for (const auto& x : a) {
    double d = x.number();
    if (not std::isfinite(d))
      x.fail("not finite");
    out.push_back(d);
  }
  return out;
}

Mixture read_mixture(json::Object& o, size_t dims)
{
  Mixture m;
  auto cv    = o.required("components");
  auto comps = cv.array();
  if (comps.empty())
    cv.fail("a mixture has at least one component");
  double total = 0;
  for (const auto& c : comps) {
    json::Object g = c.object();
    Gaussian x;
    x.weight = g.required("weight").positive();
    x.mean   = read_numbers(g.required("mean"), dims, "a mean");
    auto rv  = g.required("covariance");
    for (const auto& row : rv.array())
      x.covariance.push_back(read_numbers(row, dims, "a covariance row"));
    if (x.covariance.size() != dims)
      rv.fail("a covariance has " + std::to_string(dims) + " rows");
    Mixture one;
    one.components                = {x};
    one.components.front().weight = 1;
    if (not one.valid())
      rv.fail("the covariance is not symmetric positive definite");
    total += x.weight;
    m.components.push_back(std::move(x));
    g.finish();
  }
  if (std::fabs(total - 1) > 1e-6)
    cv.fail("the weights sum to " + std::to_string(total) + ", not 1");
  return m;
}

} // namespace

void write_model(std::ostream& out, const Model& m)
{
  json::Writer j(out);
  j.begin_object().field("sgai_aiops_model", int64_t(1));
  if (m.arrivals) {
    const ArrivalProfile& a = *m.arrivals;
    j.key("arrivals").begin_object();
    j.field("provenance", m.arrivals_provenance);
    j.field("origin_hour", int64_t(a.origin_hour)).field("factor", a.factor);
    j.key("overall").begin_object(true);
    write_distribution(j, a.overall);
    j.end_object();
    j.key("hours").begin_array();
    for (int h = 0; h < kHoursPerWeek; ++h) {
      j.begin_object(true).field("hour", int64_t(h));
      write_distribution(j, a.hours[size_t(h)]);
      j.field("gaps", a.fitted[size_t(h)]).end_object();
    }
    j.end_array().end_object();
  }
  if (m.assets) {
    j.key("assets").begin_object();
    j.field("provenance", m.assets->provenance)
        .field("min_rows", m.assets->min_rows)
        .field("min_columns", m.assets->min_columns);
    j.key("log_rows_columns_bytes").begin_object();
    write_mixture(j, m.assets->mixture);
    j.end_object().end_object();
  }
  if (m.training) {
    j.key("training").begin_object().field("provenance", m.training->provenance).key("frameworks").begin_object();
    for (const auto& [name, f] : m.training->frameworks) {
      j.key(name).begin_object().field("share", f.share).key("log_seconds").begin_object();
      write_mixture(j, f.log_seconds);
      j.end_object().end_object();
    }
    j.end_object().end_object();
  }
  if (m.preprocess) {
    j.key("preprocess").begin_object();
    j.field("provenance", m.preprocess->provenance)
        .field("a", m.preprocess->a)
        .field("b", m.preprocess->b)
        .field("sigma", m.preprocess->sigma);
    j.end_object();
  }
  if (m.tasks) {
    j.key("tasks").begin_object();
    j.field("provenance", m.tasks->provenance).field("compress_noise", m.tasks->compress_noise);
    j.key("log_seconds").begin_object();
    for (const auto& [kind, mix] : m.tasks->log_seconds) {
      j.key(kind).begin_object();
      write_mixture(j, mix);
      j.end_object();
    }
    j.end_object().end_object();
  }
  if (m.models) {
    const ModelAssetModel& x = *m.models;
    j.key("models").begin_object();
    j.field("provenance", x.provenance).key("log_bytes").begin_object();
    write_mixture(j, x.log_bytes);
    j.end_object();
    j.key("metric").begin_object(true).field("mean", x.metric_mean).field("sd", x.metric_sd).end_object();
    j.field("compress_size", x.compress_size)
        .field("compress_metric", x.compress_metric)
        .field("transfer", x.transfer)
        .field("test_fraction", x.test_fraction);
    j.end_object();
  }
  j.end_object();
  out << "\n";
}

void merge(Model& into, const Model& from)
{
  if (from.arrivals) {
    into.arrivals            = from.arrivals;
    into.arrivals_provenance = from.arrivals_provenance;
  }
  if (from.assets)
    into.assets = from.assets;
  if (from.training)
    into.training = from.training;
  if (from.preprocess)
    into.preprocess = from.preprocess;
  if (from.tasks)
    into.tasks = from.tasks;
  if (from.models)
    into.models = from.models;
}

Model parse_model(const std::string& text, const std::string& file)
{
  json::Document doc = json::parse(text, file);
  json::Object root  = doc.object();
  auto version       = root.required("sgai_aiops_model");
  if (version.integer() != 1)
    version.fail("this sgai reads model files of version 1");
  Model m;
  if (auto av = root.optional("arrivals")) {
    json::Object a = av->object();
    ArrivalProfile p;
    if (auto pr = a.optional("provenance"))
      m.arrivals_provenance = pr->string();
    p.origin_hour = int(a.required("origin_hour").integer(0, kHoursPerWeek - 1));
    if (auto f = a.optional("factor"))
      p.factor = f->positive();
    json::Object overall = a.required("overall").object();
    p.overall            = read_distribution(overall);
    overall.finish();
    auto hv    = a.required("hours");
    auto hours = hv.array();
    if (hours.size() != size_t(kHoursPerWeek))
      hv.fail("an arrival profile has 168 hours (a week), not " + std::to_string(hours.size()));
    for (size_t h = 0; h < hours.size(); ++h) {
      json::Object o = hours[h].object();
      auto hour      = o.required("hour");
      if (hour.integer(0, kHoursPerWeek - 1) != int64_t(h))
        hour.fail("hours come in order: this is hour " + std::to_string(h));
      p.hours[h] = read_distribution(o);
      if (auto g = o.optional("gaps"))
        p.fitted[h] = uint64_t(g->integer(0));
      o.finish();
    }
    a.finish();
    m.arrivals = p;
  }
  if (auto av = root.optional("assets")) {
    json::Object a = av->object();
    AssetModel x;
    if (auto pr = a.optional("provenance"))
      x.provenance = pr->string();
    if (auto v = a.optional("min_rows"))
      x.min_rows = v->non_negative();
    if (auto v = a.optional("min_columns"))
      x.min_columns = v->non_negative();
    json::Object mix = a.required("log_rows_columns_bytes").object();
    x.mixture        = read_mixture(mix, 3);
    mix.finish();
    a.finish();
    m.assets = x;
  }
  if (auto tv = root.optional("training")) {
    json::Object t = tv->object();
    TrainingModel x;
    if (auto pr = t.optional("provenance"))
      x.provenance = pr->string();
    auto fv        = t.required("frameworks");
    json::Object f = fv.object();
    double share   = 0;
    for (const std::string& name : f.take_all_keys()) {
      json::Object one = f.required(name).object();
      TrainingModel::Framework fw;
      fw.share         = one.required("share").positive();
      json::Object mix = one.required("log_seconds").object();
      fw.log_seconds   = read_mixture(mix, 1);
      mix.finish();
      one.finish();
      share += fw.share;
      x.frameworks[name] = std::move(fw);
    }
    if (x.frameworks.empty() || std::fabs(share - 1) > 1e-6)
      fv.fail("the frameworks' shares sum to " + std::to_string(share) + ", not 1");
    t.finish();
    m.training = std::move(x);
  }
  if (auto pv = root.optional("preprocess")) {
    json::Object p = pv->object();
    PreprocessModel x;
    if (auto pr = p.optional("provenance"))
      x.provenance = pr->string();
    x.a     = p.required("a").positive();
    x.b     = p.required("b").number();
    x.sigma = p.required("sigma").non_negative();
    if (not std::isfinite(x.b))
      p.fail_at("b", "not finite");
    p.finish();
    m.preprocess = x;
  }
  if (auto tv = root.optional("tasks")) {
    json::Object t = tv->object();
    TaskModel x;
    if (auto pr = t.optional("provenance"))
      x.provenance = pr->string();
    if (auto v = t.optional("compress_noise"))
      x.compress_noise = v->non_negative();
    json::Object kinds = t.required("log_seconds").object();
    for (const std::string& kind : kinds.take_all_keys()) {
      json::Object mix    = kinds.required(kind).object();
      x.log_seconds[kind] = read_mixture(mix, 1);
      mix.finish();
    }
    t.finish();
    m.tasks = std::move(x);
  }
  if (auto mv = root.optional("models")) {
    json::Object o = mv->object();
    ModelAssetModel x;
    if (auto pr = o.optional("provenance"))
      x.provenance = pr->string();
    json::Object mix = o.required("log_bytes").object();
    x.log_bytes      = read_mixture(mix, 1);
    mix.finish();
    if (auto v = o.optional("metric")) {
      json::Object q = v->object();
      auto mean      = q.required("mean");
      x.metric_mean  = mean.non_negative();
      if (x.metric_mean > 1)
        mean.fail("a metric lies in [0, 1], not " + mean.shown());
      x.metric_sd = q.required("sd").non_negative();
      q.finish();
    }
    if (auto v = o.optional("compress_size"))
      x.compress_size = v->positive();
    if (auto v = o.optional("compress_metric"))
      x.compress_metric = v->positive();
    if (auto v = o.optional("transfer"))
      x.transfer = v->positive();
    if (auto v = o.optional("test_fraction"))
      x.test_fraction = v->non_negative();
    o.finish();
    m.models = std::move(x);
  }
  root.finish();
  return m;
}

Model read_model(const std::filesystem::path& file)
{
  return parse_model(read_text_file(file), file.string());
}

} // namespace sgai::aiops
