#include "core/sweep/campaign.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"

#include <nlohmann/json.hpp>

#include <cmath>
#include <set>

namespace sgai::sweep {

Space Campaign::space() const
{
  Space s;
  for (const auto& p : parameters)
    s.sizes.push_back(uint32_t(p.values.size()));
  return s;
}

namespace {

/** The document `text` (read as `file`) with each pointer's value replaced by a JSON text: the one
 *  place a document is edited at pointers. */
std::string with_values_at(const std::string& text, const std::string& file,
                           const std::vector<std::pair<std::string, std::string>>& values)
{
  nlohmann::json doc = json::raw(json::parse(text, file));
  for (const auto& [pointer, value] : values)
    doc[nlohmann::json::json_pointer(pointer)] = json::raw(json::parse(value, pointer));
  return doc.dump(2) + "\n";
}

std::string number_text(double v)
{
  if (std::floor(v) == v && std::fabs(v) < 1e15)
    return std::to_string(int64_t(v));
  nlohmann::json j = v;
  return j.dump();
}

} // namespace

Campaign parse_campaign(const std::string& text, const std::filesystem::path& file)
{
  json::Document doc = json::parse(text, file.string());
  json::Object root  = doc.object();
  auto version       = root.required("sgai_campaign");
  if (version.integer() != 1)
    version.fail("this sgai reads campaign files of version 1");
  Campaign c;
  c.file = file;
  c.name = file.stem().string();
  if (auto v = root.optional("name"))
    c.name = v->string();
  auto ev                 = root.required("experiment");
  std::filesystem::path e = ev.string();
  c.experiment            = e.is_absolute() ? e : file.parent_path() / e;
  try {
    c.experiment_text = read_text_file(c.experiment);
  } catch (const InputError& bad) {
    ev.fail("the base experiment " + c.experiment.string() + " cannot be read: " + bad.message());
  }
  json::Document base;
  try {
    base = json::parse(c.experiment_text, c.experiment.string());
  } catch (const InputError& bad) {
    ev.fail("the base experiment " + c.experiment.string() +
            " is not JSON: " + (bad.place().empty() ? "" : bad.place() + ": ") + bad.message());
  }
  auto has_pointer = [&base](const std::string& pointer) { return base.at(pointer).has_value(); };
  std::set<std::string> names;
  auto pv = root.required("parameters");
  for (const auto& v : pv.array()) {
    json::Object o = v.object();
    Parameter p;
    p.name = o.required("name").string();
    if (not names.insert(p.name).second)
      o.fail_at("name", "parameter " + quote(p.name) + " again");
    auto ptr  = o.required("pointer");
    p.pointer = ptr.string();
    if (p.pointer.empty() || p.pointer[0] != '/' || not has_pointer(p.pointer))
      ptr.fail("the base experiment " + c.experiment.string() + " has nothing at " + quote(p.pointer));
    if (auto vals = o.optional("values")) {
      auto list = vals->array();
      if (list.empty())
        vals->fail("a parameter takes at least one value");
      for (const auto& x : list)
        p.values.push_back(x.dump());
    }
    if (auto r = o.optional("range")) {
      if (not p.values.empty())
        r->fail("give values or a range, not both");
      json::Object ro = r->object();
      double from = ro.required("from").number(), to = ro.required("to").number();
      double step = ro.required("step").positive();
      if (not(std::isfinite(from) && std::isfinite(to)) || to < from)
        r->fail("a range goes from a number up to one at least as large");
      double n = std::floor((to - from) / step + 1e-9) + 1;
      if (n > 1e6)
        r->fail("a range of more than a million values");
      for (int64_t k = 0; k < int64_t(n); ++k)
        p.values.push_back(number_text(from + double(k) * step));
      ro.finish();
    }
    if (p.values.empty())
      o.fail("a parameter takes \"values\" or a \"range\"");
    if (auto w = o.optional("with")) {
      json::Object wo = w->object();
      for (const auto& key : wo.take_all_keys()) {
        if (key.empty() || key[0] != '/' || not has_pointer(key))
          wo.fail_at(key, "the base experiment " + c.experiment.string() + " has nothing at " + quote(key));
        auto list = wo.required(key);
        std::vector<std::string> texts;
        for (const auto& x : list.array())
          texts.push_back(x.dump());
        if (texts.size() != p.values.size())
          list.fail("a linked pointer takes one value per value of the parameter (" + std::to_string(p.values.size()) +
                    "), not " + std::to_string(texts.size()));
        p.with.emplace_back(key, std::move(texts));
      }
    }
    o.finish();
    c.parameters.push_back(std::move(p));
  }
  if (c.parameters.empty())
    pv.fail("a campaign sweeps at least one parameter");
  double points = 1;
  for (const auto& p : c.parameters)
    points *= double(p.values.size());
  if (points > 1e9)
    pv.fail("the space holds " + std::to_string(points) + " points, more than 1e9");

  json::Object obj = root.required("objective").object();
  c.objective      = obj.required("figure").string();
  if (c.objective.empty() || c.objective[0] != '/')
    obj.fail_at("figure", "the objective is a JSON pointer into a run's summary.json, such as "
                          "\"/components/batch/mean_bounded_slowdown\"");
  if (auto g = obj.optional("goal"))
    c.minimise = g->choice({"minimise", "maximise"}) == "minimise";
  obj.finish();
  if (auto s = root.optional("sla")) {
    json::Object so = s->object();
    if (auto d = so.optional("deadline")) {
      c.deadline_s = d->quantity(units::Quantity::time);
      if (not(c.deadline_s > 0))
        d->fail("a deadline lies in the future: a positive duration from the campaign's start");
    }
    if (auto m = so.optional("max_runs"))
      c.max_runs = uint64_t(m->integer(1, int64_t(1) << 40));
    so.finish();
  }
  if (auto v = root.optional("seed"))
    c.seed = uint64_t(v->integer(0));
  if (auto a = root.optional("assistant")) {
    json::Object ao = a->object();
    if (auto b = ao.optional("beta")) {
      c.beta = b->number();
      if (not(c.beta >= 0 && c.beta <= 1))
        b->fail("beta lies in [0, 1]");
    }
    if (auto x = ao.optional("eps"))
      c.eps = x->positive();
    if (auto x = ao.optional("min_points"))
      c.min_points = size_t(x->integer(1, 1 << 20));
    ao.finish();
  }
  root.finish();
  return c;
}

Campaign read_campaign(const std::filesystem::path& file)
{
  return parse_campaign(read_text_file(file), file);
}

std::string derived_experiment(const Campaign& c, const Point& p)
{
  std::vector<std::pair<std::string, std::string>> values;
  for (size_t d = 0; d < c.parameters.size(); ++d) {
    const Parameter& q = c.parameters[d];
    values.emplace_back(q.pointer, q.values.at(p[d]));
    for (const auto& [pointer, texts] : q.with)
      values.emplace_back(pointer, texts.at(p[d]));
  }
  return with_values_at(c.experiment_text, c.experiment.string(), values);
}

std::string shown_value(const std::string& json_text)
{
  try {
    auto doc = json::parse(json_text, "value");
    if (doc.value().is_string())
      return doc.value().string();
  } catch (const InputError&) {
  }
  return json_text;
}

double figure_of(const std::string& summary_json, const std::string& pointer)
{
  try {
    auto doc    = json::parse(summary_json, "summary.json");
    auto figure = doc.at(pointer);
    if (not figure || not figure->is_number())
      return std::nan("");
    return figure->number();
  } catch (const InputError&) {
    return std::nan("");
  }
}

} // namespace sgai::sweep
