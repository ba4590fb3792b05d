#include "plugins/sim/power_series.hpp"

#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/sim/energy.hpp"

#include <simgrid/plugins/energy.h>
#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Host.hpp>
#include <simgrid/s4u/Link.hpp>

#include <sstream>
#include <stdexcept>

namespace sgai::sim {

PowerSeries::PowerSeries(double period_s, bool links, std::vector<const simgrid::s4u::Host*> jobs)
    : period_s_(period_s)
    , links_(links)
    , jobs_(std::move(jobs))
{
  if (not(period_s > 0))
    throw std::invalid_argument("a power series needs a positive period");
}

void PowerSeries::sample()
{
  const auto* e = simgrid::s4u::Engine::get_instance();
  double t      = simgrid::s4u::Engine::get_clock();
  double hosts = 0, links = 0;
  for (const simgrid::s4u::Host* h : e->get_all_hosts())
    if (has_power_model(*h)) // (as collect_energy counts them)
      hosts += sg_host_get_consumed_energy(h);
  if (links_)
    for (const simgrid::s4u::Link* l : e->get_all_links())
      links += sg_link_get_consumed_energy(l);
  double jobs = 0;
  for (const simgrid::s4u::Host* h : jobs_)
    if (has_power_model(*h))
      jobs += sg_host_get_consumed_energy(h);
  if (t > last_t_) {
    double dt = t - last_t_;
    rows_.push_back(
        {last_t_, t, (hosts - last_hosts_j_) / dt, (links - last_links_j_) / dt, (jobs - last_jobs_j_) / dt});
  }
  last_t_       = t;
  last_hosts_j_ = hosts;
  last_links_j_ = links;
  last_jobs_j_  = jobs;
}

void PowerSeries::start()
{
  auto* e = simgrid::s4u::Engine::get_instance();
  if (e->get_host_count() == 0)
    return;
  auto actor = simgrid::s4u::Actor::create("sgai_power_series", e->get_all_hosts().front(), [this]() {
    while (true) { // killed, as a daemon, when the last actor that is not one ends
      simgrid::s4u::this_actor::sleep_for(period_s_);
      sample();
    }
  });
  actor->daemonize();
}

void PowerSeries::finish()
{
  sample();
}

void PowerSeries::write_csv(const std::filesystem::path& file) const
{
  std::ostringstream o;
  o << "start_s,end_s,jobs_w,hosts_w,links_w,total_w\n";
  for (const Row& r : rows_)
    o << format_number(r.start_s) << ',' << format_number(r.end_s) << ',' << format_number(r.jobs_w) << ','
      << format_number(r.hosts_w) << ',' << format_number(r.links_w) << ',' << format_number(r.hosts_w + r.links_w)
      << '\n';
  write_file_atomically(file, o.str());
}

} // namespace sgai::sim
