/* A campaign's folder and database (docs/sweep.md), and the clock its records use. */
#ifndef SGAI_CORE_SWEEP_FOLDER_HPP
#define SGAI_CORE_SWEEP_FOLDER_HPP

#include "core/sweep/campaign.hpp"
#include "core/sweep/store.hpp"

#include <filesystem>
#include <memory>
#include <string>

namespace sgai::sweep {

/** Seconds since the epoch. */
double now_s();

/** The campaign's folder: `dir` when given, else <name>.campaign beside the campaign file. */
std::filesystem::path campaign_folder(const std::string& dir, const Campaign& c);

/** The campaign's database in its folder `dir` (it may not exist yet). */
inline std::filesystem::path database_of(const std::filesystem::path& dir)
{
  return dir / "campaign.sqlite";
}

/** The campaign's database in `dir`, which must exist: InputError naming it and saying how it is
 *  made otherwise. */
std::filesystem::path existing_database(const std::filesystem::path& dir);

/** Opens the campaign's database in `dir`, creating the folder and the database when there is none
 *  yet: the folder is then checked first (check_output_dir, its errors naming `dir_option`, the
 *  option or place that chose the folder). */
std::unique_ptr<CampaignStore> open_store(const std::filesystem::path& dir, const Campaign& c,
                                          const std::string& dir_option);

/** A runner's hold on a campaign folder: an flock on DIR/runner.lock, taken for the whole run and
 *  released by the system when the runner ends, however it ends (SIGTERM, SIGKILL, a crash). */
class RunnerLock {
public:
  /** Takes the lock; RunError when another runner holds it. */
  explicit RunnerLock(const std::filesystem::path& dir);
  RunnerLock(const RunnerLock&)            = delete;
  RunnerLock& operator=(const RunnerLock&) = delete;
  ~RunnerLock();
  /** Whether a runner holds the lock of the folder now (no lock file: none ever did). */
  static bool held(const std::filesystem::path& dir);

private:
  int fd_ = -1;
};

} // namespace sgai::sweep

#endif
