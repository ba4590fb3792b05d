/* What of a site's Slurm configuration sgai's Slurm kind uses (docs/batch.md): slurm.conf as
 * written (the scheduler, the multifactor priority, the backfill parameters, the partitions), and
 * the associations a site dumps with `sacctmgr dump` (accounts and users with their Fairshare
 * shares; QOS priorities as `QOS - 'name':Priority=N` lines). Lines that apply are used; the others
 * are listed once in `ignored`. Malformed lines are InputError (file, line, value). Plain C++. */
#ifndef SGAI_CORE_SCHEDULING_SLURM_CONF_HPP
#define SGAI_CORE_SCHEDULING_SLURM_CONF_HPP

#include <cstdint>
#include <filesystem>
#include <limits>
#include <map>
#include <string>
#include <vector>

namespace sgai::scheduling {

struct SlurmPartition {
  std::string name;
  std::vector<std::string> nodes; ///< host names (the hostlist expanded); empty when all_nodes
  bool all_nodes        = false;  ///< Nodes=ALL
  bool is_default       = false;
  double max_time_s     = std::numeric_limits<double>::infinity();
  double default_time_s = -1;   ///< DefaultTime; -1: MaxTime
  double job_factor     = 1;    ///< PriorityJobFactor
  uint32_t tier         = 1;    ///< PriorityTier
  bool up               = true; ///< State=UP (DOWN, DRAIN, INACTIVE: no job starts there)
  size_t line           = 0;
};

struct SlurmConf {
  std::string file;
  bool backfill     = true;  ///< SchedulerType=sched/backfill (Slurm's default); sched/builtin: main scheduler only
  bool multifactor  = false; ///< PriorityType=priority/multifactor; priority/basic (Slurm's default): submission order
  double weight_age = 0, weight_job_size = 0, weight_fairshare = 0, weight_partition = 0, weight_qos = 0;
  double max_age_s         = 7 * 86400; ///< PriorityMaxAge
  double decay_half_life_s = 7 * 86400; ///< PriorityDecayHalfLife; 0: no decay
  double calc_period_s     = 300;       ///< PriorityCalcPeriod
  bool favor_small         = false;     ///< PriorityFavorSmall
  // SchedulerParameters
  double bf_interval_s     = 30; ///< 0 (sgai's extension): a pass at every scheduling event
  uint32_t bf_max_job_test = 500;
  double bf_window_s       = 86400; ///< bf_window (minutes in the file)
  double bf_resolution_s   = 60;
  bool bf_continue         = false;
  uint32_t bf_max_job_user = 0; ///< 0: no limit
  double sched_interval_s  = 60;
  std::vector<SlurmPartition> partitions; ///< in file order (PartitionName=DEFAULT applied)
  std::vector<std::string> ignored;       ///< keys read but not modelled, once each, in file order
};

/** Reads slurm.conf. InputError naming the file and line on a malformed line or value. */
SlurmConf read_slurm_conf(const std::filesystem::path& file);
/** The same from text (`file` names it in messages): the fuzz target's entry. */
SlurmConf parse_slurm_conf(const std::string& text, const std::string& file);

/** Slurm's time strings: "INFINITE"/"UNLIMITED" (infinity), "M", "M:S", "H:M:S", "D-H", "D-H:M",
 *  "D-H:M:S"; seconds, or -1 when malformed. */
double slurm_time_s(const std::string& text);
/** A hostlist ("node[001-010,012],login1") expanded; std::invalid_argument when malformed. */
std::vector<std::string> expand_hostlist(const std::string& text);

/** The association tree of a `sacctmgr dump` file: the cluster's root, accounts, users. */
struct SlurmAssociations {
  struct Node {
    std::string name;
    uint32_t parent = 0; ///< index of the parent (the root is its own)
    double shares   = 1; ///< Fairshare
    bool user       = false;
    std::vector<uint32_t> children;
  };
  std::string file;
  std::vector<Node> nodes;                            ///< [0]: root
  std::map<std::string, std::string> default_account; ///< user -> DefaultAccount
  std::map<std::string, double> qos_priority;         ///< QOS name -> Priority
  /** The user's association under `account` (or, when none, under its default account), or -1. */
  int64_t user_association(const std::string& user, const std::string& account) const;
};

SlurmAssociations read_slurm_associations(const std::filesystem::path& file);
SlurmAssociations parse_slurm_associations(const std::string& text, const std::string& file);
/** Without an association file: every user an account of its own under the root, equal shares. */
SlurmAssociations flat_associations(const std::vector<std::string>& users);

} // namespace sgai::scheduling

#endif
