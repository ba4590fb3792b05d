/* The platform's power over time, from SimGrid's host_energy and link_energy plugins: a daemon
 * actor reads every host's (and link's) consumed energy each `period` of simulated time, and each
 * row is the average power over its interval (energy difference over length), the last one ending
 * when the simulation does. The rows' energy (power x length) adds up to the plugins' totals: what
 * a power meter integrating at that period would record. */
#ifndef SGAI_PLUGINS_SIM_POWER_SERIES_HPP
#define SGAI_PLUGINS_SIM_POWER_SERIES_HPP

#include <simgrid/forward.h>

#include <filesystem>
#include <memory>
#include <vector>

namespace sgai::sim {

class PowerSeries {
public:
  /** `period_s` > 0; `links`: the link_energy plugin is on and its links count; `jobs`: hosts
   *  also summed apart (the jobs' hosts: a run's own power on a larger platform). */
  PowerSeries(double period_s, bool links, std::vector<const simgrid::s4u::Host*> jobs = {});
  /** Starts the sampling actor (after the platform is loaded, before Engine::run). */
  void start();
  /** The last interval, up to now (after Engine::run). */
  void finish();

  struct Row {
    double start_s = 0, end_s = 0;
    double hosts_w = 0, links_w = 0; ///< average power over [start, end)
    double jobs_w = 0;               ///< of those hosts, the jobs' hosts
  };
  const std::vector<Row>& rows() const { return rows_; }
  /** power.csv: start_s, end_s, jobs_w, hosts_w, links_w, total_w. */
  void write_csv(const std::filesystem::path& file) const;

private:
  double period_s_;
  bool links_;
  std::vector<const simgrid::s4u::Host*> jobs_;
  double last_t_ = 0, last_hosts_j_ = 0, last_links_j_ = 0, last_jobs_j_ = 0;
  std::vector<Row> rows_;
  void sample();
};

} // namespace sgai::sim

#endif
