/* read_batsim's fast path: a workload of common jobs and profiles read straight from its text, by a
 * strict scanner of JSON that says no at anything it does not take as nlohmann would. */
#include "generators/workload/batsim.hpp"
#include "generators/workload/batsim_internal.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/json.hpp"
#include "core/foundation/json_raw.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <string_view>
#include <unordered_set>

namespace sgai::workload {

namespace {

using detail::Scalar;

/** A strict reader of the JSON text for fast_read: it accepts what nlohmann would read to the same
 *  values and says no (false) at everything else (an escape or a byte above 127 in a string, a
 *  negative number but -1, a number a double cannot hold, ...), never an error of its own. */
class Scan {
public:
  explicit Scan(std::string_view text)
      : p_(text.data())
      , end_(text.data() + text.size())
  {
  }
  /** The next non-blank character, not taken (0 at the end). */
  char next()
  {
    while (p_ < end_ && (*p_ == ' ' || *p_ == '\n' || *p_ == '\r' || *p_ == '\t'))
      ++p_;
    return p_ < end_ ? *p_ : '\0';
  }
  bool eat(char c)
  {
    if (next() != c)
      return false;
    ++p_;
    return true;
  }
  bool at_end() { return next() == '\0' && p_ == end_; }
  /** Where the next value starts, blanks skipped. */
  const char* here()
  {
    next();
    return p_;
  }
  bool string(std::string_view& out)
  {
    if (not eat('"'))
      return false;
    const char* from = p_;
    while (p_ < end_) {
      auto c = static_cast<unsigned char>(*p_);
      if (c == '"') {
        out = std::string_view(from, static_cast<size_t>(p_ - from));
        ++p_;
        return true;
      }
      if (c == '\\' || c < 0x20 || c >= 0x80)
        return false;
      ++p_;
    }
    return false;
  }
  /** A number, as JSON writes it; a scalar otherwise (a string, true, false, null: kind other). */
  bool scalar(Scalar& v)
  {
    v      = Scalar{};
    char c = next();
    if (c == '"') {
      v.kind = Scalar::string;
      return string(v.s);
    }
    if (c == 't' || c == 'f' || c == 'n')
      return literal();
    return number(v);
  }
  /** `open`, then items (each read by `item`) separated by commas, then `close`. */
  template <class Item>
  bool list(char open, char close, Item&& item)
  {
    if (not eat(open))
      return false;
    if (eat(close))
      return true;
    do
      if (not item())
        return false;
    while (eat(','));
    return eat(close);
  }
  /** Any value, skipped (objects and arrays nested at most 64 deep). */
  bool skip(int depth = 0)
  {
    char c = next();
    if (c == '{' || c == '[') {
      std::string_view key;
      return depth < 64 && list(c, c == '{' ? '}' : ']',
                                [&]() { return (c == '[' || (string(key) && eat(':'))) && skip(depth + 1); });
    }
    Scalar v;
    return scalar(v);
  }

private:
  static bool digit(char c) { return c >= '0' && c <= '9'; }
  bool literal()
  {
    for (std::string_view word : {"true", "false", "null"})
      if (static_cast<size_t>(end_ - p_) >= word.size() && std::string_view(p_, word.size()) == word) {
        p_ += word.size();
        return true;
      }
    return false;
  }
  bool number(Scalar& v)
  {
    const char* from = p_;
    if (p_ < end_ && *p_ == '-')
      ++p_;
    if (p_ < end_ && *p_ == '0')
      ++p_;
    else if (p_ < end_ && digit(*p_) && *p_ != '0')
      while (p_ < end_ && digit(*p_))
        ++p_;
    else
      return false;
    bool whole = true;
    if (p_ < end_ && *p_ == '.') {
      whole = false;
      ++p_;
      if (not(p_ < end_ && digit(*p_)))
        return false;
      while (p_ < end_ && digit(*p_))
        ++p_;
    }
    if (p_ < end_ && (*p_ == 'e' || *p_ == 'E')) {
      whole = false;
      ++p_;
      if (p_ < end_ && (*p_ == '+' || *p_ == '-'))
        ++p_;
      if (not(p_ < end_ && digit(*p_)))
        return false;
      while (p_ < end_ && digit(*p_))
        ++p_;
    }
    std::string_view token(from, static_cast<size_t>(p_ - from));
    v.kind = Scalar::number;
    if (token[0] == '-') { // (nlohmann reads -0 as the integer 0: only Batsim's -1 is taken here)
      v.d = -1;
      return token == "-1";
    }
    if (whole) {
      auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v.u);
      if (ec == std::errc() && end == token.data() + token.size()) {
        v.whole_unsigned = true;
        v.d              = static_cast<double>(v.u);
        return true;
      }
      if (ec != std::errc::result_out_of_range)
        return false;
      v.u = 0; // (too large for 64 bits: nlohmann reads it as a double)
    }
    auto [end, ec] = std::from_chars(token.data(), token.data() + token.size(), v.d);
    return ec == std::errc() && end == token.data() + token.size() && std::isfinite(v.d);
  }

  const char* p_;
  const char* end_;
};

} // namespace

// The same Workload read_document makes, or nothing at the first thing it would read otherwise (a
// duplicate key, a job_limits, an escape in a string, a field quick_job or quick_profile refuses).
std::optional<Workload> detail::read_batsim_common(std::string_view text, const std::filesystem::path& file)
{
  struct RawJob {
    std::array<std::pair<std::string_view, Scalar>, 5> fields;
    std::array<std::string_view, 4> names; ///< user, group, partition, qos (strings, kept apart: a leaner record)
    uint8_t n = 0;
  };
  static constexpr std::array<std::string_view, 4> name_keys = {"user", "group", "partition", "qos"};
  Workload w;
  w.source = file.string();
  w.name   = file.stem().string();
  std::vector<RawJob> raw_jobs;
  bool jobs = false, profiles = false;
  std::vector<std::string_view> top_keys;
  Scan in(text);
  auto job = [&]() {
    RawJob& j = raw_jobs.emplace_back();
    return in.list('{', '}', [&]() {
      std::string_view key;
      Scalar value;
      if (not(in.string(key) && in.eat(':') && in.scalar(value)))
        return false;
      for (size_t i = 0; i < name_keys.size(); i++)
        if (key == name_keys[i]) // (a duplicate, an empty name or not a string: the general path)
          return j.names[i].empty() && value.kind == Scalar::string && not value.s.empty() &&
                 (j.names[i] = value.s, true);
      if (j.n == j.fields.size())
        return false;
      auto& [k, v] = j.fields[j.n++];
      k            = key;
      v            = value;
      for (uint8_t i = 0; i + 1 < j.n; i++)
        if (j.fields[i].first == k)
          return false;
      return true;
    });
  };
  std::vector<std::pair<std::string_view, Scalar>> fields;
  auto profile = [&]() {
    std::string_view name;
    if (not(in.string(name) && in.eat(':')))
      return false;
    fields.clear();
    if (not in.list('{', '}', [&]() {
          auto& [k, v] = fields.emplace_back();
          return in.string(k) && in.eat(':') && in.scalar(v);
        }))
      return false;
    QuickProfile q;
    q.p.name  = std::string(name);
    auto type = std::find_if(fields.begin(), fields.end(), [](const auto& f) { return f.first == "type"; });
    if (type == fields.end() || type->second.kind != Scalar::string || not q.type(type->second.s))
      return false;
    for (auto f = fields.begin(); f != fields.end(); ++f) {
      for (auto g = fields.begin(); g != f; ++g)
        if (g->first == f->first)
          return false;
      if (f != type && not q.field(f->first, f->second))
        return false;
    }
    if (not q.whole())
      return false;
    w.profiles.push_back(std::move(q.p));
    return true;
  };
  auto member = [&]() {
    std::string_view key;
    if (not(in.string(key) && in.eat(':')))
      return false;
    if (std::find(top_keys.begin(), top_keys.end(), key) != top_keys.end())
      return false;
    top_keys.push_back(key);
    if (key == "nb_res") {
      Scalar v;
      if (not(in.scalar(v) && v.whole_unsigned && v.u >= 1 && v.u <= static_cast<uint64_t>(INT64_MAX)))
        return false;
      w.nb_res = v.u;
      return true;
    }
    if (key == "jobs")
      return jobs = in.list('[', ']', job);
    if (key == "profiles")
      return profiles = in.list('{', '}', profile);
    if (key == "job_limits") { // (kept as nlohmann writes it: read by nlohmann, it is small)
      const char* from = in.here();
      if (not(in.next() == '{' && in.skip()))
        return false;
      try {
        auto limits       = json::parse(std::string(from, static_cast<size_t>(in.here() - from)), file.string());
        w.job_limits_json = json::raw(limits.value()).dump();
      } catch (const InputError&) { // (a duplicate key: named in the document by read_document)
        return false;
      }
      return true;
    }
    if (key == "description" || key == "command" || key == "date" || key == "comments" || key == "sgai")
      return in.skip();
    return false;
  };
  if (not(in.list('{', '}', member) && in.at_end() && jobs && profiles))
    return std::nullopt;

  // profiles in read_batsim's order (the document's keys sorted), a name given twice: not here
  std::vector<uint32_t> order(w.profiles.size());
  for (uint32_t i = 0; i < order.size(); i++)
    order[i] = i;
  std::sort(order.begin(), order.end(),
            [&](uint32_t a, uint32_t b) { return w.profiles[a].name < w.profiles[b].name; });
  std::vector<Profile> sorted;
  sorted.reserve(order.size());
  for (uint32_t i : order)
    sorted.push_back(std::move(w.profiles[i]));
  w.profiles = std::move(sorted);
  ProfileIndex index;
  for (uint32_t i = 0; i < w.profiles.size(); i++)
    if (not index.emplace(w.profiles[i].name, i).second)
      return std::nullopt;
  std::unordered_set<std::string> ids;
  ids.reserve(raw_jobs.size());
  w.jobs.reserve(raw_jobs.size());
  for (const RawJob& raw : raw_jobs) {
    QuickJob q;
    for (uint8_t i = 0; i < raw.n; i++)
      if (not q.field(raw.fields[i].first, raw.fields[i].second, index))
        return std::nullopt;
    if (not q.whole() || not ids.insert(q.j.id).second)
      return std::nullopt;
    for (size_t i = 0; i < name_keys.size(); i++)
      if (not raw.names[i].empty())
        *q.owner(name_keys[i]) = std::string(raw.names[i]);
    w.jobs.push_back(std::move(q.j));
  }
  std::stable_sort(w.jobs.begin(), w.jobs.end(), [](const Job& a, const Job& b) { return a.submit_s < b.submit_s; });
  return w;
}

} // namespace sgai::workload
