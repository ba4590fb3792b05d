#include "aiops/experiment.hpp"

#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json.hpp"

#include <algorithm>
#include <map>
#include <set>

namespace sgai::aiops {

namespace {

std::vector<std::string> strings(const json::Value& v)
{
  std::vector<std::string> out;
  for (const auto& x : v.array())
    out.push_back(x.string());
  return out;
}

double unit_interval(const json::Value& v, const std::string& what)
{
  double d = v.number();
  if (not(d >= 0 && d <= 1))
    v.fail(what + " lies in [0, 1], not " + v.shown());
  return d;
}

/** Kahn's order of the tasks; a cycle is an error at the pipeline naming its tasks. */
std::vector<size_t> order_tasks(const PipelineSpec& p, const json::Value& where)
{
  std::map<std::string, size_t> index;
  for (size_t i = 0; i < p.tasks.size(); ++i)
    index[p.tasks[i].name] = i;
  std::vector<size_t> waiting(p.tasks.size(), 0);
  std::vector<std::vector<size_t>> children(p.tasks.size());
  for (size_t i = 0; i < p.tasks.size(); ++i)
    for (const std::string& a : p.tasks[i].after) {
      children[index.at(a)].push_back(i);
      ++waiting[i];
    }
  std::vector<size_t> order, ready;
  for (size_t i = 0; i < p.tasks.size(); ++i)
    if (waiting[i] == 0)
      ready.push_back(i);
  while (not ready.empty()) {
    size_t i = ready.front();
    ready.erase(ready.begin());
    order.push_back(i);
    for (size_t c : children[i])
      if (--waiting[c] == 0)
        ready.push_back(c);
  }
  if (order.size() != p.tasks.size()) {
    std::string cycle;
    for (size_t i = 0; i < p.tasks.size(); ++i)
      if (waiting[i] > 0)
        cycle += (cycle.empty() ? "" : ", ") + p.tasks[i].name;
    where.fail("the tasks of pipeline " + quote(p.name) + " wait for each other in a cycle: " + cycle);
  }
  return order;
}

} // namespace

ExperimentSpec parse_experiment(const std::string& text, const std::filesystem::path& file)
{
  json::Document doc = json::parse(text, file.string());
  json::Object root  = doc.object();
  auto version       = root.required("sgai_aiops_experiment");
  if (version.integer() != 1)
    version.fail("this sgai reads experiment files of version 1");
  ExperimentSpec e;
  e.file       = file;
  auto base    = file.parent_path();
  auto path_of = [&base](const json::Value& v) {
    std::filesystem::path p = v.string();
    return p.is_absolute() ? p : base / p;
  };
  e.platform   = path_of(root.required("platform"));
  e.store      = root.required("store").string();
  e.model      = path_of(root.required("model"));
  e.duration_s = root.required("duration").quantity(units::Quantity::time);
  if (not(e.duration_s > 0))
    root.fail_at("duration", "a simulated duration is positive");
  if (auto t = root.optional("transfers"))
    e.transfers =
        t->choice({"analytic", "contended"}) == "contended" ? TransferMode::contended : TransferMode::analytic;
  if (auto s = root.optional("seed"))
    e.seed = uint64_t(s->integer(0));

  // pools: which kinds can run at all
  std::set<std::string> served, pool_names;
  auto pv = root.required("pools");
  for (const auto& v : pv.array()) {
    json::Object o = v.object();
    PoolSpec p;
    p.name = o.required("name").string();
    if (not pool_names.insert(p.name).second)
      o.fail_at("name", "pool " + quote(p.name) + " again");
    auto hv = o.required("hosts");
    p.hosts = strings(hv);
    if (p.hosts.empty())
      hv.fail("a pool runs on at least one host");
    if (auto s = o.optional("slots_per_host"))
      p.slots_per_host = uint32_t(s->integer(1, 1 << 20));
    auto kv = o.required("kinds");
    p.kinds = strings(kv);
    if (p.kinds.empty())
      kv.fail("a pool executes at least one task kind");
    served.insert(p.kinds.begin(), p.kinds.end());
    o.finish();
    e.pools.push_back(std::move(p));
  }
  if (e.pools.empty())
    pv.fail("an experiment has at least one pool");

  std::set<std::string> pipeline_names;
  auto lv    = root.required("pipelines");
  auto lines = lv.array();
  if (lines.empty())
    lv.fail("an experiment has at least one pipeline");
  for (const auto& v : lines) {
    json::Object o = v.object();
    PipelineSpec p;
    p.name = o.required("name").string();
    if (not pipeline_names.insert(p.name).second)
      o.fail_at("name", "pipeline " + quote(p.name) + " again");
    if (auto s = o.optional("share"))
      p.share = s->positive();
    if (auto s = o.optional("parent"))
      p.parent = s->string();
    auto tv = o.required("tasks");
    std::set<std::string> task_names;
    for (const auto& t : tv.array()) {
      json::Object to = t.object();
      TaskSpec task;
      task.name = to.required("name").string();
      if (not task_names.insert(task.name).second)
        to.fail_at("name", "task " + quote(task.name) + " again in pipeline " + quote(p.name));
      auto kind = to.required("kind");
      task.kind = kind.string();
      if (not served.count(task.kind))
        kind.fail("task kind " + quote(task.kind) + " has no executor: no pool lists it in its kinds");
      if (auto a = to.optional("after"))
        task.after = strings(*a);
      if (auto pr = to.optional("probability"))
        task.probability = unit_interval(*pr, "a probability");
      if (auto gv = to.optional("gate"))
        task.gate = unit_interval(*gv, "a quality gate");
      to.finish();
      p.tasks.push_back(std::move(task));
    }
    if (p.tasks.empty())
      tv.fail("a pipeline has at least one task");
    for (size_t i = 0; i < p.tasks.size(); ++i)
      for (const std::string& a : p.tasks[i].after)
        if (not task_names.count(a))
          tv.array()[i].fail("waits for " + quote(a) + ", no task of pipeline " + quote(p.name));
    p.order = order_tasks(p, tv);
    o.finish();
    e.pipelines.push_back(std::move(p));
  }
  for (const PipelineSpec& p : e.pipelines)
    if (not p.parent.empty() && not pipeline_names.count(p.parent))
      lv.fail("pipeline " + quote(p.name) + " starts from " + quote(p.parent) + ", which is no pipeline");

  if (auto tv = root.optional("triggers"))
    for (const auto& v : tv->array()) {
      json::Object o = v.object();
      TriggerSpec t;
      t.kind = o.required("kind").choice({"threshold", "schedule", "new_data"});
      if (t.kind != "new_data") {
        auto val = o.required("value");
        t.value  = t.kind == "schedule" ? val.quantity(units::Quantity::time) : unit_interval(val, "a threshold");
        if (t.kind == "schedule" && not(t.value > 0))
          val.fail("a schedule's period is positive");
      }
      o.finish();
      e.triggers.push_back(t);
    }
  root.finish();
  return e;
}

ExperimentSpec read_experiment(const std::filesystem::path& file)
{
  return parse_experiment(read_text_file(file), file);
}

} // namespace sgai::aiops
