/* The GPU-cluster manager's calibration: each job's time alone, simulated in a forked child before
 * the manager starts. */
#include "plugins/gpu_cluster/manager_impl.hpp"

#include "core/foundation/child.hpp"

#include <exception>

namespace sgai::gpu_cluster {

void GpuManager::Impl::calibrate()
{
  std::vector<CalibrationKey> wanted;
  std::vector<TraceKey> traced_wanted;
  for (size_t j = 0; j < w.jobs.size(); j++)
    if (traced(j)) {
      TraceKey key{w.jobs[j].profile, w.jobs[j].resources, type_of_job[j]};
      if (std::find(traced_wanted.begin(), traced_wanted.end(), key) == traced_wanted.end())
        traced_wanted.push_back(key);
    } else if (communicates(j)) {
      CalibrationKey key{w.jobs[j].resources, w.profile_of(w.jobs[j]).gradient_bytes, type_of_job[j]};
      if (std::find(wanted.begin(), wanted.end(), key) == wanted.end())
        wanted.push_back(key);
    }
  if (not wanted.empty() || not traced_wanted.empty())
    run_calibration(wanted, traced_wanted);
  for (size_t j = 0; j < w.jobs.size(); j++) {
    const auto& pr = w.profile_of(w.jobs[j]);
    if (traced(j)) {
      const auto& v            = alone_trace.at({w.jobs[j].profile, w.jobs[j].resources, type_of_job[j]});
      rec[j].alone_iteration_s = v[0];
      rec[j].compute_s         = std::accumulate(v.begin() + 1, v.end(), 0.0) / static_cast<double>(v.size() - 1);
      continue;
    }
    double t = 0;
    if (communicates(j))
      t = alone_allreduce.at({w.jobs[j].resources, pr.gradient_bytes, type_of_job[j]});
    if (pr.iteration_s) {
      rec[j].compute_s = *pr.iteration_s - t;
      if (rec[j].compute_s < 0) {
        XBT_WARN("job %s: its all-reduce alone takes %g s, more than its measured iteration time %g s: it "
                 "computes for 0 s",
                 w.jobs[j].id.c_str(), t, *pr.iteration_s);
        rec[j].compute_s = 0;
      }
    }
    rec[j].alone_iteration_s = rec[j].compute_s + t;
  }
}

void GpuManager::Impl::run_calibration(const std::vector<CalibrationKey>& wanted,
                                       const std::vector<TraceKey>& traced_wanted)
{
  if (s4u::Engine::get_instance()->get_actor_count() > 0)
    throw RunError("the GPU-cluster manager calibrates its jobs before any other actor exists: "
                   "put its component first in the experiment");
  scheduling::GpuSchedulerConfig pc;
  pc.placement = scheduling::GpuPlacement::pack;
  scheduling::GpuScheduler empty(sched.topology(), pc);
  std::vector<std::vector<uint32_t>> where, twhere;
  for (const auto& [n, bytes, type] : wanted)
    where.push_back(empty.place(n, type));
  // results: one per all-reduce, then per traced job its iteration and each rank's compute
  std::vector<size_t> offset;
  size_t size = wanted.size();
  for (const auto& [profile, n, type] : traced_wanted) {
    twhere.push_back(empty.place(n, type));
    offset.push_back(size);
    size += 1 + n;
  }
  auto measure = [&]() {
    std::vector<double> out(size, -1);
    std::exception_ptr first; // the first error, raised again once the simulation is over
    std::vector<std::unique_ptr<replay::Replay>> replays;
    s4u::Actor::create("gpu-calibration", gpu_host[0], [&]() {
      try {
        for (size_t i = 0; i < wanted.size(); i++) {
          double t0 = s4u::Engine::get_clock();
          run_allreduce(where[i], std::get<1>(wanted[i]));
          out[i] = s4u::Engine::get_clock() - t0;
        }
        for (size_t k = 0; k < traced_wanted.size(); k++) {
          size_t j = 0;
          while (w.jobs[j].profile != std::get<0>(traced_wanted[k]))
            j++;
          auto options              = replay_options(nullptr);
          options.network_to_itself = true; // the calibration runs one thing at a time
          replays.push_back(std::make_unique<replay::Replay>(options));
          auto done   = s4u::Semaphore::create(0);
          double t0   = s4u::Engine::get_clock();
          auto spec   = trace_spec(static_cast<uint32_t>(j), twhere[k], w.jobs[j].id + ":calibration");
          size_t base = offset[k];
          spec.on_end = [&out, base, t0, done](const std::vector<replay::RankResult>& ranks) {
            out[base] = s4u::Engine::get_clock() - t0;
            for (size_t q = 0; q < ranks.size(); q++)
              out[base + 1 + q] = ranks[q].compute_s;
            done->release();
          };
          replays.back()->add_job(std::move(spec));
          done->acquire();
        }
      } catch (const std::exception&) {
        first = std::current_exception();
        s4u::Actor::kill_all();
      }
    });
    s4u::Engine::get_instance()->run();
    for (const auto& r : replays)
      try {
        r->check();
      } catch (const std::exception&) {
        if (not first)
          first = std::current_exception();
      }
    if (first)
      std::rethrow_exception(first);
    std::string bytes;
    append_bytes(bytes, out.data(), out.size() * sizeof(double));
    return bytes;
  };
  ChildOptions child;
  child.what       = "the calibration";
  ChildResult done = run_in_child(measure, child);
  if (done.error_kind == 'I')
    done.rethrow();
  if (done.threw())
    throw RunError("calibrating the jobs alone (a forked simulation): " + done.error_message);
  std::vector<double> got(size, -1);
  ByteReader in(done.data);
  if (not done.exited_ok() || not in.read(got.data(), got.size() * sizeof(double)) ||
      std::any_of(got.begin(), got.end(), [](double t) { return not(t >= 0); }))
    throw RunError("the calibration (a forked simulation of each job's all-reduce or iteration alone) failed");
  for (size_t i = 0; i < wanted.size(); i++)
    alone_allreduce[wanted[i]] = got[i];
  for (size_t k = 0; k < traced_wanted.size(); k++)
    alone_trace[traced_wanted[k]] =
        std::vector<double>(got.begin() + static_cast<std::ptrdiff_t>(offset[k]),
                            got.begin() + static_cast<std::ptrdiff_t>(offset[k] + 1 + std::get<1>(traced_wanted[k])));
}

void GpuManager::Impl::run_allreduce(const std::vector<uint32_t>& gpus, double bytes)
{
  auto n     = static_cast<uint32_t>(gpus.size());
  auto hosts = hosts_of(gpus);
  auto plan  = collective_for(gpus, bytes);
  CollectiveRun c(plan.schedule, hosts, bytes, plan.options);
  communicator::LoneFlows flows; // alone in the calibration: worked out at once when that is exact
  c.work_out_alone(flows);
  auto done = s4u::Semaphore::create(0);
  for (uint32_t r = 0; r < n; r++)
    s4u::Actor::create("calibration-rank", hosts[r], [&c, r, done]() {
      c.run_rank(r);
      done->release();
    });
  for (uint32_t r = 0; r < n; r++)
    done->acquire();
}

} // namespace sgai::gpu_cluster
