/* SimGrid's own cost of the workload manager's pattern, without the manager: rigid jobs of 1 to
 * `max_width` one-core hosts on `hosts` hosts, each job an execution per host, started by executor
 * actors in chunks of at most `chunk` and waited for with Exec::wait_any, those that ended at the
 * same instant found from their finish time (as plugins/batch does),
 * first come first served, a manager actor woken by a semaphore when a job's last execution ends.
 * Host energy plugin on or off. It prints CPU seconds, jobs and executions per CPU-second: the
 * ceiling of any manager built on SimGrid 3.32's executions (tools/bench/batch_scale.sh compares).
 * Usage: simgrid_exec_floor JOBS HOSTS MAX_WIDTH CHUNK ENERGY(0|1) */
#include <simgrid/plugins/energy.h>
#include <simgrid/s4u.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <memory>
#include <random>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Executor {
  sg4::SemaphorePtr go = sg4::Semaphore::create(0);
  size_t job           = 0;
  double flops         = 0;
  std::vector<size_t> hosts;
};

struct Bench {
  size_t jobs = 0, max_width = 0, chunk = 0;
  std::vector<sg4::Host*> hosts;
  std::vector<std::unique_ptr<Executor>> executors;
  std::vector<Executor*> idle;
  std::vector<size_t> left; ///< executions still running, per job
  std::vector<size_t> ended;
  sg4::SemaphorePtr wake;
  bool waiting      = false;
  size_t executions = 0;

  void executor_body(Executor* x)
  {
    std::vector<sg4::ExecPtr> pending;
    while (true) {
      x->go->acquire();
      for (size_t h : x->hosts) {
        sg4::ExecPtr e = sg4::Exec::init();
        e->set_host(hosts[h]);
        e->set_flops_amount(x->flops);
        pending.push_back(e);
      }
      for (auto& e : pending)
        e->start();
      while (not pending.empty()) {
        sg4::Exec::wait_any(pending);
        for (size_t k = 0; k < pending.size();) {
          // (one that ended beside the one waited for has its finish time set, as in plugins/batch)
          if (pending[k]->get_state() == sg4::Activity::State::STARTED && pending[k]->get_finish_time() < 0) {
            k++;
            continue;
          }
          if (--left[x->job] == 0) {
            ended.push_back(x->job);
            if (waiting) {
              waiting = false;
              wake->release();
            }
          }
          pending[k] = pending.back();
          pending.pop_back();
        }
      }
      idle.push_back(x);
    }
  }

  Executor* idle_executor()
  {
    if (not idle.empty()) {
      Executor* x = idle.back();
      idle.pop_back();
      return x;
    }
    executors.push_back(std::make_unique<Executor>());
    Executor* x = executors.back().get();
    sg4::Actor::create("executor", hosts[0], [this, x]() { executor_body(x); })->daemonize();
    return x;
  }

  void manager_body()
  {
    wake = sg4::Semaphore::create(0);
    std::mt19937_64 rng(1);
    std::uniform_int_distribution<size_t> width(1, max_width);
    std::uniform_int_distribution<int> seconds(60, 3660);
    std::vector<size_t> free_hosts(hosts.size());
    for (size_t h = 0; h < hosts.size(); h++)
      free_hosts[h] = hosts.size() - 1 - h;
    std::vector<std::vector<size_t>> job_hosts;
    size_t started = 0, done = 0, next_width = width(rng);
    while (done < jobs) {
      while (started < jobs && free_hosts.size() >= next_width) {
        job_hosts.emplace_back(free_hosts.end() - static_cast<std::ptrdiff_t>(next_width), free_hosts.end());
        free_hosts.resize(free_hosts.size() - next_width);
        left.push_back(next_width);
        double flops = hosts[0]->get_speed() * seconds(rng);
        for (size_t first = 0; first < next_width; first += chunk) {
          Executor* x = idle_executor();
          x->job      = started;
          x->flops    = flops;
          x->hosts.assign(job_hosts.back().begin() + static_cast<std::ptrdiff_t>(first),
                          job_hosts.back().begin() + static_cast<std::ptrdiff_t>(std::min(next_width, first + chunk)));
          x->go->release();
        }
        executions += next_width;
        started++;
        next_width = width(rng);
      }
      if (ended.empty()) {
        waiting = true;
        wake->acquire();
      }
      for (size_t j : ended) {
        done++;
        free_hosts.insert(free_hosts.end(), job_hosts[j].begin(), job_hosts[j].end());
        job_hosts[j].clear();
      }
      ended.clear();
    }
  }
};

} // namespace

int main(int argc, char** argv)
{
  sg4::Engine engine(&argc, argv);
  if (argc != 6) {
    std::fprintf(stderr, "usage: %s JOBS HOSTS MAX_WIDTH CHUNK ENERGY(0|1)\n", argv[0]);
    return 2;
  }
  Bench b;
  b.jobs      = std::strtoul(argv[1], nullptr, 10);
  size_t n    = std::strtoul(argv[2], nullptr, 10);
  b.max_width = std::strtoul(argv[3], nullptr, 10);
  b.chunk     = std::strtoul(argv[4], nullptr, 10);
  bool energy = std::strtoul(argv[5], nullptr, 10) != 0;
  if (b.jobs == 0 || n == 0 || b.max_width == 0 || b.max_width > n || b.chunk == 0) {
    std::fprintf(stderr, "need JOBS, HOSTS, CHUNK > 0 and 0 < MAX_WIDTH <= HOSTS\n");
    return 2;
  }
  if (energy)
    sg_host_energy_plugin_init();
  std::clock_t begin = std::clock();
  auto* zone         = sg4::create_star_zone("floor");
  for (size_t h = 0; h < n; h++) {
    sg4::Host* host = zone->create_host("h" + std::to_string(h), 1e9);
    host->set_property("wattage_per_state", "95:190:190");
    b.hosts.push_back(host);
  }
  zone->seal();
  sg4::Actor::create("manager", b.hosts[0], [&b]() { b.manager_body(); });
  engine.run();
  double cpu = static_cast<double>(std::clock() - begin) / CLOCKS_PER_SEC;
  std::printf("jobs %zu executions %zu cpu_s %.2f jobs/cpu_s %.0f executions/cpu_s %.0f\n", b.jobs, b.executions, cpu,
              static_cast<double>(b.jobs) / cpu, static_cast<double>(b.executions) / cpu);
  return 0;
}
