#include "plugins/sim/deployment.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/units.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_deployment, sgai, "sgai's actors started by deployment files");

namespace sgai::sim {

namespace {
std::string first_error;
std::vector<std::pair<std::string, std::string>> outputs;
std::vector<std::pair<std::string, std::function<void()>>> at_end;
std::vector<std::function<void()>> before_stop;

void run_at_end()
{
  auto todo = std::move(at_end);
  at_end.clear();
  before_stop.clear(); // (what they would cancel has ended)
  for (auto& [actor, f] : todo)
    try {
      f();
    } catch (const std::exception& e) {
      fail_deployment(actor, e.what());
    }
}
} // namespace

void at_deployment_end(const std::string& actor, std::function<void()> f)
{
  static bool connected = false;
  if (not connected)
    simgrid::s4u::Engine::on_simulation_end_cb(run_at_end);
  connected = true;
  at_end.emplace_back(actor, std::move(f));
}

const std::string& deployment_error()
{
  return first_error;
}

void before_deployment_stop(std::function<void()> f)
{
  before_stop.push_back(std::move(f));
}

void fail_deployment(const std::string& actor, const std::string& message)
{
  if (first_error.empty()) {
    first_error = "actor " + actor + ": " + message;
    auto todo   = std::move(before_stop);
    before_stop.clear();
    for (auto& f : todo)
      f();
  }
  XBT_DEBUG("%s: %s", actor.c_str(), message.c_str()); // the program reports deployment_error()
  simgrid::s4u::Actor::kill_all();
}

const std::vector<std::pair<std::string, std::string>>& deployment_outputs()
{
  return outputs;
}

void record_deployment_output(std::string path, std::string what)
{
  outputs.emplace_back(std::move(path), std::move(what));
}

DeploymentArgs::DeploymentArgs(const std::vector<std::string>& args, const std::vector<std::string>& known)
{
  for (size_t i = 1; i < args.size(); i++) {
    auto eq = args[i].find('=');
    if (eq == std::string::npos || eq == 0)
      throw UsageError("argument " + quote(args[i]) + " is not key=value");
    std::string key = args[i].substr(0, eq);
    if (std::find(known.begin(), known.end(), key) == known.end()) {
      std::string list;
      for (const auto& k : known)
        list += (list.empty() ? "" : ", ") + k;
      throw UsageError("unknown argument " + quote(key) + " (known: " + list + ")");
    }
    if (not values_.emplace(key, args[i].substr(eq + 1)).second)
      throw UsageError("argument " + key + " is given twice");
  }
}

std::string DeploymentArgs::text(const std::string& key, const std::string& fallback) const
{
  auto it = values_.find(key);
  return it == values_.end() ? fallback : it->second;
}

std::string DeploymentArgs::required(const std::string& key) const
{
  auto it = values_.find(key);
  if (it == values_.end())
    throw UsageError("the argument " + key + "= is missing");
  return it->second;
}

uint64_t DeploymentArgs::whole(const std::string& key, uint64_t fallback, uint64_t max) const
{
  auto it = values_.find(key);
  if (it == values_.end())
    return fallback;
  const std::string& value = it->second;
  uint64_t v               = 0;
  auto [end, e]            = std::from_chars(value.data(), value.data() + value.size(), v);
  if (e != std::errc() || end != value.data() + value.size() || v > max)
    throw UsageError("argument " + key + "=" + quote(value) + " is not a whole number from 0 to " +
                     std::to_string(max));
  return v;
}

double DeploymentArgs::bytes(const std::string& key, double fallback) const
{
  auto it = values_.find(key);
  if (it == values_.end())
    return fallback;
  const std::string& value = it->second;
  char* end                = nullptr;
  double v                 = std::strtod(value.c_str(), &end);
  if (end == value.c_str() || *end != '\0') {
    auto parsed = units::parse(value, units::Quantity::size);
    v           = parsed ? *parsed : -1;
  }
  if (not(std::isfinite(v) && v > 0))
    throw UsageError("argument " + key + "=" + quote(value) + " is not a size in bytes (a positive number, or " +
                     units::expected(units::Quantity::size) + ")");
  return v;
}

} // namespace sgai::sim
