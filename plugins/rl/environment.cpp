#include "plugins/rl/environment.hpp"

#include "generators/util/error.hpp"
#include "generators/util/files.hpp"
#include "generators/util/json.hpp"
#include "generators/workload/batsim.hpp"
#include "plugins/batch/manager.hpp"
#include "plugins/batch/policies.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>

#include <algorithm>
#include <atomic>
#include <cerrno>
#include <cmath>
#include <csignal>
#include <cstring>
#include <limits>
#include <sys/wait.h>
#include <unistd.h>

namespace sgai::rl {

namespace {

const std::vector<std::string> kJobPolicies      = {"random", "first", "shortest", "smallest", "low_mem", "low_mem_bw"};
const std::vector<std::string> kResourcePolicies = {"random",   "high_gflops", "high_cores",
                                                    "high_mem", "high_mem_bw", "low_power"};

std::atomic<bool> g_alive{false}; ///< an Environment exists in this process

// --- the pipe between the parent and the episode's child ------------------------------------------

enum class Msg : uint8_t { observation = 1, done = 2, truncated = 3, error = 4 };

template <typename Io>
bool transfer_all(Io io, int fd, char* data, size_t size)
{
  while (size > 0) {
    ssize_t k = io(fd, data, size);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return false;
    data += k;
    size -= static_cast<size_t>(k);
  }
  return true;
}

bool send_bytes(int fd, const void* data, size_t size)
{
  return transfer_all([](int f, char* p, size_t n) { return ::write(f, p, n); }, fd,
                      const_cast<char*>(static_cast<const char*>(data)), size);
}

bool receive_bytes(int fd, void* data, size_t size)
{
  return transfer_all([](int f, char* p, size_t n) { return ::read(f, p, n); }, fd, static_cast<char*>(data), size);
}

/** A message: its kind, then doubles, then strings, each with its count. */
struct Message {
  Msg kind = Msg::error;
  std::vector<double> numbers;
  std::vector<std::string> texts;

  bool send(int fd) const
  {
    uint64_t counts[2] = {numbers.size(), texts.size()};
    bool ok            = send_bytes(fd, &kind, 1) && send_bytes(fd, counts, sizeof counts) &&
              send_bytes(fd, numbers.data(), numbers.size() * sizeof(double));
    for (const auto& t : texts) {
      uint64_t len = t.size();
      ok           = ok && send_bytes(fd, &len, sizeof len) && send_bytes(fd, t.data(), t.size());
    }
    return ok;
  }
  bool receive(int fd)
  {
    uint64_t counts[2] = {0, 0};
    if (not receive_bytes(fd, &kind, 1) || not receive_bytes(fd, counts, sizeof counts) || counts[0] > (1ULL << 32) ||
        counts[1] > (1ULL << 24))
      return false;
    numbers.resize(counts[0]);
    if (not receive_bytes(fd, numbers.data(), numbers.size() * sizeof(double)))
      return false;
    texts.resize(counts[1]);
    for (auto& t : texts) {
      uint64_t len = 0;
      if (not receive_bytes(fd, &len, sizeof len) || len > (1ULL << 30))
        return false;
      t.resize(len);
      if (not receive_bytes(fd, t.data(), len))
        return false;
    }
    return true;
  }
};

/** The q-quantile (numpy's linear interpolation) of `v`, whose order it changes; O(n), no sort. */
double quantile(std::vector<double>& v, double q)
{
  double pos = q * static_cast<double>(v.size() - 1);
  auto lo    = static_cast<size_t>(std::floor(pos));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(lo), v.end());
  double a = v[lo];
  if (lo + 1 >= v.size() || pos == std::floor(pos))
    return a;
  double b = *std::min_element(v.begin() + static_cast<std::ptrdiff_t>(lo) + 1, v.end());
  return a + (b - a) * (pos - std::floor(pos));
}

} // namespace

// --- names ---------------------------------------------------------------------------------------

const std::vector<std::string>& observation_names()
{
  static const std::vector<std::string> n = {"normal", "small", "minimal"};
  return n;
}

const std::vector<std::string>& reward_names()
{
  static const std::vector<std::string> n = {"slowdown", "completion", "utilization", "makespan", "energy"};
  return n;
}

namespace {

template <typename E>
E from_names(const std::vector<std::string>& names, const std::string& name, const char* what)
{
  for (size_t i = 0; i < names.size(); i++)
    if (names[i] == name)
      return static_cast<E>(i);
  std::string known;
  for (const auto& n : names)
    known += (known.empty() ? "'" : ", '") + n + "'";
  throw std::invalid_argument(std::string("unknown ") + what + " " + quote(name) + " (known: " + known + ")");
}

} // namespace

ObservationKind observation_from_string(const std::string& name)
{
  return from_names<ObservationKind>(observation_names(), name, "observation");
}

RewardKind reward_from_string(const std::string& name)
{
  return from_names<RewardKind>(reward_names(), name, "reward");
}

std::string Action::name() const
{
  return is_void() ? std::string("void") : job_policy + "/" + resource_policy;
}

std::vector<Action> thesis_actions()
{
  std::vector<Action> a;
  for (const auto& j : kJobPolicies)
    for (const auto& r : kResourcePolicies)
      a.push_back({j, r});
  a.push_back({});
  return a;
}

namespace {

/** Checks both names against the workload manager's policies (their messages list the known). */
Action checked(const std::string& job, const std::string& resource)
{
  batch::make_job_policy(job);
  batch::make_resource_policy(resource);
  return {job, resource};
}

} // namespace

std::vector<Action> actions_from_names(const std::vector<std::string>& names)
{
  std::vector<Action> out;
  for (const auto& n : names) {
    if (n == "void") {
      out.push_back({});
      continue;
    }
    auto colon = n.find(':');
    if (colon == std::string::npos)
      throw std::invalid_argument("action " + quote(n) + ": expected job_policy:resource_policy or void");
    out.push_back(checked(n.substr(0, colon), n.substr(colon + 1)));
  }
  if (out.empty())
    throw std::invalid_argument("no action: give at least one job_policy:resource_policy pair");
  return out;
}

std::vector<Action> actions_from_hdeeprm(const std::filesystem::path& options_file)
{
  auto doc = json::load(options_file);
  auto top = doc.object();
  std::optional<json::Value> actions;
  if (auto pb = top.optional("pybatsim")) {
    auto pbo = pb->object();
    if (auto env = pbo.optional("env"))
      actions = env->object().optional("actions");
  }
  if (not actions)
    top.fail("no pybatsim.env.actions object (HDeepRM's action selection)");
  auto ao = actions->object();
  std::vector<Action> out;
  for (auto& entry : ao.required("selection").array()) {
    auto eo = entry.object();
    for (const auto& job : eo.take_all_keys())
      for (auto& r : eo.required(job).array())
        try {
          out.push_back(checked(job, r.string()));
        } catch (const std::invalid_argument& e) {
          r.fail(e.what());
        }
  }
  if (auto v = ao.optional("void"); v && v->boolean())
    out.push_back({});
  if (out.empty())
    ao.fail("the selection holds no pair");
  return out;
}

// --- the environment ---------------------------------------------------------------------------

struct Environment::Impl {
  EnvironmentOptions o;
  std::unique_ptr<sim::Simulation> sim;
  std::optional<platform::Platform> plat;
  workload::Workload w;
  batch::Resources res;
  size_t obs_size = 0;
  /** The queue's upper limits (HDeepRM's job_limits, else the workload's largest requests):
   *  requested time, cores, memory, memory bandwidth. */
  double limit[4] = {0, 0, 0, 0};
  pid_t child     = -1;
  int to_child = -1, from_child = -1;
  bool running   = false;
  uint64_t seed  = 0;
  uint64_t steps = 0;
  std::vector<double> last_observation;

  // --- in the child ----------------------------------------------------------------------------
  size_t last_queue = 0;

  std::vector<double> observe(const batch::DecisionPoint& p)
  {
    std::vector<double> obs;
    obs.reserve(obs_size);
    const auto& cl = *p.cluster;
    if (o.observation != ObservationKind::minimal) {
      for (size_t n = 0; n < res.nodes.size(); n++) {
        const auto& node = res.nodes[n];
        obs.push_back(std::isfinite(node.memory_mb) && node.memory_mb > 0
                          ? std::clamp(cl.node_free_memory_mb(static_cast<uint32_t>(n)) / node.memory_mb, 0.0, 1.0)
                          : 1.0);
      }
      for (size_t q = 0; q < res.processors.size(); q++) {
        const auto& pr = res.processors[q];
        obs.push_back(std::isfinite(pr.mem_bw_gbps) && pr.mem_bw_gbps > 0
                          ? std::clamp(cl.processor_free_bw_gbps(static_cast<uint32_t>(q)) / pr.mem_bw_gbps, 0.0, 1.0)
                          : 1.0);
      }
    }
    if (o.observation == ObservationKind::normal) {
      for (size_t c = 0; c < res.cores.size(); c++) {
        auto core = static_cast<uint32_t>(c);
        if (cl.is_free(core) || cl.owner(core) >= p.jobs->size()) {
          obs.insert(obs.end(), {0.0, 0.0, 0.0});
          continue;
        }
        const auto& pr  = res.processors[res.cores[c].processor];
        auto* host      = (*p.hosts)[res.cores[c].host];
        double per_host = std::max(1, host->get_core_count());
        double flops    = pr.flops_per_core > 0 ? host->get_speed() / pr.flops_per_core : 0;
        double max_w    = sg_host_get_wattmax_at(host, 0) / per_host;
        double watts    = max_w > 0 ? sg_host_get_current_consumption(host) / per_host / max_w : 0;
        uint32_t job    = cl.owner(core);
        auto req        = workload::requested_time(w, w.jobs[job]);
        double left     = 0;
        if (req && *req > 0)
          left = 1 - (p.now - (*p.jobs)[job].start_s) / *req;
        obs.insert(obs.end(), {std::clamp(flops, 0.0, 1.0), std::clamp(watts, 0.0, 1.0), std::clamp(left, 0.0, 1.0)});
      }
    }
    // the queue's requests: min, Q1, median, Q3, max of each, over its limit
    auto queue = p.scheduler->queue();
    std::vector<double> v(queue.size());
    for (int k = 0; k < 4; k++) {
      for (size_t i = 0; i < queue.size(); i++) {
        const auto& q = queue[i];
        double x      = k == 0   ? (std::isfinite(q.requested_time_s) ? q.requested_time_s : 0)
                        : k == 1 ? q.demand.cores
                        : k == 2 ? q.demand.mem_mb
                                 : q.demand.mem_bw_gbps;
        v[i]          = x;
      }
      for (double qq : {0.0, 0.25, 0.5, 0.75, 1.0}) {
        double x = v.empty() ? 0 : quantile(v, qq);
        obs.push_back(limit[k] > 0 ? std::clamp(x / limit[k], 0.0, 1.0) : 0.0);
      }
    }
    // the queue size's variation since the last observation, at the queue sensitivity
    size_t now = queue.size();
    double ratio;
    if (last_queue == 0)
      ratio = now > 0 ? 1.0 : 0.5;
    else if (now == 0)
      ratio = 0.0;
    else {
      double variation =
          (static_cast<double>(now) - static_cast<double>(last_queue)) / static_cast<double>(std::min(now, last_queue));
      ratio = std::clamp((variation + o.queue_sensitivity) / (2 * o.queue_sensitivity), 0.0, 1.0);
    }
    obs.push_back(ratio);
    last_queue = now;
    return obs;
  }

  double reward(const batch::DecisionPoint& p) const
  {
    const auto& cl = *p.cluster;
    switch (o.reward) {
    case RewardKind::slowdown: {
      double sum = 0;
      for (const auto& q : p.scheduler->queue())
        if (std::isfinite(q.requested_time_s) && q.requested_time_s > 0)
          sum += 1 / q.requested_time_s;
      std::vector<bool> seen(w.jobs.size(), false);
      for (size_t c = 0; c < res.cores.size(); c++) {
        uint32_t job = cl.owner(static_cast<uint32_t>(c));
        if (job < w.jobs.size() && not seen[job]) {
          seen[job] = true;
          auto req  = workload::requested_time(w, w.jobs[job]);
          if (req && *req > 0)
            sum += 1 / *req;
        }
      }
      return -sum;
    }
    case RewardKind::completion: {
      // active jobs: submitted, not ended
      uint32_t submitted = 0;
      for (const auto& j : w.jobs)
        if (j.submit_s <= p.now)
          submitted++;
      return -static_cast<double>(submitted - std::min(submitted, p.done));
    }
    case RewardKind::utilization:
      return static_cast<double>(res.core_count() - cl.free_cores());
    case RewardKind::makespan:
      return p.flops_in_use / 1e9;
    case RewardKind::energy: {
      double watts = 0;
      for (auto* h : *p.hosts)
        watts += sg_host_get_current_consumption(h);
      return -watts;
    }
    }
    return 0;
  }

  /** The episode, in the child: the workload manager asks the parent at each decision point. */
  [[noreturn]] void run_child(uint64_t episode_seed)
  {
    Message out;
    double pending = 0; // reward of the last action, on the state it left
    uint32_t voids = 0;
    double void_at = -1;
    std::vector<double> obs;
    auto fail = [&](const std::string& what) {
      Message e;
      e.kind  = Msg::error;
      e.texts = {what};
      e.send(to_child);
      ::_exit(1);
    };
    try {
      batch::ManagerConfig cfg;
      cfg.scheduler.seed     = episode_seed;
      cfg.scheduler.backfill = batch::Backfill::none;
      cfg.interference       = o.interference;
      cfg.max_resources      = o.max_resources;
      cfg.platform_file      = o.platform.string();
      cfg.decide             = [&](const batch::DecisionPoint& p) -> batch::PolicyChoice {
        obs = observe(p);
        Message m;
        m.kind    = Msg::observation;
        m.numbers = {p.now, pending, static_cast<double>(p.done)};
        m.numbers.insert(m.numbers.end(), obs.begin(), obs.end());
        if (not m.send(to_child))
          ::_exit(0); // the parent is gone
        uint32_t a = 0;
        if (not receive_bytes(from_child, &a, sizeof a) || a >= o.actions.size())
          ::_exit(0);
        const Action& act = o.actions[a];
        if (act.is_void()) {
          voids   = p.now == void_at ? voids + 1 : 1;
          void_at = p.now;
          if (voids > o.max_voids) {
            Message t;
            t.kind    = Msg::truncated;
            t.numbers = {p.now, 0, static_cast<double>(p.done)};
            t.numbers.insert(t.numbers.end(), obs.begin(), obs.end());
            for (size_t j = 0; j < w.jobs.size(); j++)
              if ((*p.jobs)[j].finish_s < 0)
                t.texts.push_back(w.jobs[j].id);
            t.send(to_child);
            ::_exit(0);
          }
          return {"", "", true};
        }
        voids = 0;
        return {act.job_policy, act.resource_policy, false};
      };
      cfg.decided = [&](const batch::DecisionPoint& p) { pending = reward(p); };
      batch::WorkloadManager m(w, res, plat ? &*plat : nullptr, cfg);
      m.start();
      sim->run();
      if (not m.error().empty())
        fail(m.error());
      // the end: the objective figures, and the last reward
      double first = std::numeric_limits<double>::infinity(), last = 0, slow = 0, wait = 0, turn = 0;
      uint32_t n = 0;
      for (size_t j = 0; j < w.jobs.size(); j++) {
        const auto& r = m.jobs()[j];
        if (r.start_s < 0)
          continue;
        n++;
        first      = std::min(first, w.jobs[j].submit_s);
        last       = std::max(last, r.finish_s);
        double run = r.finish_s - r.start_s, t = r.finish_s - w.jobs[j].submit_s;
        slow += std::max(1.0, t / std::max(run, 10.0));
        wait += r.start_s - w.jobs[j].submit_s;
        turn += t;
      }
      double energy = 0;
      for (const auto& [k, v] : m.figures())
        if (k == "energy_j")
          energy = v;
      Message d;
      d.kind    = Msg::done;
      double nn = std::max<double>(1, n);
      d.numbers = {simgrid::s4u::Engine::get_clock(),
                   pending,
                   static_cast<double>(w.jobs.size()),
                   n > 0 ? last - first : 0,
                   slow / nn,
                   wait / nn,
                   turn / nn,
                   energy};
      d.send(to_child);
      ::_exit(0);
    } catch (const std::exception& e) {
      fail(e.what());
    }
    ::_exit(1);
  }

  // --- in the parent ---------------------------------------------------------------------------

  void end_child()
  {
    if (child > 0) {
      ::kill(child, SIGKILL);
      while (::waitpid(child, nullptr, 0) < 0 && errno == EINTR) {
      }
    }
    for (int* fd : {&to_child, &from_child})
      if (*fd >= 0) {
        ::close(*fd);
        *fd = -1;
      }
    child   = -1;
    running = false;
  }

  StepResult read_next()
  {
    Message m;
    if (not m.receive(from_child)) {
      end_child();
      throw RunError("the episode's simulation (a child process) stopped without a word");
    }
    StepResult r;
    if (m.kind == Msg::error) {
      end_child();
      throw RunError(m.texts.empty() ? std::string("the episode's simulation failed") : m.texts[0]);
    }
    r.info.jobs_total = static_cast<uint32_t>(w.jobs.size());
    r.info.steps      = steps;
    if (m.kind == Msg::done) {
      r.terminated                 = true;
      r.reward                     = m.numbers[1];
      r.info.time_s                = m.numbers[0];
      r.info.jobs_done             = static_cast<uint32_t>(m.numbers[2]);
      r.info.makespan_s            = m.numbers[3];
      r.info.mean_bounded_slowdown = m.numbers[4];
      r.info.mean_waiting_s        = m.numbers[5];
      r.info.mean_turnaround_s     = m.numbers[6];
      r.info.energy_j              = m.numbers[7];
      r.observation                = last_observation; // nothing waits: the state of the last decision
      end_child();
      return r;
    }
    r.info.time_s    = m.numbers[0];
    r.reward         = m.numbers[1];
    r.info.jobs_done = static_cast<uint32_t>(m.numbers[2]);
    r.observation.assign(m.numbers.begin() + 3, m.numbers.end());
    last_observation = r.observation;
    if (m.kind == Msg::truncated) {
      r.truncated      = true;
      r.info.jobs_left = m.texts;
      end_child();
    }
    return r;
  }
};

Environment::Environment(EnvironmentOptions options)
    : impl_(std::make_unique<Impl>())
{
  if (g_alive.exchange(true))
    throw RunError("one sgai learning environment per process: SimGrid runs one engine per process (close the "
                   "first environment, or use another process)");
  try {
    auto& im = *impl_;
    im.o     = std::move(options);
    if (im.o.actions.empty())
      throw std::invalid_argument("an environment needs at least one action");
    if (not(im.o.queue_sensitivity > 0) || im.o.queue_sensitivity > 1e6)
      throw std::invalid_argument("queue sensitivity " + std::to_string(im.o.queue_sensitivity) + " must be positive");
    im.w = workload::read_workload(im.o.workload);
    sim::SimulationOptions so;
    so.simgrid_args = {"--cfg=contexts/stack-size:256"};
    if (batch::WorkloadManager::needs_ptask_model(im.w))
      so.simgrid_args.emplace_back("--cfg=host/model:ptask_L07");
    so.simgrid_args.insert(so.simgrid_args.end(), im.o.simgrid_args.begin(), im.o.simgrid_args.end());
    im.sim  = std::make_unique<sim::Simulation>(so);
    im.plat = im.sim->load_platform(im.o.platform);
    if (im.o.max_resources == 0)
      if (auto made_for = workload::resources_made_for(im.w))
        im.o.max_resources = static_cast<uint32_t>(*made_for);
    im.res = im.plat ? batch::resources_from_platform(*im.plat, im.o.max_resources)
                     : batch::resources_from_engine(im.o.max_resources);
    if (im.res.cores.empty())
      throw InputError(im.o.platform.string(), "", "no host here can run jobs: the environment has no core to use");
    im.obs_size = 21;
    if (im.o.observation != ObservationKind::minimal)
      im.obs_size += im.res.nodes.size() + im.res.processors.size();
    if (im.o.observation == ObservationKind::normal)
      im.obs_size += 3 * im.res.cores.size();
    // the queue's limits: HDeepRM's job_limits, else the largest request of the workload
    for (const auto& j : im.w.jobs) {
      const auto& pr = im.w.profile_of(j);
      if (auto t = workload::requested_time(im.w, j))
        im.limit[0] = std::max(im.limit[0], *t);
      im.limit[1] = std::max(im.limit[1], static_cast<double>(j.resources));
      im.limit[2] = std::max(im.limit[2], pr.mem_mb.value_or(0));
      im.limit[3] = std::max(im.limit[3], pr.mem_bw_gbps.value_or(0));
    }
    if (not im.w.job_limits_json.empty()) {
      auto doc            = json::parse(im.w.job_limits_json, im.w.source + " (job_limits)");
      auto lo             = doc.object();
      const char* keys[4] = {"max_time", "max_core", "max_mem", "max_mem_bw"};
      lo.optional("reference_machine"); // (HDeepRM's: the speed requested times were made at)
      for (int k = 0; k < 4; k++)
        if (auto v = lo.optional(keys[k]))
          im.limit[k] = v->non_negative(); // (0: the workload asks for none: the statistics read 0)
      lo.finish({"max_time", "max_core", "max_mem", "max_mem_bw", "reference_machine"});
    }
  } catch (...) {
    g_alive = false;
    throw;
  }
}

Environment::~Environment()
{
  impl_->end_child();
  g_alive = false;
}

size_t Environment::observation_size() const
{
  return impl_->obs_size;
}

size_t Environment::action_count() const
{
  return impl_->o.actions.size();
}

const EnvironmentOptions& Environment::options() const
{
  return impl_->o;
}

StepResult Environment::reset(std::optional<uint64_t> seed)
{
  auto& im = *impl_;
  im.end_child();
  im.seed  = seed ? *seed : im.seed + 1;
  im.steps = 0;
  im.last_observation.assign(im.obs_size, 0.0);
  int down[2], up[2];
  if (::pipe(down) != 0)
    throw RunError("cannot create a pipe for the episode");
  if (::pipe(up) != 0) {
    ::close(down[0]);
    ::close(down[1]);
    throw RunError("cannot create a pipe for the episode");
  }
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {down[0], down[1], up[0], up[1]})
      ::close(fd);
    throw RunError("cannot fork the episode's simulation");
  }
  if (pid == 0) {
    ::close(down[1]);
    ::close(up[0]);
    im.from_child = down[0]; // (in the child: what the parent sends)
    im.to_child   = up[1];   // (in the child: what goes to the parent)
    im.run_child(im.seed);
  }
  ::close(down[0]);
  ::close(up[1]);
  im.child      = pid;
  im.to_child   = down[1];
  im.from_child = up[0];
  im.running    = true;
  return im.read_next();
}

StepResult Environment::step(size_t action)
{
  auto& im = *impl_;
  if (action >= im.o.actions.size())
    throw std::out_of_range("action " + std::to_string(action) + " is not one of the " +
                            std::to_string(im.o.actions.size()) + " actions (0 to " +
                            std::to_string(im.o.actions.size() - 1) + ")");
  if (not im.running)
    throw std::logic_error("no episode is running: call reset() first");
  auto a = static_cast<uint32_t>(action);
  if (not send_bytes(im.to_child, &a, sizeof a)) {
    im.end_child();
    throw RunError("the episode's simulation (a child process) is gone");
  }
  im.steps++;
  return im.read_next();
}

} // namespace sgai::rl
