#include "generators/workload/swf.hpp"

#include "generators/util/error.hpp"

#include "generators/util/files.hpp"

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
        if (std::all_of(key.begin(), key.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)); }))
          log.header.emplace_back(std::string(key), std::string(trim(body.substr(colon + 1))));
      }
      continue;
    }
    double fields[18];
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
      }
      count++;
    }
    if (count != 18)
      throw InputError(log.file, "line " + std::to_string(line_no),
                       "expected the 18 fields of the Standard Workload Format, got " + std::to_string(count));
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
  return log;
}

SwfSelected select_swf(const SwfLog& log, const SwfSelection& selection)
{
  SwfSelected out;
  out.read = log.records.size();
  std::vector<const SwfRecord*> kept;
  for (const auto& r : log.records) {
    if (selection.clean) {
      if (not(r.run_time > 0)) {
        out.dropped["non-positive run time"]++;
        continue;
      }
      if (not(r.processors() > 0)) {
        out.dropped["non-positive processor count"]++;
        continue;
      }
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
  if (not out.records.empty()) {
    out.time_shift_s = out.records.front().submit_time;
    for (auto& r : out.records)
      r.submit_time -= out.time_shift_s;
  }
  return out;
}

} // namespace sgai::workload
