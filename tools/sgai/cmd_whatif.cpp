/* sgai whatif: Daydream's what-if analysis on PyTorch profiler (Kineto) traces.
 *   graph TRACE     the dependency graph: tasks by kind and thread, layers, the critical path;
 *                   --out DIR writes the walk as a Perfetto trace with the path marked
 *   predict TRACE   baseline and prediction after --apply optimizations, walked (Algorithm 1) or
 *                   replayed on SimGrid (--via replay)
 *   list            the optimizations */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "core/whatif/analysis.hpp"
#include "core/whatif/build.hpp"
#include "core/whatif/optimize.hpp"
#include "core/whatif/walk.hpp"
#include "generators/platform/catalogue.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/whatif_sim/sim_run.hpp"
#include "tools/sgai/commands.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <algorithm>
#include <iomanip>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>

namespace sgai::cli {

namespace {

namespace fs = std::filesystem;
using namespace sgai::whatif;

struct WhatIfArgs {
  std::string trace;
  std::string out;
  std::vector<std::string> apply;
  std::string gpu;
  std::string target;
  std::string catalogue;
  double power_cap      = 0;
  double tensor_cap     = 3;
  double bandwidth      = 2;
  std::string precision = "fp32";
  std::vector<std::string> params;
  std::string via = "walk";
  std::string platform;
  int64_t ranks = 0;
  bool no_nccl  = false;
};

std::string ms_of_ns(int64_t ns)
{
  return format_fixed(double(ns) * 1e-6, 3);
}

struct Loaded {
  Graph graph;
  BuildReport report;
  platform::Catalogue catalogue;
  const platform::GpuType* gpu    = nullptr;
  const platform::GpuType* target = nullptr;
};

std::unique_ptr<Loaded> load(const WhatIfArgs& a)
{
  auto l = std::make_unique<Loaded>();
  std::vector<KinetoTrace> traces;
  for (const fs::path& f : trace_files(a.trace))
    traces.push_back(read_kineto(f));
  l->graph                   = build_joined(traces, BuildOptions{}, &l->report);
  l->catalogue               = platform::load_catalogue(a.catalogue.empty() ? default_catalogue() : a.catalogue);
  const std::string cat_file = a.catalogue.empty() ? default_catalogue() : a.catalogue;
  if (not a.gpu.empty())
    l->gpu = &platform::named_gpu(l->catalogue, a.gpu, "--gpu", cat_file);
  else if (not traces.front().devices.empty()) {
    // the device the GPU events ran on
    int device = 0;
    for (const Event& e : traces.front().events)
      if (e.kind == EventKind::kernel && e.device >= 0) {
        device = e.device;
        break;
      }
    const DeviceProperties* d = &traces.front().devices.front();
    for (const DeviceProperties& x : traces.front().devices)
      if (x.id == device)
        d = &x;
    l->gpu = platform::find_gpu_by_device_name(l->catalogue, d->name, d->multiprocessors, d->memory_bytes);
  }
  if (not a.target.empty())
    l->target = &platform::named_gpu(l->catalogue, a.target, "--target", cat_file);
  if (l->gpu) {
    l->graph.power.gpu    = l->gpu->name;
    l->graph.power.idle_w = l->gpu->idle_w;
    l->graph.power.busy_w = l->gpu->max_w;
  }
  return l;
}

void write_perfetto(std::ostream& out, const Graph& g, const WalkResult& w, const std::vector<char>& critical)
{
  json::Writer j(out);
  j.begin_object().key("traceEvents").begin_array();
  for (size_t t = 0; t < g.threads.size(); ++t) {
    j.begin_object(true)
        .field("name", "thread_name")
        .field("ph", "M")
        .field("pid", g.trace_rank(g.threads[t].rank))
        .field("tid", int64_t(t))
        .key("args")
        .begin_object(true)
        .field("name", g.threads[t].name)
        .end_object()
        .end_object();
  }
  for (uint32_t i = 0; i < g.tasks.size(); ++i) {
    const Task& t = g.tasks[i];
    if (t.removed || t.thread == kNone)
      continue;
    j.begin_object(true)
        .field("name", g.names[t.name])
        .field("cat", to_string(t.kind))
        .field("ph", "X")
        .field("pid", g.trace_rank(t.rank))
        .field("tid", int64_t(t.thread))
        .field("ts", double(w.start[i] - w.origin) * 1e-3)
        .field("dur", double(t.dur_ns) * 1e-3)
        .key("args")
        .begin_object(true)
        .field("phase", to_string(t.phase))
        .field("layer", t.layer == kNone ? std::string() : g.layers[t.layer].name);
    if (not critical.empty() && critical[i])
      j.field("critical", true);
    j.end_object().end_object();
  }
  j.end_array().end_object();
  out << "\n";
}

int run_graph(const WhatIfArgs& a)
{
  if (not a.out.empty())
    check_output_dir(a.out);
  auto l         = load(a);
  const Graph& g = l->graph;
  WalkResult w   = walk(g);
  auto path      = critical_path(g, w);
  auto& o        = std::cout;
  std::map<std::string, uint64_t> kinds;
  for (const Task& t : g.tasks)
    if (not t.removed)
      kinds[to_string(t.kind)]++;
  o << "Trace: " << a.trace << " (" << g.ranks.size() << " rank" << (g.ranks.size() > 1 ? "s" : "") << ", GPU "
    << (g.ranks.front().gpu.empty() ? "?" : g.ranks.front().gpu)
    << (l->gpu ? " = catalogue " + l->gpu->name : std::string(" (not in the catalogue)")) << ")\n";
  o << "Tasks: " << g.live_tasks() << " (";
  bool first = true;
  for (auto& [k, n] : kinds) {
    o << (first ? "" : ", ") << n << " " << k;
    first = false;
  }
  o << "), edges " << g.edges.size() << " (sync " << l->report.sync_edges << ", between streams "
    << l->report.stream_edges << ", between CPU threads " << l->report.handoff_edges << ", collectives joined "
    << l->report.collectives_joined << ")\n";
  if (l->report.unlaunched)
    o << "GPU events without their launch: " << l->report.unlaunched << " (their iterations are no baseline)\n";
  o << "Layers: " << g.layers.size() << "\n";
  o << "Threads:\n";
  for (const ThreadFigures& t : thread_figures(g))
    o << "  " << std::left << std::setw(34) << t.name << std::right << std::setw(8) << t.tasks << " tasks "
      << std::setw(12) << ms_of_ns(t.busy_ns) << " ms busy\n";
  std::map<std::string, std::pair<uint64_t, int64_t>> on_path;
  for (uint32_t u : path) {
    auto& x = on_path[to_string(g.tasks[u].kind)];
    x.first++;
    x.second += g.tasks[u].dur_ns;
  }
  o << "Critical path: " << path.size() << " tasks over " << ms_of_ns(w.finish - w.origin) << " ms (";
  first = true;
  for (auto& [k, x] : on_path) {
    o << (first ? "" : ", ") << x.first << " " << k << " " << ms_of_ns(x.second) << " ms";
    first = false;
  }
  o << ")\n";
  for (const StepFigures& s : step_figures(g, w))
    o << "  rank " << s.rank << " " << s.name << ": " << ms_of_ns(s.time_ns) << " ms\n";
  if (not a.out.empty()) {
    std::vector<char> critical(g.tasks.size(), 0);
    for (uint32_t u : path)
      critical[u] = 1;
    StagingDir staging(a.out);
    AtomicFile f(staging.path() / "graph.json");
    write_perfetto(f.stream(), g, w, critical);
    f.commit();
    staging.publish();
    o << "Wrote " << (fs::path(a.out) / "graph.json").string() << " (Perfetto / chrome://tracing)\n";
  }
  return 0;
}

WhatIfContext context(const WhatIfArgs& a, const Loaded& l)
{
  WhatIfContext ctx;
  ctx.gpu              = l.gpu;
  ctx.target           = l.target;
  ctx.precision        = a.precision;
  ctx.power_cap_w      = a.power_cap;
  ctx.tensor_cap       = a.tensor_cap;
  ctx.bandwidth_factor = a.bandwidth;
  for (const std::string& p : a.params) {
    auto eq = p.find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("--param: " + quote(p) + " is not NAME=VALUE");
    ctx.params[p.substr(0, eq)] = p.substr(eq + 1);
  }
  return ctx;
}

WalkResult predict_run(const Graph& g, const WhatIfArgs& a, double* energy_j, uint64_t* collectives = nullptr)
{
  if (energy_j)
    *energy_j = 0;
  if (not a.platform.empty()) {
    whatif_sim::PlatformOptions po;
    po.platform                  = a.platform;
    po.ranks                     = uint32_t(a.ranks > 0 ? a.ranks : 1);
    po.nccl                      = not a.no_nccl;
    whatif_sim::PlatformResult r = whatif_sim::run_on_platform_forked(g, po);
    if (energy_j)
      *energy_j = r.gpu_energy_j;
    if (collectives)
      *collectives = r.collectives;
    return std::move(r.ranks.front());
  }
  if (a.via == "replay") {
    whatif_sim::SimResult r = whatif_sim::run_on_simgrid_forked(g);
    if (energy_j)
      *energy_j = r.gpu_energy_j;
    return std::move(r.walk);
  }
  return walk(g);
}

int run_predict(const WhatIfArgs& given)
{
  WhatIfArgs a = given;
  check_output_dir(a.out);
  if (a.platform.empty() && a.no_nccl)
    throw UsageError("--no-nccl goes with --platform");
  if (not a.platform.empty())
    a.via = "replay"; // a platform is SimGrid's
  auto l            = load(a);
  WhatIfContext ctx = context(a, *l);
  // --ranks: the data-parallel world of ddp and the like (unless --param ddp.ranks says otherwise),
  // and the copies on --platform
  if (a.ranks > 0 && not ctx.params.count("ddp.ranks"))
    ctx.params["ddp.ranks"] = std::to_string(a.ranks);
  if (a.ranks == 0 && not a.platform.empty())
    a.ranks = int64_t(ctx.number("ddp.ranks", 1));
  Graph predicted   = l->graph;
  auto notes        = apply_optimizations(predicted, a.apply, ctx);
  double base_sim_j = 0, pred_sim_j = 0;
  WalkResult base              = predict_run(l->graph, a, &base_sim_j);
  uint64_t network_collectives = 0;
  WalkResult pred              = predict_run(predicted, a, &pred_sim_j, &network_collectives);
  auto bs                      = step_figures(l->graph, base);
  auto ps                      = step_figures(predicted, pred);

  int64_t base_sum = 0, pred_sum = 0, measured_sum = 0;
  double base_e = 0, pred_e = 0;
  size_t counted = 0;
  for (size_t i = 0; i < bs.size(); ++i)
    if (bs[i].unlaunched == 0) {
      base_sum += bs[i].time_ns;
      pred_sum += ps[i].time_ns;
      measured_sum += l->graph.steps[i].measured_ns;
      base_e += bs[i].gpu_energy_j;
      pred_e += ps[i].gpu_energy_j;
      ++counted;
    }
  if (counted == 0)
    throw InputError(a.trace, "", "every iteration holds GPU events without their launch: no baseline");
  double speedup = pred_sum > 0 ? double(base_sum) / double(pred_sum) : 0;

  StagingDir staging(a.out);
  {
    AtomicFile f(staging.path() / "steps.csv");
    auto& s = f.stream();
    s << "rank,step,baseline,measured_ms,walk_ms,predicted_ms,speedup,cpu_only_ms,gpu_only_ms,overlapped_ms,"
         "pred_cpu_only_ms,pred_gpu_only_ms,pred_overlapped_ms,kernel_ms,pred_kernel_ms,comm_ms,pred_comm_ms,"
         "energy_j,pred_energy_j\n";
    for (size_t i = 0; i < bs.size(); ++i) {
      const StepFigures &b = bs[i], &p = ps[i];
      s << b.rank << "," << b.name << "," << (b.unlaunched == 0 ? "yes" : "no") << ","
        << ms_of_ns(l->graph.steps[i].measured_ns) << "," << ms_of_ns(b.time_ns) << "," << ms_of_ns(p.time_ns) << ","
        << format_fixed(p.time_ns > 0 ? double(b.time_ns) / double(p.time_ns) : 0, 4) << "," << ms_of_ns(b.cpu_only_ns)
        << "," << ms_of_ns(b.gpu_only_ns) << "," << ms_of_ns(b.overlapped_ns) << "," << ms_of_ns(p.cpu_only_ns) << ","
        << ms_of_ns(p.gpu_only_ns) << "," << ms_of_ns(p.overlapped_ns) << "," << ms_of_ns(b.kernel_ns) << ","
        << ms_of_ns(p.kernel_ns) << "," << ms_of_ns(b.comm_ns) << "," << ms_of_ns(p.comm_ns) << ","
        << format_fixed(b.gpu_energy_j, 6) << "," << format_fixed(p.gpu_energy_j, 6) << "\n";
    }
    f.commit();
  }
  {
    AtomicFile f(staging.path() / "threads.csv");
    auto& s = f.stream();
    s << "thread,kind,tasks,busy_ms,pred_tasks,pred_busy_ms\n";
    auto bt = thread_figures(l->graph), pt = thread_figures(predicted);
    for (size_t i = 0; i < bt.size(); ++i)
      s << '"' << bt[i].name << "\"," << to_string(bt[i].kind) << "," << bt[i].tasks << "," << ms_of_ns(bt[i].busy_ns)
        << "," << pt[i].tasks << "," << ms_of_ns(pt[i].busy_ns) << "\n";
    f.commit();
  }
  {
    AtomicFile f(staging.path() / "layers.csv");
    auto& s = f.stream();
    s << "layer,phase,cpu_ms,gpu_ms,pred_cpu_ms,pred_gpu_ms\n";
    auto bl = layer_figures(l->graph), pl = layer_figures(predicted);
    for (size_t i = 0; i < bl.size(); ++i) {
      std::string name = bl[i].name;
      std::replace(name.begin(), name.end(), '"', '\'');
      s << '"' << name << "\"," << to_string(bl[i].phase) << "," << ms_of_ns(bl[i].cpu_ns) << ","
        << ms_of_ns(bl[i].gpu_ns) << "," << ms_of_ns(pl[i].cpu_ns) << "," << ms_of_ns(pl[i].gpu_ns) << "\n";
    }
    f.commit();
  }
  {
    AtomicFile f(staging.path() / "prediction.json");
    write_perfetto(f.stream(), predicted, pred, {});
    f.commit();
  }
  {
    AtomicFile f(staging.path() / "summary.json");
    json::Writer j(f.stream());
    j.begin_object();
    j.field("trace", a.trace).field("ranks", uint64_t(l->graph.ranks.size()));
    j.key("trace_ranks").begin_array(true); // the ranks the traces give themselves (distributedInfo)
    for (const RankInfo& r : l->graph.ranks)
      j.value(r.rank);
    j.end_array();
    j.field("gpu", l->graph.ranks.front().gpu).field("catalogue_gpu", l->gpu ? l->gpu->name : std::string());
    j.field("via", a.via);
    j.key("optimizations").begin_array();
    for (const OptimizationNote& n : notes)
      j.begin_object(true)
          .field("name", n.name)
          .field("tasks_changed", n.tasks_changed)
          .field("tasks_removed", n.tasks_removed)
          .field("tasks_inserted", n.tasks_inserted)
          .field("detail", n.detail)
          .end_object();
    j.end_array();
    j.field("iterations", uint64_t(counted));
    j.field("measured_ms", double(measured_sum) * 1e-6 / double(counted));
    j.field("baseline_ms", double(base_sum) * 1e-6 / double(counted));
    j.field("predicted_ms", double(pred_sum) * 1e-6 / double(counted));
    j.field("speedup", speedup);
    j.field("energy_j", base_e / double(counted)).field("predicted_energy_j", pred_e / double(counted));
    if (a.via == "replay") // SimGrid's host energy plugin over the whole run (all iterations)
      j.field("simgrid_energy_j", base_sim_j).field("simgrid_predicted_energy_j", pred_sim_j);
    if (not a.platform.empty())
      j.field("platform", a.platform)
          .field("platform_ranks", a.ranks > 0 ? a.ranks : int64_t(1))
          .field("network_collectives", network_collectives);
    j.end_object();
    f.stream() << "\n";
    f.commit();
  }
  staging.publish();

  auto& o = std::cout;
  o << "Trace: " << a.trace << " (" << l->graph.ranks.size() << " rank" << (l->graph.ranks.size() > 1 ? "s" : "")
    << ", GPU " << (l->gpu ? l->gpu->name : std::string("not in the catalogue")) << ")\n";
  for (const OptimizationNote& n : notes)
    o << "Applied " << n.name << ": " << n.tasks_changed << " tasks changed, " << n.tasks_removed << " removed, "
      << n.tasks_inserted << " inserted" << (n.detail.empty() ? "" : " (" + n.detail + ")") << "\n";
  o << "Iteration (mean of " << counted << "): measured " << ms_of_ns(measured_sum / int64_t(counted))
    << " ms, baseline " << ms_of_ns(base_sum / int64_t(counted)) << " ms, predicted "
    << ms_of_ns(pred_sum / int64_t(counted)) << " ms, speed-up " << format_fixed(speedup, 3) << "x (" << a.via << ")\n";
  if (base_e > 0)
    o << "GPU energy per iteration: " << format_fixed(base_e / double(counted), 3) << " J -> "
      << format_fixed(pred_e / double(counted), 3) << " J\n";
  o << "Wrote summary.json, steps.csv, threads.csv, layers.csv, prediction.json in " << a.out << "\n";
  return 0;
}

void add_common(CLI::App* cmd, WhatIfArgs& a)
{
  cmd->add_option("trace", a.trace, "Kineto trace (JSON, plain or gzip), or a folder of one trace per rank")
      ->required();
  add_path(cmd, "--catalogue", a.catalogue, "GPU catalogue (default: platforms/catalogues/accelerators.json)");
  cmd->add_option("--gpu", a.gpu, "The trace's GPU type in the catalogue (default: from deviceProperties)");
}

} // namespace

void add_whatif_commands(CLI::App& app, Action& action)
{
  auto* whatif = app.add_subcommand("whatif", "What-if analysis of training optimizations from PyTorch profiler "
                                              "traces (Daydream's dependency graph)");
  whatif->require_subcommand(1);

  auto ga    = std::make_shared<WhatIfArgs>();
  auto* gcmd = whatif->add_subcommand("graph", "The dependency graph of a trace: tasks, threads, critical path");
  add_common(gcmd, *ga);
  add_path(gcmd, "--out", ga->out, "Output folder for graph.json (the walk as a Perfetto trace, path marked)");
  gcmd->callback([ga, &action]() { action = [ga]() { return run_graph(*ga); }; });

  auto pa    = std::make_shared<WhatIfArgs>();
  auto* pcmd = whatif->add_subcommand("predict", "Predict an iteration after optimizations");
  add_common(pcmd, *pa);
  pcmd->add_option("--apply", pa->apply, "Optimizations, applied in order (sgai whatif list)")->delimiter(',');
  pcmd->add_option("--target", pa->target, "gpu: the GPU type to predict for (a catalogue name)");
  add_real(pcmd, "--power-cap", pa->power_cap, "power-cap: the cap in W", 0, 1e6);
  add_real(pcmd, "--tensor-cap", pa->tensor_cap, "amp, gpu: the largest tensor-core speed-up (Daydream: 3)", 1, 1e3);
  add_real(pcmd, "--bandwidth-factor", pa->bandwidth, "bandwidth: the network bandwidth multiplier", 1e-3, 1e6);
  pcmd->add_option("--precision", pa->precision, "The precision kernels ran in unless their names say (fp32)")
      ->check(CLI::IsMember({"fp32", "tf32", "fp16", "bf16"}));
  pcmd->add_option("--param", pa->params, "An optimization's parameter NAME=VALUE (repeatable)");
  pcmd->add_option("--via", pa->via, "walk (Daydream's Algorithm 1, default) or replay (the graph on SimGrid)")
      ->check(CLI::IsMember({"walk", "replay"}));
  add_path(pcmd, "--platform", pa->platform,
           "One rank's trace run on SimGrid (--via replay implied) as --ranks copies on this sgai platform's "
           "GPUs, its collectives over the network as NCCL runs them there");
  add_count(pcmd, "--ranks", pa->ranks,
            "Data-parallel ranks: ddp's world (default of ddp.ranks) and the copies on --platform", 1, 65'536);
  pcmd->add_flag("--no-nccl", pa->no_nccl, "With --platform: ring collectives instead of NCCL's choice");
  add_path(pcmd, "--out", pa->out, "Output folder")->required();
  pcmd->callback([pa, &action]() { action = [pa]() { return run_predict(*pa); }; });

  auto* lcmd = whatif->add_subcommand("list", "The optimizations");
  lcmd->callback([&action]() {
    action = []() {
      for (const Optimization& o : optimizations())
        std::cout << std::left << std::setw(18) << o.name << o.summary << "\n";
      return 0;
    };
  });
}

} // namespace sgai::cli
