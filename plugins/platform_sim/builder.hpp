/* Builds an expanded platform in the running SimGrid Engine through the S4U API. */
#ifndef SGAI_PLUGINS_PLATFORM_SIM_BUILDER_HPP
#define SGAI_PLUGINS_PLATFORM_SIM_BUILDER_HPP

#include "generators/platform/model.hpp"

#include <simgrid/forward.h>

namespace sgai::platform_sim {

/** Creates every zone, host, router and link of `p` in the current Engine and returns the root
 *  zone, sealed. The energy plugins must be initialised before (SimGrid attaches them to hosts
 *  and links at creation). Host and link names, speeds, P-states, wattage properties and the
 *  links of every route are those of the XML writer (write_xml). */
simgrid::s4u::NetZone* build(const platform::Platform& p);

} // namespace sgai::platform_sim

#endif
