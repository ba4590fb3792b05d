#include "core/rl/environment.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/rl/protocol.hpp"
#include "core/scheduling/policies.hpp"

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <dlfcn.h>
#include <fcntl.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

extern char** environ;

namespace sgai::rl {

namespace {

const std::vector<std::string> kJobPolicies      = {"random", "first", "shortest", "smallest", "low_mem", "low_mem_bw"};
const std::vector<std::string> kResourcePolicies = {"random",   "high_gflops", "high_cores",
                                                    "high_mem", "high_mem_bw", "low_power"};

using protocol::Kind;
using protocol::Message;

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
  scheduling::make_job_policy(job);
  scheduling::make_resource_policy(resource);
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

std::vector<Action> actions_named(const std::string& text)
{
  if (text == "thesis")
    return thesis_actions();
  if (text == "pairs") {
    auto a = thesis_actions();
    a.pop_back();
    return a;
  }
  std::error_code ec;
  if (text.find(':') == std::string::npos && text != "void" && std::filesystem::exists(text, ec))
    return actions_from_hdeeprm(text);
  std::vector<std::string> names;
  for (size_t from = 0;;) {
    size_t comma = text.find(',', from);
    names.push_back(text.substr(from, comma == std::string::npos ? std::string::npos : comma - from));
    if (comma == std::string::npos)
      break;
    from = comma + 1;
  }
  return actions_from_names(names);
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

// --- the environment (the client) ------------------------------------------------------------

std::filesystem::path find_server()
{
  namespace fs = std::filesystem;
  std::error_code ec;
  if (const char* e = std::getenv("SGAI_RL_ENV"); e != nullptr && *e != '\0') {
    if (not fs::exists(e, ec))
      throw RunError(std::string("SGAI_RL_ENV names ") + e + ", which does not exist");
    return e;
  }
  std::vector<fs::path> candidates;
  fs::path self = fs::read_symlink("/proc/self/exe", ec);
  if (not ec)
    candidates = {self.parent_path() / "sgai-rl-env", self.parent_path() / "../libexec/sgai/sgai-rl-env"};
  // beside libsgai.so: <lib>/../libexec/sgai, in the build tree as once installed (a Python
  // interpreter or a user's program is the process, not sgai)
  Dl_info info{};
  if (::dladdr(reinterpret_cast<void*>(&find_server), &info) != 0 && info.dli_fname != nullptr)
    candidates.push_back(fs::path(info.dli_fname).parent_path() / "../libexec/sgai/sgai-rl-env");
  for (const auto& c : candidates)
    if (fs::is_regular_file(c, ec) && ::access(c.c_str(), X_OK) == 0)
      return c;
  throw RunError("cannot find sgai-rl-env, the environment's simulation server (looked beside this program and in "
                 "../libexec/sgai from it and from libsgai.so): set SGAI_RL_ENV to its path");
}

struct Environment::Impl {
  EnvironmentOptions o;
  pid_t server = -1;
  int to = -1, from = -1;
  size_t obs_size = 0;
  bool running    = false; ///< an episode's child waits for an action
  uint64_t seed   = 0;
  uint64_t steps  = 0;
  std::vector<double> last_observation;

  void close_server()
  {
    for (int* fd : {&to, &from})
      if (*fd >= 0) {
        ::close(*fd);
        *fd = -1;
      }
    if (server > 0) {
      // closing its input ends it (and an episode's child, which reads the same pipe)
      int status = 0;
      pid_t r    = 0;
      for (int i = 0; i < 200 && (r = ::waitpid(server, &status, WNOHANG)) == 0; i++)
        ::usleep(5000);
      if (r == 0) {
        ::kill(server, SIGKILL);
        while (::waitpid(server, &status, 0) < 0 && errno == EINTR) {
        }
      }
    }
    server  = -1;
    running = false;
  }

  Message receive()
  {
    Message m;
    if (not m.receive(from)) {
      close_server();
      throw RunError("the environment's simulation server (sgai-rl-env) stopped without a word");
    }
    if (m.kind == Kind::error) {
      running = false;
      protocol::raise(m);
    }
    return m;
  }

  StepResult read_next()
  {
    Message m = receive();
    StepResult r;
    r.info.steps = steps;
    if (m.kind == Kind::done && m.numbers.size() == 8) {
      running                      = false;
      r.terminated                 = true;
      r.info.time_s                = m.numbers[0];
      r.reward                     = m.numbers[1];
      r.info.jobs_total            = static_cast<uint32_t>(m.numbers[2]);
      r.info.jobs_done             = r.info.jobs_total;
      r.info.makespan_s            = m.numbers[3];
      r.info.mean_bounded_slowdown = m.numbers[4];
      r.info.mean_waiting_s        = m.numbers[5];
      r.info.mean_turnaround_s     = m.numbers[6];
      r.info.energy_j              = m.numbers[7];
      r.observation                = last_observation; // nothing waits: the state of the last decision
      return r;
    }
    if ((m.kind != Kind::observation && m.kind != Kind::truncated) || m.numbers.size() != 4 + obs_size) {
      close_server();
      throw RunError("the environment's simulation server sent a message out of turn");
    }
    r.info.time_s     = m.numbers[0];
    r.reward          = m.numbers[1];
    r.info.jobs_done  = static_cast<uint32_t>(m.numbers[2]);
    r.info.jobs_total = static_cast<uint32_t>(m.numbers[3]);
    r.observation.assign(m.numbers.begin() + 4, m.numbers.end());
    last_observation = r.observation;
    if (m.kind == Kind::truncated) {
      running          = false;
      r.truncated      = true;
      r.info.jobs_left = m.texts;
    }
    return r;
  }
};

Environment::Environment(EnvironmentOptions options)
    : impl_(std::make_unique<Impl>())
{
  auto& im = *impl_;
  im.o     = std::move(options);
  if (im.o.actions.empty())
    throw std::invalid_argument("an environment needs at least one action");
  if (not(im.o.queue_sensitivity > 0) || im.o.queue_sensitivity > 1e6)
    throw std::invalid_argument("queue sensitivity " + std::to_string(im.o.queue_sensitivity) + " must be positive");
  auto server = find_server();
  int down[2], up[2];
  if (::pipe2(down, O_CLOEXEC) != 0)
    throw RunError("cannot create a pipe to the environment's simulation server");
  if (::pipe2(up, O_CLOEXEC) != 0) {
    ::close(down[0]);
    ::close(down[1]);
    throw RunError("cannot create a pipe to the environment's simulation server");
  }
  // the server reads on 3 and writes on 4 (its standard output stays SimGrid's and the user's)
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, down[0], 3);
  posix_spawn_file_actions_adddup2(&fa, up[1], 4);
  std::string path = server.string();
  char* argv[]     = {path.data(), nullptr};
  std::fflush(nullptr);
  pid_t pid = -1;
  int rc    = ::posix_spawn(&pid, path.c_str(), &fa, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(down[0]);
  ::close(up[1]);
  if (rc != 0) {
    ::close(down[1]);
    ::close(up[0]);
    throw RunError("cannot start " + path + ": " + std::strerror(rc));
  }
  im.server = pid;
  im.to     = down[1];
  im.from   = up[0];
  if (not protocol::encode(im.o).send(im.to)) {
    im.close_server();
    throw RunError(path + " did not take the environment's options");
  }
  Message hello;
  try {
    hello = im.receive();
  } catch (...) {
    im.close_server();
    throw;
  }
  if (hello.kind != Kind::hello || hello.numbers.size() != 2) {
    im.close_server();
    throw RunError(path + " answered out of turn");
  }
  im.obs_size = static_cast<size_t>(hello.numbers[0]);
}

Environment::~Environment()
{
  impl_->close_server();
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
  if (im.server < 0)
    throw std::logic_error("the environment's simulation server is gone");
  if (im.running) { // the episode under way ends
    uint32_t stop = protocol::kStop;
    protocol::send_bytes(im.to, &stop, sizeof stop);
    im.running = false;
  }
  im.seed  = seed ? *seed : im.seed + 1;
  im.steps = 0;
  im.last_observation.assign(im.obs_size, 0.0);
  uint32_t reset = protocol::kReset;
  if (not protocol::send_bytes(im.to, &reset, sizeof reset) ||
      not protocol::send_bytes(im.to, &im.seed, sizeof im.seed)) {
    im.close_server();
    throw RunError("the environment's simulation server is gone");
  }
  im.running = true;
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
  if (not protocol::send_bytes(im.to, &a, sizeof a)) {
    im.close_server();
    throw RunError("the environment's simulation server is gone");
  }
  im.steps++;
  return im.read_next();
}

} // namespace sgai::rl
