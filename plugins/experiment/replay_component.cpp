/* Component "replay": Chakra traces replayed on the experiment's platform (docs/replay.md), each
 * rank on a GPU host: by default the platform's GPUs in hierarchy order (JSON platforms), or the
 * hosts named in "gpus". Optional ASTRA-sim system JSON (collective algorithms, chunks, local
 * memory bandwidth) and communicator groups. */
#include "chakra/et_io.hpp"
#include "core/collectives/nccl_plan.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/experiment/component.hpp"
#include "plugins/replay/replay.hpp"

#include <algorithm>
#include <set>
#include <simgrid/s4u/Host.hpp>

#include <fstream>
#include <unistd.h>

namespace sgai::experiment {

namespace {

class ReplayComponent : public Component {
public:
  static constexpr size_t kManyRanks = 4096;

  ReplayComponent(replay::ReplayOptions options, bool use_nccl, std::vector<std::vector<std::filesystem::path>> jobs,
                  std::vector<std::string> names, std::vector<std::string> gpus,
                  std::map<std::string, std::vector<uint32_t>> groups, std::string where)
      : options_(std::move(options))
      , use_nccl_(use_nccl)
      , jobs_(std::move(jobs))
      , names_(std::move(names))
      , gpus_(std::move(gpus))
      , groups_(std::move(groups))
      , where_(std::move(where))
  {
  }

  /** Thousands of ranks, each with its actors: SimGrid gives every actor a stack with a guard page,
   *  two memory mappings, and Linux allows 65,530 by default (vm.max_map_count), which 16,384 ranks
   *  exceed. Above kManyRanks, stacks of 64 KiB without guard pages (from the heap: no mapping);
   *  the replay's actors run flat loops. The user's own --cfg still wins. */
  std::vector<std::string> simgrid_args() const override
  {
    size_t ranks = 0;
    for (const auto& j : jobs_)
      ranks += j.size();
    if (ranks <= kManyRanks)
      return {};
    return {"--cfg=contexts/guard-size:0", "--cfg=contexts/stack-size:64"};
  }

  void setup(RunContext& ctx) override
  {
    std::vector<std::string> gpus = gpus_, cpus;
    if (gpus.empty()) {
      if (ctx.platform == nullptr || ctx.platform->gpus.empty())
        throw InputError(where_, "gpus", "the platform has no GPU in its hierarchy: name the ranks' hosts in \"gpus\"");
      // CPU operators run on the first CPU host of the GPU's node
      for (const auto& g : ctx.platform->gpus) {
        gpus.push_back(ctx.platform->hosts[g.host].name);
        const auto& node = ctx.platform->nodes[g.node];
        cpus.push_back(node.cpu_host_count > 0 ? ctx.platform->hosts[node.first_cpu_host].name : gpus.back());
      }
    }
    size_t ranks = 0;
    for (const auto& j : jobs_)
      ranks += j.size();
    if (ranks > gpus.size())
      throw InputError(where_, "workloads",
                       std::to_string(ranks) + " ranks but only " + std::to_string(gpus.size()) +
                           " GPUs to map them on");
    // the log goes straight into the component's staging folder: nothing is written elsewhere, and
    // a failed or interrupted run takes it away with the rest
    log_path_ = ctx.output_dir / "replay_log.csv";
    log_.open(log_path_);
    if (not log_)
      throw RunError("cannot write " + log_path_.string());
    log_ << "rank,node_id,event,time_us,type,name\n";
    options_.log = &log_;
    // channels over rails: the ranks of a node, as many as the first GPU's node holds (hierarchy order)
    if (options_.channels > 1 && options_.channel_block == 0 && gpus_.empty() && ctx.platform != nullptr &&
        not ctx.platform->gpus.empty())
      options_.channel_block = ctx.platform->nodes[ctx.platform->gpus[0].node].gpu_count;
    // NCCL's algorithms and protocols on platforms whose GPUs name their architecture
    if (use_nccl_ && ctx.platform != nullptr)
      options_.nccl = collectives::nccl_system(*ctx.platform);
    std::map<std::string, uint32_t> node_of;
    if (ctx.platform != nullptr)
      for (const auto& h : ctx.platform->hosts)
        node_of.emplace(h.name, h.node);
    options_.network_to_itself = options_.network_to_itself && ctx.alone; // no other component sends
    replay_                    = std::make_unique<replay::Replay>(options_);
    size_t next                = 0;
    for (size_t j = 0; j < jobs_.size(); j++) {
      replay::JobSpec spec;
      spec.name  = names_[j];
      spec.files = jobs_[j];
      for (size_t r = 0; r < spec.files.size(); r++) {
        auto* h = simgrid::s4u::Host::by_name_or_null(gpus[next]);
        if (h == nullptr)
          throw InputError(where_, "gpus", "no host " + quote(gpus[next]) + " in the platform");
        spec.gpus.push_back(h);
        spec.cpus.push_back(cpus.empty() ? h : simgrid::s4u::Host::by_name(cpus[next]));
        for (const auto* used : {spec.gpus.back(), spec.cpus.back()})
          if (used_seen_.insert(used->get_name()).second)
            used_.push_back(used->get_name());
        auto nd = node_of.find(gpus[next]);
        spec.nodes.push_back(nd == node_of.end() ? static_cast<uint32_t>(next) : nd->second);
        next++;
      }
      if (jobs_.size() == 1)
        spec.groups = groups_;
      replay_->add_job(std::move(spec));
    }
  }

  std::vector<std::string> powered_hosts() const override { return used_; }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    replay_->check();
    log_.close();
    auto dir = ctx.output_dir;
    {
      AtomicFile f(dir / "ranks.csv");
      replay::write_ranks_csv(f.stream(), replay_->ranks());
      f.commit();
    }
    double end = 0;
    for (const auto& r : replay_->ranks())
      end = std::max(end, r.end_s);
    {
      AtomicFile f(dir / "collectives.csv");
      replay::write_collectives_csv(f.stream(), replay_->collectives());
      f.commit();
    }
    outputs.push_back({(dir / "ranks.csv").string(), "replay: per rank wall, compute and communication time"});
    outputs.push_back({(dir / "collectives.csv").string(), "replay: every collective with its bandwidths"});
    outputs.push_back({(dir / "replay_log.csv").string(), "replay: issue/callback log (sgai chakra timeline)"});
    return {{"ranks", static_cast<double>(replay_->ranks().size())},
            {"nodes", static_cast<double>(replay_->nodes_replayed())},
            {"collectives", static_cast<double>(replay_->collectives().size())},
            {"collectives_worked_out_at_once", static_cast<double>(replay_->worked_out_at_once().collectives)},
            {"transfers_worked_out_sharing_links",
             static_cast<double>(replay_->worked_out_at_once().transfers_sharing_links)},
            {"replay_end_s", end}};
  }

private:
  replay::ReplayOptions options_;
  bool use_nccl_ = true;
  std::vector<std::vector<std::filesystem::path>> jobs_;
  std::vector<std::string> names_;
  std::vector<std::string> used_; ///< the ranks' GPU and CPU hosts, in order
  std::set<std::string> used_seen_;
  std::vector<std::string> gpus_;
  std::map<std::string, std::vector<uint32_t>> groups_;
  std::string where_;
  std::unique_ptr<replay::Replay> replay_;
  std::filesystem::path log_path_;
  std::ofstream log_;
};

std::filesystem::path resolve(const RunContext& ctx, const std::string& p)
{
  std::filesystem::path path = p;
  return path.is_relative() ? ctx.base_dir / path : path;
}

std::unique_ptr<Component> make_replay(json::Object& options, const RunContext& ctx)
{
  std::vector<std::vector<std::filesystem::path>> jobs;
  std::vector<std::string> names;
  auto wv = options.required("workloads");
  for (auto& w : wv.array()) {
    auto files = read_named_file(w, ctx, "workload",
                                 [&]() { return chakra::workload_files(resolve(ctx, w.string()).string()); });
    jobs.push_back(files);
    names.push_back(w.string());
  }
  if (jobs.empty())
    wv.fail("expected at least one workload (an ET prefix, file or folder)");
  replay::ReplayOptions ro;
  if (auto v = options.optional("system"))
    ro.system =
        read_named_file(*v, ctx, "system", [&]() { return replay::read_system_json(resolve(ctx, v->string())); });
  std::map<std::string, std::vector<uint32_t>> groups;
  if (auto v = options.optional("comm_groups")) {
    if (jobs.size() > 1)
      v->fail("communicator groups apply to a single workload");
    groups = read_named_file(*v, ctx, "communicator groups",
                             [&]() { return replay::read_comm_groups(resolve(ctx, v->string())); });
  }
  std::vector<std::string> gpus;
  if (auto v = options.optional("gpus"))
    for (auto& g : v->array())
      gpus.push_back(g.string());
  if (auto v = options.optional("deps")) { // auto (default): data only for PyTorch-converted traces
    auto deps = v->choice({"auto", "all", "data"});
    if (deps != "auto")
      ro.control_deps = deps == "all";
  }
  if (auto v = options.optional("recorded_durations"))
    ro.recorded_durations = v->boolean();
  if (auto v = options.optional("dims")) {
    uint64_t product = 1;
    for (auto& d : v->array()) {
      ro.dims.push_back(static_cast<uint32_t>(d.integer(1, 1 << 24)));
      product *= ro.dims.back();
    }
    size_t ranks = 0;
    for (const auto& j : jobs)
      ranks += j.size();
    if (jobs.size() != 1 || product != ranks)
      v->fail("the dimensions must multiply to the rank count of a single workload (" + std::to_string(ranks) +
              " ranks)");
  }
  if (auto v = options.optional("congestion")) // ASTRA-sim's congestion-unaware backend: transfers share nothing
    ro.congestion_aware = v->choice({"aware", "unaware"}) == "aware";
  // a collective alone on the network is worked out at once (docs/replay.md) unless asked otherwise;
  // setup() allows it only when the replay is the experiment's one component
  ro.network_to_itself = true;
  if (auto v = options.optional("step_by_step"))
    ro.network_to_itself = not v->boolean();
  if (auto v = options.optional("sends")) // comm-stream: ASTRA-sim's one GPU communication at a time
    ro.sends_on_comm_stream = v->choice({"comm-stream", "own-stream"}) == "comm-stream";
  if (auto v = options.optional("channels"))
    ro.channels = static_cast<uint32_t>(v->integer(1, 64));
  if (auto v = options.optional("channel_block"))
    ro.channel_block = static_cast<uint32_t>(v->integer(1, 1 << 20));
  bool use_nccl = true;
  if (auto v = options.optional("nccl"))
    use_nccl = v->boolean();
  // NCCL_ALGO / NCCL_PROTO: one name for every collective, or an object by collective
  auto per_collective = [&](const char* key, const std::vector<std::string>& allowed, auto set) {
    auto v = options.optional(key);
    if (not v)
      return;
    const std::vector<std::pair<std::string, chakra::CollectiveType>> colls = {
        {"all_reduce", chakra::CollectiveType::all_reduce},
        {"all_gather", chakra::CollectiveType::all_gather},
        {"reduce_scatter", chakra::CollectiveType::reduce_scatter},
        {"broadcast", chakra::CollectiveType::broadcast},
        {"reduce", chakra::CollectiveType::reduce}};
    auto one = [&](const json::Value& x, std::optional<chakra::CollectiveType> only) {
      std::string name = x.choice(allowed);
      if (name == "auto")
        return;
      for (const auto& [_, t] : colls)
        if (not only || *only == t)
          set(t, name);
    };
    if (v->is_object()) {
      auto o = v->object();
      std::vector<std::string> accepted;
      for (const auto& [cname, t] : colls) {
        accepted.push_back(cname);
        if (auto x = o.optional(cname))
          one(*x, t);
      }
      o.finish(accepted);
    } else
      one(*v, std::nullopt);
  };
  per_collective("algorithm", {"auto", "ring", "tree", "nvls", "nvls_tree"},
                 [&](chakra::CollectiveType t, const std::string& n) {
                   collectives::nccl::algo_from_string(n, ro.nccl_algorithm[t]);
                 });
  per_collective("protocol", {"auto", "LL", "LL128", "Simple"}, [&](chakra::CollectiveType t, const std::string& n) {
    collectives::nccl::proto_from_string(n, ro.nccl_protocol[t]);
  });
  options.finish({"workloads", "system", "comm_groups", "gpus", "deps", "recorded_durations", "dims", "channels",
                  "channel_block", "nccl", "algorithm", "protocol", "step_by_step"});
  return std::make_unique<ReplayComponent>(ro, use_nccl, std::move(jobs), std::move(names), std::move(gpus),
                                           std::move(groups), options.file());
}

} // namespace

void register_replay_component(ComponentRegistry& registry)
{
  registry.add("replay", "Chakra traces replayed on the platform's GPUs: streams, collectives, energy", make_replay);
}

} // namespace sgai::experiment
