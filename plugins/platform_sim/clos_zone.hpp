/* A SimGrid zone for a clos cluster (a NIC per GPU on leaf switches, an XGFT of switches above):
 * every host of the cluster in it, each route worked out when SimGrid asks for it from the expanded
 * platform (generators/platform/network.hpp, clos_hops), so memory grows with the hosts and links,
 * not with their pairs. Internal to the builder. */
#ifndef SGAI_PLUGINS_PLATFORM_SIM_CLOS_ZONE_HPP
#define SGAI_PLUGINS_PLATFORM_SIM_CLOS_ZONE_HPP

#include "generators/platform/model.hpp"

#include <simgrid/kernel/routing/NetZoneImpl.hpp>

#include <cstdint>
#include <vector>

namespace sgai::platform_sim {

class ClosZone : public simgrid::kernel::routing::NetZoneImpl {
public:
  ClosZone(const std::string& name, const platform::Platform& p); ///< keeps a copy of p
  /** `point` is host `host` of the platform (created in this zone). */
  void add_host_point(const simgrid::kernel::routing::NetPoint* point, uint32_t host);
  /** Link `index` of the platform, made in this zone. */
  void set_link(int32_t index, simgrid::s4u::Link* made);

  void get_local_route(const simgrid::kernel::routing::NetPoint* src, const simgrid::kernel::routing::NetPoint* dst,
                       simgrid::kernel::routing::Route* into, double* latency) override;

private:
  struct Side {
    simgrid::kernel::resource::StandardLinkImpl* impl = nullptr;
    double latency                                    = 0;
  };
  const platform::Platform p_;         ///< a copy: the zone outlives the caller's platform
  std::vector<int64_t> host_of_point_; ///< by the netpoint's id in this zone
  std::vector<Side> up_, down_;        ///< by link index (a link not split-duplex: both the same)
};

} // namespace sgai::platform_sim

#endif
