/* Private to sgai::workload's Batsim JSON files (batsim.cpp, batsim_profiles.cpp, batsim_scan.cpp,
 * batsim_swf.cpp): what the strict-document reader, the fast-scan reader, the profile reader and the
 * SWF conversion share. Not an API: programs use batsim.hpp. */
#ifndef SGAI_GENERATORS_WORKLOAD_BATSIM_INTERNAL_HPP
#define SGAI_GENERATORS_WORKLOAD_BATSIM_INTERNAL_HPP

#include "core/foundation/json.hpp"
#include "generators/workload/swf.hpp"
#include "generators/workload/workload.hpp"

#include <cmath>
#include <cstdint>
#include <filesystem>
#include <functional>
#include <map>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::workload::detail {

/** Profile names to their index in Workload::profiles (std::map: the order read_batsim numbers them). */
using ProfileIndex = std::map<std::string, uint32_t, std::less<>>;

/** A job id's text for a number: a whole one (below 1e15 in magnitude) as its digits, any other as
 *  format_number writes it. */
std::string id_text_of(double d);

/** A time in seconds, at most `max` (max_time_s); `below` says what else it must be ("must be >= 0"). */
double time_value(const json::Value& v, const char* what, const char* below, bool positive = false,
                  double max = max_time_s, const char* max_text = max_time_text);

/** The other fields among `kept`, verbatim as a JSON object's text (empty when none); marks them read. */
std::string kept_fields(json::Object& o, const json::Value& v, const std::vector<std::string>& kept);

/** A profile of any type, read field by field (errors name the field); `seq` gets a composed
 *  profile's names, resolved once every profile is read. */
Profile parse_profile(const std::string& name, const json::Value& v, const std::filesystem::path& folder,
                      std::vector<json::Value>& seq);

/** A scalar of the document as the quick paths see it: a number (digits only: also as an unsigned
 *  integer, as nlohmann's number_unsigned), a string without escapes, or anything else. */
struct Scalar {
  enum Kind : uint8_t { other, number, string } kind = other;
  bool whole_unsigned                                = false;
  uint64_t u                                         = 0;
  double d                                           = 0;
  std::string_view s;
};

/** A common profile's fields, read straight: the type, then each field (false at a field that
 *  parse_profile would read otherwise or refuse), then whether the profile is whole. */
struct QuickProfile {
  Profile p;
  bool cpu = false, com = false, delay = false;

  bool type(std::string_view t)
  {
    if (t == "delay")
      p.type = ProfileType::delay;
    else if (t == "parallel_homogeneous")
      p.type = ProfileType::parallel_homogeneous;
    else
      return false;
    return not is_registered_profile_type(std::string(t));
  }
  bool field(std::string_view key, const Scalar& v)
  {
    double d = v.d;
    if (v.kind != Scalar::number || not std::isfinite(d) || not(d >= 0))
      return false;
    if (p.type == ProfileType::delay && key == "delay" && d <= max_time_s) {
      p.delay_s = d;
      delay     = true;
    } else if (p.type == ProfileType::parallel_homogeneous && key == "cpu" && d <= max_work) {
      p.cpu = d;
      cpu   = true;
    } else if (p.type == ProfileType::parallel_homogeneous && key == "com" && d <= max_work) {
      p.com = d;
      com   = true;
    } else if (key == "req_time" && d > 0 && d <= max_time_s)
      p.req_time_s = d;
    else if (key == "req_ops" && d <= max_work)
      p.req_ops = d;
    else if (key == "mem")
      p.mem_mb = d;
    else if (key == "mem_bw")
      p.mem_bw_gbps = d;
    else
      return false;
    return true;
  }
  bool whole() const { return p.type == ProfileType::delay ? delay : cpu && com; }
};

/** A common job's fields, read straight: each field (false at one read_batsim would read
 *  otherwise or refuse), then whether the job is whole. */
struct QuickJob {
  Job j;
  bool id = false, submit = false, res = false, profile = false;

  bool field(std::string_view key, const Scalar& v, const ProfileIndex& index)
  {
    double d = v.d;
    if (key == "id") {
      if (v.kind == Scalar::string)
        j.id = std::string(v.s);
      else if (v.kind == Scalar::number && std::floor(d) == d && std::fabs(d) < 1e15)
        j.id = id_text_of(d);
      else
        return false;
      id = true;
    } else if (key == "subtime" && v.kind == Scalar::number && d >= 0 && d <= max_submit_s) {
      j.submit_s = d;
      submit     = true;
    } else if (key == "res" && v.whole_unsigned && v.u >= 1 && v.u <= UINT32_MAX) {
      j.resources = static_cast<uint32_t>(v.u);
      res         = true;
    } else if (key == "walltime" && v.kind == Scalar::number && (d == -1 || (d > 0 && d <= max_time_s))) {
      if (d != -1)
        j.walltime_s = d;
    } else if (key == "profile" && v.kind == Scalar::string) {
      auto p = index.find(v.s);
      if (p == index.end())
        return false;
      j.profile = p->second;
      profile   = true;
    } else if (std::string* name = owner(key); name && v.kind == Scalar::string && not v.s.empty()) {
      *name = std::string(v.s);
    } else
      return false;
    return true;
  }
  bool whole() const { return id && submit && res && profile; }
  /** The job's user, group, partition or qos field named `key`, or null. */
  std::string* owner(std::string_view key)
  {
    return key == "user"        ? &j.user
           : key == "group"     ? &j.group
           : key == "partition" ? &j.partition
           : key == "qos"       ? &j.qos
                                : nullptr;
  }
};

/** The most fields a job handled by QuickJob has (id, subtime, res, walltime, profile, user, group,
 *  partition, qos). */
inline constexpr size_t quick_job_fields = 9;

} // namespace sgai::workload::detail

#endif
