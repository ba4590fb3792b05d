/* What sgai's actors started by SimGrid deployment files share: their key=value arguments, the
 * first error one met (it stops the simulation; the program reports it after Engine::run), and
 * the files they wrote. */
#ifndef SGAI_PLUGINS_SIM_DEPLOYMENT_HPP
#define SGAI_PLUGINS_SIM_DEPLOYMENT_HPP

#include <cstdint>
#include <functional>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace sgai::sim {

/** The first error a deployed sgai actor met ("actor NAME: message"); empty when none did. The
 *  simulation was stopped when it happened. */
const std::string& deployment_error();
/** Records an error of a deployed actor (the first one is kept) and kills every other actor,
 *  after running the before_deployment_stop functions (the first time). */
void fail_deployment(const std::string& actor, const std::string& message);
/** Runs `f` when a deployed actor fails, before every actor is killed: what an actor waiting on
 *  several activities at once waits for must be canceled first (SimGrid 3.32 cannot kill such an
 *  actor). */
void before_deployment_stop(std::function<void()> f);
/** The files deployed actors wrote (path, what it holds), in order. */
const std::vector<std::pair<std::string, std::string>>& deployment_outputs();
void record_deployment_output(std::string path, std::string what);
/** Runs `at_end` when the simulation ends (after Engine::run's last event), in the order given:
 *  a deployed actor's outputs are written then. What it throws fails `actor`'s deployment. */
void at_deployment_end(const std::string& actor, std::function<void()> at_end);

/** An actor's arguments as SimGrid passes them (args[0]: the function's name), each key=value.
 *  UsageError (message without the actor's name) for a malformed, repeated or unknown key. */
class DeploymentArgs {
public:
  DeploymentArgs(const std::vector<std::string>& args, const std::vector<std::string>& known);
  bool has(const std::string& key) const { return values_.count(key) > 0; }
  /** The value, or `fallback`; UsageError when required and absent. */
  std::string text(const std::string& key, const std::string& fallback) const;
  std::string required(const std::string& key) const;
  /** A whole number in [0, max]. */
  uint64_t whole(const std::string& key, uint64_t fallback, uint64_t max) const;
  /** A size in bytes > 0: a plain number, or with a unit ("1GB", "256MiB"; units.hpp). */
  double bytes(const std::string& key, double fallback) const;

private:
  std::map<std::string, std::string> values_;
};

} // namespace sgai::sim

#endif
