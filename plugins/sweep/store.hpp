/* A campaign's database (SQLite through sgai::sqlite, schema version 1, docs/sweep.md): the
 * campaign's settings, its parameters and values, and one row per run with its point, origin,
 * status (queued, running, done, failed), attempts, times and objective. Every change is one
 * transaction in SQLite's rollback journal: a campaign killed at any moment reopens as it was
 * before the change. */
#ifndef SGAI_PLUGINS_SWEEP_STORE_HPP
#define SGAI_PLUGINS_SWEEP_STORE_HPP

#include "plugins/sweep/campaign.hpp"

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace sgai::sqlite {
class Database;
}

namespace sgai::sweep {

constexpr int64_t kCampaignSchema = 1;

struct RunRecord {
  int64_t id     = 0;
  uint64_t point = 0;
  std::string origin, status;
  int64_t attempts = 0;
  double queued_at = 0, started_at = 0, ended_at = 0, wall_s = 0;
  double objective    = 0; ///< NaN until done
  int64_t exit_status = -1;
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
  void start(int64_t id, double now);
  void finish(int64_t id, double now, double objective, int64_t exit_status, bool done);
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
