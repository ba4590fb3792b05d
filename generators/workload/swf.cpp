#include "generators/workload/swf.hpp"

#include "core/foundation/error.hpp"

#include "core/foundation/files.hpp"

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sgai::workload {

namespace {

std::string_view trim(std::string_view s)
{
  while (not s.empty() && (s.front() == ' ' || s.front() == '\t' || s.front() == '\r'))
    s.remove_prefix(1);
  while (not s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r'))
    s.remove_suffix(1);
  return s;
}

/** The fields sgai uses, in range: times (submit, run, requested) at most max_time_s, processor
 *  counts whole and at most max_processors. Negative values mean "unknown" (-1 in the format). */
void check_fields(const double* fields, const std::string_view* tokens, const std::string& file, uint64_t line_no)
{
  auto fail = [&](size_t f, const std::string& why) {
    throw InputError(file, "line " + std::to_string(line_no),
                     "field " + std::to_string(f + 1) + " (" + swf_field_names()[f] + ") " +
                         quote(std::string(tokens[f])) + " " + why);
  };
  for (size_t f : {1, 3, 8}) // submit time, run time, requested time
    if (fields[f] > max_time_s)
      fail(f, std::string("is above ") + max_time_text);
  for (size_t f : {4, 7}) { // allocated and requested processors
    if (fields[f] > max_processors)
      fail(f, "is above 4,294,967,295, the most processors a job may ask for");
    if (fields[f] > 0 && fields[f] != std::floor(fields[f]))
      fail(f, "is not a whole number of processors");
  }
}

void check_max_procs(std::string_view value, const std::string& file, uint64_t line_no)
{
  double v       = 0;
  auto [ptr, ec] = std::from_chars(value.data(), value.data() + value.size(), v);
  bool number    = ec == std::errc() && ptr == value.data() + value.size();
  if (number && (v == -1 || (v >= 1 && v <= max_processors && v == std::floor(v))))
    return;
  throw InputError(file, "line " + std::to_string(line_no),
                   "header MaxProcs " + quote(std::string(value)) +
                       " is not a processor count: expected a whole number from 1 to 4,294,967,295 (or -1: unknown)");
}

} // namespace

const std::vector<std::string>& swf_field_names()
{
  static const std::vector<std::string> names = {"job number",
                                                 "submit time",
                                                 "wait time",
                                                 "run time",
                                                 "allocated processors",
                                                 "average CPU time",
                                                 "used memory",
                                                 "requested processors",
                                                 "requested time",
                                                 "requested memory",
                                                 "status",
                                                 "user ID",
                                                 "group ID",
                                                 "executable",
                                                 "queue",
                                                 "partition",
                                                 "preceding job",
                                                 "think time"};
  return names;
}

std::optional<std::string> SwfLog::header_value(const std::string& key) const
{
  for (const auto& [k, v] : header)
    if (k == key)
      return v;
  return std::nullopt;
}

SwfLog read_swf(const std::filesystem::path& file)
{
  SwfLog log;
  log.file         = file.string();
  std::string text = read_maybe_gzip(file, "an SWF file");
  size_t pos       = 0;
  uint64_t line_no = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string_view line = trim(std::string_view(text).substr(pos, end - pos));
    pos                   = end + 1;
    line_no++;
    if (line.empty())
      continue;
    if (line.front() == ';') {
      auto body  = trim(line.substr(1));
      auto colon = body.find(':');
      if (colon != std::string_view::npos && colon > 0) {
        auto key = body.substr(0, colon);
        if (std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); })) {
          auto value = trim(body.substr(colon + 1));
          if (key == "MaxProcs")
            check_max_procs(value, log.file, line_no);
          log.header.emplace_back(std::string(key), std::string(value));
        }
      }
      continue;
    }
    double fields[18];
    std::string_view tokens[18];
    size_t count = 0;
    size_t i     = 0;
    while (i < line.size()) {
      while (i < line.size() && (line[i] == ' ' || line[i] == '\t'))
        i++;
      if (i >= line.size())
        break;
      size_t start = i;
      while (i < line.size() && line[i] != ' ' && line[i] != '\t')
        i++;
      std::string_view token = line.substr(start, i - start);
      if (count < 18) {
        double v       = 0;
        auto [ptr, ec] = std::from_chars(token.data(), token.data() + token.size(), v);
        if (ec != std::errc() || ptr != token.data() + token.size() || not std::isfinite(v))
          throw InputError(log.file, "line " + std::to_string(line_no),
                           "field " + std::to_string(count + 1) + " (" + swf_field_names()[count] + ") " +
                               quote(std::string(token)) + " is not a number");
        fields[count] = v;
        tokens[count] = token;
      }
      count++;
    }
    if (count != 18)
      throw InputError(log.file, "line " + std::to_string(line_no),
                       "expected the 18 fields of the Standard Workload Format, got " + std::to_string(count));
    check_fields(fields, tokens, log.file, line_no);
    SwfRecord r;
    double* out[18] = {&r.job_number,      &r.submit_time,         &r.wait_time,      &r.run_time,
                       &r.allocated_procs, &r.avg_cpu_time,        &r.used_memory_kb, &r.requested_procs,
                       &r.requested_time,  &r.requested_memory_kb, &r.status,         &r.user_id,
                       &r.group_id,        &r.executable,          &r.queue,          &r.partition,
                       &r.preceding_job,   &r.think_time};
    for (size_t f = 0; f < 18; f++)
      *out[f] = fields[f];
    r.line = line_no;
    log.records.push_back(r);
  }
  if (log.records.empty())
    throw InputError(log.file, "", "no job: expected lines of the 18 fields of the Standard Workload Format");
  return log;
}

SwfSelected select_swf(const SwfLog& log, const SwfSelection& selection)
{
  SwfSelected out;
  out.read = log.records.size();
  std::vector<const SwfRecord*> kept;
  for (const auto& r : log.records) {
    if (selection.clean && not(r.run_time > 0)) {
      out.dropped["non-positive run time"]++;
      continue;
    }
    if (not(r.processors() > 0)) { // dropped even without cleaning: a Batsim job needs a resource
      out.dropped["non-positive processor count"]++;
      continue;
    }
    if (selection.clean) {
      if (not(r.submit_time >= 0)) {
        out.dropped["unknown submission time"]++;
        continue;
      }
    }
    kept.push_back(&r);
  }
  uint64_t first = std::min<uint64_t>(selection.offset, kept.size());
  uint64_t last  = selection.count ? std::min<uint64_t>(kept.size(), first + *selection.count) : kept.size();
  for (uint64_t i = first; i < last; i++)
    out.records.push_back(*kept[i]);
  std::stable_sort(out.records.begin(), out.records.end(),
                   [](const SwfRecord& a, const SwfRecord& b) { return a.submit_time < b.submit_time; });
  // the earliest known submission becomes 0; unknown ones (kept without cleaning) are placed there
  auto known =
      std::find_if(out.records.begin(), out.records.end(), [](const SwfRecord& r) { return r.submit_time >= 0; });
  out.time_shift_s = known == out.records.end() ? 0 : known->submit_time;
  for (auto& r : out.records)
    r.submit_time = r.submit_time >= 0 ? r.submit_time - out.time_shift_s : 0;
  return out;
}

} // namespace sgai::workload
