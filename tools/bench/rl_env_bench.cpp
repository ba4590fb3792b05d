/* Benchmark of the learning environment (core/rl): a uniformly random agent over the first N
 * actions of the thesis' 37 (36: no void) for whole episodes, or the thesis' 5.4 scenario for many
 * one-step episodes. Prints steps, wall seconds, CPU seconds of this process and its episodes'
 * children, and steps per second.
 * Usage: rl_env_bench PLATFORM WORKLOAD OBSERVATION EPISODES [ACTIONS_FILE|-] [SENSITIVITY] [MAX_CORES] */
#include "core/rl/environment.hpp"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <string>
#include <sys/resource.h>

namespace {

double cpu_seconds()
{
  double s = 0;
  for (int who : {RUSAGE_SELF, RUSAGE_CHILDREN}) {
    rusage u{};
    getrusage(who, &u);
    s += static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) * 1e-6;
  }
  return s;
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 5) {
    std::fprintf(stderr,
                 "usage: %s PLATFORM WORKLOAD OBSERVATION EPISODES [HDEEPRM_OPTIONS|-] [SENSITIVITY] [MAX_CORES]\n",
                 argv[0]);
    return 2;
  }
  try {
    sgai::rl::EnvironmentOptions o;
    o.platform    = argv[1];
    o.workload    = argv[2];
    o.observation = sgai::rl::observation_from_string(argv[3]);
    o.reward      = sgai::rl::RewardKind::makespan;
    if (argc > 5 && std::string(argv[5]) != "-")
      o.actions = sgai::rl::actions_from_hdeeprm(argv[5]);
    else
      o.actions.pop_back(); // the 36 pairs, no void
    if (argc > 6)
      o.queue_sensitivity = std::atof(argv[6]);
    if (argc > 7)
      o.max_resources = static_cast<uint32_t>(std::atoi(argv[7]));
    int episodes = std::atoi(argv[4]);
    auto t0      = std::chrono::steady_clock::now();
    double c0    = cpu_seconds();
    sgai::rl::Environment env(o);
    std::mt19937_64 draw(1);
    uint64_t steps = 0;
    double reward  = 0;
    for (int e = 0; e < episodes; e++) {
      auto r = env.reset(static_cast<uint64_t>(e + 1));
      while (not r.terminated && not r.truncated) {
        r = env.step(draw() % env.action_count());
        reward += r.reward;
        steps++;
      }
    }
    double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    double cpu  = cpu_seconds() - c0;
    std::printf("%s %s observation=%s episodes=%d steps=%llu wall_s=%.3f cpu_s=%.3f steps_per_s=%.0f "
                "steps_per_cpu_s=%.0f reward_sum=%.6g\n",
                argv[1], argv[2], argv[3], episodes, static_cast<unsigned long long>(steps), wall, cpu,
                static_cast<double>(steps) / wall, static_cast<double>(steps) / cpu, reward);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "rl_env_bench: %s\n", e.what());
    return 1;
  }
  return 0;
}
