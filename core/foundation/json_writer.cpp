#include "core/foundation/json_writer.hpp"

#include "core/foundation/numbers.hpp"

#include <cmath>
#include <cstdio>

namespace sgai::json {

std::string Writer::escape(std::string_view s)
{
  std::string out;
  out.reserve(s.size() + 2);
  out += '"';
  for (char c : s) {
    switch (c) {
    case '"':
      out += "\\\"";
      break;
    case '\\':
      out += "\\\\";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    case '\r':
      out += "\\r";
      break;
    default:
      if (static_cast<unsigned char>(c) < 0x20) {
        char buf[8];
        std::snprintf(buf, sizeof buf, "\\u%04x", static_cast<unsigned>(static_cast<unsigned char>(c)));
        out += buf;
      } else {
        out += c;
      }
    }
  }
  out += '"';
  return out;
}

void Writer::newline()
{
  out_ << '\n';
  for (size_t i = 0; i < stack_.size(); i++)
    out_ << ' ';
}

void Writer::before_value()
{
  if (after_key_) {
    after_key_ = false;
    return;
  }
  if (stack_.empty())
    return;
  Level& l = stack_.back();
  if (not l.empty)
    out_ << (l.inline_ ? ", " : ",");
  if (not l.inline_)
    newline();
  l.empty = false;
}

Writer& Writer::begin_object(bool inline_)
{
  before_value();
  out_ << '{';
  stack_.push_back({true, inline_ || (not stack_.empty() && stack_.back().inline_), true});
  return *this;
}

Writer& Writer::end_object()
{
  Level l = stack_.back();
  stack_.pop_back();
  if (not l.inline_ && not l.empty)
    newline();
  out_ << '}';
  if (stack_.empty())
    out_ << '\n';
  return *this;
}

Writer& Writer::begin_array(bool inline_)
{
  before_value();
  out_ << '[';
  stack_.push_back({false, inline_ || (not stack_.empty() && stack_.back().inline_), true});
  return *this;
}

Writer& Writer::end_array()
{
  Level l = stack_.back();
  stack_.pop_back();
  if (not l.inline_ && not l.empty)
    newline();
  out_ << ']';
  if (stack_.empty())
    out_ << '\n';
  return *this;
}

namespace {
/** Writes a JSON string; strings without characters to escape go out in one write. */
void write_string(std::ostream& out, std::string_view s)
{
  bool plain = true;
  for (char c : s)
    plain = plain && c != '"' && c != '\\' && static_cast<unsigned char>(c) >= 0x20;
  if (plain) {
    out.put('"');
    out.write(s.data(), static_cast<std::streamsize>(s.size()));
    out.put('"');
  } else {
    out << Writer::escape(s);
  }
}
} // namespace

Writer& Writer::key(std::string_view k)
{
  before_value();
  write_string(out_, k);
  out_ << ": ";
  after_key_ = true;
  return *this;
}

Writer& Writer::value(std::string_view s)
{
  before_value();
  write_string(out_, s);
  return *this;
}

Writer& Writer::value(double d)
{
  before_value();
  if (std::isfinite(d))
    out_ << format_number(d);
  else
    out_ << "null";
  return *this;
}

Writer& Writer::value(int64_t i)
{
  before_value();
  out_ << i;
  return *this;
}

Writer& Writer::value(uint64_t u)
{
  before_value();
  out_ << u;
  return *this;
}

Writer& Writer::value(bool b)
{
  before_value();
  out_ << (b ? "true" : "false");
  return *this;
}

Writer& Writer::null()
{
  before_value();
  out_ << "null";
  return *this;
}

Writer& Writer::raw(std::string_view json)
{
  before_value();
  out_ << json;
  return *this;
}

} // namespace sgai::json
