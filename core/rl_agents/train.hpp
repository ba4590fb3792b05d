/* Training and evaluation loops over the learning environment: an agent learns for N episodes
 * (per-episode rewards, losses and action preferences), or a policy (the agent greedily, a fixed
 * action, uniformly random actions) runs one episode for its objective figures. docs/rl.md. */
#ifndef SGAI_CORE_RL_AGENTS_TRAIN_HPP
#define SGAI_CORE_RL_AGENTS_TRAIN_HPP

#include "core/rl/environment.hpp"
#include "core/rl_agents/agent.hpp"

#include <functional>
#include <ostream>
#include <string>
#include <vector>

namespace sgai::rl_agents {

struct EpisodeRecord {
  uint32_t episode = 0;
  EpisodeUpdate update;
  double last_reward = 0;
  bool truncated     = false;
  rl::StepInfo info;               ///< the episode's end: objective figures
  std::vector<double> preferences; ///< the policy at the episode's first observation
};

/** Trains `agent` for `episodes` episodes, episode e with seed `seed + e`; `each` sees every
 *  episode's record as it ends. */
void train(rl::Environment& env, Agent& agent, uint32_t episodes, uint64_t seed,
           const std::function<void(const EpisodeRecord&)>& each);
/** The same over several environments (parts of a workload, say): episode e runs on envs[e % n].
 *  std::invalid_argument when their observation sizes or action counts differ. */
void train(const std::vector<rl::Environment*>& envs, Agent& agent, uint32_t episodes, uint64_t seed,
           const std::function<void(const EpisodeRecord&)>& each);

/** episodes.csv: episode, steps, reward_sum, last_reward, loss, policy_loss, value_loss,
 *  truncated, makespan_s, mean_bounded_slowdown, mean_waiting_s, energy_j, then the preference of
 *  each action (named). */
void write_episode_header(std::ostream& out, const std::vector<rl::Action>& actions);
void write_episode(std::ostream& out, const EpisodeRecord& r);

struct Evaluation {
  std::string policy; ///< "agent", an action's name, "random"
  double reward_sum = 0;
  uint64_t steps    = 0;
  bool truncated    = false;
  rl::StepInfo info;
};

/** One episode with seed `seed`: the agent greedily (null: none), then each action alone, then
 *  uniformly random actions (drawn from `seed`). */
std::vector<Evaluation> evaluate(rl::Environment& env, Agent* agent, uint64_t seed);
void write_evaluations(std::ostream& out, const std::vector<Evaluation>& e);

} // namespace sgai::rl_agents

#endif
