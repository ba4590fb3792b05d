#include "core/rl_agents/train.hpp"

#include "core/foundation/numbers.hpp"

#include <random>

namespace sgai::rl_agents {

void train(rl::Environment& env, Agent& agent, uint32_t episodes, uint64_t seed,
           const std::function<void(const EpisodeRecord&)>& each)
{
  train(std::vector<rl::Environment*>{&env}, agent, episodes, seed, each);
}

void train(const std::vector<rl::Environment*>& envs, Agent& agent, uint32_t episodes, uint64_t seed,
           const std::function<void(const EpisodeRecord&)>& each)
{
  for (const auto* x : envs)
    if (x->observation_size() != envs.front()->observation_size() || x->action_count() != envs.front()->action_count())
      throw std::invalid_argument("the environments to train on differ in observation size or action count");
  for (uint32_t e = 0; e < episodes; e++) {
    rl::Environment& env = *envs[e % envs.size()];
    EpisodeRecord rec;
    rec.episode = e + 1;
    auto r      = env.reset(seed + e);
    if (not r.terminated && not r.truncated)
      rec.preferences = agent.preferences(r.observation);
    while (not r.terminated && not r.truncated) {
      size_t a = agent.act(r.observation);
      r        = env.step(a);
      agent.reward(r.reward);
      rec.last_reward = r.reward;
    }
    rec.truncated = r.truncated;
    rec.info      = r.info;
    rec.update    = agent.end_episode();
    if (each)
      each(rec);
  }
}

void write_episode_header(std::ostream& out, const std::vector<rl::Action>& actions)
{
  out << "episode,steps,reward_sum,last_reward,loss,policy_loss,value_loss,truncated,makespan_s,"
         "mean_bounded_slowdown,mean_waiting_s,energy_j";
  for (const auto& a : actions)
    out << ",p_" << a.name();
  out << '\n';
}

void write_episode(std::ostream& out, const EpisodeRecord& r)
{
  out << r.episode << ',' << r.update.steps << ',' << format_number(r.update.reward_sum) << ','
      << format_number(r.last_reward) << ',' << format_number(r.update.loss) << ','
      << format_number(r.update.policy_loss) << ',' << format_number(r.update.value_loss) << ','
      << (r.truncated ? 1 : 0) << ',' << format_number(r.info.makespan_s) << ','
      << format_number(r.info.mean_bounded_slowdown) << ',' << format_number(r.info.mean_waiting_s) << ','
      << format_number(r.info.energy_j);
  for (double p : r.preferences)
    out << ',' << format_number(p);
  out << '\n';
}

namespace {

template <typename Choose>
Evaluation run_episode(rl::Environment& env, uint64_t seed, std::string name, Choose choose)
{
  Evaluation e;
  e.policy = std::move(name);
  auto r   = env.reset(seed);
  while (not r.terminated && not r.truncated) {
    r = env.step(choose(r.observation));
    e.reward_sum += r.reward;
    e.steps++;
  }
  e.truncated = r.truncated;
  e.info      = r.info;
  return e;
}

} // namespace

std::vector<Evaluation> evaluate(rl::Environment& env, Agent* agent, uint64_t seed)
{
  std::vector<Evaluation> out;
  if (agent != nullptr)
    out.push_back(run_episode(env, seed, "agent", [&](const std::vector<double>& o) { return agent->act(o, true); }));
  const auto& actions = env.options().actions;
  for (size_t a = 0; a < actions.size(); a++)
    out.push_back(run_episode(env, seed, actions[a].name(), [a](const std::vector<double>&) { return a; }));
  std::mt19937_64 draw(seed);
  out.push_back(run_episode(env, seed, "random",
                            [&](const std::vector<double>&) { return static_cast<size_t>(draw() % actions.size()); }));
  return out;
}

void write_evaluations(std::ostream& out, const std::vector<Evaluation>& e)
{
  out << "policy,steps,reward_sum,truncated,jobs_done,makespan_s,mean_bounded_slowdown,mean_waiting_s,"
         "mean_turnaround_s,energy_j\n";
  for (const auto& x : e)
    out << x.policy << ',' << x.steps << ',' << format_number(x.reward_sum) << ',' << (x.truncated ? 1 : 0) << ','
        << x.info.jobs_done << ',' << format_number(x.info.makespan_s) << ','
        << format_number(x.info.mean_bounded_slowdown) << ',' << format_number(x.info.mean_waiting_s) << ','
        << format_number(x.info.mean_turnaround_s) << ',' << format_number(x.info.energy_j) << '\n';
}

} // namespace sgai::rl_agents
