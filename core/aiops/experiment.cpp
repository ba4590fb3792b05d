#include "core/aiops/experiment.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json.hpp"

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

/** The experiment's store: a host, or an object with the host and its disk's bandwidths. */
void parse_store(json::Object& root, ExperimentSpec& e)
{
  auto sv = root.required("store");
  if (sv.is_object()) {
    json::Object so = sv.object();
    e.store         = so.required("host").string();
    if (auto dv = so.optional("disk")) {
      json::Object d     = dv->object();
      e.store_disk_read  = d.required("read").quantity(units::Quantity::bandwidth);
      e.store_disk_write = d.required("write").quantity(units::Quantity::bandwidth);
      if (not(e.store_disk_read > 0) || not(e.store_disk_write > 0))
        dv->fail("a disk's read and write bandwidths are positive");
      d.finish();
    }
    so.finish();
  } else
    e.store = sv.string();
}

/** The model files: one, or an array of at least one, relative to `base`. */
void parse_models(json::Object& root, ExperimentSpec& e, const std::filesystem::path& base)
{
  auto path_of = [&base](const json::Value& v) {
    std::filesystem::path p = v.string();
    return p.is_absolute() ? p : base / p;
  };
  auto mv = root.required("model");
  if (mv.is_array()) {
    for (const auto& f : mv.array())
      e.models.push_back(path_of(f));
    if (e.models.empty())
      mv.fail("name at least one model file");
  } else
    e.models.push_back(path_of(mv));
}

/** The pools; returns the task kinds they serve (which kinds can run at all). */
std::set<std::string> parse_pools(json::Object& root, ExperimentSpec& e)
{
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
  return served;
}

/** One task of pipeline `p`, its name new among `task_names` and its kind one a pool serves. */
TaskSpec parse_task(const json::Value& t, const PipelineSpec& p, std::set<std::string>& task_names,
                    const std::set<std::string>& served)
{
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
  return task;
}

/** One pipeline, its name new among `pipeline_names`: its tasks, each waiting only for tasks of
 *  the pipeline, and their order. */
PipelineSpec parse_pipeline(const json::Value& v, std::set<std::string>& pipeline_names,
                            const std::set<std::string>& served)
{
  json::Object o = v.object();
  PipelineSpec p;
  p.name = o.required("name").string();
  if (not pipeline_names.insert(p.name).second)
    o.fail_at("name", "pipeline " + quote(p.name) + " again");
  if (auto s = o.optional("share"))
    p.share = s->non_negative();
  if (auto s = o.optional("parent"))
    p.parent = s->string();
  auto tv = o.required("tasks");
  std::set<std::string> task_names;
  for (const auto& t : tv.array())
    p.tasks.push_back(parse_task(t, p, task_names, served));
  if (p.tasks.empty())
    tv.fail("a pipeline has at least one task");
  for (size_t i = 0; i < p.tasks.size(); ++i)
    for (const std::string& a : p.tasks[i].after)
      if (not task_names.count(a))
        tv.array()[i].fail("waits for " + quote(a) + ", no task of pipeline " + quote(p.name));
  p.order = order_tasks(p, tv);
  o.finish();
  return p;
}

/** The pipelines, each parent one of them; returns their names. */
std::set<std::string> parse_pipelines(json::Object& root, ExperimentSpec& e, const std::set<std::string>& served)
{
  std::set<std::string> pipeline_names;
  auto lv    = root.required("pipelines");
  auto lines = lv.array();
  if (lines.empty())
    lv.fail("an experiment has at least one pipeline");
  for (const auto& v : lines)
    e.pipelines.push_back(parse_pipeline(v, pipeline_names, served));
  for (const PipelineSpec& p : e.pipelines)
    if (not p.parent.empty() && not pipeline_names.count(p.parent))
      lv.fail("pipeline " + quote(p.name) + " starts from " + quote(p.parent) + ", which is no pipeline");
  return pipeline_names;
}

/** How the deployed models drift: gradual, sudden and recurring patterns, at least one share positive. */
void parse_drift(const json::Value& v, DriftSpec& drift)
{
  json::Object f = v.object();
  double total   = 0;
  if (auto g = f.optional("gradual")) {
    json::Object x = g->object();
    drift.gradual  = x.required("share").non_negative();
    if (auto r = x.optional("per_day"))
      drift.gradual_per_day = r->positive();
    x.finish();
  } else
    drift.gradual = 0;
  if (auto g = f.optional("sudden")) {
    json::Object x = g->object();
    drift.sudden   = x.required("share").non_negative();
    if (auto r = x.optional("mean_onset"))
      drift.sudden_mean_onset = r->quantity(units::Quantity::time);
    if (auto r = x.optional("magnitude"))
      drift.sudden_magnitude = unit_interval(*r, "a magnitude");
    x.finish();
  }
  if (auto g = f.optional("recurring")) {
    json::Object x  = g->object();
    drift.recurring = x.required("share").non_negative();
    if (auto r = x.optional("period")) {
      drift.recurring_period = r->quantity(units::Quantity::time);
      if (not(drift.recurring_period > 0))
        r->fail("a period is positive");
    }
    if (auto r = x.optional("amplitude"))
      drift.recurring_amplitude = unit_interval(*r, "an amplitude");
    x.finish();
  }
  total = drift.gradual + drift.sudden + drift.recurring;
  if (not(total > 0))
    v.fail("give at least one drift pattern a positive share");
  f.finish();
}

/** The deployed models, if any: how many, the pipeline that trains them, their age and drift. */
void parse_deployed(json::Object& root, ExperimentSpec& e, const std::set<std::string>& pipeline_names)
{
  if (auto dv = root.optional("deployed")) {
    json::Object o  = dv->object();
    DeployedSpec& d = e.deployed;
    d.models        = uint32_t(o.required("models").integer(0, 1 << 20));
    auto pv2        = o.required("pipeline");
    d.pipeline      = pv2.string();
    if (not pipeline_names.count(d.pipeline))
      pv2.fail("no pipeline is named " + quote(d.pipeline));
    if (auto v = o.optional("initial_age"))
      d.initial_age = v->quantity(units::Quantity::time);
    if (auto v = o.optional("drift"))
      parse_drift(*v, d.drift);
    o.finish();
  }
}

/** The retraining triggers: a staleness threshold, a schedule's period or new data's mean interval. */
void parse_triggers(json::Object& root, ExperimentSpec& e)
{
  if (auto tv = root.optional("triggers"))
    for (const auto& v : tv->array()) {
      json::Object o = v.object();
      TriggerSpec t;
      t.kind   = o.required("kind").choice({"threshold", "schedule", "new_data"});
      auto val = o.required("value");
      if (t.kind == "threshold") {
        t.value = unit_interval(val, "a threshold");
        if (not(t.value > 0))
          val.fail("a staleness threshold is above 0");
      } else {
        t.value = val.quantity(units::Quantity::time);
        if (not(t.value > 0))
          val.fail(t.kind == "schedule" ? "a schedule's period is positive"
                                        : "a mean interval between new data is positive");
      }
      o.finish();
      e.triggers.push_back(t);
    }
}

} // namespace

ExperimentSpec parse_experiment(const std::string& text, const std::filesystem::path& file)
{
  json::Document doc = json::parse(text, file.string());
  json::Object root  = doc.object();
  auto version       = root.required("sgai_aiops_experiment");
  if (version.integer() != 1)
    version.fail("this sgai reads experiment files of version 1");
  std::filesystem::path base     = file.parent_path();
  std::filesystem::path platform = root.required("platform").string();
  ExperimentSpec e               = parse_experiment_object(root, file, base);
  e.platform                     = platform.is_absolute() ? platform : base / platform;
  return e;
}

ExperimentSpec parse_experiment_object(json::Object& root, const std::filesystem::path& file,
                                       const std::filesystem::path& base)
{
  ExperimentSpec e;
  e.file = file;
  parse_store(root, e);
  parse_models(root, e, base);
  e.duration_s = root.required("duration").quantity(units::Quantity::time);
  if (not(e.duration_s > 0))
    root.fail_at("duration", "a simulated duration is positive");
  if (auto t = root.optional("transfers"))
    e.transfers =
        t->choice({"analytic", "contended"}) == "contended" ? TransferMode::contended : TransferMode::analytic;
  if (auto s = root.optional("seed"))
    e.seed = uint64_t(s->integer(0));
  if (auto s = root.optional("strategy"))
    e.strategy = s->choice({"fifo", "shortest"});
  if (auto s = root.optional("interarrival_factor"))
    e.interarrival_factor = s->positive();

  // pools: which kinds can run at all
  std::set<std::string> served         = parse_pools(root, e);
  std::set<std::string> pipeline_names = parse_pipelines(root, e, served);
  parse_deployed(root, e, pipeline_names);
  parse_triggers(root, e);
  if (not e.triggers.empty() && e.deployed.models == 0)
    root.fail_at("triggers", "triggers retrain deployed models: give \"deployed\" with at least one model");
  root.finish();
  return e;
}

ExperimentSpec read_experiment(const std::filesystem::path& file)
{
  return parse_experiment(read_text_file(file), file);
}

} // namespace sgai::aiops
