/* What the slurm.conf fuzz target checks for one input, shared with the corpus replay test: the
 * bytes up to a line "---" are a slurm.conf, the rest a `sacctmgr dump` file. Each is read or
 * rejected with an InputError; what is accepted holds Slurm's ranges (a partition at least, each
 * with nodes; bf_window of a minute or more, bf_resolution of a second or more, ...), a tree of
 * associations whose links agree, and resolves against 8 one-core nodes n0..n7 or is rejected with
 * an InputError naming the file. */
#ifndef SGAI_TESTS_FUZZ_SLURM_CONF_CHECK_HPP
#define SGAI_TESTS_FUZZ_SLURM_CONF_CHECK_HPP

#include "core/foundation/error.hpp"
#include "core/scheduling/slurm.hpp"
#include "core/scheduling/slurm_conf.hpp"
#include "fuzz_input.hpp"

#include <string>

namespace sgai::test {

inline bool check_slurm_conf_bytes(const std::string& bytes)
{
  size_t cut             = bytes.find("\n---\n");
  std::string conf_text  = bytes.substr(0, cut);
  std::string assoc_text = cut == std::string::npos ? "" : bytes.substr(cut + 5);
  bool accepted          = true;
  scheduling::SlurmConf c;
  try {
    c = scheduling::parse_slurm_conf(conf_text, "slurm.conf");
  } catch (const InputError&) {
    accepted = false;
  }
  scheduling::SlurmAssociations a;
  bool assoc_ok = true;
  try {
    a = scheduling::parse_slurm_associations(assoc_text, "assoc.cfg");
  } catch (const InputError&) {
    assoc_ok = false;
  }
  if (assoc_ok) {
    if (a.nodes.empty() || a.nodes[0].parent != 0)
      throw FuzzBug("associations without their root");
    for (size_t i = 0; i < a.nodes.size(); i++)
      for (uint32_t k : a.nodes[i].children)
        if (k >= a.nodes.size() || a.nodes[k].parent != i || k == 0)
          throw FuzzBug("an association tree whose links disagree");
  }
  if (not accepted)
    return false;
  if (c.partitions.empty())
    throw FuzzBug("a slurm.conf without a partition was accepted");
  for (const auto& p : c.partitions)
    if (not p.all_nodes && p.nodes.empty())
      throw FuzzBug("a partition without nodes was accepted");
  if (not(c.bf_window_s >= 60 && c.bf_resolution_s >= 1 && c.bf_interval_s >= 0 && c.bf_max_job_test >= 1 &&
          c.calc_period_s > 0 && c.max_age_s >= 0 && c.decay_half_life_s >= 0))
    throw FuzzBug("a value out of Slurm's range was accepted");
  scheduling::Resources r;
  for (uint32_t i = 0; i < 8; i++) {
    r.nodes.push_back(scheduling::Node{i, 1, i, 1});
    r.processors.push_back(scheduling::Processor{i, i, 1, 1e9});
    r.cores.push_back(scheduling::Core{i, i, i});
    r.host_names.push_back("n" + std::to_string(i));
  }
  try {
    auto s = scheduling::make_slurm_setup(c, assoc_ok ? &a : nullptr, r, {{"1", "u", "", "", ""}}, "w.json");
    if (s->partition_cores.size() != c.partitions.size())
      throw FuzzBug("a partition lost in the setup");
  } catch (const InputError&) {
  }
  return true;
}

} // namespace sgai::test

#endif
