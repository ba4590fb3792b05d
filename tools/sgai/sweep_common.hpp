/* Shared by the sweep commands (cmd_sweep.cpp, cmd_sweep_serve.cpp): where a campaign's folder and
 * database are, the clock, and what the SLA still allows. */
#ifndef SGAI_TOOLS_SGAI_SWEEP_COMMON_HPP
#define SGAI_TOOLS_SGAI_SWEEP_COMMON_HPP

#include "core/sweep/assistant.hpp"
#include "core/sweep/campaign.hpp"
#include "core/sweep/store.hpp"

#include <filesystem>
#include <string>
#include <vector>

namespace sgai::cli {

/** Seconds since the epoch. */
double now_s();

/** The campaign's folder: `dir` when given, else <name>.campaign beside the campaign file. */
std::filesystem::path campaign_folder(const std::string& dir, const sweep::Campaign& c);
inline std::filesystem::path database_of(const std::filesystem::path& dir)
{
  return dir / "campaign.sqlite";
}
/** The campaign's database in `dir`, which must exist: InputError naming it and saying how it is
 *  made otherwise. */
std::filesystem::path existing_database(const std::filesystem::path& dir);

/** The SLA's state from a campaign's runs: finished runs, mean run time, time left; `parallel`
 *  runs at a time. */
sweep::SlaState sla_of(const sweep::Campaign& c, const sweep::CampaignStore& store,
                       const std::vector<sweep::RunRecord>& records, uint32_t parallel);

} // namespace sgai::cli

#endif
