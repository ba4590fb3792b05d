#include "chakra/visualize.hpp"

#include "chakra/et_io.hpp"
#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/json_writer.hpp"
#include "core/foundation/numbers.hpp"

#include <algorithm>
#include <charconv>
#include <fstream>
#include <map>
#include <unordered_set>

namespace sgai::chakra {

namespace {

/** A field echoed in a message: long ones cut. */
std::string shown(const std::string& text)
{
  return text.size() <= 40 ? text : text.substr(0, 40) + "...";
}

bool selected(const Node& n, const DotOptions& o)
{
  if (not o.types.empty() && not o.types.count(n.type))
    return false;
  if (not o.name_contains.empty() && n.name.find(o.name_contains) == std::string::npos)
    return false;
  if (o.min_id && n.id < *o.min_id)
    return false;
  if (o.max_id && n.id > *o.max_id)
    return false;
  return true;
}

std::string dot_escape(const std::string& s)
{
  std::string out;
  for (char c : s) {
    if (c == '"' || c == '\\')
      out.push_back('\\');
    if (c == '\n')
      out += "\\n";
    else
      out.push_back(c);
  }
  return out;
}

std::string label_of(const Node& n)
{
  std::string name  = n.name.size() > 48 ? n.name.substr(0, 45) + "..." : n.name;
  std::string label = std::to_string(n.id) + ": " + name + "\n" + to_string(n.type);
  if (auto c = n.collective())
    label += std::string("\n") + to_string(*c);
  if (auto b = n.comm_size())
    label += " " + format_fixed(static_cast<double>(*b) / (1 << 20), 3) + " MiB";
  if (auto ops = n.num_ops())
    label += "\n" + format_number(*ops) + " ops";
  if (n.duration_micros)
    label += "\n" + std::to_string(n.duration_micros) + " us";
  return label;
}

const char* style_of(NodeType t)
{
  switch (t) {
  case NodeType::comp:
    return "shape=box, style=filled, fillcolor=\"#c6dbef\"";
  case NodeType::comm_coll:
    return "shape=ellipse, style=filled, fillcolor=\"#fdd0a2\"";
  case NodeType::comm_send:
  case NodeType::comm_recv:
    return "shape=ellipse, style=filled, fillcolor=\"#fdae6b\"";
  case NodeType::mem_load:
  case NodeType::mem_store:
    return "shape=cylinder, style=filled, fillcolor=\"#c7e9c0\"";
  default:
    return "shape=box, style=dashed";
  }
}

const char* track_of(NodeType t)
{
  switch (t) {
  case NodeType::comm_coll:
  case NodeType::comm_send:
  case NodeType::comm_recv:
    return "communication";
  case NodeType::mem_load:
  case NodeType::mem_store:
    return "memory";
  default:
    return "compute";
  }
}

int tid_of(NodeType t)
{
  std::string track = track_of(t);
  return track == "compute" ? 1 : track == "memory" ? 2 : 3;
}

/** Splits one CSV line; the last field may be quoted ("a ""b"", c"). */
std::optional<std::vector<std::string>> split_csv(const std::string& line)
{
  std::vector<std::string> out;
  std::string cur;
  bool quoted = false, in_quotes = false;
  for (size_t i = 0; i < line.size(); i++) {
    char c = line[i];
    if (in_quotes) {
      if (c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
        cur.push_back('"');
        i++;
      } else if (c == '"') {
        in_quotes = false;
      } else {
        cur.push_back(c);
      }
    } else if (c == '"' && cur.empty() && not quoted) {
      in_quotes = quoted = true;
    } else if (c == ',') {
      out.push_back(cur);
      cur.clear();
      quoted = false;
    } else {
      cur.push_back(c);
    }
  }
  if (in_quotes)
    return std::nullopt;
  out.push_back(cur);
  return out;
}

std::string csv_quote(const std::string& s)
{
  if (s.find_first_of(",\"\n\r") == std::string::npos) // a bare \r would read back as a line end
    return s;
  std::string out = "\"";
  for (char c : s) {
    if (c == '"')
      out.push_back('"');
    out.push_back(c == '\n' ? ' ' : c);
  }
  return out + "\"";
}

} // namespace

DotSummary write_dot(const std::filesystem::path& et, const DotOptions& o, std::ostream& out)
{
  DotSummary s;
  std::unordered_set<uint64_t> drawn;
  {
    EtReader r(et);
    Node n;
    while (r.next(n)) {
      if (not selected(n, o))
        continue;
      if (drawn.size() >= o.max_nodes) {
        s.truncated = true;
        continue;
      }
      drawn.insert(n.id);
    }
    s.nodes_read = r.nodes_read();
  }
  out << "digraph \"" << dot_escape(et.filename().string()) << "\" {\n"
      << "  rankdir=TB;\n  node [fontname=\"Helvetica\", fontsize=10];\n  edge [color=\"#555555\"];\n";
  if (s.truncated)
    out << "  label=\"first " << drawn.size() << " matching nodes of " << s.nodes_read
        << " (raise --max-nodes or filter)\";\n";
  EtReader r(et);
  Node n;
  while (r.next(n)) {
    if (not drawn.count(n.id))
      continue;
    s.nodes_drawn++;
    out << "  n" << n.id << " [label=\"" << dot_escape(label_of(n)) << "\", " << style_of(n.type) << "];\n";
    for (uint64_t p : n.data_deps)
      if (drawn.count(p)) {
        out << "  n" << p << " -> n" << n.id << ";\n";
        s.edges_drawn++;
      }
    if (o.control_edges)
      for (uint64_t p : n.ctrl_deps)
        if (drawn.count(p) && p != n.id) {
          out << "  n" << p << " -> n" << n.id << " [style=dashed, color=\"#999999\"];\n";
          s.edges_drawn++;
        }
  }
  out << "}\n";
  return s;
}

std::vector<ReplayEvent> read_replay_log(const std::filesystem::path& log)
{
  std::ifstream in(log);
  if (not in)
    throw InputError(log.string(), "", "cannot open the replay log");
  std::vector<ReplayEvent> out;
  std::string line;
  size_t number = 0;
  auto fail = [&](const std::string& what) { throw InputError(log.string(), "line " + std::to_string(number), what); };
  while (std::getline(in, line)) {
    number++;
    if (not line.empty() && line.back() == '\r')
      line.pop_back();
    if (line.find('\0') != std::string::npos)
      fail("a NUL byte at column " + std::to_string(line.find('\0') + 1) + ": a replay log is text");
    if (line.empty())
      continue;
    if (number == 1) {
      if (line != "rank,node_id,event,time_us,type,name")
        fail("expected the header 'rank,node_id,event,time_us,type,name', got '" + line + "'");
      continue;
    }
    auto f = split_csv(line);
    if (not f || f->size() != 6)
      fail("expected 6 fields (rank,node_id,event,time_us,type,name), got " +
           (f ? std::to_string(f->size()) : std::string("an unclosed quote")));
    ReplayEvent e;
    auto whole = [&](const std::string& text, auto& value, const char* what) {
      auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
      if (ec != std::errc() || ptr != text.data() + text.size())
        fail(std::string(what) + " '" + text + "' is not a whole number >= 0");
    };
    whole((*f)[0], e.rank, "rank");
    whole((*f)[1], e.node, "node_id");
    if ((*f)[2] == "issue")
      e.issue = true;
    else if ((*f)[2] == "callback")
      e.issue = false;
    else
      fail("event '" + (*f)[2] + "' is neither issue nor callback");
    auto [ptr, ec] = std::from_chars((*f)[3].data(), (*f)[3].data() + (*f)[3].size(), e.time_us);
    if (ec != std::errc() || ptr != (*f)[3].data() + (*f)[3].size() || not(e.time_us >= 0))
      fail("time_us " + quote(shown((*f)[3])) + " is not a time >= 0");
    if (not(e.time_us <= max_log_time_us))
      fail("time_us " + quote(shown((*f)[3])) + " is above 1e18 us (1e12 s), the longest time sgai takes");
    e.line    = number;
    auto type = node_type_from_string((*f)[4]);
    if (not type)
      fail("unknown node type '" + (*f)[4] + "'");
    e.type = *type;
    e.name = (*f)[5];
    if (not valid_utf8(e.name))
      fail("the name is not valid UTF-8 text");
    out.push_back(std::move(e));
  }
  if (number == 0)
    throw InputError(log.string(), "", "empty replay log");
  return out;
}

void write_replay_log(const std::vector<ReplayEvent>& events, std::ostream& out)
{
  out << "rank,node_id,event,time_us,type,name\n";
  for (const auto& e : events)
    out << e.rank << "," << e.node << "," << (e.issue ? "issue" : "callback") << "," << format_number(e.time_us) << ","
        << to_string(e.type) << "," << csv_quote(e.name) << "\n";
}

uint64_t write_chrome_trace(const std::vector<ReplayEvent>& events, std::ostream& out, const std::string& source)
{
  auto fail = [&](const ReplayEvent& e, const std::string& what) {
    throw InputError(source, e.line ? "line " + std::to_string(e.line) : "rank " + std::to_string(e.rank),
                     e.line ? "rank " + std::to_string(e.rank) + ": " + what : what);
  };
  // pair each issue with its callback, per rank and node
  std::map<std::pair<uint32_t, uint64_t>, const ReplayEvent*> open;
  struct Span {
    const ReplayEvent* issue;
    double end;
  };
  std::vector<Span> spans;
  std::set<uint32_t> ranks;
  for (const auto& e : events) {
    ranks.insert(e.rank);
    auto key = std::pair{e.rank, e.node};
    if (e.issue) {
      if (open.count(key))
        fail(e, "node " + std::to_string(e.node) + " issued twice without a callback");
      open[key] = &e;
    } else {
      auto it = open.find(key);
      if (it == open.end())
        fail(e, "callback of node " + std::to_string(e.node) + " without an issue");
      if (e.time_us < it->second->time_us)
        fail(e, "node " + std::to_string(e.node) + " calls back before it was issued");
      spans.push_back({it->second, e.time_us});
      open.erase(it);
    }
  }
  if (not open.empty()) {
    // the earliest issue left open, as the log has it
    const ReplayEvent* first = open.begin()->second;
    for (const auto& [key, e] : open)
      if (e->line < first->line)
        first = e;
    fail(*first, "node " + std::to_string(first->node) + " was issued but never called back");
  }
  std::sort(spans.begin(), spans.end(), [](const Span& a, const Span& b) {
    return std::tie(a.issue->rank, a.issue->time_us, a.issue->node) <
           std::tie(b.issue->rank, b.issue->time_us, b.issue->node);
  });
  json::Writer w(out);
  w.begin_object();
  w.field("displayTimeUnit", "ms");
  w.key("traceEvents").begin_array();
  for (uint32_t r : ranks) {
    w.begin_object(true);
    w.field("ph", "M").field("name", "process_name").field("pid", uint64_t{r}).field("tid", 0);
    w.key("args").begin_object(true).field("name", "rank " + std::to_string(r)).end_object();
    w.end_object();
    for (int tid : {1, 2, 3}) {
      w.begin_object(true);
      w.field("ph", "M").field("name", "thread_name").field("pid", uint64_t{r}).field("tid", tid);
      w.key("args").begin_object(true).field("name", tid == 1 ? "compute" : tid == 2 ? "memory" : "communication");
      w.end_object().end_object();
    }
  }
  for (const auto& s : spans) {
    const ReplayEvent& e = *s.issue;
    w.begin_object(true);
    w.field("name", e.name.empty() ? std::to_string(e.node) : e.name);
    w.field("cat", track_of(e.type)).field("ph", "X");
    w.field("ts", e.time_us).field("dur", s.end - e.time_us);
    w.field("pid", uint64_t{e.rank}).field("tid", tid_of(e.type));
    w.key("args").begin_object(true).field("node_id", e.node).field("type", to_string(e.type)).end_object();
    w.end_object();
  }
  w.end_array();
  w.end_object();
  out << "\n";
  return spans.size();
}

} // namespace sgai::chakra
