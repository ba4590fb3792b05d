/* The only translation unit of sgai that includes libtorch (it takes ~20 s and 1.2 GB to compile). */
#include "core/rl_agents/agent.hpp"

#include "core/foundation/error.hpp"

#include <torch/torch.h>

#include <cmath>
#include <limits>
#include <random>
#include <sstream>

namespace sgai::rl_agents {

namespace {

namespace F = torch::nn::functional;

/** Input layer, then per head three hidden layers and an output; LeakyReLU between (HDeepRM's
 *  agent examples: the critic shares the input layer). */
struct Net : torch::nn::Module {
  torch::nn::Linear input{nullptr};
  torch::nn::Linear actor[4]  = {nullptr, nullptr, nullptr, nullptr};
  torch::nn::Linear critic[4] = {nullptr, nullptr, nullptr, nullptr};
  bool has_critic             = false;

  Net(int64_t observations, int64_t actions, int64_t hidden, bool with_critic)
      : has_critic(with_critic)
  {
    input = register_module("input", torch::nn::Linear(observations, hidden));
    for (int i = 0; i < 3; i++)
      actor[i] = register_module("actor_hidden_" + std::to_string(i), torch::nn::Linear(hidden, hidden));
    actor[3] = register_module("actor_output", torch::nn::Linear(hidden, actions));
    if (has_critic) {
      for (int i = 0; i < 3; i++)
        critic[i] = register_module("critic_hidden_" + std::to_string(i), torch::nn::Linear(hidden, hidden));
      critic[3] = register_module("critic_output", torch::nn::Linear(hidden, 1));
    }
  }

  torch::Tensor trunk(const torch::Tensor& x) { return F::leaky_relu(input(x)); }
  torch::Tensor policy(const torch::Tensor& t)
  {
    torch::Tensor h = t;
    for (int i = 0; i < 3; i++)
      h = F::leaky_relu(actor[i](h));
    return torch::softmax(actor[3](h), 1);
  }
  torch::Tensor value(const torch::Tensor& t)
  {
    torch::Tensor h = t;
    for (int i = 0; i < 3; i++)
      h = F::leaky_relu(critic[i](h));
    return critic[3](h);
  }
};

} // namespace

const std::vector<std::string>& agent_names()
{
  static const std::vector<std::string> n = {"reinforce", "reinforce-baseline", "actor-critic"};
  return n;
}

AgentKind agent_from_string(const std::string& name)
{
  const auto& n = agent_names();
  for (size_t i = 0; i < n.size(); i++)
    if (n[i] == name)
      return static_cast<AgentKind>(i);
  throw std::invalid_argument("unknown agent " + quote(name) +
                              " (known: 'reinforce', 'reinforce-baseline', 'actor-critic')");
}

struct Agent::Impl {
  AgentOptions o;
  std::shared_ptr<Net> net;
  std::unique_ptr<torch::optim::Adam> adam;
  std::mt19937_64 rng;
  /** The episode so far: observations (float32, one row each), actions chosen, rewards. Its
   *  log-probabilities and values are computed again at its end in one batched pass: the weights do
   *  not change within an episode, so this is the same loss for far fewer tensor operations. */
  std::vector<float> observations;
  std::vector<int64_t> actions;
  std::vector<double> rewards;
  double baseline     = 0; ///< running mean of the returns (reinforce-baseline)
  uint64_t baseline_n = 0;

  torch::Tensor input(const std::vector<double>& observation) const
  {
    if (observation.size() != o.observations)
      throw std::invalid_argument("an observation of " + std::to_string(observation.size()) +
                                  " values for an agent made for " + std::to_string(o.observations));
    std::vector<float> f(observation.begin(), observation.end());
    return torch::from_blob(f.data(), {1, static_cast<int64_t>(f.size())}, torch::kFloat32).clone();
  }
};

Agent::Agent(const AgentOptions& options)
    : impl_(std::make_unique<Impl>())
{
  auto& im = *impl_;
  im.o     = options;
  if (im.o.observations == 0 || im.o.actions == 0 || im.o.hidden == 0)
    throw std::invalid_argument("an agent needs observations, actions and hidden units");
  if (not(im.o.learning_rate > 0) || not(im.o.gamma >= 0) || im.o.gamma > 1)
    throw std::invalid_argument("the learning rate must be positive and the discount from 0 to 1");
  torch::set_num_threads(1); // small networks: one thread is faster, and the same from run to run
  torch::manual_seed(im.o.seed);
  im.net  = std::make_shared<Net>(static_cast<int64_t>(im.o.observations), static_cast<int64_t>(im.o.actions),
                                 static_cast<int64_t>(im.o.hidden), im.o.kind == AgentKind::actor_critic);
  im.adam = std::make_unique<torch::optim::Adam>(im.net->parameters(), torch::optim::AdamOptions(im.o.learning_rate));
  im.rng.seed(im.o.seed);
}

Agent::~Agent() = default;

const AgentOptions& Agent::options() const
{
  return impl_->o;
}

std::vector<double> Agent::preferences(const std::vector<double>& observation) const
{
  torch::NoGradGuard no_grad;
  auto& im       = *impl_;
  auto p         = im.net->policy(im.net->trunk(im.input(observation))).contiguous();
  const float* d = p.data_ptr<float>();
  return std::vector<double>(d, d + im.o.actions);
}

size_t Agent::act(const std::vector<double>& observation, bool greedy)
{
  auto& im = *impl_;
  if (greedy) {
    auto p = preferences(observation);
    return static_cast<size_t>(std::max_element(p.begin(), p.end()) - p.begin());
  }
  torch::Tensor pc;
  {
    torch::NoGradGuard no_grad;
    pc = im.net->policy(im.net->trunk(im.input(observation))).contiguous();
  }
  const float* d = pc.data_ptr<float>();
  // sampled with sgai's own generator (the same draws on every machine for a seed)
  double u = static_cast<double>(im.rng() >> 11) * 0x1.0p-53, acc = 0;
  size_t a = im.o.actions - 1;
  for (size_t i = 0; i < im.o.actions; i++) {
    acc += d[i];
    if (u < acc) {
      a = i;
      break;
    }
  }
  im.observations.insert(im.observations.end(), observation.begin(), observation.end());
  im.actions.push_back(static_cast<int64_t>(a));
  im.rewards.push_back(0);
  return a;
}

void Agent::reward(double r)
{
  auto& im = *impl_;
  if (im.rewards.empty())
    throw std::logic_error("a reward before any action");
  im.rewards.back() = r;
}

EpisodeUpdate Agent::end_episode()
{
  auto& im = *impl_;
  EpisodeUpdate u;
  u.steps = im.rewards.size();
  for (double r : im.rewards)
    u.reward_sum += r;
  if (u.steps == 0)
    return u;
  // discounted returns, standardized when there is more than one (HDeepRM's transform_rewards)
  std::vector<double> g(u.steps);
  double acc = 0;
  for (size_t i = u.steps; i-- > 0;) {
    acc  = im.rewards[i] + im.o.gamma * acc;
    g[i] = acc;
  }
  if (u.steps > 1) {
    double mean = 0, var = 0;
    for (double x : g)
      mean += x;
    mean /= static_cast<double>(u.steps);
    for (double x : g)
      var += (x - mean) * (x - mean);
    double sd = std::sqrt(var / static_cast<double>(u.steps - 1));
    for (double& x : g)
      x = (x - mean) / (sd + static_cast<double>(std::numeric_limits<float>::epsilon()));
  }
  // every step at once: log pi(a_t | o_t) and, for actor-critic, V(o_t)
  auto steps = static_cast<int64_t>(u.steps);
  auto obs =
      torch::from_blob(im.observations.data(), {steps, static_cast<int64_t>(im.o.observations)}, torch::kFloat32);
  auto acts  = torch::from_blob(im.actions.data(), {steps, 1}, torch::kInt64);
  auto trunk = im.net->trunk(obs);
  auto logp  = torch::log(im.net->policy(trunk)).gather(1, acts).reshape({steps});
  std::vector<float> gf(g.begin(), g.end());
  auto returns = torch::from_blob(gf.data(), {steps}, torch::kFloat32);
  torch::Tensor advantage;
  torch::Tensor value = torch::zeros({1});
  if (im.o.kind == AgentKind::actor_critic) {
    auto v    = im.net->value(trunk).reshape({steps});
    advantage = returns - v.detach();
    // the Huber loss of each step, summed (HDeepRM's smooth_l1_loss per step)
    value = F::smooth_l1_loss(v, returns, F::SmoothL1LossFuncOptions().reduction(torch::kSum)).reshape({1});
  } else if (im.o.kind == AgentKind::reinforce_baseline)
    advantage = returns - static_cast<float>(im.baseline);
  else
    advantage = returns;
  torch::Tensor policy = (-(logp * advantage).sum()).reshape({1});
  if (im.o.kind == AgentKind::reinforce_baseline)
    for (double x : g) // the mean of every return seen so far
      im.baseline += (x - im.baseline) / static_cast<double>(++im.baseline_n);
  torch::Tensor loss = policy + value;
  im.adam->zero_grad();
  loss.backward();
  im.adam->step();
  u.policy_loss = policy.item<double>();
  u.value_loss  = value.item<double>();
  u.loss        = loss.item<double>();
  im.observations.clear();
  im.actions.clear();
  im.rewards.clear();
  return u;
}

void Agent::save(const std::filesystem::path& file, const Description& d) const
{
  const auto& im = *impl_;
  std::ostringstream meta;
  meta << "sgai-rl-agent 1\n"
       << agent_names()[static_cast<size_t>(im.o.kind)] << "\n"
       << im.o.observations << " " << im.o.actions << " " << im.o.hidden << " " << d.settings.size() << "\n";
  for (const auto& x : d.settings)
    meta << x << "\n";
  for (const auto& a : d.actions)
    meta << a << "\n";
  torch::serialize::OutputArchive archive;
  im.net->save(archive);
  archive.write("sgai_meta", c10::IValue(meta.str()));
  archive.save_to(file.string());
}

std::unique_ptr<Agent> Agent::load(const std::filesystem::path& file, Description& d)
{
  torch::serialize::InputArchive archive;
  try {
    archive.load_from(file.string());
  } catch (const std::exception&) {
    throw InputError(file.string(), "", "not a model sgai saved (sgai rl train writes them)");
  }
  c10::IValue meta;
  if (not archive.try_read("sgai_meta", meta) || not meta.isString())
    throw InputError(file.string(), "", "not a model sgai saved: no sgai_meta entry");
  std::istringstream in(meta.toStringRef());
  std::string magic, version, kind;
  AgentOptions o;
  std::getline(in, magic);
  std::getline(in, kind);
  size_t settings = 0;
  in >> o.observations >> o.actions >> o.hidden >> settings;
  in.ignore(1);
  if (magic != "sgai-rl-agent 1" || not in || o.observations == 0 || o.actions == 0 || o.hidden == 0)
    throw InputError(file.string(), "sgai_meta", "unreadable model description");
  try {
    o.kind = agent_from_string(kind);
  } catch (const std::invalid_argument& e) {
    throw InputError(file.string(), "sgai_meta", e.what());
  }
  d = Description{};
  for (std::string line; d.settings.size() < settings && std::getline(in, line);)
    d.settings.push_back(line);
  for (std::string line; std::getline(in, line);)
    d.actions.push_back(line);
  if (d.settings.size() != settings || d.actions.size() != o.actions)
    throw InputError(file.string(), "sgai_meta", "unreadable model description");
  auto agent = std::make_unique<Agent>(o);
  try {
    agent->impl_->net->load(archive);
  } catch (const std::exception& e) {
    throw InputError(file.string(), "", std::string("the weights do not fit the model: ") + e.what());
  }
  return agent;
}

} // namespace sgai::rl_agents
