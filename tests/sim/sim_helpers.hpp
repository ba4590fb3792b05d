/* Helpers for simulation tests: every TEST runs in its own process (one SimGrid Engine each). */
#ifndef SGAI_TESTS_SIM_SIM_HELPERS_HPP
#define SGAI_TESTS_SIM_SIM_HELPERS_HPP

#include "../unit/test_paths.hpp"
#include "core/foundation/files.hpp"
#include "generators/platform/platform.hpp"
#include "plugins/sim/simulation.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <stdexcept>
#include <string>
#include <unistd.h>

namespace sgai::test {

/** A figure of a run's summary (anything with figures(): (key, number) pairs), by key. */
template <class Run>
double figure(const Run& run, const std::string& key)
{
  for (const auto& [k, v] : run.figures())
    if (k == key)
      return v;
  throw std::runtime_error("no figure " + key);
}

/** Writes the platform's XML to a temporary file and returns its path. */
inline std::filesystem::path write_temp_xml(const platform::Platform& p)
{
  const auto& dir = test::temp_dir();
  auto file       = dir / (p.name + ".xml");
  AtomicFile f(file);
  platform::write_xml(p, f.stream());
  f.commit();
  return file;
}

/** Names of the links on the route between two hosts, as SimGrid computes it. */
inline std::vector<std::string> simgrid_route(const std::string& a, const std::string& b)
{
  std::vector<simgrid::s4u::Link*> links;
  double lat = 0;
  simgrid::s4u::Host::by_name(a)->route_to(simgrid::s4u::Host::by_name(b), links, &lat);
  std::vector<std::string> names;
  for (const auto* l : links)
    names.push_back(l->get_name());
  return names;
}

inline std::vector<std::string> pure_cm02()
{
  return {"--cfg=network/model:CM02", "--cfg=network/crosstraffic:0"};
}

} // namespace sgai::test

#endif
