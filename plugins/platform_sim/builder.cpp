/* Builds an expanded platform in the running SimGrid Engine through the S4U API: star zones for
 * flat clusters, SimGrid's fat-tree, torus and dragonfly zones with node zones as leaves, and the
 * same link sequences as the XML writer. */
#include "plugins/platform_sim/builder.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"
#include "generators/platform/network.hpp"
#include "plugins/platform_sim/clos_zone.hpp"

#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>
#include <simgrid/s4u/NetZone.hpp>

#include <cstdio>
#include <map>
#include <set>
#include <unordered_map>

namespace sgai::platform_sim {

namespace sg4 = simgrid::s4u;
using simgrid::kernel::routing::NetPoint;

namespace {

sg4::Link::SharingPolicy simgrid_sharing(platform::Sharing s)
{
  switch (s) {
  case platform::Sharing::shared:
    return sg4::Link::SharingPolicy::SHARED;
  case platform::Sharing::splitduplex:
    return sg4::Link::SharingPolicy::SPLITDUPLEX;
  case platform::Sharing::fatpipe:
    return sg4::Link::SharingPolicy::FATPIPE;
  }
  return sg4::Link::SharingPolicy::SHARED;
}

std::string wattage_range(double idle, double busy)
{
  return format_number(idle) + ":" + format_number(busy);
}

class Builder {
public:
  explicit Builder(const platform::Platform& p)
      : p_(p)
      , links_(p.links.size(), nullptr)
  {
  }

  sg4::NetZone* run()
  {
    if (p_.clusters.size() == 1) {
      sg4::NetZone* z = cluster(0, nullptr);
      return z;
    }
    // Clusters joined by a full zone: one route per ordered pair, as in the XML.
    sg4::NetZone* root = sg4::create_full_zone(p_.name);
    std::vector<sg4::NetZone*> zones;
    for (uint32_t c = 0; c < p_.clusters.size(); c++)
      zones.push_back(cluster(c, root));
    for (uint32_t a = 0; a < zones.size(); a++)
      for (uint32_t b = 0; b < zones.size(); b++)
        if (a != b)
          root->add_route(zones[a]->get_netpoint(), zones[b]->get_netpoint(),
                          netpoint(platform::cluster_gateway(p_, a)), netpoint(platform::cluster_gateway(p_, b)),
                          in_route(root, platform::inter_cluster_hops(p_, a, b)), false);
    root->seal();
    return root;
  }

private:
  const platform::Platform& p_;
  std::vector<sg4::Link*> links_;
  std::unordered_map<std::string, NetPoint*> netpoints_;
  std::set<std::string, std::less<>> own_link_names_; // SimGrid names of the links made here

  NetPoint* netpoint(const std::string& name) const { return netpoints_.at(name); }

  sg4::Link* link(sg4::NetZone* zone, int32_t index)
  {
    auto i = static_cast<size_t>(index);
    if (links_[i])
      return links_[i];
    const platform::LinkDesc& l = p_.links[i];
    sg4::Link* made             = nullptr;
    if (l.sharing == platform::Sharing::splitduplex) {
      auto* sd = zone->create_split_duplex_link(l.name, l.bandwidth_Bps);
      sd->set_latency(l.latency_s);
      if (l.idle_w)
        for (sg4::Link* side : {sd->get_link_up(), sd->get_link_down()})
          side->set_property("wattage_range", wattage_range(*l.idle_w, *l.busy_w));
      made = sd;
      own_link_names_.insert(l.name + "_UP");
      own_link_names_.insert(l.name + "_DOWN");
    } else {
      made = zone->create_link(l.name, l.bandwidth_Bps);
      made->set_latency(l.latency_s);
      made->set_sharing_policy(simgrid_sharing(l.sharing));
      if (l.idle_w)
        made->set_property("wattage_range", wattage_range(*l.idle_w, *l.busy_w));
    }
    made->seal();
    own_link_names_.insert(l.name);
    links_[i] = made;
    return made;
  }

  sg4::LinkInRoute in_route(const platform::Hop& hop) const
  {
    const sg4::Link* l = links_[static_cast<size_t>(hop.link)];
    if (p_.links[static_cast<size_t>(hop.link)].sharing != platform::Sharing::splitduplex)
      return sg4::LinkInRoute(l);
    return sg4::LinkInRoute(l, hop.up ? sg4::LinkInRoute::Direction::UP : sg4::LinkInRoute::Direction::DOWN);
  }

  std::vector<sg4::LinkInRoute> in_route(sg4::NetZone* zone, const std::vector<platform::Hop>& hops)
  {
    std::vector<sg4::LinkInRoute> out;
    for (const auto& h : hops) {
      link(zone, h.link);
      out.push_back(in_route(h));
    }
    return out;
  }

  sg4::Host* host(sg4::NetZone* zone, const platform::HostDesc& h)
  {
    const platform::HostClass& c = p_.class_of(h);
    std::vector<double> speeds;
    for (const auto& s : c.pstates)
      speeds.push_back(s.speed_flops);
    sg4::Host* made = zone->create_host(h.name, speeds);
    made->set_core_count(c.cores);
    made->set_property("wattage_per_state", platform::wattage_text(c));
    made->set_property("wattage_off", format_number(c.off_w));
    for (const auto& [k, v] : c.properties)
      made->set_property(k, v);
    made->seal();
    if (c.initial_pstate != 0)
      made->set_pstate(static_cast<unsigned long>(c.initial_pstate));
    netpoints_[h.name] = made->get_netpoint();
    return made;
  }

  NetPoint* router(sg4::NetZone* zone, const std::string& name)
  {
    NetPoint* r      = zone->create_router(name);
    netpoints_[name] = r;
    return r;
  }

  /** A node's hosts behind its router: a full zone with explicit routes when it has GPUs, a star
   *  zone (same link sequences, linear size) for CPU hosts only. */
  sg4::NetZone* node_zone(const platform::NodeDesc& nd, const sg4::NetZone* parent)
  {
    const bool full = nd.gpu_count > 0;
    sg4::NetZone* z = full ? sg4::create_full_zone(nd.name) : sg4::create_star_zone(nd.name);
    if (parent)
      z->set_parent(parent);
    for (uint32_t i = 0; i < nd.host_count(); i++)
      host(z, p_.hosts[nd.first_cpu_host + i]);
    NetPoint* r = router(z, nd.router);
    for (int32_t l : platform::node_links(p_, nd))
      link(z, l);
    if (full) {
      for (const auto& route : platform::node_routes(p_, nd))
        z->add_route(netpoint(route.src), netpoint(route.dst), nullptr, nullptr, in_route(z, route.hops), true);
    } else {
      for (uint32_t i = 0; i < nd.host_count(); i++)
        z->add_route(netpoint(p_.hosts[nd.first_cpu_host + i].name), nullptr, nullptr, nullptr,
                     in_route(z, platform::hops_to_router(p_, nd, i)), true);
      z->add_route(r, nullptr, nullptr, nullptr, {}, true);
    }
    z->seal();
    return z;
  }

  /** The node's netpoint and gateway, as a cluster zone sees it. */
  std::pair<NetPoint*, NetPoint*> node(const platform::NodeDesc& nd, sg4::NetZone* cluster_zone)
  {
    if (nd.zoned) {
      sg4::NetZone* z = node_zone(nd, cluster_zone);
      return {z->get_netpoint(), netpoint(nd.router)};
    }
    sg4::Host* h = host(cluster_zone, p_.hosts[nd.first_cpu_host]);
    return {h->get_netpoint(), nullptr};
  }

  sg4::NetZone* cluster(uint32_t ci, const sg4::NetZone* parent)
  {
    const platform::ClusterDesc& c = p_.clusters[ci];
    switch (c.topology.kind) {
    case platform::TopologyKind::flat:
      return flat_cluster(c, parent);
    case platform::TopologyKind::full:
      return full_cluster(c, parent);
    case platform::TopologyKind::clos:
      return clos_cluster(c, parent);
    default:
      return topology_cluster(c, parent);
    }
  }

  sg4::NetZone* flat_cluster(const platform::ClusterDesc& c, const sg4::NetZone* parent)
  {
    sg4::NetZone* z = sg4::create_star_zone(c.id);
    if (parent)
      z->set_parent(parent);
    const bool zoned = p_.nodes[c.first_node].zoned;
    for (uint32_t n = c.first_node; n < c.first_node + c.node_count; n++) {
      const platform::NodeDesc& nd = p_.nodes[n];
      auto nic                     = in_route(z, {{nd.nic_link, true}});
      if (zoned) {
        auto [np, gw] = node(nd, z);
        z->add_route(np, nullptr, gw, nullptr, nic, true);
      } else {
        for (uint32_t i = 0; i < nd.host_count(); i++) {
          sg4::Host* h = host(z, p_.hosts[nd.first_cpu_host + i]);
          z->add_route(h->get_netpoint(), nullptr, nullptr, nullptr, nic, true);
        }
      }
    }
    if (c.global_link != platform::kNone && zoned) {
      // Beside node zones, the gateway gets a zone of its own: SimGrid 3.32 drops the route inside
      // a node zone when the other end is a router placed directly in the star.
      sg4::NetZone* gz = sg4::create_full_zone(c.id + "-gwzone");
      gz->set_parent(z);
      NetPoint* gw = router(gz, c.router);
      gz->seal();
      z->add_route(gz->get_netpoint(), nullptr, gw, nullptr, {}, true);
    } else if (c.global_link != platform::kNone) {
      // The global link is on the gateway's own route, as in the XML star zone.
      NetPoint* gw = router(z, c.router);
      z->add_route(gw, nullptr, nullptr, nullptr, in_route(z, {{c.global_link, false}}), true);
    }
    z->seal();
    return z;
  }

  /** A clos cluster (the platform's only one): every host in one zone that works routes out on demand. */
  sg4::NetZone* clos_cluster(const platform::ClusterDesc& c, const sg4::NetZone* parent)
  {
    auto* impl      = new ClosZone(c.id, p_);
    sg4::NetZone* z = impl->get_iface();
    if (parent)
      z->set_parent(parent);
    for (uint32_t n = c.first_node; n < c.first_node + c.node_count; n++) {
      const platform::NodeDesc& nd = p_.nodes[n];
      for (uint32_t i = 0; i < nd.host_count(); i++)
        impl->add_host_point(host(z, p_.hosts[nd.first_cpu_host + i])->get_netpoint(), nd.first_cpu_host + i);
    }
    for (size_t i = 0; i < p_.links.size(); i++)
      impl->set_link(static_cast<int32_t>(i), link(z, static_cast<int32_t>(i)));
    z->seal();
    return z;
  }

  sg4::NetZone* full_cluster(const platform::ClusterDesc& c, const sg4::NetZone* parent)
  {
    sg4::NetZone* z = sg4::create_full_zone(c.id);
    if (parent)
      z->set_parent(parent);
    std::vector<std::pair<NetPoint*, NetPoint*>> points;
    for (uint32_t n = c.first_node; n < c.first_node + c.node_count; n++)
      points.push_back(node(p_.nodes[n], z));
    for (uint32_t a = 0; a < c.node_count; a++)
      for (uint32_t b = a + 1; b < c.node_count; b++) {
        auto route = in_route(z, {{c.pair_links[static_cast<size_t>(a) * c.node_count + b], true}});
        z->add_route(points[a].first, points[b].first, points[a].second, points[b].second, route, true);
      }
    if (c.global_link != platform::kNone)
      link(z, c.global_link);
    z->seal();
    return z;
  }

  sg4::NetZone* topology_cluster(const platform::ClusterDesc& c, const sg4::NetZone* parent)
  {
    const platform::Topology& t = c.topology;
    const platform::LinkSpec& l = t.kind == platform::TopologyKind::fat_tree ? t.levels.front().link : t.link;
    auto before_links           = sg4::Engine::get_instance()->get_all_links();
    std::set<const sg4::Link*> before(before_links.begin(), before_links.end());

    sg4::ClusterCallbacks callbacks(
        [this, &c](sg4::NetZone* zone, const std::vector<unsigned long>& /*coord*/, unsigned long id) {
          return node(p_.nodes[c.first_node + static_cast<uint32_t>(id)], zone);
        });
    sg4::NetZone* z = nullptr;
    switch (t.kind) {
    case platform::TopologyKind::fat_tree: {
      auto f = platform::fat_tree_columns(t);
      z      = sg4::create_fatTree_zone(c.id, parent,
                                        sg4::FatTreeParams(static_cast<unsigned>(t.levels.size()), f.down, f.up, f.links),
                                        callbacks, l.bandwidth_Bps, l.latency_s, simgrid_sharing(t.sharing));
      break;
    }
    case platform::TopologyKind::torus: {
      std::vector<unsigned long> dims(t.dimensions.begin(), t.dimensions.end());
      z = sg4::create_torus_zone(c.id, parent, dims, callbacks, l.bandwidth_Bps, l.latency_s,
                                 simgrid_sharing(t.sharing));
      break;
    }
    default: {
      const auto& d = t.dragonfly;
      z             = sg4::create_dragonfly_zone(c.id, parent,
                                                 sg4::DragonflyParams({d.groups, d.group_links}, {d.chassis, d.chassis_links},
                                                                      {d.routers, d.router_links}, d.nodes_per_router),
                                                 callbacks, l.bandwidth_Bps, l.latency_s, simgrid_sharing(t.sharing));
      break;
    }
    }
    if (c.global_link != platform::kNone)
      link(z, c.global_link);
    z->seal();

    // The topology's own links: per-level figures (fat tree) and link power.
    std::vector<sg4::Link*> created;
    for (sg4::Link* lk : sg4::Engine::get_instance()->get_all_links())
      if (not before.count(lk) && not own_link_names_.count(lk->get_name()))
        created.push_back(lk);
    if (t.kind == platform::TopologyKind::fat_tree)
      adjust_fat_tree_levels(c, created);
    else if (t.link.idle_w)
      for (sg4::Link* lk : created)
        lk->set_property("wattage_range", wattage_range(*t.link.idle_w, *t.link.busy_w));
    return z;
  }

  /** SimGrid's fat tree gives every level the same links; set each level's own figures. Links are
   *  named link_from_<child>_<parent>_<n>; leaves are numbered 0..N-1, so a link whose child is a
   *  leaf is on level 1 and a link whose child is a level-k switch is on level k+1. */
  void adjust_fat_tree_levels(const platform::ClusterDesc& c, const std::vector<sg4::Link*>& created)
  {
    struct Parsed {
      sg4::Link* link;
      long child;
      long parent;
    };
    std::vector<Parsed> parsed;
    for (sg4::Link* lk : created) {
      long child = 0, parent = 0, uniq = 0;
      if (std::sscanf(lk->get_cname(), "link_from_%ld_%ld_%ld", &child, &parent, &uniq) == 3)
        parsed.push_back({lk, child, parent});
    }
    std::map<long, size_t> level_of; // node id -> level (leaves: 0)
    for (long leaf = 0; leaf < static_cast<long>(c.node_count); leaf++)
      level_of[leaf] = 0;
    const auto& levels = c.topology.levels;
    for (size_t lv = 1; lv <= levels.size(); lv++)
      for (const auto& pl : parsed) {
        auto it = level_of.find(pl.child);
        if (it != level_of.end() && it->second == lv - 1) {
          level_of.emplace(pl.parent, lv);
          const platform::LinkSpec& spec = levels[lv - 1].link;
          pl.link->set_bandwidth(spec.bandwidth_Bps);
          pl.link->set_latency(spec.latency_s);
          if (spec.idle_w)
            pl.link->set_property("wattage_range", wattage_range(*spec.idle_w, *spec.busy_w));
        }
      }
  }
};

} // namespace

simgrid::s4u::NetZone* build(const platform::Platform& p)
{
  return Builder(p).run();
}

} // namespace sgai::platform_sim
