#include "plugins/sim/clock.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <xbt/config.hpp>

#include <algorithm>

namespace sgai::sim {

double clock_precision()
{
  return simgrid::config::get_value<double>("surf/precision");
}

double after_wait(double now, double t, double precision)
{
  double d = t - now;
  return d >= 0.5 * precision ? now + std::max(d, precision) : now;
}

void sleep_for(double seconds)
{
  // a wait far above any precision goes straight to SimGrid, without reading the option
  if (seconds >= 1e-3) {
    simgrid::s4u::this_actor::sleep_for(seconds);
    return;
  }
  double p = clock_precision();
  if (seconds >= 0.5 * p)
    simgrid::s4u::this_actor::sleep_for(std::max(seconds, p));
}

void sleep_until(double t)
{
  sleep_for(t - simgrid::s4u::Engine::get_clock());
}

} // namespace sgai::sim
