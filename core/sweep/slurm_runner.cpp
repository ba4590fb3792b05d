#include "core/sweep/slurm_runner.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/signals.hpp"
#include "core/sweep/folder.hpp"
#include "core/sweep/process.hpp"
#include "core/sweep/slurm.hpp"

#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <map>
#include <memory>
#include <ostream>
#include <set>
#include <sstream>
#include <thread>
#include <unistd.h>

namespace sgai::sweep {

namespace {

namespace sl = sgai::sweep::slurm;

/** What a command printed, its non-empty lines joined by "; " (one line, for an error message). */
std::string said(const std::string& out)
{
  std::string line, all;
  std::istringstream in(out);
  while (std::getline(in, line))
    if (line.find_first_not_of(" \t\r") != std::string::npos)
      all += (all.empty() ? "" : "; ") + line;
  return all.empty() ? std::string("no output") : all;
}

/** One call of the Slurm runner: Slurm asked first, then the campaign's folder, then the loop of
 *  looks at the runs in flight and submissions of new ones. */
class SlurmRunner {
public:
  SlurmRunner(const Campaign& c, const std::filesystem::path& dir, const SlurmOptions& o)
      : c_(c)
      , space_(c.space())
      , dir_(dir)
      , o_(o)
      , job_name_("sgai-" + c.name)
  {
  }

  RunSummary run()
  {
    // Slurm first: when it is missing or refuses the array job, nothing is written.
    check_slurm();
    auto runs_dir = std::filesystem::absolute(dir_ / "runs").lexically_normal();
    auto base_dir = std::filesystem::absolute(base_dir_of(c_)).lexically_normal();
    script_       = sl::wrapper_script(o_.sgai, runs_dir.string(), base_dir.string());
    slurm_out_    = std::filesystem::absolute(dir_ / "slurm" / "%A_%a.out").lexically_normal();
    test_submission();
    store_ = open_store(dir_, c_, o_.dir_option);
    RunnerLock runner(dir_);
    prepare_folder();
    uint32_t window = o_.jobs > 0 ? uint32_t(o_.jobs) : 64;
    rng_.seed(c_.seed * 1000003 + store_->runs().size());
    while (std::filesystem::exists(dir_ / "slurm" / ("chunk-" + std::to_string(chunk_no_) + ".txt")))
      ++chunk_no_;
    for (;;) {
      size_t in_flight = follow();
      // new array jobs for the free places in the window
      size_t room = in_flight < window ? window - in_flight : 0;
      if (o_.runs > 0)
        room = std::min(room, size_t(std::max<int64_t>(0, o_.runs - started_)));
      in_flight += submit(next_runs(*store_, c_, space_, o_.strategy, rng_, window, room, {}));
      if (in_flight == 0)
        break;
      std::this_thread::sleep_for(std::chrono::duration<double>(o_.poll_s));
    }
    return summary_of(*store_, space_, finished_);
  }

private:
  /** SLURM_CONF, if set, names a file (Slurm's commands retry a missing one for a minute: said at
   *  once here); `scontrol show config` answers; its MaxArraySize bounds the array jobs. */
  void check_slurm()
  {
    if (const char* conf = std::getenv("SLURM_CONF");
        conf != nullptr && *conf != 0 && not std::filesystem::exists(conf))
      throw RunError(std::string("Slurm: SLURM_CONF names ") + conf + ", which does not exist");
    Captured cfg = capture_process({"scontrol", "show", "config"});
    if (not cfg.status || *cfg.status != 0)
      throw RunError("Slurm: `scontrol show config` failed: " + said(cfg.output));
    if (auto v = sl::config_value(cfg.output, "MaxArraySize"); v && not v->empty() && std::isdigit((*v)[0]))
      max_array_ = std::max<uint64_t>(1, std::stoull(*v));
  }

  Captured sbatch(const std::string& array, const std::filesystem::path& file, const std::vector<std::string>& tail,
                  bool test_only) const
  {
    std::vector<std::string> argv{"sbatch", "--parsable", "--job-name=" + job_name_, "--array=" + array,
                                  "--output=" + slurm_out_.string()};
    if (test_only)
      argv.push_back("--test-only");
    for (const auto& x : o_.sbatch_args)
      argv.push_back(x);
    argv.push_back(file.string());
    for (const auto& x : tail)
      argv.push_back(x);
    return capture_process(argv);
  }

  /** `sbatch --test-only` of a one-task array of the script, from a temporary file. */
  void test_submission() const
  {
    char name[] = "/tmp/sgai-task-XXXXXX";
    int fd      = mkstemp(name);
    if (fd < 0)
      throw RunError("cannot create a temporary file in /tmp");
    ::close(fd);
    write_file_atomically(name, script_);
    Captured test = sbatch("0", name, {}, true);
    std::filesystem::remove(name);
    if (not test.status || *test.status != 0)
      throw RunError("Slurm: sbatch refuses the campaign's array job: " + said(test.output));
  }

  /** dir/slurm/task.sh, and the runs a stopped local runner left running queued again. */
  void prepare_folder()
  {
    ensure_directory(dir_ / "slurm");
    write_file_atomically(dir_ / "slurm" / "task.sh", script_);
    std::filesystem::permissions(dir_ / "slurm" / "task.sh",
                                 std::filesystem::perms::owner_all | std::filesystem::perms::group_read |
                                     std::filesystem::perms::group_exec | std::filesystem::perms::others_read |
                                     std::filesystem::perms::others_exec);
    int64_t requeued = 0;
    for (const auto& r : store_->runs())
      if (r.status == "running" && r.runner != "slurm") { // a local runner's, stopped
        store_->requeue(r.id);
        ++requeued;
      }
    if (requeued > 0 && o_.progress != nullptr)
      *o_.progress << "Resumed: " << requeued << " run" << (requeued > 1 ? "s" : "")
                   << " stopped while running locally, queued again\n";
  }

  /** Records run `r` ended when its task left its result file; false when there is none yet. */
  bool collect(const RunRecord& r)
  {
    auto run_dir = dir_ / "runs" / std::to_string(r.id);
    std::error_code ec;
    if (not std::filesystem::exists(run_dir / "result.json", ec))
      return false;
    auto res         = sl::parse_result(read_text_file(run_dir / "result.json"));
    auto lock        = output_lock();
    int status       = res ? int(res->exit_status) : -1;
    double wall      = res && res->ended >= res->started && res->started > 0 ? res->ended - res->started : std::nan("");
    double objective = 0;
    try {
      objective = objective_of(c_, run_dir, status, r.id);
    } catch (const InputError&) { // recorded failed, then the campaign stops (its tasks go on)
      store_->finish(r.id, now_s(), std::nan(""), status, false, wall);
      throw;
    }
    store_->finish(r.id, now_s(), objective, status, status == 0 && std::isfinite(objective), wall);
    ++finished_;
    return true;
  }

  /** Run `r`, whose task is neither in flight nor left a result: queued again once, failed the
   *  second time. */
  void lose(const RunRecord& r)
  {
    auto lock = output_lock();
    if (r.lost >= 1) {
      store_->finish(r.id, now_s(), std::nan(""), -1, false);
      ++finished_;
      if (o_.progress != nullptr)
        *o_.progress << "Run " << r.id << ": Slurm task " << r.job << " left the queue without a result again: failed"
                     << std::endl;
    } else {
      store_->lost(r.id);
      if (o_.progress != nullptr)
        *o_.progress << "Run " << r.id << ": Slurm task " << r.job
                     << " left the queue without a result: queued again (once)" << std::endl;
    }
  }

  /** What the tasks left: result files first, the queue and scontrol for those without one. The
   *  runs still in flight. */
  size_t follow()
  {
    std::vector<RunRecord> flying;
    for (const auto& r : store_->runs())
      if (r.status == "running")
        flying.push_back(r);
    std::map<std::string, std::string> queued, known;
    std::set<std::string> asked;
    if (not flying.empty()) {
      Captured q = capture_process({"squeue", "-h", "-r", "-n", job_name_, "-o", "%i %T"});
      if (not q.status || *q.status != 0)
        throw RunError("Slurm: squeue failed: " + said(q.output));
      queued = sl::queue_states(q.output);
    }
    size_t in_flight = 0;
    for (const auto& r : flying) {
      if (collect(r))
        continue;
      if (auto it = queued.find(r.job); it != queued.end() && sl::in_flight(it->second)) {
        ++in_flight;
        continue;
      }
      std::string array = r.job.substr(0, r.job.find('_'));
      if (not array.empty() && asked.insert(array).second) {
        Captured j = capture_process({"scontrol", "-o", "show", "job", array});
        if (j.status && *j.status == 0)
          for (auto& [k, v] : sl::job_states(j.output))
            known[k] = v;
      }
      if (auto it = known.find(r.job); it != known.end() && sl::in_flight(it->second)) {
        ++in_flight;
        continue;
      }
      if (collect(r)) // it ended between the two looks
        continue;
      lose(r);
    }
    return in_flight;
  }

  /** Submits runs `ids` as array jobs of at most MaxArraySize tasks: the runs submitted. */
  size_t submit(const std::vector<int64_t>& ids)
  {
    size_t submitted = 0;
    for (size_t from = 0; from < ids.size(); from += max_array_) {
      std::vector<int64_t> chunk(ids.begin() + long(from), ids.begin() + long(std::min(ids.size(), from + max_array_)));
      std::string lines;
      for (int64_t id : chunk) {
        prepare_run(dir_, c_, space_, record_of(*store_, id));
        lines += std::to_string(id) + "\n";
      }
      auto chunk_file = dir_ / "slurm" / ("chunk-" + std::to_string(chunk_no_++) + ".txt");
      write_file_atomically(chunk_file, lines);
      std::string array = "0-" + std::to_string(chunk.size() - 1);
      if (o_.throttle > 0)
        array += "%" + std::to_string(o_.throttle);
      // submitted and recorded under the output lock: an interruption never comes between them
      auto lock    = output_lock();
      Captured sub = sbatch(array, std::filesystem::absolute(dir_ / "slurm" / "task.sh"),
                            {std::filesystem::absolute(chunk_file)}, false);
      auto job     = sub.status && *sub.status == 0 ? sl::parsable_job_id(sub.output) : std::nullopt;
      if (not job)
        throw RunError("Slurm: sbatch failed (the runs stay queued): " + said(sub.output));
      std::vector<CampaignStore::Started> st;
      for (size_t i = 0; i < chunk.size(); ++i)
        st.push_back({chunk[i], *job + "_" + std::to_string(i)});
      store_->start(st, now_s(), "slurm");
      started_ += int64_t(chunk.size());
      submitted += chunk.size();
      if (o_.progress != nullptr)
        *o_.progress << "Submitted " << chunk.size() << " run" << (chunk.size() > 1 ? "s" : "") << " as array job "
                     << *job << std::endl;
    }
    return submitted;
  }

  const Campaign& c_;
  Space space_;
  std::filesystem::path dir_;
  const SlurmOptions& o_;
  std::string job_name_;
  uint64_t max_array_ = 1001;
  std::string script_;
  std::filesystem::path slurm_out_;
  std::unique_ptr<CampaignStore> store_;
  std::mt19937_64 rng_;
  int64_t started_   = 0;
  int64_t finished_  = 0;
  uint64_t chunk_no_ = 0;
};

} // namespace

RunSummary run_slurm(const Campaign& c, const std::filesystem::path& dir, const SlurmOptions& o)
{
  return SlurmRunner(c, dir, o).run();
}

} // namespace sgai::sweep
