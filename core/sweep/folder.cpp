#include "core/sweep/folder.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"

#include <chrono>

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

} // namespace sgai::sweep
