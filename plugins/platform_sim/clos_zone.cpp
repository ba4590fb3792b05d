#include "plugins/platform_sim/clos_zone.hpp"

#include "generators/platform/network.hpp"

#include <simgrid/kernel/routing/NetPoint.hpp>
#include <simgrid/s4u/Link.hpp>

#include <stdexcept>

namespace sgai::platform_sim {

ClosZone::ClosZone(const std::string& name, const platform::Platform& p)
    : NetZoneImpl(name)
    , p_(p)
    , up_(p.links.size())
    , down_(p.links.size())
{
}

void ClosZone::add_host_point(const simgrid::kernel::routing::NetPoint* point, uint32_t host)
{
  if (host_of_point_.size() <= point->id())
    host_of_point_.resize(point->id() + 1, -1);
  host_of_point_[point->id()] = host;
}

void ClosZone::set_link(int32_t index, simgrid::s4u::Link* made)
{
  auto i = static_cast<size_t>(index);
  if (auto* sd = dynamic_cast<simgrid::s4u::SplitDuplexLink*>(made)) {
    up_[i]   = {sd->get_link_up()->get_impl(), sd->get_link_up()->get_latency()};
    down_[i] = {sd->get_link_down()->get_impl(), sd->get_link_down()->get_latency()};
  } else
    up_[i] = down_[i] = {made->get_impl(), made->get_latency()};
}

void ClosZone::get_local_route(const simgrid::kernel::routing::NetPoint* src,
                               const simgrid::kernel::routing::NetPoint* dst, simgrid::kernel::routing::Route* into,
                               double* latency)
{
  auto host = [this](const simgrid::kernel::routing::NetPoint* np) {
    if (np->id() >= host_of_point_.size() || host_of_point_[np->id()] < 0)
      throw std::logic_error("clos zone " + get_name() + ": no route for " + np->get_name());
    return static_cast<uint32_t>(host_of_point_[np->id()]);
  };
  if (src == dst)
    return;
  for (const auto& hop : platform::clos_hops(p_, host(src), host(dst))) {
    const Side& s = (hop.up ? up_ : down_)[static_cast<size_t>(hop.link)];
    into->link_list_.push_back(s.impl);
    if (latency)
      *latency += s.latency;
  }
}

} // namespace sgai::platform_sim
