/* A campaign's database (SQLite through sgai::sqlite, schema version 1, docs/sweep.md): the
 * campaign's settings, its parameters and values, and one row per run with its point, origin,
 * status (queued, running, done, failed), attempts, times and objective. Every change is one
 * transaction in SQLite's rollback journal: a campaign killed at any moment reopens as it was
 * before the change. */
#ifndef SGAI_CORE_SWEEP_STORE_HPP
#define SGAI_CORE_SWEEP_STORE_HPP

#include "core/sweep/campaign.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sgai::sqlite {
class Database;
}

namespace sgai::sweep {

constexpr int64_t kCampaignSchema = 2;

struct RunRecord {
  int64_t id     = 0;
  uint64_t point = 0;
  std::string origin, status;
  int64_t attempts = 0;
  double queued_at = 0, started_at = 0, ended_at = 0, wall_s = 0;
  double objective    = 0; ///< NaN until done
  int64_t exit_status = -1;
  std::string runner; ///< local or slurm, once started
  std::string job;    ///< the Slurm array task running it (JOBID_TASK), while it runs
  int64_t lost = 0;   ///< times its Slurm task left the queue without a result
};

/** A point the assistant suggests, waiting for the analyst's acceptance. */
struct Suggested {
  int64_t id     = 0;
  uint64_t point = 0;
  double made_at = 0, exploitation = 0;
  bool inside = false; ///< inside a cluster of interest (exploitation), else GRASP outside
};

class CampaignStore {
public:
  /** Creates the database of a campaign. InputError when the file exists already. */
  static void create(const std::filesystem::path& file, const Campaign& c, double now);
  /** Opens a campaign's database; InputError when it belongs to another campaign (another campaign
   *  file, or other parameters and values). */
  CampaignStore(const std::filesystem::path& file, const Campaign& c);
  CampaignStore(const CampaignStore&)            = delete;
  CampaignStore& operator=(const CampaignStore&) = delete;
  ~CampaignStore();

  /** When the campaign was created (seconds since the epoch): its deadline counts from there. */
  double created() const { return created_; }
  std::vector<RunRecord> runs() const;
  /** Queues a run of `point` (-1 when the point has a run already). */
  int64_t queue(uint64_t point, const std::string& origin, double now);
  void start(int64_t id, double now, const std::string& runner = "local", const std::string& job = "");
  struct Started {
    int64_t id = 0;
    std::string job;
  };
  /** Several runs started at once (a Slurm array), in one transaction. */
  void start(const std::vector<Started>& runs, double now, const std::string& runner);
  /** A run stopped while running: queued again (its attempt stays counted). */
  void requeue(int64_t id);
  /** A run whose Slurm task left the queue without a result: queued again, `lost` counted. */
  void lost(int64_t id);
  /** The current suggestion (replaced as a whole by set_suggestions). */
  std::vector<Suggested> suggestions() const;
  void set_suggestions(const std::vector<Suggested>& points);
  /** Queues the given points as runs (origin "suggestion") and takes them out of the suggestion,
   *  in one transaction; points with a run already are skipped. Returns the new runs' ids. */
  std::vector<int64_t> accept(const std::vector<uint64_t>& points, double now);
  /** Records a run's end; its wall time is `wall_s` when given (a Slurm task's own), else the time
   *  since it started. */
  void finish(int64_t id, double now, double objective, int64_t exit_status, bool done,
              double wall_s = std::numeric_limits<double>::quiet_NaN());
  /** Runs left `running` by a killed campaign go back to the queue, their attempt counted; returns
   *  how many. */
  int64_t requeue_running();
  /** Counts by status (a COUNT query). */
  int64_t count(const std::string& status) const;

private:
  std::unique_ptr<sqlite::Database> db_;
  double created_ = 0;
};

} // namespace sgai::sweep

#endif
