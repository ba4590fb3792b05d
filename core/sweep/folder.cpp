#include "core/sweep/folder.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"

#include <cerrno>
#include <chrono>
#include <cstring>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

namespace sgai::sweep {

double now_s()
{
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch()).count();
}

std::filesystem::path campaign_folder(const std::string& dir, const Campaign& c)
{
  if (not dir.empty())
    return dir;
  return c.file.parent_path() / (c.name + ".campaign");
}

std::filesystem::path existing_database(const std::filesystem::path& dir)
{
  std::error_code ec;
  if (not std::filesystem::exists(database_of(dir), ec))
    throw InputError(database_of(dir).string(), "",
                     "no campaign database here (sgai sweep init or sgai sweep run makes it; --dir names another "
                     "folder)");
  return database_of(dir);
}

std::unique_ptr<CampaignStore> open_store(const std::filesystem::path& dir, const Campaign& c,
                                          const std::string& dir_option)
{
  if (not std::filesystem::exists(database_of(dir))) {
    check_output_dir(dir, dir_option);
    ensure_directory(dir);
    CampaignStore::create(database_of(dir), c, now_s());
  }
  return std::make_unique<CampaignStore>(database_of(dir), c);
}

namespace {
std::filesystem::path lock_file(const std::filesystem::path& dir)
{
  return dir / "runner.lock";
}
} // namespace

RunnerLock::RunnerLock(const std::filesystem::path& dir)
{
  auto file = lock_file(dir);
  fd_       = ::open(file.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw RunError("cannot open " + file.string() + ": " + std::strerror(errno));
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    ::close(fd_);
    throw RunError("another sgai sweep run is running the campaign in " + dir.string() + " (it holds " + file.string() +
                   "): wait for it, or stop it and run again");
  }
}

RunnerLock::~RunnerLock()
{
  ::close(fd_); // releases the lock
}

bool RunnerLock::held(const std::filesystem::path& dir)
{
  int fd = ::open(lock_file(dir).c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0)
    return false;
  bool held = ::flock(fd, LOCK_SH | LOCK_NB) != 0 && errno == EWOULDBLOCK;
  ::close(fd);
  return held;
}

} // namespace sgai::sweep
