/* sgai-rl (run as `sgai rl ...`): agents that learn to choose the workload manager's policies
 * (HDeepRM's, docs/rl.md). train: an agent learns over episodes of a workload; evaluate: a trained
 * agent greedily, beside every fixed action and a random agent, on a workload; plot: losses,
 * rewards and action preferences as PNG. A program of its own because it links libtorch, which
 * takes half a second to load: sgai's other commands stay quick. Exit status as sgai's. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"
#include "core/rl_agents/train.hpp"
#include "tools/sgai/options.hpp"
#include "tools/sgai/process.hpp"

#include <CLI/CLI.hpp>

#include <cstdlib>
#include <fstream>
#include <iostream>
#include <sstream>

using namespace sgai;

namespace {

struct EnvArgs {
  std::string platform, workload, actions = "thesis", observation = "normal", reward = "makespan";
  double sensitivity = 0.01;
  int64_t max_voids = 1000, max_resources = 0;
};

void add_env_options(CLI::App* cmd, EnvArgs& e, bool model_decides)
{
  cli::add_path(cmd, "--platform", e.platform, "Platform: sgai JSON or SimGrid XML")->required();
  cli::add_path(cmd, "--workload", e.workload, "Workload: Batsim JSON (HDeepRM's fields)")->required();
  if (model_decides)
    return;
  cmd->add_option("--actions", e.actions,
                  "thesis (the 37: 36 pairs and void), pairs (the 36), an HDeepRM options file, or "
                  "job:resource,...[,void]");
  cmd->add_option("--observation", e.observation, "normal, small or minimal (thesis 3.2.3.1)")
      ->check(CLI::IsMember(rl::observation_names()));
  cmd->add_option("--reward", e.reward, "slowdown, completion, utilization, makespan or energy (thesis 3.2.4)")
      ->check(CLI::IsMember(rl::reward_names()));
  cli::add_real(cmd, "--sensitivity", e.sensitivity, "Queue sensitivity (default 0.01)", 1e-9, 1e6);
  cli::add_count(cmd, "--max-voids", e.max_voids, "Voids in a row at one instant before truncating (default 1000)", 1,
                 1000000000);
  cli::add_count(cmd, "--max-resources", e.max_resources, "Use the first N cores (default: all, or nb_res)", 0,
                 1LL << 31);
}

std::vector<rl::Action> parse_actions(const std::string& text)
{
  try {
    return rl::actions_named(text);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--actions: ") + e.what());
  }
}

std::string action_text(const rl::Action& a)
{
  return a.is_void() ? std::string("void") : a.job_policy + ":" + a.resource_policy;
}

rl::EnvironmentOptions env_options(const EnvArgs& e)
{
  rl::EnvironmentOptions o;
  o.platform          = e.platform;
  o.workload          = e.workload;
  o.actions           = parse_actions(e.actions);
  o.observation       = rl::observation_from_string(e.observation);
  o.reward            = rl::reward_from_string(e.reward);
  o.queue_sensitivity = e.sensitivity;
  o.max_voids         = static_cast<uint32_t>(e.max_voids);
  o.max_resources     = static_cast<uint32_t>(e.max_resources);
  return o;
}

struct TrainArgs {
  EnvArgs env;
  std::vector<std::string> more; ///< further workloads: episodes cycle through all
  std::string agent = "actor-critic", out;
  int64_t episodes = 0, seed = 1, hidden = 16;
  double lr = 0.005, gamma = 0.99;
};

int train(const TrainArgs& a)
{
  check_output_dir(a.out);
  rl::EnvironmentOptions o = env_options(a.env);
  rl::Environment env(o);
  std::vector<std::unique_ptr<rl::Environment>> others;
  std::vector<rl::Environment*> all = {&env};
  for (const auto& w : a.more) {
    auto oo     = o;
    oo.workload = w;
    others.push_back(std::make_unique<rl::Environment>(oo));
    if (others.back()->observation_size() != env.observation_size())
      throw InputError(w, "",
                       "its observation has " + std::to_string(others.back()->observation_size()) +
                           " values, the first workload's " + std::to_string(env.observation_size()));
    all.push_back(others.back().get());
  }
  rl_agents::AgentOptions ao;
  ao.kind          = rl_agents::agent_from_string(a.agent);
  ao.observations  = env.observation_size();
  ao.actions       = env.action_count();
  ao.hidden        = static_cast<uint32_t>(a.hidden);
  ao.learning_rate = a.lr;
  ao.gamma         = a.gamma;
  ao.seed          = static_cast<uint64_t>(a.seed);
  rl_agents::Agent agent(ao);
  StagingDir stage(a.out);
  {
    AtomicFile f(stage.path() / "episodes.csv");
    rl_agents::write_episode_header(f.stream(), o.actions);
    double last = 0;
    rl_agents::train(all, agent, static_cast<uint32_t>(a.episodes), static_cast<uint64_t>(a.seed),
                     [&](const rl_agents::EpisodeRecord& r) {
                       rl_agents::write_episode(f.stream(), r);
                       last = r.update.reward_sum;
                       if (r.episode % 50 == 0 || r.episode == a.episodes)
                         std::cout << "episode " << r.episode << ": " << r.update.steps << " steps, reward "
                                   << format_number(r.update.reward_sum) << ", loss " << format_number(r.update.loss)
                                   << ", mean bounded slowdown " << format_number(r.info.mean_bounded_slowdown)
                                   << ", makespan " << format_number(r.info.makespan_s) << " s\n";
                     });
    (void)last;
    f.commit();
  }
  rl_agents::Agent::Description d;
  for (const auto& x : o.actions)
    d.actions.push_back(action_text(x));
  d.settings = {"observation=" + a.env.observation, "reward=" + a.env.reward,
                "sensitivity=" + format_number(a.env.sensitivity), "max_voids=" + std::to_string(a.env.max_voids),
                "max_resources=" + std::to_string(a.env.max_resources)};
  agent.save(stage.path() / "model.pt", d);
  {
    std::ostringstream text;
    json::Writer jw(text);
    jw.begin_object();
    jw.field("platform", a.env.platform).field("workload", a.env.workload);
    jw.key("more_workloads").begin_array();
    for (const auto& w : a.more)
      jw.value(w);
    jw.end_array();
    jw.field("agent", a.agent);
    jw.key("actions").begin_array();
    for (const auto& x : d.actions)
      jw.value(x);
    jw.end_array();
    jw.field("observation", a.env.observation).field("reward", a.env.reward).field("sensitivity", a.env.sensitivity);
    jw.field("max_voids", a.env.max_voids).field("max_resources", a.env.max_resources);
    jw.field("episodes", a.episodes).field("seed", a.seed).field("hidden", a.hidden);
    jw.field("learning_rate", a.lr).field("gamma", a.gamma);
    jw.field("observation_size", static_cast<uint64_t>(env.observation_size()));
    jw.field("action_count", static_cast<uint64_t>(env.action_count()));
    jw.end_object();
    write_file_atomically(stage.path() / "config.json", text.str() + "\n");
  }
  stage.publish();
  std::cout << "Results in " << a.out
            << ":\n  episodes.csv  (per episode: steps, rewards, losses, objective, "
               "action preferences)\n  model.pt  (the trained agent: sgai rl evaluate --model)\n  config.json  "
               "(the settings and seed)\n";
  return 0;
}

struct EvalArgs {
  EnvArgs env;
  std::string model, out;
  int64_t seed = 1;
};

std::string setting(const rl_agents::Agent::Description& d, const std::string& key, const std::string& model)
{
  for (const auto& s : d.settings)
    if (s.rfind(key + "=", 0) == 0)
      return s.substr(key.size() + 1);
  throw InputError(model, "sgai_meta", "no " + key + " setting");
}

int evaluate(const EvalArgs& a)
{
  check_output_dir(a.out);
  rl_agents::Agent::Description d;
  auto agent      = rl_agents::Agent::load(a.model, d);
  EnvArgs e       = a.env;
  e.observation   = setting(d, "observation", a.model);
  e.reward        = setting(d, "reward", a.model);
  e.sensitivity   = std::stod(setting(d, "sensitivity", a.model));
  e.max_voids     = std::stoll(setting(d, "max_voids", a.model));
  e.max_resources = std::stoll(setting(d, "max_resources", a.model));
  std::string list;
  for (const auto& x : d.actions)
    list += (list.empty() ? "" : ",") + x;
  e.actions = list;
  rl::Environment env(env_options(e));
  if (env.observation_size() != agent->options().observations) {
    auto have = static_cast<int64_t>(env.observation_size()),
         want = static_cast<int64_t>(agent->options().observations);
    throw InputError(a.model, "",
                     "the model was trained on observations of " + std::to_string(want) + " values; here (" +
                         e.observation + " observation of " + e.platform + ") they have " + std::to_string(have) +
                         ": " + std::to_string(std::abs(have - want)) + (have > want ? " more" : " fewer") +
                         " (evaluate it on a platform of the same size)");
  }
  auto results = rl_agents::evaluate(env, agent.get(), static_cast<uint64_t>(a.seed));
  StagingDir stage(a.out);
  {
    AtomicFile f(stage.path() / "evaluation.csv");
    rl_agents::write_evaluations(f.stream(), results);
    f.commit();
  }
  stage.publish();
  // figures at their unit's precision: the thesis' makespans (5.25 s against 6.0 s) told apart
  auto cell = [](const std::string& text, size_t width) {
    return std::string(text.size() < width ? width - text.size() : 1, ' ') + text;
  };
  std::cout << "policy" << std::string(22, ' ') << cell("mean_bounded_slowdown", 21) << cell("makespan_s", 14)
            << cell("energy_j", 16) << cell("reward_sum", 14) << "\n";
  for (const auto& r : results)
    std::cout << r.policy << std::string(r.policy.size() < 28 ? 28 - r.policy.size() : 1, ' ')
              << cell(format_fixed(r.info.mean_bounded_slowdown, 3), 21) << cell(format_fixed(r.info.makespan_s, 3), 14)
              << cell(format_fixed(r.info.energy_j, 0), 16) << cell(format_number(r.reward_sum), 14)
              << (r.truncated ? "  (truncated)" : "") << "\n";
  std::cout << "Results in " << a.out << ":\n  evaluation.csv  (each policy's episode: objective figures)\n";
  return 0;
}

int plot(const std::string& dir)
{
  std::error_code ec;
  if (not std::filesystem::is_regular_file(std::filesystem::path(dir) / "episodes.csv", ec))
    throw InputError(dir, "", "no episodes.csv here: expected the output folder of sgai rl train");
  return cli::run_plot_script("rl_plot.py", dir);
}

} // namespace

int main(int argc, char** argv)
{
  CLI::App app{"sgai rl: agents that learn to choose the workload manager's policies (HDeepRM's environment)",
               "sgai rl"};
  app.require_subcommand(1, 1);
  std::function<int()> action;
  TrainArgs t;
  auto* tr = app.add_subcommand("train", "Train an agent over episodes of a workload on a platform");
  add_env_options(tr, t.env, false);
  tr->add_option("--agent", t.agent, "reinforce (the thesis'), reinforce-baseline or actor-critic (default)")
      ->check(CLI::IsMember(rl_agents::agent_names()));
  cli::add_count(tr, "--episodes", t.episodes, "Episodes to train", 1, 100000000)->required();
  tr->add_option("--and-workload", t.more,
                 "A further workload (repeatable): episode e runs on workload e mod their count (parts of a log)");
  cli::add_seed(tr, t.seed, "Seed of the weights, the agent's draws and episode e's policies (seed + e)");
  cli::add_count(tr, "--hidden", t.hidden, "Units of each of the 3 hidden layers (default 16)", 1, 65536);
  cli::add_real(tr, "--lr", t.lr, "Adam's learning rate (default 0.005)", 1e-12, 10);
  cli::add_real(tr, "--gamma", t.gamma, "Discount (default 0.99)", 0, 1);
  cli::add_path(tr, "--out", t.out, "Output folder")->required();
  tr->callback([&]() { action = [&]() { return train(t); }; });
  EvalArgs e;
  auto* ev =
      app.add_subcommand("evaluate", "Run a trained agent greedily beside every fixed action and a random agent");
  cli::add_path(ev, "--model", e.model, "model.pt of sgai rl train")->required();
  add_env_options(ev, e.env, true);
  cli::add_seed(ev, e.seed, "Seed of the policies' and the random agent's draws (default 1)");
  cli::add_path(ev, "--out", e.out, "Output folder")->required();
  ev->callback([&]() { action = [&]() { return evaluate(e); }; });
  std::string dir;
  auto* pl = app.add_subcommand("plot", "Losses, rewards and action preferences of a training as PNG");
  pl->add_option("dir", dir, "Output folder of sgai rl train")->required();
  pl->callback([&]() { action = [&]() { return plot(dir); }; });
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp& x) {
    return app.exit(x);
  } catch (const CLI::ParseError& x) {
    std::cerr << "sgai: error: " << x.what() << " (see sgai rl --help)\n";
    return 2;
  }
  try {
    return action();
  } catch (const UsageError& x) {
    std::cerr << "sgai: error: " << x.what() << "\n";
    return 2;
  } catch (const std::exception& x) {
    std::cerr << "sgai: error: " << x.what() << "\n";
    return 1;
  }
}
