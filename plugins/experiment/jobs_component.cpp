/* Component "jobs": rigid jobs (cores x work per core) submitted over time and run first come,
 * first served on the lowest-numbered free cores, each core as an S4U execution on its host.
 * A small, exact baseline for the quick-start experiment; the workload manager (issue 3) is the
 * full-featured scheduler. */
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"
#include "plugins/experiment/component.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Engine.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>
#include <xbt/log.h>

#include <algorithm>
#include <deque>
#include <random>
#include <set>

XBT_LOG_NEW_DEFAULT_SUBCATEGORY(sgai_jobs, sgai, "sgai jobs component (FCFS on cores)");

namespace sgai::experiment {

namespace {

namespace sg4 = simgrid::s4u;
using units::Quantity;

struct Job {
  std::string id;
  double submit_s   = 0;
  uint32_t cores    = 1;
  double work_flops = 0; ///< per core
  std::string pointer;   ///< where the job was defined, for errors
  double start_s  = -1;
  double finish_s = -1;
  std::vector<uint32_t> allocated;
};

struct Generate {
  uint32_t count     = 0;
  uint32_t min_cores = 1, max_cores = 1;
  double min_work = 0, max_work = 0;
  double mean_interarrival_s = 0;
};

/** A core of the platform and the SimGrid host that runs it. */
struct Slot {
  sg4::Host* host;
};

class JobsComponent : public Component {
public:
  JobsComponent(std::vector<Job> jobs, std::optional<Generate> gen, std::string file)
      : jobs_(std::move(jobs))
      , generate_(gen)
      , file_(std::move(file))
  {
  }

  void setup(RunContext& ctx) override
  {
    build_slots(ctx);
    if (generate_)
      generate_jobs(ctx.seed);
    for (const auto& j : jobs_)
      if (j.cores > slots_.size())
        throw InputError(file_, "at " + j.pointer + "/cores",
                         "job " + quote(j.id) + " needs " + std::to_string(j.cores) + " cores but the platform has " +
                             std::to_string(slots_.size()));
    std::stable_sort(jobs_.begin(), jobs_.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
    sg4::Actor::create("jobs", slots_.front().host, [this]() { run(); });
  }

  Figures finish(RunContext& ctx, std::vector<OutputFile>& outputs) override
  {
    auto path = ctx.output_dir / "jobs.csv";
    AtomicFile f(path);
    f.stream() << "job_id,submission_time,requested_cores,work_per_core_flops,starting_time,finish_time,waiting_time,"
                  "allocated_resources\n";
    double makespan = 0, total_wait = 0;
    for (const auto& j : jobs_) {
      f.stream() << j.id << "," << format_number(j.submit_s) << "," << j.cores << "," << format_number(j.work_flops)
                 << "," << format_number(j.start_s) << "," << format_number(j.finish_s) << ","
                 << format_number(j.start_s - j.submit_s) << "," << format_intervals(j.allocated) << "\n";
      makespan = std::max(makespan, j.finish_s);
      total_wait += j.start_s - j.submit_s;
    }
    f.commit();
    outputs.push_back({path.string(), "one line per job: submission, start, finish, allocated cores"});
    return {{"jobs", static_cast<double>(jobs_.size())},
            {"makespan_s", makespan},
            {"mean_waiting_time_s", jobs_.empty() ? 0 : total_wait / static_cast<double>(jobs_.size())},
            {"cores", static_cast<double>(slots_.size())}};
  }

private:
  std::vector<Job> jobs_;
  std::optional<Generate> generate_;
  std::string file_;
  std::vector<Slot> slots_;

public:
  std::vector<std::string> managed_hosts() const override
  {
    std::vector<std::string> names;
    for (const auto& s : slots_)
      if (names.empty() || names.back() != s.host->get_name())
        names.push_back(s.host->get_name());
    return names;
  }

private:
  /** Resource i is core i of the resource hierarchy (JSON platforms) or, for SimGrid XML, the
   *  cores of the compute hosts in name order. */
  void build_slots(const RunContext& ctx)
  {
    if (ctx.platform) {
      for (const auto& p : ctx.platform->processors)
        for (uint32_t k = 0; k < p.cores; k++)
          slots_.push_back({sg4::Host::by_name(ctx.platform->hosts[p.host_of_core(k)].name)});
    } else {
      for (sg4::Host* h : sg4::Engine::get_instance()->get_all_hosts()) {
        const char* role = h->get_property("sgai_role");
        if (role && std::string(role) == "gateway")
          continue;
        for (int k = 0; k < h->get_core_count(); k++)
          slots_.push_back({h});
      }
    }
    if (slots_.empty())
      throw InputError(file_, "", "the platform has no CPU cores to run jobs on");
  }

  void generate_jobs(uint64_t seed)
  {
    std::mt19937_64 rng(seed);
    std::uniform_int_distribution<uint32_t> cores(generate_->min_cores, generate_->max_cores);
    std::uniform_real_distribution<double> work(generate_->min_work, generate_->max_work);
    std::exponential_distribution<double> gap(generate_->mean_interarrival_s > 0 ? 1.0 / generate_->mean_interarrival_s
                                                                                 : 1.0);
    double t = 0;
    for (uint32_t i = 0; i < generate_->count; i++) {
      Job j;
      j.id         = "g" + std::to_string(i);
      j.submit_s   = t;
      j.cores      = std::min<uint32_t>(cores(rng), static_cast<uint32_t>(slots_.size()));
      j.work_flops = work(rng);
      j.pointer    = "/components";
      jobs_.push_back(j);
      if (generate_->mean_interarrival_s > 0)
        t += gap(rng);
    }
  }

  /** The scheduler actor: FCFS without backfilling, lowest-numbered free cores first. */
  void run()
  {
    std::vector<bool> busy(slots_.size(), false);
    size_t free_count = slots_.size();
    size_t next       = 0; // next job to submit
    std::deque<size_t> queue;
    std::vector<sg4::ExecPtr> running;
    std::vector<size_t> owner; // job of each running exec
    std::vector<uint32_t> remaining(jobs_.size(), 0);

    while (next < jobs_.size() || not queue.empty() || not running.empty()) {
      double now = sg4::Engine::get_clock();
      while (next < jobs_.size() && jobs_[next].submit_s <= now)
        queue.push_back(next++);
      while (not queue.empty() && jobs_[queue.front()].cores <= free_count) {
        Job& j = jobs_[queue.front()];
        queue.pop_front();
        j.start_s = now;
        for (uint32_t i = 0; i < slots_.size() && j.allocated.size() < j.cores; i++)
          if (not busy[i]) {
            busy[i] = true;
            j.allocated.push_back(i);
          }
        free_count -= j.cores;
        remaining[static_cast<size_t>(&j - jobs_.data())] = j.cores;
        for (uint32_t core : j.allocated) {
          sg4::ExecPtr e = sg4::Exec::init()->set_host(slots_[core].host)->set_flops_amount(j.work_flops);
          e->set_name(j.id);
          e->start();
          running.push_back(e);
          owner.push_back(static_cast<size_t>(&j - jobs_.data()));
        }
        XBT_DEBUG("job %s starts on %u cores", j.id.c_str(), j.cores);
      }
      if (running.empty()) {
        if (next < jobs_.size())
          sg4::this_actor::sleep_until(jobs_[next].submit_s);
        continue;
      }
      ssize_t done = next < jobs_.size()
                         ? sg4::Exec::wait_any_for(running, jobs_[next].submit_s - sg4::Engine::get_clock())
                         : sg4::Exec::wait_any(running);
      if (done < 0)
        continue; // a submission is due
      size_t job = owner[static_cast<size_t>(done)];
      running.erase(running.begin() + done);
      owner.erase(owner.begin() + done);
      if (--remaining[job] == 0) {
        Job& j     = jobs_[job];
        j.finish_s = sg4::Engine::get_clock();
        for (uint32_t core : j.allocated)
          busy[core] = false;
        free_count += j.cores;
        XBT_DEBUG("job %s done at %f", j.id.c_str(), j.finish_s);
      }
    }
  }
};

std::vector<Job> parse_jobs(const json::Value& list)
{
  std::vector<Job> jobs;
  std::set<std::string> ids;
  for (auto& item : list.array()) {
    auto o = item.object();
    Job j;
    j.pointer = o.pointer();
    auto id   = o.required("id");
    j.id      = id.string();
    if (not ids.insert(j.id).second)
      id.fail("duplicate job id " + id.shown());
    auto submit = o.required("submit");
    j.submit_s  = submit.quantity(Quantity::time, 1.0);
    if (not(j.submit_s >= 0))
      submit.fail("submission time " + submit.shown() + " must not be negative");
    j.cores      = static_cast<uint32_t>(o.required("cores").integer(1, 1 << 30));
    auto work    = o.required("work");
    j.work_flops = work.quantity(Quantity::speed);
    if (not(j.work_flops > 0))
      work.fail("work " + work.shown() + " must be positive (flops per core, e.g. '20Gf')");
    o.finish({"id", "submit", "cores", "work"});
    jobs.push_back(j);
  }
  return jobs;
}

std::unique_ptr<Component> make_jobs(json::Object& options, const RunContext& ctx)
{
  std::vector<Job> jobs;
  std::optional<Generate> gen;
  if (auto list = options.optional("jobs"))
    jobs = parse_jobs(*list);
  if (auto w = options.optional("workload")) {
    std::filesystem::path p = w->string();
    if (p.is_relative())
      p = ctx.base_dir / p;
    auto doc  = json::load(p);
    auto wo   = doc.object();
    auto more = parse_jobs(wo.required("jobs"));
    wo.finish({"jobs"});
    jobs.insert(jobs.end(), more.begin(), more.end());
  }
  if (auto g = options.optional("generate")) {
    auto go = g->object();
    Generate gn;
    gn.count   = static_cast<uint32_t>(go.required("count").integer(1, 1 << 24));
    auto cores = go.required("cores").array();
    if (cores.size() != 2)
      go.fail_at("cores", "expected [min, max] cores");
    gn.min_cores = static_cast<uint32_t>(cores[0].integer(1, 1 << 30));
    gn.max_cores = static_cast<uint32_t>(cores[1].integer(gn.min_cores, 1 << 30));
    auto work    = go.required("work").array();
    if (work.size() != 2)
      go.fail_at("work", "expected [min, max] work per core, e.g. [\"1Gf\", \"10Gf\"]");
    gn.min_work = work[0].quantity(Quantity::speed);
    gn.max_work = work[1].quantity(Quantity::speed);
    if (not(gn.min_work > 0) || gn.max_work < gn.min_work)
      go.fail_at("work", "expected 0 < min <= max");
    gn.mean_interarrival_s = go.required("mean_interarrival").quantity(Quantity::time, 1.0);
    if (not(gn.mean_interarrival_s >= 0))
      go.fail_at("mean_interarrival", "must not be negative");
    go.finish({"count", "cores", "work", "mean_interarrival"});
    gen = gn;
  }
  if (jobs.empty() && not gen)
    options.fail("the jobs component needs 'jobs', 'workload' or 'generate'");
  options.finish({"jobs", "workload", "generate"});
  return std::make_unique<JobsComponent>(std::move(jobs), gen, options.file());
}

} // namespace

void register_jobs_component(ComponentRegistry& registry)
{
  registry.add("jobs", "rigid jobs run first come, first served on the lowest-numbered free cores", make_jobs);
}

} // namespace sgai::experiment
