#include "aiops/model.hpp"

#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json.hpp"
#include "generators/util/json_writer.hpp"

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
  j.end_object();
  out << "\n";
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
  root.finish();
  return m;
}

Model read_model(const std::filesystem::path& file)
{
  return parse_model(read_text_file(file), file.string());
}

} // namespace sgai::aiops
