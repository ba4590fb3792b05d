/* The AI-ops simulator's state and steps (private to plugins/aiops_sim): simulator.cpp sets it up
 * and runs its actors and pipelines, deployed.cpp the deployed models, outputs.cpp the outputs. */
#ifndef SGAI_PLUGINS_AIOPS_SIM_SIMULATOR_IMPL_HPP
#define SGAI_PLUGINS_AIOPS_SIM_SIMULATOR_IMPL_HPP

#include "plugins/aiops_sim/simulator.hpp"

#include "core/aiops/database.hpp"
#include "core/aiops/drift.hpp"
#include "core/aiops/synth.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "plugins/sim/energy.hpp"
#include "plugins/sim/lone_flow.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Disk.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Semaphore.hpp>
#include <xbt/config.hpp>

#include <algorithm>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <mutex>
#include <queue>
#include <random>
#include <set>

namespace sgai::aiops_sim {

namespace s4u = simgrid::s4u;
using aiops::Origin;

inline constexpr double kHour = 3600;

/** What a task kind reads from the store and writes back (docs/aiops.md, "Tasks and data"). */
enum class Reads : uint8_t { data, model, model_and_test };
enum class Writes : uint8_t { nothing, data, model, compressed };

struct CTask {
  uint32_t pool = 0;
  int32_t kind  = 0;
  std::string kind_name;
  double probability = 1;
  double gate        = -1; ///< < 0: none
  Reads reads        = Reads::data;
  Writes writes      = Writes::nothing;
  std::vector<uint16_t> children;
  uint16_t parents = 0;
};

struct CPipeline {
  std::vector<CTask> tasks;
  std::vector<size_t> order;
  int parent = -1;
};

struct TaskState {
  double seconds = 0, read = 0, write = 0;
  uint16_t waiting = 0;
  bool runs        = true;
};

struct Live {
  int64_t id     = 0;
  uint32_t spec  = 0;
  Origin origin  = Origin::arrival;
  int64_t model  = -1;
  int64_t parent = -1;
  double arrival = 0, wait = 0, compute = 0;
  aiops::Asset asset;
  uint32_t framework = 0;
  double model_bytes = 0, metric = 0;
  uint32_t left = 0;
  bool stopped  = false;
  std::vector<TaskState> tasks;
};

struct Ready {
  uint32_t slot = 0;
  uint16_t task = 0;
  double ready  = 0;
  double key    = 0; ///< compute seconds (shortest first)
  uint64_t seq  = 0; ///< ties in arrival order
};
struct LongerFirst {
  bool operator()(const Ready& a, const Ready& b) const { return a.key != b.key ? a.key > b.key : a.seq > b.seq; }
};

struct Worker {
  s4u::ActorPtr actor;
  uint32_t pool = 0;
  Ready next;
  bool has_next = false;
};

struct Pool {
  std::string name;
  std::vector<s4u::Host*> hosts;
  uint32_t slots = 0;
  std::deque<Ready> fifo;
  std::priority_queue<Ready, std::vector<Ready>, LongerFirst> shortest;
  std::deque<Worker*> idle; ///< suspended workers, the longest idle first
  uint64_t tasks = 0;
  double busy = 0, queued = 0, bytes_read = 0, bytes_written = 0;
};

/** The hours of one resource still open: busy slot-seconds integrate as tasks start and end (the
 *  clock only moves forward), so every hour before the current one is final and leaves at once. */
struct HourAcc {
  double busy = 0, queued = 0, bytes_read = 0, bytes_written = 0;
  int64_t started = 0;
};

struct Deployed {
  int64_t version  = 0;
  int64_t pipeline = -1;
  double deployed  = 0;
  double metric    = 0;
  aiops::Drift drift;
  bool retraining   = false;
  uint64_t retrains = 0;
  double integral   = 0; ///< staleness-seconds within [0, duration] of its retired versions
};

struct Event {
  double time     = 0;
  uint32_t model  = 0;
  int64_t version = 0;
  Origin trigger  = Origin::threshold;
  bool operator>(const Event& o) const
  {
    if (time != o.time)
      return time > o.time;
    if (model != o.model)
      return model > o.model;
    return int(trigger) > int(o.trigger);
  }
};

inline uint64_t mix_seed(uint64_t seed, uint64_t stream)
{
  // SplitMix64 of (seed, stream): independent streams for arrivals, contents and drift
  uint64_t z = seed + 0x9E3779B97F4A7C15ULL * (stream + 1);
  z          = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z          = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

class Simulator {
public:
  Simulator(const aiops::ExperimentSpec& e, aiops::Synthesizer synth, const platform::Platform* platform,
            const RunOptions& o)
      : e_(e)
      , synth_(std::move(synth))
      , options_(o)
      , arrivals_rng_(mix_seed(e.seed, 0))
      , content_rng_(mix_seed(e.seed, 1))
      , drift_rng_(mix_seed(e.seed, 2))
  {
    compile(platform);
  }

  void setup();
  RunSummary finish();
  std::vector<std::string> hosts() const
  {
    std::vector<std::string> out;
    for (const auto& p : pools_)
      for (const auto* h : p.hosts)
        out.push_back(h->get_name());
    return out;
  }

private:
  // set-up
  void compile(const platform::Platform* platform);
  std::vector<s4u::Host*> hosts_of(const aiops::PoolSpec& p, const platform::Platform* platform) const;

  // actors
  void arrivals();
  void worker(Worker& self, s4u::Host* host, int32_t slot);
  bool take(Pool& p, Ready& r);
  void detector();

  // pipelines
  uint32_t start_pipeline(uint32_t spec, Origin origin, int64_t model);
  void release(uint32_t slot, uint16_t task);
  void complete(uint32_t slot, uint16_t task);
  void pipeline_done(uint32_t slot);
  void run_task(Worker& w, s4u::Host* host, int32_t slot, const Ready& r);
  double read_time(s4u::Host* host, double bytes);
  double write_time(s4u::Host* host, double bytes);

  // deployed models
  aiops::Drift draw_drift();
  void deploy(uint32_t model, double now, int64_t pipeline, double metric);
  void retire(uint32_t model, double now);
  void schedule(uint32_t model);
  void add_staleness(const Deployed& d, double from, double to);

  /** The current hour of a resource at the clock, after integrating its busy slots up to now and
   *  writing out the hours that ended. */
  HourAcc& hour_now(size_t resource);
  void advance(size_t resource, double t);

  const aiops::ExperimentSpec& e_;
  aiops::Synthesizer synth_;
  RunOptions options_;
  std::mt19937_64 arrivals_rng_, content_rng_, drift_rng_;

  std::vector<CPipeline> specs_;
  std::vector<double> shares_; ///< cumulative, of the arrivals
  std::vector<Pool> pools_;
  std::vector<std::string> kinds_;
  s4u::Host* store_ = nullptr;
  s4u::Disk* disk_  = nullptr;
  sim::NetworkFactors factors_;
  std::map<s4u::Host*, std::pair<sim::RouteCost, sim::RouteCost>> routes_; ///< (read, write) per worker host
  int retrain_spec_ = -1;

  std::deque<Worker> workers_;
  Worker* finishing_ = nullptr; ///< the worker whose task is completing (a free slot for what it releases)
  std::deque<Live> lives_;
  std::vector<uint32_t> free_;
  int64_t next_id_ = 0;
  uint64_t seq_    = 0;
  std::vector<int64_t> latest_; ///< per pipeline spec: the last pipeline that ended without a gate
  uint64_t in_flight_ = 0;
  bool arrivals_over_ = false;
  s4u::SemaphorePtr drained_;

  std::vector<Deployed> deployed_;
  std::priority_queue<Event, std::vector<Event>, std::greater<>> events_;
  /** The detector sleeps on this semaphore until its next event or a wake-up (no lock is held, so
   *  the actor may be killed anywhere). */
  s4u::SemaphorePtr detector_wake_;
  bool detector_sleeping_ = false;
  void wake_detector();
  std::exception_ptr failure_; ///< what stopped an actor: the run ends and finish() throws it
  template <class F>
  void guarded(F body);
  std::vector<double> stale_hours_; ///< staleness-seconds summed over models, per hour

  struct Hours {
    int64_t first = 0;        ///< the hour of open.front()
    std::deque<HourAcc> open; ///< from `first` to the current hour
    int64_t running = 0;      ///< tasks running on the resource
    double last     = 0;      ///< when `running` last changed
    double slots    = 0;
  };
  std::vector<Hours> hours_; ///< per resource (pools, then the store)
  double horizon_ = 0;       ///< set at the end: the last hour's capacity stops there
  void close_hour(size_t resource);
  std::vector<aiops::ArrivalHourRow> arrival_hours_;

  std::unique_ptr<aiops::DatabaseWriter> db_;
  RunSummary sum_;
  double wait_total_ = 0;
  uint64_t done_     = 0;
};

} // namespace sgai::aiops_sim

#endif
