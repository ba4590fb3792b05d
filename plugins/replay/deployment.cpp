#include "plugins/replay/deployment.hpp"

#include "chakra/et_io.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/communicator/collective.hpp"
#include "plugins/gpu/gpu.hpp"
#include "plugins/replay/replay.hpp"
#include "plugins/sim/deployment.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cctype>
#include <filesystem>
#include <memory>
#include <sstream>

namespace sgai::replay {

namespace {

/** hosts=a,b,c: the hosts of the loaded platform, in that order. */
std::vector<simgrid::s4u::Host*> host_list(const std::string& text)
{
  std::vector<simgrid::s4u::Host*> hosts;
  size_t from = 0;
  while (from <= text.size()) {
    size_t comma     = text.find(',', from);
    std::string name = text.substr(from, comma == std::string::npos ? std::string::npos : comma - from);
    auto* h          = simgrid::s4u::Host::by_name_or_null(name);
    if (h == nullptr)
      throw UsageError("hosts=" + quote(text) + ": no host " + quote(name) + " in the platform");
    hosts.push_back(h);
    if (comma == std::string::npos)
      break;
    from = comma + 1;
  }
  return hosts;
}

/** The outputs of a replay started by a deployment file, written when the simulation ends. */
void write_replay(const Replay& replay, const std::filesystem::path& out)
{
  replay.check();
  std::filesystem::create_directories(out);
  std::ostringstream ranks, collectives;
  write_ranks_csv(ranks, replay.ranks());
  write_collectives_csv(collectives, replay.collectives());
  write_file_atomically(out / "ranks.csv", ranks.str());
  write_file_atomically(out / "collectives.csv", collectives.str());
  sim::record_deployment_output((out / "ranks.csv").string(), "one line per rank (docs/replay.md)");
  sim::record_deployment_output((out / "collectives.csv").string(), "one line per collective (docs/replay.md)");
}

} // namespace

void collective_actor(std::vector<std::string> args)
{
  const std::string actor = simgrid::s4u::Actor::self()->get_name();
  try {
    sim::DeploymentArgs a(args, {"hosts", "type", "bytes", "algorithm", "chunks", "repeat", "out"});
    auto hosts        = host_list(a.required("hosts"));
    std::string tname = a.text("type", "all_reduce");
    std::string upper = tname;
    for (auto& c : upper)
      c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
    auto type = chakra::collective_from_string(upper);
    if (not type)
      throw UsageError("type=" + quote(tname) +
                       " is no collective (all_reduce, all_gather, reduce_scatter, all_to_all, broadcast, reduce)");
    double bytes = a.bytes("bytes", -1);
    if (bytes < 0)
      throw UsageError("the argument bytes= is missing");
    collectives::Algorithm algorithm = collectives::Algorithm::ring;
    if (not collectives::algorithm_from_string(a.text("algorithm", "ring"), algorithm))
      throw UsageError("algorithm=" + quote(a.text("algorithm", "")) +
                       " is none of ring, direct, halving_doubling, double_binary_tree, doubleBinaryTree, nvls");
    communicator::CollectiveOptions options;
    options.chunks = static_cast<uint32_t>(a.whole("chunks", 1, 1 << 20));
    if (options.chunks == 0)
      throw UsageError("chunks must be 1 or more");
    uint64_t repeat           = a.whole("repeat", 1, 1000000);
    std::filesystem::path out = a.text("out", "results/" + actor + ".csv");
    std::string csv           = "type,algorithm,ranks,bytes,start_s,end_s,time_s,bus_GBps\n";
    for (uint64_t i = 0; i < repeat; i++) {
      double start = simgrid::s4u::Engine::get_clock();
      double t     = communicator::run(*type, hosts, bytes, algorithm, options);
      auto n       = static_cast<uint32_t>(hosts.size());
      double bus   = t > 0 ? CollectiveRecord::bus_factor(*type, n) * bytes / t / 1e9 : 0;
      csv += tname + "," + to_string(algorithm) + "," + std::to_string(n) + "," + format_number(bytes) + "," +
             format_number(start) + "," + format_number(start + t) + "," + format_number(t) + "," + format_number(bus) +
             "\n";
    }
    if (out.has_parent_path())
      std::filesystem::create_directories(out.parent_path());
    write_file_atomically(out, csv);
    sim::record_deployment_output(out.string(),
                                  "one line per collective: type, algorithm, ranks, bytes, times, bus GB/s");
  } catch (const std::exception& e) {
    sim::fail_deployment(actor, e.what());
  }
}

void trace_replay_actor(std::vector<std::string> args)
{
  const std::string actor = simgrid::s4u::Actor::self()->get_name();
  try {
    sim::DeploymentArgs a(args, {"trace", "hosts", "system", "out"});
    JobSpec job;
    job.name  = a.required("trace");
    job.files = chakra::workload_files(job.name);
    job.gpus  = host_list(a.required("hosts"));
    if (job.gpus.size() != job.files.size())
      throw UsageError("hosts= names " + std::to_string(job.gpus.size()) + " hosts; the trace " + job.name + " has " +
                       std::to_string(job.files.size()) + " ranks");
    ReplayOptions options;
    if (a.has("system"))
      options.system = read_system_json(a.text("system", ""));
    std::shared_ptr<Replay> replay = std::make_shared<Replay>(options);
    replay->add_job(std::move(job));
    std::filesystem::path out = a.text("out", "results/" + actor);
    sim::at_deployment_end(actor, [replay, out]() { write_replay(*replay, out); });
  } catch (const std::exception& e) {
    sim::fail_deployment(actor, e.what());
  }
}

} // namespace sgai::replay

extern "C" void sgai_replay_register_actors(void)
{
  sg_host_energy_plugin_init();
  sgai_gpu_plugin_init();
  auto* engine = simgrid::s4u::Engine::get_instance();
  engine->register_function("sgai_collective", &sgai::replay::collective_actor);
  engine->register_function("sgai_trace_replay", &sgai::replay::trace_replay_actor);
}
