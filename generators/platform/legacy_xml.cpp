#include "generators/platform/legacy_xml.hpp"

#include "core/foundation/error.hpp"

#include <algorithm>
#include <cctype>
#include <string_view>
#include <utility>

namespace sgai::platform {

namespace {

constexpr auto npos = std::string::npos;

bool space(char c)
{
  return std::isspace(static_cast<unsigned char>(c)) != 0;
}

/** The text with every character of its comments ("<!-- ... -->"; an unclosed one runs to the
 *  end) but line breaks turned into spaces: searches in it find only markup. */
std::string mask_comments(const std::string& text)
{
  std::string mask = text;
  for (size_t pos = mask.find("<!--"); pos != npos;) {
    size_t end = text.find("-->", pos + 4);
    end        = end == npos ? text.size() : end + 3;
    for (size_t i = pos; i < end; i++)
      if (mask[i] != '\n')
        mask[i] = ' ';
    pos = mask.find("<!--", end);
  }
  return mask;
}

/** Replaces every occurrence outside comments (in the text and its mask alike); returns how many. */
size_t replace_all(std::string& text, std::string& mask, const std::string& from, const std::string& to)
{
  size_t n = 0, last = 0;
  std::string t, m;
  for (size_t pos = mask.find(from); pos != npos; pos = mask.find(from, pos + from.size()), n++) {
    t.append(text, last, pos - last).append(to);
    m.append(mask, last, pos - last).append(to);
    last = pos + from.size();
  }
  if (n > 0) {
    text = std::move(t.append(text, last));
    mask = std::move(m.append(mask, last));
  }
  return n;
}

/** A start tag: its name, attributes, where it is ('<' to one past '>') and whether it is empty. */
struct Tag {
  std::string name;
  std::vector<std::pair<std::string, std::string>> attributes;
  size_t begin = 0;
  size_t end   = 0;
  bool empty   = false;

  const std::string* attribute(const std::string& key) const
  {
    for (const auto& [k, v] : attributes)
      if (k == key)
        return &v;
    return nullptr;
  }
};

/** The start tag at text[pos] == '<', nothing when it is not a well-formed one (SimGrid's parser
 *  reports those). */
std::optional<Tag> read_tag(const std::string& text, size_t pos)
{
  Tag tag;
  tag.begin = pos;
  size_t i  = pos + 1;
  auto name = [&]() {
    size_t from = i;
    while (i < text.size() && not space(text[i]) && text[i] != '=' && text[i] != '>' && text[i] != '/' &&
           text[i] != '<')
      i++;
    return text.substr(from, i - from);
  };
  tag.name = name();
  if (tag.name.empty())
    return std::nullopt;
  while (true) {
    while (i < text.size() && space(text[i]))
      i++;
    if (i >= text.size())
      return std::nullopt;
    if (text[i] == '>' || text.compare(i, 2, "/>") == 0) {
      tag.empty = text[i] == '/';
      tag.end   = i + (tag.empty ? 2 : 1);
      return tag;
    }
    std::string key = name();
    while (i < text.size() && space(text[i]))
      i++;
    if (key.empty() || i >= text.size() || text[i] != '=')
      return std::nullopt;
    i++;
    while (i < text.size() && space(text[i]))
      i++;
    if (i >= text.size() || (text[i] != '"' && text[i] != '\''))
      return std::nullopt;
    size_t close = text.find_first_of(std::string{text[i], '<'}, i + 1); // ('<' has no place in a value)
    if (close == npos || text[close] == '<')
      return std::nullopt;
    tag.attributes.emplace_back(key, text.substr(i + 1, close - i - 1));
    i = close + 1;
  }
}

/** The first `what` in text[from, to), npos if none (never looks past `to`). */
size_t find_in(const std::string& text, const std::string& what, size_t from, size_t to)
{
  if (from >= to)
    return npos;
  size_t at = std::string_view(text).substr(0, to).find(what, from);
  return at == npos || at + what.size() > to ? npos : at;
}

/** The start tags named `name` in mask[from, to). */
std::vector<Tag> tags_named(const std::string& mask, const std::string& name, size_t from, size_t to)
{
  std::vector<Tag> out;
  const std::string open = "<" + name;
  for (size_t pos = find_in(mask, open, from, to); pos != npos; pos = find_in(mask, open, pos + 1, to))
    if (auto tag = read_tag(mask, pos); tag && tag->name == name && tag->end <= to)
      out.push_back(std::move(*tag));
  return out;
}

/** Where the element of a start tag ends: past its end tag (or the start tag when it is empty);
 *  the end of `limit` when it is not closed. */
size_t element_end(const std::string& mask, const Tag& tag, size_t limit)
{
  if (tag.empty)
    return tag.end;
  size_t close = find_in(mask, "</" + tag.name, tag.end, limit);
  size_t gt    = close == npos ? npos : find_in(mask, ">", close, limit);
  return gt == npos ? limit : gt + 1;
}

size_t count_of(const std::string& text, char c)
{
  return static_cast<size_t>(std::count(text.begin(), text.end(), c));
}

/** Without its trailing blank ("<AS " -> "<AS"), for the notes. */
std::string trimmed(const std::string& s)
{
  return s.back() == ' ' ? s.substr(0, s.size() - 1) : s;
}

/** Options of SimGrid 2.x/3.2x that SimGrid 3.32 no longer has (host coordinates are always read
 *  now; the sender gap went with the old SMPI network code). */
bool removed_option(const std::string& key)
{
  return key == "network/coordinates" || key == "network/sender_gap";
}

/** The SMPI options of the network models (SMPI, IB): they change communication times, kept. */
bool network_smpi_option(const std::string& key)
{
  return key == "smpi/bw-factor" || key == "smpi/lat-factor" || key == "smpi/IB-penalty-factors" ||
         key == "smpi/bw_factor" || key == "smpi/lat_factor"; // (older names, renamed below)
}

/** A configuration key by its SimGrid 3.32 name (the older names' underscores renamed below). */
std::string current_option_name(const std::string& key)
{
  static const std::vector<std::pair<std::string, std::string>> older = {
      {"contexts/stack_size", "contexts/stack-size"},
      {"contexts/guard_size", "contexts/guard-size"},
      {"network/TCP_gamma", "network/TCP-gamma"},
      {"network/bandwidth_factor", "network/bandwidth-factor"},
      {"network/latency_factor", "network/latency-factor"},
      {"network/weight_S", "network/weight-S"},
      {"smpi/bw_factor", "smpi/bw-factor"},
      {"smpi/lat_factor", "smpi/lat-factor"}};
  for (const auto& [from, to] : older)
    if (key == from)
      return to;
  return key;
}

} // namespace

std::optional<std::string> translate_legacy_xml(const std::string& text, std::vector<std::string>& notes,
                                                const std::function<bool(const std::string&)>& set_by_run)
{
  const size_t first_note = notes.size();
  std::string out         = text;
  std::string mask        = mask_comments(text);
  // Options of the <config> elements: the removed ones dropped, the SMPI ones ignored. Each <prop>
  // element is cut out where it stands, its line breaks kept, so the line numbers stay those of the
  // user's file. Cut first, until nothing is left to cut (a cut may join "<!-" and "-" and so move
  // a comment), and rename afterwards: a second pass then changes nothing.
  std::vector<std::string> removed, smpi, overridden;
  auto add_once = [](std::vector<std::string>& list, const std::string& key) {
    if (std::find(list.begin(), list.end(), key) == list.end())
      list.push_back(key);
  };
  for (bool again = true; again;) {
    std::vector<std::pair<size_t, size_t>> cut;
    auto configs = tags_named(mask, "config", 0, mask.size());
    for (size_t c = 0; c < configs.size(); c++) {
      const Tag& config = configs[c]; // (an unclosed one ends where the next begins)
      size_t limit      = element_end(mask, config, c + 1 < configs.size() ? configs[c + 1].begin : mask.size());
      for (const auto& prop : tags_named(mask, "prop", config.end, limit)) {
        const std::string* id = prop.attribute("id");
        if (id == nullptr)
          continue;
        bool is_removed    = removed_option(*id);
        bool is_smpi       = id->rfind("smpi/", 0) == 0 && not network_smpi_option(*id);
        bool is_overridden = set_by_run && set_by_run(current_option_name(*id));
        if (not is_removed && not is_smpi && not is_overridden)
          continue;
        size_t end = prop.end;
        if (not prop.empty) { // <prop ...></prop>: only blanks may stand between
          size_t q = end;
          while (q < limit && space(mask[q]))
            q++;
          if (mask.compare(q, 7, "</prop>") != 0)
            continue; // not an option SimGrid would read: left to its parser
          end = q + 7;
        }
        cut.emplace_back(prop.begin, end);
        add_once(is_removed ? removed : is_smpi ? smpi : overridden, current_option_name(*id));
      }
    }
    std::sort(cut.begin(), cut.end());
    cut.erase(std::unique(cut.begin(), cut.end()), cut.end());
    again = not cut.empty();
    if (again) {
      std::string kept;
      size_t last = 0;
      for (const auto& [from, to] : cut) {
        kept.append(out, last, from - last);
        kept.append(static_cast<size_t>(std::count(out.begin() + static_cast<std::ptrdiff_t>(from),
                                                   out.begin() + static_cast<std::ptrdiff_t>(to), '\n')),
                    '\n');
        last = to;
      }
      out  = std::move(kept.append(out, last));
      mask = mask_comments(out);
    }
  }
  const std::vector<std::pair<std::string, std::string>> renames = {
      {"<AS ", "<zone "},
      {"<AS>", "<zone>"},
      {"</AS>", "</zone>"},
      {"<ASroute ", "<zoneRoute "},
      {"</ASroute>", "</zoneRoute>"},
      {"<bypassASroute ", "<bypassZoneRoute "},
      {"</bypassASroute>", "</bypassZoneRoute>"},
      {"\"watt_per_state\"", "\"wattage_per_state\""},
      {"\"watt_off\"", "\"wattage_off\""},
      {"\"watt_range\"", "\"wattage_range\""},
      {"\"contexts/stack_size\"", "\"contexts/stack-size\""},
      {"\"contexts/guard_size\"", "\"contexts/guard-size\""},
      {"\"network/TCP_gamma\"", "\"network/TCP-gamma\""},
      {"\"network/bandwidth_factor\"", "\"network/bandwidth-factor\""},
      {"\"network/latency_factor\"", "\"network/latency-factor\""},
      {"\"network/weight_S\"", "\"network/weight-S\""},
      {"\"smpi/bw_factor\"", "\"smpi/bw-factor\""},
      {"\"smpi/lat_factor\"", "\"smpi/lat-factor\""},
      {"<platform version=\"4\">", "<platform version=\"4.1\">"},
  };
  for (const auto& [from, to] : renames) {
    // again until none is left: two occurrences may share a quote ("a"a"), and the second is whole
    // only once the first is renamed (no `to` holds its `from`, so this ends)
    size_t n = 0;
    while (size_t more = replace_all(out, mask, from, to))
      n += more;
    if (n > 0)
      notes.push_back(std::to_string(n) + " x " + trimmed(from) + " -> " + trimmed(to));
  }

  for (const auto& key : removed)
    notes.push_back("dropped the option " + key + " (SimGrid 3.32 has none)");
  if (not smpi.empty()) {
    std::string list;
    for (const auto& key : smpi)
      list += (list.empty() ? "" : ", ") + key;
    notes.push_back("ignored the SMPI option" + std::string(smpi.size() > 1 ? "s " : " ") + list +
                    " (sgai runs no MPI code)");
  }
  for (const auto& key : overridden)
    notes.push_back("kept the run's own " + key + " over the file's");
  if (notes.size() == first_note)
    return std::nullopt;
  return out;
}

void check_xml_wattage(const std::string& text, const std::string& file)
{
  const std::string mask = mask_comments(text);
  std::string first, first_place;
  size_t bad                = 0;
  std::vector<Tag> elements = tags_named(mask, "host", 0, mask.size());
  for (auto& tag : tags_named(mask, "cluster", 0, mask.size()))
    elements.push_back(std::move(tag));
  std::sort(elements.begin(), elements.end(), [](const Tag& a, const Tag& b) { return a.begin < b.begin; });
  for (size_t e = 0; e < elements.size(); e++) {
    const Tag& tag           = elements[e];
    const std::string* speed = tag.attribute("speed");
    if (speed == nullptr || tag.empty)
      continue;
    // (an unclosed one ends where the next host or cluster begins)
    size_t limit = element_end(mask, tag, e + 1 < elements.size() ? elements[e + 1].begin : mask.size());
    for (const auto& prop : tags_named(mask, "prop", tag.end, limit)) {
      const std::string* id    = prop.attribute("id");
      const std::string* value = prop.attribute("value");
      if (id == nullptr || value == nullptr || (*id != "wattage_per_state" && *id != "watt_per_state"))
        continue;
      size_t pstates = count_of(*speed, ',') + 1;
      size_t groups  = count_of(*value, ',') + 1;
      std::string why;
      if (groups != pstates)
        why = std::to_string(pstates) + " P-state" + (pstates > 1 ? "s" : "") + " (values of speed) but " +
              std::to_string(groups) + " " + *id + " group" + (groups > 1 ? "s" : "");
      else {
        size_t start = 0;
        for (size_t k = 0; k < groups && why.empty(); k++) {
          size_t comma      = value->find(',', start);
          std::string group = value->substr(start, comma == npos ? npos : comma - start);
          size_t colons     = count_of(group, ':');
          if (colons != 1 && colons != 2)
            why = *id + " group " + std::to_string(k + 1) + " '" + group +
                  "' is not idle:all_cores nor idle:one_core:all_cores";
          start = comma + 1;
        }
      }
      if (why.empty())
        continue;
      if (bad++ == 0) {
        const std::string* name = tag.attribute("id");
        first                   = tag.name + " '" + (name ? *name : std::string()) + "': " + why;
        first_place             = "line " + std::to_string(count_of(text.substr(0, tag.begin), '\n') + 1);
      }
    }
  }
  if (bad == 0)
    return;
  std::string more = bad > 1 ? " (and " + std::to_string(bad - 1) + " more like this)" : "";
  throw InputError(
      file, first_place,
      first + ": SimGrid's energy plugin needs one group, idle:all_cores or idle:one_core:all_cores, per P-state" +
          more);
}

} // namespace sgai::platform
