/* slurm.conf and `sacctmgr dump` files, read as Slurm reads them (docs/batch.md). */
#include "core/scheduling/slurm_conf.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <cctype>
#include <charconv>
#include <cmath>
#include <set>
#include <stdexcept>

namespace sgai::scheduling {

namespace {

std::string lower(std::string s)
{
  std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return s;
}

std::string shown(const std::string& v)
{
  return quote(v.size() > 60 ? v.substr(0, 57) + "..." : v);
}

/** A whole number from 0 to max, or nothing. */
bool whole(const std::string& s, uint64_t max, uint64_t& out)
{
  if (s.empty() || s.size() > 19)
    return false;
  auto [p, ec] = std::from_chars(s.data(), s.data() + s.size(), out);
  return ec == std::errc() && p == s.data() + s.size() && out <= max;
}

/** The logical lines of a file: comments cut ('#' to the end, "\#" kept as '#'), a trailing '\'
 *  joining the next line; each with the number of its first physical line. */
std::vector<std::pair<size_t, std::string>> logical_lines(const std::string& text)
{
  std::vector<std::pair<size_t, std::string>> out;
  std::string current;
  size_t first = 0, number = 0;
  bool joining = false;
  size_t pos   = 0;
  while (pos <= text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos)
      end = text.size();
    std::string line = text.substr(pos, end - pos);
    number++;
    pos = end + 1;
    if (not line.empty() && line.back() == '\r')
      line.pop_back();
    std::string cut;
    for (size_t i = 0; i < line.size(); i++) {
      if (line[i] == '\\' && i + 1 < line.size() && line[i + 1] == '#') {
        cut += '#';
        i++;
      } else if (line[i] == '#') {
        break;
      } else {
        cut += line[i];
      }
    }
    bool continues = not cut.empty() && cut.back() == '\\';
    if (continues)
      cut.pop_back();
    if (not joining)
      first = number;
    current += cut;
    joining = continues;
    if (not joining) {
      out.emplace_back(first, current);
      current.clear();
    }
    if (end == text.size())
      break;
  }
  if (joining)
    out.emplace_back(first, current);
  return out;
}

struct Pair {
  std::string key; ///< as written
  std::string value;
};

/** Key=Value tokens separated by blanks; a value may be double-quoted. */
std::vector<Pair> tokens(const std::string& line, const std::string& file, size_t number)
{
  std::vector<Pair> out;
  size_t i  = 0;
  auto fail = [&](const std::string& m) { throw InputError(file, "line " + std::to_string(number), m); };
  while (true) {
    while (i < line.size() && std::isspace(static_cast<unsigned char>(line[i])))
      i++;
    if (i == line.size())
      return out;
    size_t start = i;
    while (i < line.size() && line[i] != '=' && not std::isspace(static_cast<unsigned char>(line[i])))
      i++;
    Pair p{line.substr(start, i - start), ""};
    if (i == line.size() || line[i] != '=') {
      // `include FILE` and `Include FILE` are Slurm's: not followed here (listed as ignored)
      if (lower(p.key) == "include") {
        out.push_back({"Include", line.substr(i)});
        return out;
      }
      fail(shown(p.key) + " is not Key=Value");
    }
    i++;
    if (i < line.size() && line[i] == '"') {
      size_t close = line.find('"', i + 1);
      if (close == std::string::npos)
        fail("the value of " + p.key + " opens a quote it never closes");
      p.value = line.substr(i + 1, close - i - 1);
      i       = close + 1;
    } else {
      size_t vstart = i;
      while (i < line.size() && not std::isspace(static_cast<unsigned char>(line[i])))
        i++;
      p.value = line.substr(vstart, i - vstart);
    }
    if (p.key.empty())
      fail("'=' without a key");
    out.push_back(std::move(p));
  }
}

/** Reads one conf file's values into a SlurmConf. */
class ConfReader {
public:
  ConfReader(SlurmConf& c, std::string file)
      : c_(c)
      , file_(std::move(file))
  {
  }

  void line(size_t number, const std::string& text)
  {
    number_    = number;
    auto pairs = tokens(text, file_, number);
    if (pairs.empty())
      return;
    std::string head = lower(pairs[0].key);
    if (head == "partitionname") {
      partition(pairs);
      return;
    }
    if (head == "nodename" || head == "nodeset" || head == "downnodes" || head == "frontendname" ||
        head == "switchname") {
      ignore(pairs[0].key + " lines"); // the platform describes the nodes
      return;
    }
    for (const auto& p : pairs)
      setting(p);
  }

  void finish()
  {
    if (c_.partitions.empty())
      throw InputError(file_, "the file",
                       "defines no partition (a PartitionName=NAME Nodes=... line): Slurm runs no job");
    size_t defaults = 0;
    for (const auto& p : c_.partitions)
      if (p.is_default && ++defaults > 1)
        throw InputError(file_, "line " + std::to_string(p.line),
                         "partition " + quote(p.name) + " is Default=YES, and so is an earlier one: one at most");
  }

private:
  SlurmConf& c_;
  std::string file_;
  size_t number_ = 0;
  std::set<std::string> ignored_;
  SlurmPartition defaults_;

  [[noreturn]] void fail(const std::string& m) const { throw InputError(file_, "line " + std::to_string(number_), m); }

  void ignore(const std::string& what)
  {
    if (ignored_.insert(lower(what)).second)
      c_.ignored.push_back(what);
  }

  double count(const Pair& p, uint64_t max = UINT32_MAX)
  {
    uint64_t v = 0;
    if (not whole(p.value, max, v))
      fail(p.key + "=" + shown(p.value) + ": not a whole number from 0 to " + std::to_string(max));
    return static_cast<double>(v);
  }

  double time(const Pair& p, bool infinite_allowed)
  {
    double t = slurm_time_s(p.value);
    if (t < 0 || (t == kInf && not infinite_allowed))
      fail(p.key + "=" + shown(p.value) + ": not a Slurm time (minutes, M:S, H:M:S, D-H, D-H:M or D-H:M:S" +
           (infinite_allowed ? ", or INFINITE)" : ")"));
    return t;
  }

  bool yes_no(const Pair& p)
  {
    std::string v = lower(p.value);
    if (v == "yes" || v == "1" || v == "true")
      return true;
    if (v == "no" || v == "0" || v == "false")
      return false;
    fail(p.key + "=" + shown(p.value) + ": not YES or NO");
  }

  void setting(const Pair& p)
  {
    std::string k = lower(p.key);
    std::string v = lower(p.value);
    if (k == "schedulertype") {
      if (v != "sched/backfill" && v != "sched/builtin")
        fail("SchedulerType=" + shown(p.value) +
             ": not a scheduler sgai models (known: sched/backfill, sched/builtin)");
      c_.backfill = v == "sched/backfill";
    } else if (k == "prioritytype") {
      if (v != "priority/basic" && v != "priority/multifactor")
        fail("PriorityType=" + shown(p.value) +
             ": not a priority sgai models (known: priority/basic, priority/multifactor)");
      c_.multifactor = v == "priority/multifactor";
    } else if (k == "priorityweightage") {
      c_.weight_age = count(p);
    } else if (k == "priorityweightjobsize") {
      c_.weight_job_size = count(p);
    } else if (k == "priorityweightfairshare") {
      c_.weight_fairshare = count(p);
    } else if (k == "priorityweightpartition") {
      c_.weight_partition = count(p);
    } else if (k == "priorityweightqos") {
      c_.weight_qos = count(p);
    } else if (k == "prioritymaxage") {
      c_.max_age_s = time(p, false);
    } else if (k == "prioritydecayhalflife") {
      c_.decay_half_life_s = time(p, false);
    } else if (k == "prioritycalcperiod") {
      c_.calc_period_s = time(p, false);
      if (c_.calc_period_s <= 0)
        fail("PriorityCalcPeriod=" + shown(p.value) + ": must be at least a minute");
    } else if (k == "priorityfavorsmall") {
      c_.favor_small = yes_no(p);
    } else if (k == "schedulerparameters") {
      scheduler_parameters(p.value);
    } else {
      ignore(p.key);
    }
  }

  void scheduler_parameters(const std::string& list)
  {
    size_t start = 0;
    while (start <= list.size()) {
      size_t comma     = std::min(list.find(',', start), list.size());
      std::string item = list.substr(start, comma - start);
      start            = comma + 1;
      if (item.empty()) {
        if (comma == list.size())
          break;
        continue;
      }
      size_t eq     = item.find('=');
      std::string k = lower(item.substr(0, eq));
      std::string v = eq == std::string::npos ? "" : item.substr(eq + 1);
      auto number   = [&](uint64_t min, uint64_t max) {
        uint64_t x = 0;
        if (eq == std::string::npos || not whole(v, max, x) || x < min)
          fail("SchedulerParameters " + shown(item) + ": " + k + " takes a whole number from " + std::to_string(min) +
                 " to " + std::to_string(max));
        return static_cast<double>(x);
      };
      if (k == "bf_interval")
        c_.bf_interval_s = number(0, 10800); // 0: sgai's extension (a pass at every event)
      else if (k == "bf_max_job_test")
        c_.bf_max_job_test = static_cast<uint32_t>(number(1, 1000000));
      else if (k == "bf_window")
        c_.bf_window_s = 60 * number(1, 43200);
      else if (k == "bf_resolution")
        c_.bf_resolution_s = number(1, 3600);
      else if (k == "bf_max_job_user")
        c_.bf_max_job_user = static_cast<uint32_t>(number(0, 1000000));
      else if (k == "sched_interval")
        c_.sched_interval_s = number(0, 1000000);
      else if (k == "bf_continue") {
        if (eq != std::string::npos)
          fail("SchedulerParameters " + shown(item) + ": bf_continue takes no value");
        c_.bf_continue = true;
      } else {
        ignore("SchedulerParameters " + item.substr(0, eq));
      }
      if (comma == list.size())
        break;
    }
  }

  void partition(const std::vector<Pair>& pairs)
  {
    SlurmPartition p = defaults_;
    p.name           = pairs[0].value;
    p.line           = number_;
    if (p.name.empty())
      fail("PartitionName without a name");
    bool is_defaults = p.name == "DEFAULT";
    for (size_t i = 1; i < pairs.size(); i++) {
      const Pair& kv = pairs[i];
      std::string k  = lower(kv.key);
      if (k == "nodes") {
        if (lower(kv.value) == "all") {
          p.all_nodes = true;
          p.nodes.clear();
        } else {
          try {
            p.nodes     = expand_hostlist(kv.value);
            p.all_nodes = false;
          } catch (const std::invalid_argument& e) {
            fail("Nodes=" + shown(kv.value) + ": " + e.what());
          }
        }
      } else if (k == "default") {
        p.is_default = yes_no(kv);
      } else if (k == "maxtime") {
        p.max_time_s = time(kv, true);
      } else if (k == "defaulttime") {
        p.default_time_s = time(kv, true);
      } else if (k == "priorityjobfactor") {
        p.job_factor = count(kv, 65533);
      } else if (k == "prioritytier") {
        p.tier = static_cast<uint32_t>(count(kv, 65533));
      } else if (k == "state") {
        std::string v = lower(kv.value);
        if (v != "up" && v != "down" && v != "drain" && v != "inactive")
          fail("State=" + shown(kv.value) + ": not a partition state (UP, DOWN, DRAIN or INACTIVE)");
        p.up = v == "up";
      } else {
        ignore("PartitionName " + kv.key);
      }
    }
    if (is_defaults) {
      defaults_ = p;
      return;
    }
    if (not p.all_nodes && p.nodes.empty())
      fail("partition " + quote(p.name) + " names no node (Nodes=...)");
    for (const auto& q : c_.partitions)
      if (q.name == p.name)
        fail("partition " + quote(p.name) + " is defined again (first on line " + std::to_string(q.line) + ")");
    c_.partitions.push_back(std::move(p));
  }
};

} // namespace

double slurm_time_s(const std::string& text)
{
  std::string t = lower(text);
  if (t == "infinite" || t == "unlimited")
    return kInf;
  if (t.empty())
    return -1;
  uint64_t days    = 0;
  std::string rest = t;
  bool has_days    = false;
  if (size_t dash = t.find('-'); dash != std::string::npos) {
    if (not whole(t.substr(0, dash), 1000000, days))
      return -1;
    rest     = t.substr(dash + 1);
    has_days = true;
  }
  std::vector<uint64_t> parts;
  size_t start = 0;
  while (true) {
    size_t colon = std::min(rest.find(':', start), rest.size());
    uint64_t v   = 0;
    if (not whole(rest.substr(start, colon - start), 100000000, v))
      return -1;
    parts.push_back(v);
    if (colon == rest.size())
      break;
    start = colon + 1;
  }
  if (parts.size() > 3)
    return -1;
  double s = 0;
  if (has_days) { // D-H, D-H:M, D-H:M:S
    s = static_cast<double>(days) * 86400 + static_cast<double>(parts[0]) * 3600;
    if (parts.size() > 1)
      s += static_cast<double>(parts[1]) * 60;
    if (parts.size() > 2)
      s += static_cast<double>(parts[2]);
  } else if (parts.size() == 1) { // M
    s = static_cast<double>(parts[0]) * 60;
  } else if (parts.size() == 2) { // M:S
    s = static_cast<double>(parts[0]) * 60 + static_cast<double>(parts[1]);
  } else { // H:M:S
    s = static_cast<double>(parts[0]) * 3600 + static_cast<double>(parts[1]) * 60 + static_cast<double>(parts[2]);
  }
  return s;
}

std::vector<std::string> expand_hostlist(const std::string& text)
{
  // entries separated by top-level commas; each a cartesian product of literal parts and bracket
  // groups of ranges ("rack[1-2]-n[01-16]")
  std::vector<std::string> out;
  size_t i = 0;
  while (i <= text.size()) {
    std::vector<std::string> names{""};
    size_t j = i;
    for (; j < text.size() && text[j] != ','; j++) {
      if (text[j] == ']')
        throw std::invalid_argument("a ']' without its '['");
      if (text[j] != '[') {
        for (auto& n : names)
          n += text[j];
        continue;
      }
      size_t close = text.find(']', j);
      if (close == std::string::npos)
        throw std::invalid_argument("a '[' without its ']'");
      std::string ranges = text.substr(j + 1, close - j - 1);
      std::vector<std::string> values;
      size_t r = 0;
      while (true) {
        size_t comma      = std::min(ranges.find(',', r), ranges.size());
        std::string range = ranges.substr(r, comma - r);
        size_t dash       = range.find('-');
        std::string a     = range.substr(0, dash);
        std::string b     = dash == std::string::npos ? a : range.substr(dash + 1);
        uint64_t lo = 0, hi = 0;
        if (not whole(a, 99999999, lo) || not whole(b, 99999999, hi) || hi < lo)
          throw std::invalid_argument("a range " + quote(range) + " that is not N or N-M with N <= M");
        if ((hi - lo + 1) * names.size() + out.size() > 1000000)
          throw std::invalid_argument("more than 1,000,000 hosts");
        size_t width = a.size() > 1 && a[0] == '0' ? a.size() : 0; // zero-padded: node[001-100]
        for (uint64_t n = lo; n <= hi; n++) {
          std::string digits = std::to_string(n);
          if (digits.size() < width)
            digits.insert(0, width - digits.size(), '0');
          values.push_back(digits);
        }
        if (comma == ranges.size())
          break;
        r = comma + 1;
      }
      std::vector<std::string> product;
      product.reserve(names.size() * values.size());
      for (const auto& n : names)
        for (const auto& v : values)
          product.push_back(n + v);
      names.swap(product);
      j = close;
    }
    if (names.size() == 1 && names[0].empty())
      throw std::invalid_argument("an empty host name");
    out.insert(out.end(), names.begin(), names.end());
    i = j + 1;
  }
  return out;
}

SlurmConf parse_slurm_conf(const std::string& text, const std::string& file)
{
  SlurmConf c;
  c.file = file;
  ConfReader reader(c, file);
  for (const auto& [number, line] : logical_lines(text))
    reader.line(number, line);
  reader.finish();
  return c;
}

SlurmConf read_slurm_conf(const std::filesystem::path& file)
{
  return parse_slurm_conf(read_text_file(file), file.string());
}

// ------------------------------------------------------------------------------------ associations

int64_t SlurmAssociations::user_association(const std::string& user, const std::string& account) const
{
  int64_t fallback = -1;
  auto dflt        = default_account.find(user);
  for (size_t i = 0; i < nodes.size(); i++) {
    if (not nodes[i].user || nodes[i].name != user)
      continue;
    const std::string& parent = nodes[nodes[i].parent].name;
    if (not account.empty() && parent == account)
      return static_cast<int64_t>(i);
    if ((dflt != default_account.end() && parent == dflt->second) || fallback < 0)
      fallback = static_cast<int64_t>(i);
  }
  return fallback;
}

SlurmAssociations parse_slurm_associations(const std::string& text, const std::string& file)
{
  SlurmAssociations a;
  a.file = file;
  a.nodes.push_back({"root", 0, 1, false, {}});
  std::map<std::string, uint32_t> accounts = {{"root", 0}};
  uint32_t parent                          = 0;
  for (const auto& [number, raw] : logical_lines(text)) {
    auto fail = [&, n = number](const std::string& m) { throw InputError(file, "line " + std::to_string(n), m); };
    std::string line = raw;
    line.erase(0, line.find_first_not_of(" \t"));
    line.erase(line.find_last_not_of(" \t") + 1);
    if (line.empty())
      continue;
    size_t dash = line.find(" - ");
    if (dash == std::string::npos)
      fail(shown(line) + " is not `Kind - 'name':Key=Value:...` (sacctmgr dump's lines)");
    std::string kind = lower(line.substr(0, dash));
    std::string rest = line.substr(dash + 3);
    // fields separated by ':' outside quotes; the first is the name
    std::vector<std::string> fields;
    std::string cur;
    bool quoted = false;
    for (char ch : rest) {
      if (ch == '\'')
        quoted = not quoted;
      else if (ch == ':' && not quoted) {
        fields.push_back(cur);
        cur.clear();
      } else
        cur += ch;
    }
    if (quoted)
      fail("a quote opened and never closed in " + shown(rest));
    fields.push_back(cur);
    std::string name = fields[0];
    if (name.empty())
      fail(kind + " without a name");
    double shares   = 1;
    double priority = 0;
    std::string default_account;
    for (size_t i = 1; i < fields.size(); i++) {
      size_t eq     = fields[i].find('=');
      std::string k = lower(fields[i].substr(0, eq));
      std::string v = eq == std::string::npos ? "" : fields[i].substr(eq + 1);
      uint64_t x    = 0;
      if (k == "fairshare" || k == "priority") {
        if (not whole(v, UINT32_MAX, x))
          fail(fields[i].substr(0, eq) + "=" + shown(v) + ": not a whole number from 0 to 4294967295" +
               (lower(v) == "parent" ? " (Fairshare=parent is not modelled)" : ""));
        (k == "fairshare" ? shares : priority) = static_cast<double>(x);
      } else if (k == "defaultaccount") {
        default_account = v;
      }
    }
    if (kind == "cluster") {
      a.nodes[0].shares = shares;
    } else if (kind == "parent") {
      auto it = accounts.find(name);
      if (it == accounts.end())
        fail("Parent " + quote(name) + " is no account defined above");
      parent = it->second;
    } else if (kind == "account") {
      if (accounts.count(name))
        fail("account " + quote(name) + " is defined twice");
      accounts[name] = static_cast<uint32_t>(a.nodes.size());
      a.nodes[parent].children.push_back(static_cast<uint32_t>(a.nodes.size()));
      a.nodes.push_back({name, parent, shares, false, {}});
    } else if (kind == "user") {
      for (uint32_t c : a.nodes[parent].children)
        if (a.nodes[c].user && a.nodes[c].name == name)
          fail("user " + quote(name) + " is defined twice under account " + quote(a.nodes[parent].name));
      a.nodes[parent].children.push_back(static_cast<uint32_t>(a.nodes.size()));
      a.nodes.push_back({name, parent, shares, true, {}});
      if (not default_account.empty())
        a.default_account.emplace(name, default_account);
    } else if (kind == "qos") {
      a.qos_priority[name] = priority;
    } else {
      fail("unknown kind " + shown(line.substr(0, dash)) + " (known: Cluster, Parent, Account, User, QOS)");
    }
  }
  return a;
}

SlurmAssociations read_slurm_associations(const std::filesystem::path& file)
{
  return parse_slurm_associations(read_text_file(file), file.string());
}

SlurmAssociations flat_associations(const std::vector<std::string>& users)
{
  SlurmAssociations a;
  a.file = "(no association file)";
  a.nodes.push_back({"root", 0, 1, false, {}});
  for (const auto& u : users) {
    a.nodes[0].children.push_back(static_cast<uint32_t>(a.nodes.size()));
    a.nodes.push_back({u, 0, 1, true, {}});
  }
  return a;
}

} // namespace sgai::scheduling
