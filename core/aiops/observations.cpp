#include "core/aiops/observations.hpp"

#include "core/foundation/error.hpp"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdlib>
#include <fstream>

namespace sgai::aiops {

namespace {

std::vector<std::string> split_csv(const std::string& line)
{
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false;
  for (char c : line) {
    if (c == '"')
      quoted = not quoted;
    else if (c == ',' && not quoted) {
      out.push_back(cur);
      cur.clear();
    } else if (c != '\r')
      cur.push_back(c);
  }
  out.push_back(cur);
  return out;
}

/** The cells of one column, with their line numbers. */
std::vector<std::pair<size_t, std::string>> column_cells(const std::filesystem::path& csv, const std::string& column)
{
  std::ifstream in(csv);
  if (not in)
    throw InputError(csv.string(), "", "cannot read the file");
  std::string line;
  if (not std::getline(in, line))
    throw InputError(csv.string(), "line 1", "empty: a CSV file starts with a header line");
  auto header = split_csv(line);
  auto it     = std::find(header.begin(), header.end(), column);
  if (it == header.end()) {
    std::string names;
    for (const auto& h : header)
      names += (names.empty() ? "" : ", ") + h;
    throw InputError(csv.string(), "line 1", "no column " + quote(column) + " (the header has: " + names + ")");
  }
  auto idx = size_t(it - header.begin());
  std::vector<std::pair<size_t, std::string>> out;
  size_t n = 1;
  while (std::getline(in, line)) {
    ++n;
    if (line.empty() || line == "\r")
      continue;
    auto cells = split_csv(line);
    if (idx >= cells.size())
      throw InputError(csv.string(), "line " + std::to_string(n),
                       "only " + std::to_string(cells.size()) + " cells: no column " + quote(column));
    out.push_back({n, cells[idx]});
  }
  return out;
}

bool parse_number(const std::string& s, double& v)
{
  if (s.empty())
    return false;
  char* end = nullptr;
  v         = std::strtod(s.c_str(), &end);
  return end != s.c_str() && *end == '\0' && std::isfinite(v);
}

int64_t days_from_civil(int64_t y, unsigned m, unsigned d)
{
  y -= m <= 2;
  const int64_t era  = (y >= 0 ? y : y - 399) / 400;
  const auto yoe     = unsigned(y - era * 400);
  const unsigned doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + int64_t(doe) - 719468;
}

} // namespace

bool parse_iso8601(const std::string& t, double& seconds)
{
  int y = 0, mo = 0, d = 0, h = 0, mi = 0;
  double s    = 0;
  size_t i    = 0;
  auto digits = [&](int n, int& out) {
    out = 0;
    for (int k = 0; k < n; ++k, ++i) {
      if (i >= t.size() || not std::isdigit(static_cast<unsigned char>(t[i])))
        return false;
      out = out * 10 + (t[i] - '0');
    }
    return true;
  };
  auto expect = [&](char c) {
    if (i < t.size() && t[i] == c) {
      ++i;
      return true;
    }
    return false;
  };
  if (not(digits(4, y) && expect('-') && digits(2, mo) && expect('-') && digits(2, d)))
    return false;
  if (i < t.size() && (t[i] == 'T' || t[i] == ' ')) {
    ++i;
    int sec = 0;
    if (not(digits(2, h) && expect(':') && digits(2, mi) && expect(':') && digits(2, sec)))
      return false;
    s = sec;
    if (i < t.size() && t[i] == '.') {
      size_t start = i;
      ++i;
      while (i < t.size() && std::isdigit(static_cast<unsigned char>(t[i])))
        ++i;
      s += std::strtod(t.substr(start, i - start).c_str(), nullptr);
    }
  }
  double offset = 0;
  if (i < t.size()) {
    if (t[i] == 'Z')
      ++i;
    else if (t[i] == '+' || t[i] == '-') {
      int sign = t[i] == '-' ? -1 : 1, oh = 0, om = 0;
      ++i;
      if (not(digits(2, oh) && expect(':') && digits(2, om)))
        return false;
      offset = sign * (oh * 3600.0 + om * 60.0);
    }
  }
  if (i != t.size() || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || s >= 61)
    return false;
  seconds = double(days_from_civil(y, unsigned(mo), unsigned(d))) * 86400.0 + h * 3600.0 + mi * 60.0 + s - offset;
  return true;
}

int parse_origin(const std::string& text)
{
  static const char* days[] = {"mon", "tue", "wed", "thu", "fri", "sat", "sun"};
  auto colon                = text.find(':');
  if (colon == std::string::npos)
    return -1;
  std::string day = text.substr(0, colon);
  std::transform(day.begin(), day.end(), day.begin(), [](unsigned char c) { return char(std::tolower(c)); });
  double hour = 0;
  if (not parse_number(text.substr(colon + 1), hour) || hour < 0 || hour > 23 || hour != std::floor(hour))
    return -1;
  for (int k = 0; k < 7; ++k)
    if (day == days[k] || day.rfind(days[k], 0) == 0)
      return k * 24 + int(hour);
  return -1;
}

TimeColumn read_time_column(const std::filesystem::path& csv, const std::string& column, TimeFormat format)
{
  auto cells = column_cells(csv, column);
  TimeColumn out;
  if (cells.empty())
    throw InputError(csv.string(), "column " + quote(column), "no values");
  if (format == TimeFormat::automatic) {
    double v = 0;
    if (not parse_number(cells.front().second, v))
      format = TimeFormat::iso;
    else
      format = v >= 946684800.0 ? TimeFormat::epoch : TimeFormat::relative;
  }
  out.absolute    = format != TimeFormat::relative;
  double previous = -INFINITY;
  for (const auto& [line, cell] : cells) {
    double v          = 0;
    bool ok           = format == TimeFormat::iso ? parse_iso8601(cell, v) : parse_number(cell, v);
    std::string place = "line " + std::to_string(line) + ", column " + quote(column);
    if (not ok)
      throw InputError(csv.string(), place,
                       (format == TimeFormat::iso ? "not an ISO 8601 date: " : "not a number: ") + quote(cell));
    if (v < previous)
      throw InputError(csv.string(), place, "times decrease: " + cell + " after a later one");
    previous = v;
    out.seconds.push_back(v);
  }
  return out;
}

std::vector<double> read_number_column(const std::filesystem::path& csv, const std::string& column)
{
  std::vector<double> out;
  for (const auto& [line, cell] : column_cells(csv, column)) {
    double v = 0;
    if (not parse_number(cell, v))
      throw InputError(csv.string(), "line " + std::to_string(line) + ", column " + quote(column),
                       "not a number: " + quote(cell));
    out.push_back(v);
  }
  return out;
}

} // namespace sgai::aiops
