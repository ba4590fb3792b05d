/* Learning agents for the environment (thesis 3.2.2, 4.2.2; HDeepRM's agent.py and its examples):
 * REINFORCE as the thesis has it (no baseline), REINFORCE with a running-mean baseline, and
 * actor-critic (a shared input layer, Huber value loss, advantage = return - value). Each network is
 * an input layer, three hidden layers of `hidden` units and an output layer, LeakyReLU between them,
 * softmax on the policy; Adam. The libtorch code is in agent.cpp alone: this header includes no
 * torch header. docs/rl.md. */
#ifndef SGAI_CORE_RL_AGENTS_AGENT_HPP
#define SGAI_CORE_RL_AGENTS_AGENT_HPP

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sgai::rl_agents {

enum class AgentKind { reinforce, reinforce_baseline, actor_critic };
const std::vector<std::string>& agent_names();        ///< "reinforce", "reinforce-baseline", "actor-critic"
AgentKind agent_from_string(const std::string& name); ///< std::invalid_argument listing the known

struct AgentOptions {
  AgentKind kind       = AgentKind::actor_critic;
  size_t observations  = 0; ///< observation size
  size_t actions       = 0; ///< action count
  uint32_t hidden      = 16;
  double learning_rate = 0.005;
  double gamma         = 0.99; ///< discount
  uint64_t seed        = 1;    ///< weights' initialization and action sampling
};

/** What an episode's update did. */
struct EpisodeUpdate {
  size_t steps       = 0;
  double loss        = 0; ///< the loss minimized (policy, plus value for actor-critic)
  double policy_loss = 0;
  double value_loss  = 0; ///< actor-critic only
  double reward_sum  = 0;
};

class Agent {
public:
  explicit Agent(const AgentOptions& options);
  ~Agent();
  Agent(const Agent&)            = delete;
  Agent& operator=(const Agent&) = delete;

  const AgentOptions& options() const;
  /** The policy's probabilities of each action for this observation (no learning). */
  std::vector<double> preferences(const std::vector<double>& observation) const;
  /** Chooses an action: sampled from the policy and remembered for the update (learning), or the
   *  most probable one (greedy: nothing remembered). std::invalid_argument when the observation's
   *  size is not the agent's. */
  size_t act(const std::vector<double>& observation, bool greedy = false);
  /** The reward of the last action chosen while learning. */
  void reward(double r);
  /** Ends the episode: discounted returns (standardized when the episode has more than one step, as
   *  HDeepRM's agent.py does), the loss, one Adam step; forgets the episode. */
  EpisodeUpdate end_episode();

  /** What a model was made for besides its sizes: the action names, and the training's settings as
   *  "key=value" lines (observation, reward, sensitivity, ...). */
  struct Description {
    std::vector<std::string> actions;
    std::vector<std::string> settings;
  };
  /** Writes the weights and what they were made for (kind, sizes, hidden units, description). */
  void save(const std::filesystem::path& file, const Description& d) const;
  /** Reads a model saved by save(); InputError naming the file when it is not one. */
  static std::unique_ptr<Agent> load(const std::filesystem::path& file, Description& d);

private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

} // namespace sgai::rl_agents

#endif
