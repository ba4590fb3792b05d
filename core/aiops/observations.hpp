/* Observations for fitting, read from CSV files: a named column of times (arrivals) or of numbers
 * (sizes, durations). Errors name the file, the line and the column. */
#ifndef SGAI_CORE_AIOPS_OBSERVATIONS_HPP
#define SGAI_CORE_AIOPS_OBSERVATIONS_HPP

#include <filesystem>
#include <string>
#include <vector>

namespace sgai::aiops {

enum class TimeFormat { automatic, relative, epoch, iso };

struct TimeColumn {
  std::vector<double> seconds;
  /** Whether the times are absolute (epoch seconds or ISO 8601 dates, UTC): their weekday is real. */
  bool absolute = false;
};

/** The values of `column` as times, in file order; they must not decrease. automatic: ISO 8601 when
 *  the first value is no number, else epoch seconds when it is at least 946,684,800 (2000-01-01),
 *  else seconds relative to some origin. */
TimeColumn read_time_column(const std::filesystem::path& csv, const std::string& column, TimeFormat format);

/** The values of `column` as finite numbers, in file order. */
std::vector<double> read_number_column(const std::filesystem::path& csv, const std::string& column);

/** "2023-05-01T16:00:00Z", "2023-05-01 16:00:00.5+02:00" -> seconds since 1970-01-01 UTC; false when
 *  it is no such date. */
bool parse_iso8601(const std::string& text, double& seconds);

/** The hour of the week (0: Monday 00:00 UTC) of epoch second 0: Thursday, 72. */
constexpr int kEpochHourOfWeek = 72;

/** "mon:00", "Wed:16", "sun:23" -> hour of the week (0-167); -1 when malformed. */
int parse_origin(const std::string& text);

} // namespace sgai::aiops

#endif
