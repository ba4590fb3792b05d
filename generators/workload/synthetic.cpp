#include "generators/workload/synthetic.hpp"

#include "generators/workload/batsim.hpp"

#include <cmath>
#include <random>
#include <stdexcept>

namespace sgai::workload {

namespace {

void require(bool ok, const char* what)
{
  if (not ok)
    throw std::invalid_argument(what);
}

} // namespace

double interarrival_for_load(const SyntheticSpec& s, uint64_t cores, double load)
{
  require(cores >= 1, "the platform needs at least one core");
  require(load > 0 && std::isfinite(load), "load must be > 0");
  require(s.min_run_s > 0 && s.max_run_s >= s.min_run_s, "run times need 0 < MIN <= MAX");
  auto max_k      = static_cast<int>(std::floor(std::log2(static_cast<double>(std::max<uint32_t>(s.max_cores, 1)))));
  double parallel = 0;
  for (int k = 1; k <= max_k; k++)
    parallel += std::ldexp(1.0, k) / max_k;
  double mean_cores = max_k >= 1 ? s.serial_fraction + (1 - s.serial_fraction) * parallel : 1.0;
  double mean_run =
      s.max_run_s == s.min_run_s ? s.min_run_s : (s.max_run_s - s.min_run_s) / std::log(s.max_run_s / s.min_run_s);
  return mean_cores * mean_run / (static_cast<double>(cores) * load);
}

Workload generate_workload(const SyntheticSpec& s)
{
  require(s.jobs >= 1, "jobs must be at least 1");
  require(s.max_cores >= 1, "max_cores must be at least 1");
  require(s.serial_fraction >= 0 && s.serial_fraction <= 1, "serial_fraction must be in [0, 1]");
  require(s.mean_interarrival_s >= 0 && std::isfinite(s.mean_interarrival_s),
          "mean_interarrival must be a finite time >= 0");
  require(s.min_run_s > 0 && s.max_run_s >= s.min_run_s && std::isfinite(s.max_run_s), "run times need 0 < MIN <= MAX");
  require(s.overestimate >= 1 && std::isfinite(s.overestimate), "overestimate must be >= 1");
  require(s.max_run_s * s.overestimate <= max_time_s,
          "the longest run time times the overestimate must be at most 1e12 s (requested times)");
  require(s.mem_min_mb >= 0 && s.mem_max_mb >= s.mem_min_mb && std::isfinite(s.mem_max_mb),
          "memory needs 0 <= MIN <= MAX");
  require(s.mem_bw_min_gbps >= 0 && s.mem_bw_max_gbps >= s.mem_bw_min_gbps && std::isfinite(s.mem_bw_max_gbps),
          "memory bandwidth needs 0 <= MIN <= MAX");
  require(s.reference_speed > 0 && std::isfinite(s.reference_speed), "reference speed must be > 0");

  Workload w;
  w.name   = s.name;
  w.source = "synthetic";
  w.nb_res = s.max_cores;
  std::mt19937_64 rng(s.seed);
  std::exponential_distribution<double> gap(s.mean_interarrival_s > 0 ? 1.0 / s.mean_interarrival_s : 1.0);
  std::uniform_real_distribution<double> unit(0.0, 1.0);
  auto max_k = static_cast<int>(std::floor(std::log2(static_cast<double>(s.max_cores))));
  std::uniform_int_distribution<int> power(1, std::max(1, max_k));
  const double log_min = std::log(s.min_run_s);
  const double log_max = std::log(s.max_run_s);

  double t = 0, max_time = 0, max_mem = 0, max_bw = 0;
  uint32_t max_core = 0;
  w.jobs.reserve(s.jobs);
  w.profiles.reserve(s.jobs);
  for (uint64_t i = 0; i < s.jobs; i++) {
    if (i > 0 && s.mean_interarrival_s > 0)
      t += gap(rng);
    uint32_t cores = 1;
    if (unit(rng) >= s.serial_fraction && max_k >= 1)
      cores = uint32_t{1} << power(rng);
    double run = std::exp(log_min + unit(rng) * (log_max - log_min));
    double req = run * (1 + unit(rng) * (s.overestimate - 1));
    double mem = s.mem_min_mb + unit(rng) * (s.mem_max_mb - s.mem_min_mb);
    double bw  = s.mem_bw_min_gbps + unit(rng) * (s.mem_bw_max_gbps - s.mem_bw_min_gbps);

    Profile p;
    p.name        = "p" + std::to_string(i + 1);
    p.type        = ProfileType::parallel_homogeneous;
    p.cpu         = run * s.reference_speed;
    p.req_time_s  = req;
    p.req_ops     = req * s.reference_speed;
    p.mem_mb      = mem;
    p.mem_bw_gbps = bw;
    Job j;
    j.id        = std::to_string(i + 1);
    j.submit_s  = t;
    j.resources = cores;
    j.profile   = static_cast<uint32_t>(w.profiles.size());
    w.profiles.push_back(std::move(p));
    w.jobs.push_back(std::move(j));
    max_time = std::max(max_time, req);
    max_core = std::max(max_core, cores);
    max_mem  = std::max(max_mem, mem);
    max_bw   = std::max(max_bw, bw);
  }
  require(t <= max_time_s, "the submission times go past 1e12 s: fewer jobs or a shorter inter-arrival time");
  w.job_limits_json = job_limits_json(max_time, max_core, max_mem, max_bw, s.reference_speed);
  return w;
}

} // namespace sgai::workload
