#include "plugins/gpu_cluster/manager_impl.hpp"
#include "plugins/sim/clock.hpp"

XBT_LOG_NEW_SUBCATEGORY(sgai_gpu_manager, sgai, "sgai GPU-cluster manager (training jobs)");

namespace sgai::gpu_cluster {

namespace {

/** Seconds of a compute-bound kernel of `compute_s` (at P-state 0) on `host` in its P-state. */
double kernel_seconds(s4u::Host* host, double compute_s)
{
  unsigned long p = host->get_pstate();
  return kernels::KernelTime{compute_s, 0}.at(gpu::GpuModel::compute_speed(host, p), 1.0);
}

void run_kernel(s4u::Host* host, double compute_s)
{
  double seconds = kernel_seconds(host, compute_s);
  if (seconds <= 0)
    return;
  s4u::ExecPtr e = s4u::Exec::init();
  e->set_host(host);
  e->set_flops_amount(seconds * host->get_pstate_speed(host->get_pstate()));
  e->start();
  e->wait();
}

} // namespace

// --- a job's ranks -----------------------------------------------------------------------------

void GpuManager::Impl::Run::rank(uint32_t r)
{
  try {
    if (m->rec[job].preemptions > 0 && m->cfg.restart_s > 0)
      sim::sleep_for(m->cfg.restart_s);
    uint64_t i = first;
    while (true) {
      // a rank at the boundary where the job advances joins the others there, even if the job was
      // stopped meanwhile (the stretch is then empty): none is left waiting for it
      if (i == advance_from) {
        i = advance(r, i);
        continue;
      }
      if (i >= stop_at)
        break;
      started_upto = std::max(started_upto, i + 1);
      if (traced)
        replay_iteration(r, i);
      else
        run_kernel(hosts[r], compute_s);
      if (bytes > 0) {
        auto& c = colls[i];
        if (not c.run)
          c.run = std::make_unique<CollectiveRun>(schedule, hosts, bytes, options);
        CollectiveRun* run = c.run.get();
        run->run_rank(r);
        if (++colls[i].done == n)
          colls.erase(i);
      }
      if (++finished[i] == n) {
        finished.erase(i);
        iteration_done(i);
      }
      i++;
    }
  } catch (const std::exception& e) {
    // the job's other ranks would wait for this one forever: the run stops here, and the
    // component reports this error rather than a deadlock
    if (m->error.empty())
      m->error = "job " + m->w.jobs[job].id + ": " + e.what();
    s4u::Actor::kill_all();
    return;
  }
  m->rank_exited(*this);
}

void GpuManager::Impl::Run::replay_iteration(uint32_t, uint64_t i)
{
  // the last rank to reach the iteration starts its replay; each waits for the whole of it
  auto& it               = trace_iterations[i];
  s4u::SemaphorePtr done = it.done;
  if (++it.arrived == n) {
    replay->drop_ended_jobs();
    double total0 = traffic->total();
    auto spec     = m->trace_spec(job, m->rec[job].gpus, m->w.jobs[job].id + "#" + std::to_string(i));
    spec.on_end   = [this, i, total0](const std::vector<replay::RankResult>& ranks) {
      for (size_t q = 0; q < ranks.size() && q < busy.size(); q++)
        busy[q] = ranks[q].compute_s;
      bytes_per_iteration = traffic->total() - total0;
      replayed++;
      s4u::SemaphorePtr d = trace_iterations.at(i).done;
      trace_iterations.erase(i);
      for (uint32_t q = 0; q < n; q++)
        d->release();
    };
    replay->add_job(std::move(spec));
  }
  done->acquire();
}

void GpuManager::Impl::Run::iteration_done(uint64_t i)
{
  double now = s4u::Engine::get_clock();
  completed  = i + 1;
  auto& rc   = m->rec[job];
  rc.iterations++;
  rc.simulated++;
  rc.bytes_moved += bytes_per_iteration;
  XBT_VERB("job %s: iteration %llu done", m->w.jobs[job].id.c_str(), static_cast<unsigned long long>(i));
  if (exact || completed >= stop_at)
    return;
  if (fresh) { // the iteration a change cut into: not a measure
    fresh           = false;
    last_completion = now;
    return;
  }
  // the iterations since the change, less the first ones while the ranks settle into their pace
  // (measure_window): their mean is the estimate once its standard error is within measure_error of
  // it (iterations under contention vary with the jobs' phases; alone, they do not) and the means of
  // the window's two halves differ by no more (iterations still settling drift), after at least k
  // iterations and at most 64 k
  durations.push_back(now - last_completion);
  last_completion = now;
  if (sim_left > 0)
    sim_left--;
  if (sim_left == 0 && not ready && advance_from == kNone) {
    size_t from = measure_window();
    double mean = 0, var = 0;
    for (size_t q = from; q < durations.size(); q++)
      mean += durations[q];
    double nd = static_cast<double>(durations.size() - from);
    mean /= nd;
    for (size_t q = from; q < durations.size(); q++)
      var += (durations[q] - mean) * (durations[q] - mean);
    double sem     = nd > 1 ? std::sqrt(var / (nd - 1) / nd) : 0;
    size_t mid     = from + (durations.size() - from) / 2;
    double half[2] = {0, 0};
    for (size_t q = from; q < durations.size(); q++)
      half[q < mid ? 0 : 1] += durations[q];
    double n0 = static_cast<double>(mid - from), n1 = static_cast<double>(durations.size() - mid);
    double drift = mid > from ? std::fabs(half[1] / n1 - half[0] / n0) : 0;
    // the halves' difference beyond their noise (pooled variance within each half): a drift
    double within = 0;
    for (size_t q = from; q < durations.size(); q++) {
      double d = durations[q] - (q < mid ? half[0] / n0 : half[1] / n1);
      within += d * d;
    }
    // (with k iterations or more in each half: fewer cannot tell noise from a drift)
    double noise = n0 >= k && n1 >= k ? 3 * std::sqrt(within / (nd - 2) * (1 / n0 + 1 / n1)) : 0;
    if ((sem <= m->cfg.measure_error * mean && (drift <= m->cfg.measure_error * mean || drift <= noise)) ||
        durations.size() >= 64 * k) {
      ready = true;
      m->try_advance(job);
    }
  }
}

void GpuManager::Impl::Run::begin_advance()
{
  if (advancing || advance_from != kNone)
    return;
  ready = false;
  if (durations.empty())
    return;
  size_t from = measure_window();
  double sum  = 0;
  for (size_t q = from; q < durations.size(); q++)
    sum += durations[q];
  t_iter       = sum / static_cast<double>(durations.size() - from);
  advance_from = std::max(started_upto, completed);
  XBT_VERB("job %s advances from iteration %llu at %g s per iteration (%zu measured)", m->w.jobs[job].id.c_str(),
           static_cast<unsigned long long>(advance_from), t_iter, durations.size());
  if (advance_from >= stop_at)
    advance_from = kNone;
}

uint64_t GpuManager::Impl::Run::advance(uint32_t r, uint64_t a)
{
  // every rank waits for the others at the boundary; the last one starts the stretch
  if (++at_barrier < n)
    barrier->acquire();
  else {
    at_barrier     = 0;
    adv_t0         = s4u::Engine::get_clock();
    adv_count      = advance_cancel ? 0 : stop_at - a;
    adv_end        = adv_t0 + static_cast<double>(adv_count) * t_iter;
    advancing      = adv_count > 0;
    advance_cancel = false;
    for (uint32_t q = 1; q < n; q++)
      barrier->release();
  }
  // the GPU computes the same share of the time as in the iterations measured: an execution
  // bounded to that share of its speed (the energy plugin sees the same load)
  s4u::ExecPtr duty;
  double kernel = traced ? busy[r] : kernel_seconds(hosts[r], compute_s);
  if (advancing && kernel > 0 && t_iter > 0) {
    double speed = hosts[r]->get_pstate_speed(hosts[r]->get_pstate());
    duty         = s4u::Exec::init();
    duty->set_host(hosts[r]);
    duty->set_flops_amount(kernel * speed * static_cast<double>(adv_count) * 2); // cancelled at the end
    duty->set_bound(speed * std::min(1.0, kernel / t_iter));
    duty->start();
  }
  if (r == 0) {
    while (advancing && s4u::Engine::get_clock() < adv_end)
      leader->acquire_timeout(adv_end - s4u::Engine::get_clock());
    // the stretch is over: its iterations count as done
    auto& rc = m->rec[job];
    rc.iterations += adv_count;
    rc.bytes_moved += bytes_per_iteration * static_cast<double>(adv_count);
    completed      = a + adv_count;
    advancing      = false;
    advance_from   = kNone;
    advance_cancel = false;
    sim_left       = k;
    fresh          = false;
    durations.clear();
    last_completion = s4u::Engine::get_clock();
    // its traffic is back: the jobs sharing its links measure again (under the whole traffic)
    if (completed < stop_at && adv_count > 0)
      m->notify_change(job);
    for (uint32_t q = 1; q < n; q++)
      resume->release();
  } else
    resume->acquire();
  if (duty)
    duty->cancel();
  return completed;
}

void GpuManager::Impl::Run::change()
{
  if (exact)
    return;
  XBT_VERB("job %s: the traffic on its links changed%s", m->w.jobs[job].id.c_str(),
           advancing ? " (ends its stretch)" : "");
  if (advancing && t_iter > 0) { // end the stretch at the next iteration boundary
    double e  = s4u::Engine::get_clock() - adv_t0;
    auto done = static_cast<uint64_t>(std::floor(e / t_iter));
    if (done + 1 < adv_count) {
      adv_count = done + 1;
      adv_end   = adv_t0 + static_cast<double>(adv_count) * t_iter;
      leader->release();
    }
    return;
  }
  if (advance_from != kNone) // decided, ranks gathering: a stretch of none
    advance_cancel = true;
  sim_left = k;
  ready    = false;
  durations.clear();
  fresh = true;
}

void GpuManager::Impl::Run::stop()
{
  stopping = true;
  if (advancing) {
    const uint64_t a = completed; // the stretch's first iteration (change() may yield)
    change();
    stop_at = a + adv_count;
    return;
  }
  if (advance_from != kNone)
    advance_cancel = true;
  stop_at = std::max(started_upto, completed);
  if (advance_from != kNone)
    stop_at = std::max(stop_at, advance_from);
}

// --- GpuManager --------------------------------------------------------------------------------

GpuManager::GpuManager(const workload::Workload& w, const platform::Platform& p, GpuManagerConfig config)
    : impl_(std::make_unique<Impl>(w, p, std::move(config)))
{
}

GpuManager::~GpuManager() = default;

void GpuManager::calibrate()
{
  impl_->calibrate();
}

void GpuManager::start()
{
  impl_->wake = s4u::Semaphore::create(0);
  Impl* m     = impl_.get();
  s4u::Actor::create("gpu-manager", m->gpu_host[0], [m]() {
    try {
      m->manage();
    } catch (const std::exception& e) {
      if (m->error.empty())
        m->error = e.what();
      s4u::Actor::kill_all(); // the jobs' ranks would wait for the manager: the run stops
    }
  });
}

const std::string& GpuManager::error() const
{
  impl_->collect_errors();
  return impl_->error;
}

const std::vector<GpuJobRecord>& GpuManager::jobs() const
{
  return impl_->rec;
}

std::vector<std::pair<std::string, std::string>> GpuManager::write_outputs(const std::filesystem::path& dir) const
{
  const auto& w = impl_->w;
  AtomicFile f(dir / "jobs.csv");
  auto& o = f.stream();
  o << "job_id,workload_name,profile,submission_time,requested_number_of_resources,requested_time,success,"
       "final_state,starting_time,execution_time,finish_time,waiting_time,turnaround_time,stretch,"
       "allocated_resources,consumed_energy,model,iterations,simulated_iterations,preemptions,compute_time,"
       "alone_iteration_time,mix_iteration_time,bytes_moved,allreduce,link_energy\n";
  for (size_t j = 0; j < w.jobs.size(); j++) {
    const auto& job   = w.jobs[j];
    const auto& r     = impl_->rec[j];
    const auto& pr    = w.profile_of(job);
    double turnaround = r.end_s - job.submit_s;
    double alone      = static_cast<double>(pr.iterations) * r.alone_iteration_s;
    o << job.id << ',' << w.name << ',' << pr.name << ',' << format_number(job.submit_s) << ',' << job.resources
      << ",-1," << (r.done ? 1 : 0) << ',' << (r.done ? "COMPLETED_SUCCESSFULLY" : "NOT_SUBMITTED") << ','
      << format_number(r.start_s) << ',' << format_number(r.end_s - r.start_s) << ',' << format_number(r.end_s) << ','
      << format_number(r.start_s - job.submit_s) << ',' << format_number(turnaround) << ','
      << format_number(alone > 0 ? turnaround / alone : 0) << ',' << format_intervals(r.gpus) << ','
      << format_number(r.gpu_energy_j) << ',' << pr.model << ',' << r.iterations << ',' << r.simulated << ','
      << r.preemptions << ',' << format_number(r.compute_s) << ',' << format_number(r.alone_iteration_s) << ','
      << format_number(r.iterations > 0
                           ? (r.run_s - r.preemptions * impl_->cfg.restart_s) / static_cast<double>(r.iterations)
                           : 0)
      << ',' << format_number(r.bytes_moved) << ',' << (r.algorithm.empty() ? "none" : r.algorithm) << ','
      << format_number(r.link_energy_j) << '\n';
  }
  f.commit();
  AtomicFile a(dir / "gpu_allocations.csv");
  a.stream() << "job_id,start,end,gpus,ended\n";
  for (size_t j = 0; j < w.jobs.size(); j++)
    for (const auto& t : impl_->rec[j].tenures)
      a.stream() << w.jobs[j].id << ',' << format_number(t.start_s) << ',' << format_number(t.end_s) << ','
                 << format_intervals(t.gpus) << ',' << (t.preempted ? "preempted" : "completed") << '\n';
  a.commit();
  AtomicFile l(dir / "links.csv");
  // busy_s: the time the link would take to carry its bytes at full bandwidth
  l.stream() << "link,bandwidth_Bps,bytes,busy_s,utilization\n";
  double makespan = 0;
  for (const auto& r : impl_->rec)
    makespan = std::max(makespan, r.end_s);
  for (const s4u::Link* link : s4u::Engine::get_instance()->get_all_links()) {
    auto it = impl_->link_bytes.find(link);
    if (it == impl_->link_bytes.end() || it->second <= 0)
      continue;
    double bw = link->get_bandwidth(), busy = bw > 0 ? it->second / bw : 0;
    l.stream() << link->get_name() << ',' << format_number(bw) << ',' << format_number(it->second) << ','
               << format_number(busy) << ',' << format_fixed(makespan > 0 ? busy / makespan : 0, 6) << '\n';
  }
  l.commit();
  return {{(dir / "jobs.csv").string(), "training jobs: Batsim's columns, GPUs, iterations, iteration times, bytes"},
          {(dir / "gpu_allocations.csv").string(), "each time a job held GPUs (preempted or completed)"},
          {(dir / "links.csv").string(), "bytes the jobs' all-reduces put on each link"}};
}

std::vector<std::pair<std::string, double>> GpuManager::figures() const
{
  const auto& w = impl_->w;
  double jct = 0, wait = 0, makespan = 0, energy = 0;
  uint32_t preempt = 0;
  for (size_t j = 0; j < w.jobs.size(); j++) {
    const auto& r = impl_->rec[j];
    jct += r.end_s - w.jobs[j].submit_s;
    wait += r.start_s - w.jobs[j].submit_s;
    makespan = std::max(makespan, r.end_s);
    energy += r.gpu_energy_j;
    preempt += r.preemptions;
  }
  double n = std::max<double>(1, static_cast<double>(w.jobs.size()));
  return {{"jobs", static_cast<double>(w.jobs.size())},
          {"mean_jct_s", jct / n},
          {"mean_waiting_s", wait / n},
          {"makespan_s", makespan},
          {"preemptions", preempt},
          {"jobs_gpu_energy_j", energy}};
}

} // namespace sgai::gpu_cluster
