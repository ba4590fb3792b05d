#include "plugins/replay/replay.hpp"
#include "plugins/gpu/stream.hpp"
#include "plugins/replay/loud_nodes.hpp"
#include "plugins/replay/node_time.hpp"

#include "core/collectives/nccl_plan.hpp"
#include "plugins/gpu/gpu.hpp"

#include "chakra/feeder.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/sim/clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <cmath>
#include <deque>
#include <ostream>
#include <set>
#include <sstream>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_replay, sgai, "Chakra trace replay");

namespace sgai::replay {

namespace s4u = simgrid::s4u;
using chakra::Node;
using chakra::NodeType;

namespace {

enum Stream { compute = 0, comm = 1, cpu = 2 };
constexpr int kStreams                   = 3;
constexpr int kPointToPoint              = 3; ///< not a stream: one actor per node
const char* const kStreamNames[kStreams] = {"compute", "comm", "cpu"};

struct Job;

/** One collective of a group: the k-th each member issues. */
struct Instance {
  chakra::CollectiveType type = chakra::CollectiveType::all_reduce;
  uint64_t bytes              = 0;
  uint32_t first_rank         = 0;
  uint64_t first_node         = 0;
  uint32_t arrived = 0, finished = 0;
  std::vector<s4u::Actor*> waiting;
  std::vector<uint32_t> waiting_ranks;
  std::unique_ptr<collectives::nccl::ProtocolCosts> costs; ///< NCCL's protocol (options.nccl), used by run
  std::unique_ptr<communicator::CollectiveRun> run;
  double start = 0;
};

/** Point-to-point transfers from one rank to another with one tag, matched in order. */
struct P2pTransfer {
  uint64_t bytes = 0, send_node = 0;
  bool done            = false;
  s4u::Actor* receiver = nullptr; ///< suspended until done
};

struct Rank {
  Job* job        = nullptr;
  uint32_t index  = 0; ///< in the job
  uint32_t global = 0;
  std::string file;
  std::unique_ptr<chakra::Feeder> feeder;
  s4u::Host* gpu = nullptr;
  s4u::Host* cpu = nullptr;
  std::deque<const Node*> queue[kStreams];
  s4u::Actor* actor[kStreams]   = {nullptr, nullptr, nullptr};
  bool idle[kStreams]           = {false, false, false};
  const Node* current[kStreams] = {nullptr, nullptr, nullptr};
  double busy[kStreams]         = {0, 0, 0};
  std::map<std::string, uint64_t> collectives_issued; ///< per group
  std::string waiting_in;                             ///< the collective it waits for, if any
  std::set<const Node*> p2p_in_flight;
  std::map<const Node*, std::string> p2p_waiting;
  /** Communication time: the union of the intervals during which one of its communication nodes
   *  (collective, send, receive) runs, as ASTRA-sim's statistics merge them. */
  uint32_t comm_running = 0;
  double comm_since = 0, comm_time = 0;
  uint64_t nodes = 0, untyped = 0;
  bool data_deps_auto = false;
  bool finished       = false;
  double end          = 0;
  /** only_world_collectives_left: its trace's loud nodes, once read (loud_nodes). */
  std::optional<std::vector<uint64_t>> loud;
  bool loud_read = false;
};

struct Job {
  JobSpec spec;
  uint32_t ranks_ended = 0;
  uint32_t live_actors = 0; ///< its actors still running (stream and point-to-point)
  std::vector<std::unique_ptr<Rank>> ranks;
  std::vector<uint32_t> world; ///< 0..n-1
  /** Communicator groups listing every rank once: the world (ASTRA-sim plans them as such). */
  std::set<std::string> world_groups;
  std::set<std::string> file_groups; ///< groups of the communicator-group file (they win over metadata)
  std::map<std::pair<std::string, uint64_t>, std::unique_ptr<Instance>> instances;
  /** Point-to-point traffic from one rank to another with one tag: the k-th send matches the
   *  k-th receive. */
  struct Pipe {
    uint64_t sent = 0, received = 0;
    std::map<uint64_t, std::shared_ptr<P2pTransfer>> transfers; ///< posted, not yet received
    std::map<uint64_t, s4u::Actor*> waiting;                    ///< receives before their send
  };
  std::map<std::tuple<uint32_t, uint32_t, int64_t>, Pipe> pipes;
};

/** Thrown out of a stream actor after the error is recorded: ends the actor quietly. */
struct Stop {};

RankResult result_of(const Job& job, const Rank& r)
{
  RankResult x;
  x.job                 = job.spec.name;
  x.rank                = r.index;
  x.global              = r.global;
  x.host                = r.gpu->get_name();
  x.end_s               = r.end;
  x.compute_s           = r.busy[compute];
  x.comm_s              = r.comm_time;
  x.cpu_s               = r.busy[cpu];
  x.nodes               = r.nodes;
  x.untyped_collectives = r.untyped;
  x.data_deps_auto      = r.data_deps_auto;
  return x;
}

} // namespace

struct Replay::Impl {
  ReplayOptions options;
  std::vector<std::unique_ptr<Job>> jobs;
  std::vector<RankResult> results;
  std::vector<CollectiveRecord> records;
  std::map<std::string, std::shared_ptr<const collectives::Schedule>> schedules;
  communicator::UnsharedPaths unshared_paths; ///< transfer times when the network shares nothing (congestion-unaware)
  std::unique_ptr<communicator::LoneFlows> lone_flows; ///< congestion-aware collectives alone on the network
  uint64_t worked_out_alone  = 0;
  uint64_t transfers_sharing = 0; ///< of those worked out at once, transfers that shared links
  std::string error;              ///< the first error: file, place (rank, node) and message apart
  std::string error_file, error_place, error_message;
  bool error_is_input    = false;
  uint64_t total_nodes   = 0;
  uint64_t dropped_nodes = 0; ///< of the jobs drop_ended_jobs forgot
  uint32_t next_global   = 0;

  /** Records the run's first error and stops every actor. */
  void record(const Rank& r, const Node* n, const std::string& message, bool input)
  {
    record_at(r.file, "rank " + std::to_string(r.index) + (n ? ", node " + std::to_string(n->id) : ""), message, input);
  }

  /** The same for an InputError the rank's feeder or reader raised: its file, place and message,
   *  with the rank added when it is the rank's own trace. */
  void record(const Rank& r, const InputError& e)
  {
    if (e.file() == r.file)
      record_at(r.file, "rank " + std::to_string(r.index) + (e.place().empty() ? "" : ", " + e.place()), e.message(),
                true);
    else
      record_at(e.file(), e.place(), e.message(), true);
  }

  void record_at(const std::string& file, const std::string& place, const std::string& message, bool input)
  {
    if (error.empty()) {
      error          = file + (place.empty() ? "" : ": " + place) + ": " + message;
      error_file     = file;
      error_place    = place;
      error_message  = message;
      error_is_input = input;
      s4u::Actor::kill_all();
    }
  }

  [[noreturn]] void fail(const Rank& r, const Node* n, const std::string& message, bool input = true)
  {
    record(r, n, message, input);
    throw Stop{};
  }

  /** Runs an actor's body: an exception escaping an actor would abort SimGrid, so it becomes
   *  the run's error (naming `node` for errors that are not about the input). */
  template <typename Body>
  void guarded(Rank& r, const Node* const& node, Body&& body)
  {
    try {
      body();
    } catch (const Stop&) {
    } catch (const InputError& e) {
      record(r, e);
    } catch (const std::exception& e) {
      record(r, node, e.what(), false);
    }
  }

  /** A node's end: its time to the stream's account, the log, the feeder, what it released. */
  void finish_node(Rank& r, const Node* n, double started, double* busy)
  {
    if (busy != nullptr)
      *busy += s4u::Engine::get_clock() - started;
    log(r, *n, "callback");
    r.nodes++;
    r.feeder->complete(n->id);
    dispatch(r);
  }

  void log(const Rank& r, const Node& n, const char* event)
  {
    if (options.log == nullptr)
      return;
    auto& o = *options.log;
    o << r.global << ',' << n.id << ',' << event << ',' << format_number(s4u::Engine::get_clock() * 1e6) << ','
      << chakra::to_string(n.type) << ',';
    if (n.name.find_first_of(",\"\n") != std::string::npos) {
      o << '"';
      for (char c : n.name)
        o << (c == '"' ? "\"\"" : (c == '\n' ? " " : std::string(1, c)));
      o << '"';
    } else
      o << n.name;
    o << '\n';
  }

  int stream_of(const Node& n) const
  {
    switch (n.type) {
    case NodeType::comp:
      return n.bool_attr("is_cpu_op").value_or(false) ? cpu : compute;
    case NodeType::mem_load:
    case NodeType::mem_store:
      return compute;
    case NodeType::comm_coll:
      return comm;
    case NodeType::comm_send:
      return options.sends_on_comm_stream ? comm : kPointToPoint;
    case NodeType::comm_recv:
      return kPointToPoint;
    default:
      return -1; // no work: metadata, invalid, storage, ...
    }
  }

  /** A METADATA node from PyTorch's "process_group:init" (Chakra's converter keeps its inputs'
   *  values, Python's repr of a list holding one JSON text: ['[{"pg_name": "1", "ranks": [0, 1]},
   *  ...]']): its process groups join the job's communicator groups, as ASTRA-sim reads them (empty
   *  ranks: every rank). A communicator-group file's groups come first; a group named again with
   *  other ranks is an error naming the node. Other metadata nodes are left alone. */
  void process_groups(Rank& r, const Node& n)
  {
    if (not n.inputs)
      return;
    const std::string& v = n.inputs->values;
    if (v.size() < 4 || v.compare(0, 2, "['") != 0 || v.compare(v.size() - 2, 2, "']") != 0)
      return;
    json::Document doc;
    try {
      doc = json::parse(v.substr(2, v.size() - 4), "process groups");
    } catch (const InputError&) {
      return; // not JSON: not PyTorch's process groups
    }
    if (not doc.value().is_array())
      return;
    Job& job = *r.job;
    for (const auto& g : doc.value().array()) {
      if (not g.is_object())
        continue;
      auto go = g.object();
      auto pg = go.optional("pg_name");
      if (not pg || not pg->is_string())
        continue;
      std::string name = pg->string();
      std::vector<uint32_t> ranks;
      if (auto list = go.optional("ranks"); list && list->is_array())
        for (const auto& x : list->array()) {
          auto rank = x.as_uint64();
          if (not rank || *rank >= job.ranks.size())
            fail(r, &n,
                 "process group " + quote(name) + " lists rank " + x.dump() + ", which the job of " +
                     std::to_string(job.ranks.size()) + " ranks does not have");
          ranks.push_back(static_cast<uint32_t>(*rank));
        }
      if (ranks.empty())
        ranks = job.world;
      auto [it, added] = job.spec.groups.emplace(name, ranks);
      if (not added && it->second != ranks && not job.file_groups.count(name))
        fail(r, &n, "process group " + quote(name) + " is defined again with other ranks");
      if (added && ranks.size() == job.world.size() &&
          std::set<uint32_t>(ranks.begin(), ranks.end()).size() == ranks.size())
        job.world_groups.insert(name);
    }
  }

  /** Moves every issuable node to its stream, waking idle streams. */
  void dispatch(Rank& r)
  {
    while (const Node* n = r.feeder->next_issuable()) {
      int s = stream_of(*n);
      if (s < 0) {
        if (n->type == NodeType::metadata)
          process_groups(r, *n);
        log(r, *n, "issue");
        log(r, *n, "callback");
        r.nodes++;
        r.feeder->complete(n->id);
        continue;
      }
      if (s == kPointToPoint) {
        // NCCL runs point-to-point operations on their own streams, beside the collectives:
        // each runs in its own actor, so a pending receive never holds up a send or a collective
        Rank* rank = &r;
        r.p2p_in_flight.insert(n);
        r.job->live_actors++;
        s4u::Actor::create(r.job->spec.name + ":" + std::to_string(r.index) + ":p2p", r.gpu, [this, rank, n]() {
          run_point_to_point(*rank, n);
          rank->job->live_actors--;
        });
        continue;
      }
      r.queue[s].push_back(n);
      if (r.idle[s]) {
        r.idle[s] = false;
        r.actor[s]->resume();
      }
    }
    if (not r.finished && r.feeder->finished()) {
      r.finished = true;
      r.end      = s4u::Engine::get_clock();
      for (int s = 0; s < kStreams; s++)
        if (r.idle[s]) {
          r.idle[s] = false;
          r.actor[s]->resume();
        }
      Job& job = *r.job;
      if (++job.ranks_ended == job.ranks.size() && job.spec.on_end) {
        std::vector<RankResult> ended;
        for (const auto& x : job.ranks)
          ended.push_back(result_of(job, *x));
        job.spec.on_end(ended);
      }
    }
  }

  /** Runs a kernel whose parts at P-state 0 are `t` on `host`, in the host's current P-state:
   *  max(compute / f, memory / m) (GpuModel's P-state model), as an execution of that many seconds
   *  at the state's speed (so the energy plugin charges the state's power for it). */
  static void execute_kernel(s4u::Host* host, const kernels::KernelTime& t) { sgai::gpu::execute(host, t); }

  /** `involved`: ASTRA-sim's involved_dim of a collective of the default group, the dimensions it
   *  runs along (empty: all). */
  std::shared_ptr<const collectives::Schedule> schedule_for(chakra::CollectiveType type, uint32_t n, bool world,
                                                            std::string& algorithm_name,
                                                            const std::vector<bool>& involved = {})
  {
    auto key_type = collectives::canonical(type);
    std::vector<collectives::Algorithm> algorithms;
    if (auto it = options.system.implementations.find(key_type); it != options.system.implementations.end())
      algorithms = it->second;
    uint64_t product = 1;
    for (uint32_t d : options.dims)
      product *= d;
    bool multidim = world && options.dims.size() > 1 && product == n && algorithms.size() == options.dims.size();
    if (not multidim) {
      collectives::Algorithm a = algorithms.empty() ? collectives::Algorithm::ring : algorithms[0];
      algorithms               = {a};
    }
    algorithm_name.clear();
    for (size_t i = 0; i < algorithms.size(); i++)
      algorithm_name += (i ? "+" : "") + std::string(to_string(algorithms[i]));
    const bool channels = not multidim && world && algorithms[0] == collectives::Algorithm::ring &&
                          options.channels > 1 && options.channel_block > 1 && n > options.channel_block &&
                          n % options.channel_block == 0;
    if (channels)
      algorithm_name += " x" + std::to_string(options.channels);
    std::string dims_in;
    if (multidim)
      for (size_t i = 0; i < options.dims.size(); i++)
        dims_in += (i >= involved.size() || involved[i]) ? '1' : '0';
    if (multidim && dims_in.find('0') != std::string::npos)
      algorithm_name += " on dims " + dims_in;
    std::string key = std::to_string(static_cast<int>(type)) + "/" + std::to_string(n) + "/" + algorithm_name +
                      (multidim ? "/md" + dims_in : "");
    auto& cached = schedules[key];
    if (not cached) {
      if (channels) {
        collectives::Schedule s =
            collectives::algorithms::ring_channels(type, n, options.channels, options.channel_block);
        s.type      = type;
        s.algorithm = collectives::Algorithm::ring;
        s.ranks     = n;
        s.index();
        cached = std::make_shared<const collectives::Schedule>(std::move(s));
      } else if (multidim)
        cached = std::make_shared<const collectives::Schedule>(collectives::make_multidim_schedule(
            type, options.dims, algorithms, 0, options.system.all_reduce_composition, involved));
      else
        cached = std::make_shared<const collectives::Schedule>(collectives::make_schedule(type, algorithms[0], n));
    }
    return cached;
  }

  /** Whether NCCL's model plans a collective of `type` (an NCCL system, not a multi-dimensional
   *  layout, no implementation of the system file that NCCL does not have), and the algorithm and
   *  protocol forced on it (the user's, else the system file's implementation). */
  bool nccl_applies(chakra::CollectiveType type, bool world, std::optional<collectives::nccl::Algo>& algo,
                    std::optional<collectives::nccl::Proto>& proto) const
  {
    if (not options.nccl || (world && options.dims.size() > 1))
      return false;
    const auto key_type = collectives::canonical(type);
    if (auto it = options.nccl_algorithm.find(key_type); it != options.nccl_algorithm.end())
      algo = it->second;
    else if (auto im = options.system.implementations.find(key_type); im != options.system.implementations.end()) {
      // the system file's implementation: NCCL's protocol for the algorithms NCCL has
      if (im->second.size() != 1)
        return false;
      switch (im->second[0]) {
      case collectives::Algorithm::ring:
        algo = collectives::nccl::Algo::ring;
        break;
      case collectives::Algorithm::double_binary_tree:
        algo = collectives::nccl::Algo::tree;
        break;
      case collectives::Algorithm::nvls:
        algo = collectives::nccl::Algo::nvls;
        break;
      default:
        return false;
      }
    }
    if (auto it = options.nccl_protocol.find(key_type); it != options.nccl_protocol.end())
      proto = it->second;
    return true;
  }

  /** The plan of a collective of `bytes` (comm_size) over `members` of the job in `group`
   *  (collectives::plan_collective): NCCL's where its model applies, else the system file's schedule
   *  (schedule_for). std::invalid_argument when the algorithm or protocol forced on it cannot run it. */
  collectives::NcclPlan plan_for(const Rank& r, const Node& n, chakra::CollectiveType type, uint64_t bytes,
                                 const std::vector<uint32_t>& members, bool world, const std::string& group)
  {
    std::optional<collectives::nccl::Algo> algo;
    std::optional<collectives::nccl::Proto> proto;
    const bool nccl = nccl_applies(type, world, algo, proto);
    const Job& job  = *r.job;
    std::vector<uint32_t> node;
    if (nccl)
      for (uint32_t m : members)
        node.push_back(job.spec.nodes.empty() ? 0 : job.spec.nodes[m]);
    return collectives::plan_collective(
        nccl ? &*options.nccl : nullptr, type, bytes, node, algo, proto, schedules,
        [&](uint32_t a, uint32_t b) {
          return unshared_paths.latency(job.ranks[members[a]]->gpu, job.ranks[members[b]]->gpu);
        },
        [&](std::string& name) {
          return schedule_for(type, static_cast<uint32_t>(members.size()), world, name,
                              group == "world" ? involved_dims(r, n) : std::vector<bool>{});
        });
  }

  /** ASTRA-sim's involved_dim (a bool list) of a collective node: the network dimensions it runs
   *  along; empty when absent. Another kind is an error naming the node. */
  std::vector<bool> involved_dims(const Rank& r, const Node& n)
  {
    const auto* a = n.attr("involved_dim");
    if (a == nullptr)
      return {};
    const auto* bits = std::get_if<std::vector<uint64_t>>(&a->value);
    if (a->kind != chakra::AttrKind::bool_list || bits == nullptr)
      fail(r, &n, "involved_dim of kind " + std::string(chakra::to_string(a->kind)) + ": expected a bool_list");
    std::vector<bool> out;
    for (uint64_t b : *bits)
      out.push_back(b != 0);
    return out;
  }

  /** The node's comm_size in bytes; the error names what is wrong with it. (A negative one is
   *  rejected when the trace is read.) */
  std::optional<uint64_t> comm_size(const Rank& r, const Node& n, const std::string& what)
  {
    const auto* a = n.attr("comm_size");
    if (not a)
      fail(r, &n, what + " without a comm_size");
    auto bytes = n.comm_size();
    if (not bytes)
      fail(r, &n,
           what + " with a comm_size of kind " + chakra::to_string(a->kind) + ": expected a whole number of bytes");
    return bytes;
  }

  void collective(Rank& r, const Node& n)
  {
    Job& job  = *r.job;
    auto type = n.collective();
    if (not type) {
      r.untyped++; // CPU-side launch nodes of PyTorch traces: no data moves
      return;
    }
    auto bytes                           = comm_size(r, n, chakra::to_string(*type));
    std::string group                    = "world";
    const std::vector<uint32_t>* members = &job.world;
    if (const auto* pg = n.attr("pg_name"); pg && pg->as_string() && not job.spec.groups.empty()) {
      auto it = job.spec.groups.find(*pg->as_string());
      if (it != job.spec.groups.end()) {
        group = it->first;
        // a group of every rank is the world (ASTRA-sim's plan for it: every dimension)
        if (job.world_groups.count(it->first) == 0)
          members = &it->second;
      } else if (*pg->as_string() != "0") // ASTRA-sim's default group: every rank
        fail(r, &n, "collective in group " + quote(*pg->as_string()) + ", which the communicator groups do not define");
    }
    auto pos = std::find(members->begin(), members->end(), r.index);
    if (pos == members->end())
      fail(r, &n, "collective in group " + quote(group) + ", which does not contain rank " + std::to_string(r.index));
    auto local   = static_cast<uint32_t>(pos - members->begin());
    uint64_t seq = r.collectives_issued[group]++;
    auto& inst   = job.instances[{group, seq}];
    if (not inst) {
      inst             = std::make_unique<Instance>();
      inst->type       = *type;
      inst->bytes      = *bytes;
      inst->first_rank = r.index;
      inst->first_node = n.id;
    } else if (inst->type != *type || inst->bytes != *bytes)
      fail(r, &n,
           "collective #" + std::to_string(seq + 1) + " of group " + quote(group) + " is " + chakra::to_string(*type) +
               " of " + std::to_string(*bytes) + " bytes, but rank " + std::to_string(inst->first_rank) + " (node " +
               std::to_string(inst->first_node) + ") issued " + chakra::to_string(inst->type) + " of " +
               std::to_string(inst->bytes) + " bytes");
    Instance* in = inst.get();
    in->arrived++;
    if (in->arrived < members->size()) {
      in->waiting.push_back(s4u::Actor::self());
      in->waiting_ranks.push_back(r.index);
      r.waiting_in = chakra::to_string(*type) + std::string(" #") + std::to_string(seq + 1) + " of group " +
                     quote(group) + " (" + std::to_string(in->arrived) + " of " + std::to_string(members->size()) +
                     " ranks arrived)";
      s4u::this_actor::suspend();
      r.waiting_in.clear();
    } else {
      collectives::NcclPlan plan;
      try {
        plan = plan_for(r, n, *type, *bytes, *members, members == &job.world, group);
      } catch (const std::invalid_argument& e) {
        fail(r, &n, e.what());
      }
      std::vector<s4u::Host*> hosts;
      for (uint32_t m : *members)
        hosts.push_back(job.ranks[m]->gpu);
      communicator::CollectiveOptions base;
      base.chunks           = options.system.chunks; // NCCL's channels each run their own chunks
      base.channels         = options.system.active_chunks;
      base.reduce_Bps       = options.system.local_mem_bw_Bps;
      base.endpoint_delay_s = options.system.endpoint_delay_s;
      base.unshared         = options.congestion_aware ? nullptr : &unshared_paths;
      base.traffic          = options.traffic;
      auto co               = communicator::options_for(plan, base);
      auto schedule         = plan.schedule;
      const auto algorithm  = plan.algorithm;
      in->costs             = std::move(plan.costs);
      in->run   = std::make_unique<communicator::CollectiveRun>(schedule, hosts, static_cast<double>(*bytes), co);
      in->start = s4u::Engine::get_clock();
      if (options.congestion_aware && members == &job.world && network_alone(job)) {
        if (not lone_flows)
          lone_flows = std::make_unique<communicator::LoneFlows>();
        if (in->run->work_out_alone(*lone_flows, only_world_collectives_left(job))) {
          worked_out_alone++;
          transfers_sharing += in->run->transfers_sharing_links();
        }
      }
      CollectiveRecord rec;
      rec.job       = job.spec.name;
      rec.group     = group;
      rec.type      = *type;
      rec.bytes     = *bytes;
      rec.algorithm = algorithm;
      rec.protocol  = in->costs ? in->costs->name : std::string();
      rec.ranks     = static_cast<uint32_t>(members->size());
      rec.start_s   = in->start;
      if (options.keep_collectives) {
        records.push_back(rec);
        in->first_node = records.size() - 1; // its record from now on
      }
      for (auto* a : in->waiting)
        a->resume();
      in->waiting.clear();
    }
    in->run->run_rank(local);
    if (++in->finished == members->size()) {
      if (options.keep_collectives)
        records[in->first_node].end_s = s4u::Engine::get_clock();
      job.instances.erase({group, seq});
    }
  }

  /** Whether a collective of `job`'s whole world, its ranks all come, has the network to itself
   *  until every one of them has ended it: nothing outside the replay sends (the options say so),
   *  every rank of the replay still running is one of its ranks (the other jobs are over), and none
   *  can send before its end: a rank's sends wait on its communication stream, which the collective
   *  holds; or, with sends on streams of their own, no rank has a kernel running or queued or a
   *  point-to-point operation in flight, so no node can end and release one. */
  bool network_alone(const Job& job) const
  {
    if (not options.network_to_itself)
      return false;
    for (const auto& other : jobs)
      if (other.get() != &job && other->ranks_ended < other->ranks.size())
        return false;
    if (not options.sends_on_comm_stream)
      for (const auto& r : job.ranks)
        if (not r->p2p_in_flight.empty() || r->current[compute] || r->current[cpu] || not r->queue[compute].empty() ||
            not r->queue[cpu].empty())
          return false;
    return true;
  }

  /** Whether nothing the job's ranks have left to do can put a transfer on the network but a
   *  collective of the whole job: every loud node (loud_nodes) of every trace completed. Then a
   *  collective worked out at once may end its ranks at different instants: one that ends first
   *  cannot send into the transfers the others still wait for. */
  bool only_world_collectives_left(Job& job) const
  {
    for (const auto& r : job.ranks) {
      if (not r->loud_read) { // (each trace read once, when first needed)
        r->loud      = loud_nodes(r->file, job.spec.groups, job.world_groups, 1024);
        r->loud_read = true;
      }
      if (not r->loud)
        return false;
      for (uint64_t id : *r->loud)
        if (not r->feeder->completed(id))
          return false;
    }
    return true;
  }

  void send(Rank& r, const Node& n)
  {
    Job& job = *r.job;
    auto dst = n.int_attr("comm_dst");
    if (not dst || *dst < 0 || static_cast<uint64_t>(*dst) >= job.ranks.size())
      fail(r, &n, "send without a comm_dst among the job's " + std::to_string(job.ranks.size()) + " ranks");
    auto size    = comm_size(r, n, "send");
    auto& pipe   = job.pipes[std::make_tuple(r.index, static_cast<uint32_t>(*dst), n.int_attr("comm_tag").value_or(0))];
    auto t       = std::make_shared<P2pTransfer>();
    t->bytes     = *size;
    t->send_node = n.id;
    uint64_t index        = pipe.sent++;
    pipe.transfers[index] = t;
    if (auto w = pipe.waiting.find(index); w != pipe.waiting.end()) {
      w->second->resume();
      pipe.waiting.erase(w);
    }
    if (options.traffic)
      options.traffic->add(r.gpu, job.ranks[static_cast<size_t>(*dst)]->gpu, static_cast<double>(*size));
    if (options.congestion_aware) {
      s4u::CommPtr c = s4u::Comm::sendto_async(r.gpu, job.ranks[static_cast<size_t>(*dst)]->gpu, *size);
      c->wait();
    } else {
      sim::sleep_for(
          unshared_paths.seconds(r.gpu, job.ranks[static_cast<size_t>(*dst)]->gpu, static_cast<double>(*size)));
    }
    t->done = true;
    if (t->receiver != nullptr)
      t->receiver->resume();
  }

  void recv(Rank& r, const Node& n)
  {
    Job& job  = *r.job;
    auto src  = n.int_attr("comm_src");
    auto size = n.comm_size();
    if (not src || *src < 0 || static_cast<uint64_t>(*src) >= job.ranks.size())
      fail(r, &n, "receive without a comm_src among the job's " + std::to_string(job.ranks.size()) + " ranks");
    int64_t tag    = n.int_attr("comm_tag").value_or(0);
    auto& pipe     = job.pipes[std::make_tuple(static_cast<uint32_t>(*src), r.index, tag)];
    uint64_t index = pipe.received++;
    if (not pipe.transfers.count(index)) {
      pipe.waiting[index] = s4u::Actor::self();
      r.p2p_waiting[&n]   = "a send from rank " + std::to_string(*src) + " (tag " + std::to_string(tag) + ")";
      s4u::this_actor::suspend();
      r.p2p_waiting.erase(&n);
    }
    auto t = pipe.transfers.at(index);
    pipe.transfers.erase(index);
    if (size && *size != t->bytes)
      fail(r, &n,
           "receives " + std::to_string(*size) + " bytes from rank " + std::to_string(*src) +
               " but the matching send (node " + std::to_string(t->send_node) + ") has " + std::to_string(t->bytes));
    if (not t->done) {
      t->receiver = s4u::Actor::self();
      s4u::this_actor::suspend();
    }
  }

  void execute(Rank& r, int stream, const Node& n)
  {
    switch (n.type) {
    case NodeType::comp:
      if (stream == cpu)
        execute_kernel(r.cpu, compute_time(options, n, r.cpu, false));
      else
        execute_kernel(r.gpu, compute_time(options, n, r.gpu, true));
      break;
    case NodeType::mem_load:
    case NodeType::mem_store:
      if (auto bytes = n.int_attr("tensor_size"); bytes && *bytes > 0 && mem_bw(options, r.gpu) > 0)
        execute_kernel(r.gpu, kernels::KernelTime{0, static_cast<double>(*bytes) / mem_bw(options, r.gpu)});
      break;
    case NodeType::comm_coll:
      collective(r, n);
      break;
    case NodeType::comm_send:
      send(r, n);
      break;
    case NodeType::comm_recv:
      recv(r, n);
      break;
    default:
      break;
    }
  }

  static void comm_started(Rank& r)
  {
    if (r.comm_running++ == 0)
      r.comm_since = s4u::Engine::get_clock();
  }

  static void comm_ended(Rank& r)
  {
    if (--r.comm_running == 0)
      r.comm_time += s4u::Engine::get_clock() - r.comm_since;
  }

  void run_point_to_point(Rank& r, const Node* n)
  {
    guarded(r, n, [&]() {
      log(r, *n, "issue");
      double t0 = s4u::Engine::get_clock();
      comm_started(r);
      if (n->type == NodeType::comm_send)
        send(r, *n);
      else
        recv(r, *n);
      comm_ended(r);
      r.p2p_in_flight.erase(n);
      finish_node(r, n, t0, nullptr);
    });
  }

  void stream_loop(Rank& r, int s)
  {
    guarded(r, r.current[s], [&]() {
      if (s == compute)
        dispatch(r);
      while (true) {
        while (r.queue[s].empty()) {
          if (r.finished)
            return;
          r.idle[s] = true;
          s4u::this_actor::suspend();
        }
        const Node* n = r.queue[s].front();
        r.queue[s].pop_front();
        r.current[s] = n;
        log(r, *n, "issue");
        double t0 = s4u::Engine::get_clock();
        if (s == comm)
          comm_started(r);
        execute(r, s, *n);
        if (s == comm)
          comm_ended(r);
        r.current[s] = nullptr;
        finish_node(r, n, t0, &r.busy[s]);
      }
    });
  }
};

Replay::Replay(ReplayOptions options)
    : impl_(std::make_unique<Impl>())
{
  impl_->options = std::move(options);
  if (not impl_->options.congestion_aware && not impl_->options.unaware_npus.empty())
    impl_->unshared_paths.first_differing_dimension(impl_->options.unaware_npus, impl_->options.unaware_dims);
}

Replay::~Replay() = default;

void Replay::add_job(JobSpec spec)
{
  auto job      = std::make_unique<Job>();
  job->spec     = std::move(spec);
  const auto& s = job->spec;
  if (s.files.empty())
    throw InputError(s.name, "", "a job needs at least one rank's trace");
  if (s.gpus.size() != s.files.size())
    throw InputError(s.name, "",
                     std::to_string(s.files.size()) + " ranks in the trace but " + std::to_string(s.gpus.size()) +
                         " GPUs in the mapping: every rank needs a GPU");
  if (not s.cpus.empty() && s.cpus.size() != s.files.size())
    throw InputError(s.name, "", "the CPU mapping must give one host per rank");
  for (const auto& [id, members] : s.groups)
    for (uint32_t m : members)
      if (m >= s.files.size())
        throw InputError(s.name, "communicator group " + quote(id),
                         "rank " + std::to_string(m) + " does not exist (the job has " +
                             std::to_string(s.files.size()) + " ranks)");
  chakra::Feeder::Options fo;
  fo.window = impl_->options.window;
  for (uint32_t i = 0; i < s.files.size(); i++) {
    auto r    = std::make_unique<Rank>();
    r->job    = job.get();
    r->index  = i;
    r->global = impl_->next_global++;
    r->file   = s.files[i].string();
    chakra::EtReader reader(s.files[i]);
    const auto& deps  = impl_->options.control_deps;
    fo.control        = deps ? *deps : chakra::follow_control(chakra::Deps::automatic, reader.metadata());
    r->data_deps_auto = not deps && not fo.control;
    r->feeder         = std::make_unique<chakra::Feeder>(std::move(reader), fo);
    r->gpu            = s.gpus[i];
    r->cpu            = s.cpus.empty() ? s.gpus[i] : s.cpus[i];
    job->world.push_back(i);
    job->ranks.push_back(std::move(r));
  }
  for (const auto& [id, members] : s.groups) {
    job->file_groups.insert(id);
    std::vector<bool> seen(s.files.size(), false);
    size_t distinct = 0;
    for (uint32_t m : members)
      if (not seen[m]) {
        seen[m] = true;
        distinct++;
      }
    if (distinct == s.files.size() && members.size() == s.files.size())
      job->world_groups.insert(id);
  }
  Impl* impl = impl_.get();
  for (auto& r : job->ranks)
    for (int st = kStreams - 1; st >= 0; st--) {
      Rank* rank      = r.get();
      s4u::Host* host = st == cpu ? rank->cpu : rank->gpu;
      job->live_actors++;
      auto actor = s4u::Actor::create(job->spec.name + ":" + std::to_string(rank->index) + ":" + kStreamNames[st], host,
                                      [impl, rank, st]() {
                                        impl->stream_loop(*rank, st);
                                        rank->job->live_actors--;
                                      });
      rank->actor[st] = actor.get();
    }
  impl_->jobs.push_back(std::move(job));
}

void Replay::check() const
{
  auto& im = *impl_;
  if (not im.error.empty()) {
    if (im.error_is_input)
      throw InputError(im.error_file, im.error_place, im.error_message);
    throw RunError(im.error);
  }
  std::ostringstream blocked;
  int shown = 0, count = 0;
  for (const auto& job : im.jobs)
    for (const auto& r : job->ranks) {
      if (r->finished)
        continue;
      count++;
      if (shown++ >= 8)
        continue;
      blocked << (shown > 1 ? "; " : "") << job->spec.name << " rank " << r->index << ":";
      bool any = false;
      for (int s = 0; s < kStreams; s++)
        if (r->current[s]) {
          blocked << " " << kStreamNames[s] << " node " << r->current[s]->id << " ("
                  << chakra::to_string(r->current[s]->type) << " '" << r->current[s]->name << "')";
          any = true;
        }
      if (not r->waiting_in.empty())
        blocked << " waiting for " << r->waiting_in;
      for (const Node* n : r->p2p_in_flight) {
        blocked << " p2p node " << n->id << " (" << chakra::to_string(n->type) << " '" << n->name << "')";
        if (auto w = r->p2p_waiting.find(n); w != r->p2p_waiting.end())
          blocked << " waiting for " << w->second;
        any = true;
      }
      if (not any)
        blocked << " no node issuable (" << r->feeder->nodes_completed() << " completed)";
    }
  if (count > 0)
    throw RunError("the replay deadlocked: " + std::to_string(count) + " rank(s) blocked: " + blocked.str());
}

bool Replay::failed() const
{
  return not impl_->error.empty();
}

const std::vector<RankResult>& Replay::ranks() const
{
  auto& im = *impl_;
  if (im.results.empty())
    for (const auto& job : im.jobs)
      for (const auto& r : job->ranks)
        im.results.push_back(result_of(*job, *r));
  return im.results;
}

size_t Replay::drop_ended_jobs()
{
  auto& jobs = impl_->jobs;
  jobs.erase(std::remove_if(jobs.begin(), jobs.end(),
                            [this](const std::unique_ptr<Job>& j) {
                              if (j->ranks_ended < j->ranks.size() || j->live_actors > 0)
                                return false;
                              for (const auto& r : j->ranks)
                                impl_->dropped_nodes += r->nodes;
                              return true;
                            }),
             jobs.end());
  impl_->results.clear();
  return jobs.size();
}

const std::vector<CollectiveRecord>& Replay::collectives() const
{
  return impl_->records;
}

uint64_t Replay::nodes_replayed() const
{
  uint64_t n = impl_->dropped_nodes;
  for (const auto& job : impl_->jobs)
    for (const auto& r : job->ranks)
      n += r->nodes;
  return n;
}

Replay::WorkedOut Replay::worked_out_at_once() const
{
  return {impl_->worked_out_alone, impl_->transfers_sharing};
}

namespace {

std::string ns(double seconds)
{
  return format_plain(std::round(seconds * 1e12) / 1e3); // ns with 3 decimals at most
}

} // namespace

void write_ranks_csv(std::ostream& out, const std::vector<RankResult>& ranks)
{
  out << "job,rank,npu,wall_time_ns,compute_time_ns,comm_time_ns,exposed_comm_time_ns,cpu_time_ns,nodes\n";
  for (const auto& r : ranks)
    out << r.job << ',' << r.rank << ',' << r.host << ',' << ns(r.end_s) << ',' << ns(r.compute_s) << ','
        << ns(r.comm_s) << ',' << ns(std::max(0.0, r.end_s - r.compute_s)) << ',' << ns(r.cpu_s) << ',' << r.nodes
        << '\n';
}

void write_collectives_csv(std::ostream& out, const std::vector<CollectiveRecord>& collectives)
{
  out << "job,group,type,bytes,algorithm,ranks,start_ns,end_ns,duration_ns,algbw_GBps,busbw_GBps,protocol\n";
  for (const auto& c : collectives) {
    double t     = c.end_s - c.start_s;
    double algbw = t > 0 ? static_cast<double>(c.bytes) / t / 1e9 : 0;
    out << c.job << ',' << c.group << ',' << chakra::to_string(c.type) << ',' << c.bytes << ',' << c.algorithm << ','
        << c.ranks << ',' << ns(c.start_s) << ',' << ns(c.end_s) << ',' << ns(t) << ',' << format_fixed(algbw, 3) << ','
        << format_fixed(algbw * CollectiveRecord::bus_factor(c.type, c.ranks), 3) << ','
        << (c.protocol.empty() ? "-" : c.protocol) << '\n';
  }
}

} // namespace sgai::replay
