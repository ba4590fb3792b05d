#include "core/foundation/json.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"
#include "core/foundation/numbers.hpp"

#include <nlohmann/json.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>

namespace sgai::json {

namespace {

std::string place_of(const std::string& pointer)
{
  return pointer.empty() ? std::string("at (root)") : "at " + pointer;
}

std::string escape_token(std::string_view key)
{
  if (key.find_first_of("~/") == std::string_view::npos)
    return std::string(key);
  std::string out;
  for (char c : key) {
    if (c == '~')
      out += "~0";
    else if (c == '/')
      out += "~1";
    else
      out += c;
  }
  return out;
}

/** Builds the document in one SAX pass and rejects a duplicate key with its JSON pointer (the
 *  DOM parser would keep the last value silently; its callback parser walks the parent container
 *  at every object end, quadratic for large objects). A syntax error is kept for the caller. */
class StrictDom : public nlohmann::json_sax<nlohmann::json> {
public:
  StrictDom(nlohmann::json& root, std::shared_ptr<const std::string> file)
      : root_(root)
      , file_(std::move(file))
  {
  }

  bool null() override { return put(nullptr) != nullptr; }
  bool boolean(bool val) override { return put(val) != nullptr; }
  bool number_integer(number_integer_t val) override { return put(val) != nullptr; }
  bool number_unsigned(number_unsigned_t val) override { return put(val) != nullptr; }
  bool number_float(number_float_t val, const string_t& /*s*/) override { return put(val) != nullptr; }
  bool string(string_t& val) override { return put(std::move(val)) != nullptr; }
  bool binary(binary_t& val) override { return put(nlohmann::json::binary(std::move(val))) != nullptr; }
  bool start_object(std::size_t /*elements*/) override { return open(nlohmann::json::value_t::object); }
  bool start_array(std::size_t /*elements*/) override { return open(nlohmann::json::value_t::array); }
  bool end_object() override { return close(); }
  bool end_array() override { return close(); }
  bool key(string_t& key) override
  {
    auto& members    = frames_.back().node->get_ref<nlohmann::json::object_t&>();
    auto [it, fresh] = members.emplace(std::move(key), nullptr);
    if (not fresh)
      throw InputError(*file_, place_of(pointer_to(it->first)),
                       "duplicate key " + quote(it->first) + " in the same object (each key may appear once)");
    slot_     = &it->second;
    slot_key_ = &it->first;
    return true;
  }
  bool parse_error(std::size_t position, const std::string& /*last_token*/,
                   const nlohmann::detail::exception& ex) override
  {
    error_at_ = position;
    error_    = ex.what();
    overflow_ = ex.id == 406; // a number too large for a double (out_of_range)
    return false;
  }

  std::size_t error_at() const { return error_at_; }
  const std::string& error() const { return error_; }
  bool overflow() const { return overflow_; }

private:
  struct Frame {
    nlohmann::json* node;
    const std::string* key; ///< its key in its parent object (null: in an array or the root)
    std::size_t index;      ///< its index in its parent array
  };

  /** The value goes where the document is: the root, the end of an array or the last key's slot. */
  template <class V>
  nlohmann::json* put(V&& v)
  {
    if (frames_.empty()) {
      root_ = nlohmann::json(std::forward<V>(v));
      return &root_;
    }
    nlohmann::json& top = *frames_.back().node;
    if (top.is_array()) {
      auto& items = top.get_ref<nlohmann::json::array_t&>();
      items.emplace_back(std::forward<V>(v));
      return &items.back();
    }
    *slot_ = nlohmann::json(std::forward<V>(v));
    return slot_;
  }
  bool open(nlohmann::json::value_t type)
  {
    bool in_object        = not frames_.empty() && frames_.back().node->is_object();
    const std::string* k  = in_object ? slot_key_ : nullptr;
    std::size_t index     = (not frames_.empty() && not in_object) ? frames_.back().node->size() : 0;
    nlohmann::json* child = put(type);
    frames_.push_back({child, k, index});
    return true;
  }
  bool close()
  {
    frames_.pop_back();
    return true;
  }
  /** The pointer of `key` in the innermost object (built only for the error). */
  std::string pointer_to(const std::string& key) const
  {
    std::string out;
    for (size_t i = 1; i < frames_.size(); i++)
      out += "/" + (frames_[i].key != nullptr ? escape_token(*frames_[i].key) : std::to_string(frames_[i].index));
    return out + "/" + escape_token(key);
  }

  nlohmann::json& root_;
  std::shared_ptr<const std::string> file_;
  std::vector<Frame> frames_;
  nlohmann::json* slot_        = nullptr;
  const std::string* slot_key_ = nullptr;
  std::size_t error_at_        = 0;
  std::string error_;
  bool overflow_ = false;
};

std::string strip_nlohmann_prefix(const std::string& what)
{
  // "[json.exception.parse_error.101] parse error at line 3, column 5: syntax error ..." -> "syntax error ..."
  auto pos = what.find(": ");
  if (what.rfind("[json.exception", 0) == 0 && pos != std::string::npos)
    return what.substr(pos + 2);
  return what;
}

std::pair<size_t, size_t> line_column(const std::string& text, size_t byte)
{
  size_t line = 1;
  size_t col  = 1;
  for (size_t i = 0; i < byte && i < text.size(); i++) {
    if (text[i] == '\n') {
      line++;
      col = 1;
    } else {
      col++;
    }
  }
  return {line, col};
}

} // namespace

namespace {
/** A node of a document (json.hpp keeps it as an opaque pointer). */
const nlohmann::json& J(const void* node)
{
  return *static_cast<const nlohmann::json*>(node);
}
} // namespace

Value Document::value() const
{
  return Value(root.get(), "", file);
}

Object Document::object() const
{
  return value().object();
}

std::optional<Value> Document::at(const std::string& pointer) const
{
  const nlohmann::json& top = J(root.get());
  try {
    nlohmann::json::json_pointer p(pointer);
    if (not top.contains(p))
      return std::nullopt;
    return Value(&top.at(p), pointer, file);
  } catch (const nlohmann::json::exception&) { // a malformed pointer, or an index that is not one
    return std::nullopt;
  }
}

Document parse(const std::string& text, const std::string& file)
{
  Document doc;
  doc.file  = std::make_shared<const std::string>(file);
  auto root = std::make_shared<nlohmann::json>();
  StrictDom dom(*root, doc.file);
  if (not nlohmann::json::sax_parse(text, &dom)) {
    if (dom.overflow()) // a number too large for a double (out_of_range 406)
      throw InputError(file, "", "invalid JSON: " + strip_nlohmann_prefix(dom.error()));
    // the position is 1-based and points just past the offending character
    auto [line, col] = line_column(text, dom.error_at() > 0 ? dom.error_at() - 1 : 0);
    throw InputError(file, "line " + std::to_string(line) + ", column " + std::to_string(col),
                     "invalid JSON: " + strip_nlohmann_prefix(dom.error()));
  }
  doc.root = std::move(root);
  return doc;
}

Document load(const std::filesystem::path& path)
{
  return parse(read_text_file(path), path.string());
}

std::string child_pointer(const std::string& parent, std::string_view key)
{
  // built in one allocation: readers of large documents make one per value they read
  std::string out;
  out.reserve(parent.size() + 1 + key.size());
  out += parent;
  out += '/';
  if (key.find_first_of("~/") == std::string_view::npos)
    out += key;
  else
    out += escape_token(key);
  return out;
}

std::string child_pointer(const std::string& parent, size_t index)
{
  char digits[24];
  auto end = std::to_chars(digits, digits + sizeof digits, index).ptr;
  std::string out;
  out.reserve(parent.size() + 1 + size_t(end - digits));
  out += parent;
  out += '/';
  out.append(digits, end);
  return out;
}

std::string list_names(const std::vector<std::string>& names, size_t limit)
{
  std::string out;
  for (size_t i = 0; i < names.size() && i < limit; i++)
    out += (i ? ", " : "") + quote(names[i]);
  if (names.size() > limit)
    out += ", ... (" + std::to_string(names.size()) + " in all)";
  if (names.empty())
    out = "none";
  return out;
}

// ---------------------------------------------------------------------------------------------- Object

Object::Object(const void* node, std::string pointer, std::shared_ptr<const std::string> file)
    : node_(node)
    , pointer_(std::move(pointer))
    , file_(std::move(file))
{
  if (not J(node).is_object())
    throw InputError(*file_, place_of(pointer_), "expected an object, got " + Value(node, pointer_, file_).shown());
}

bool Object::has(std::string_view key) const
{
  auto it = J(node_).find(key);
  return it != J(node_).end() && not it->is_null();
}

bool Object::contains(std::string_view key) const
{
  return J(node_).find(key) != J(node_).end();
}

void Object::mark(std::string_view key)
{
  if (not all_used_ && std::find(used_.begin(), used_.end(), key) == used_.end())
    used_.emplace_back(key);
}

Value Object::required(std::string_view key)
{
  mark(key);
  auto it = J(node_).find(key);
  if (it == J(node_).end() || it->is_null())
    fail("missing field " + quote(std::string(key)));
  return Value(&*it, child_pointer(pointer_, key), file_);
}

std::optional<Value> Object::optional(std::string_view key)
{
  mark(key);
  auto it = J(node_).find(key);
  if (it == J(node_).end() || it->is_null())
    return std::nullopt;
  return Value(&*it, child_pointer(pointer_, key), file_);
}

std::vector<std::string> Object::keys() const
{
  std::vector<std::string> out;
  for (auto it = J(node_).begin(); it != J(node_).end(); ++it)
    if (not it.key().empty() && it.key()[0] != '_')
      out.push_back(it.key());
  return out;
}

std::vector<std::string> Object::take_all_keys()
{
  all_used_ = true;
  return keys();
}

void Object::finish(const std::vector<std::string>& accepted) const
{
  for (auto it = J(node_).begin(); it != J(node_).end(); ++it) {
    const std::string& key = it.key();
    if (all_used_ || key.empty() || key[0] == '_' || std::find(used_.begin(), used_.end(), key) != used_.end())
      continue;
    std::vector<std::string> known = accepted;
    if (known.empty()) {
      known = used_;
      std::sort(known.begin(), known.end());
    }
    fail_at(key, "unknown key " + quote(key) + " (accepted keys here: " + list_names(known) + ")");
  }
}

void Object::fail(const std::string& message) const
{
  throw InputError(*file_, place_of(pointer_), message);
}

void Object::fail_at(std::string_view key, const std::string& message) const
{
  throw InputError(*file_, place_of(child_pointer(pointer_, key)), message);
}

// ---------------------------------------------------------------------------------------------- Value

Value::Value(const void* node, std::string pointer, std::shared_ptr<const std::string> file)
    : node_(node)
    , pointer_(std::move(pointer))
    , file_(std::move(file))
{
}

bool Value::is_string() const
{
  return J(node_).is_string();
}
bool Value::is_number() const
{
  return J(node_).is_number();
}
bool Value::is_object() const
{
  return J(node_).is_object();
}
bool Value::is_array() const
{
  return J(node_).is_array();
}
bool Value::is_null() const
{
  return J(node_).is_null();
}
bool Value::is_integer() const
{
  return J(node_).is_number_integer();
}

std::optional<int64_t> Value::as_int64() const
{
  const nlohmann::json& n = J(node_);
  if (n.is_number_unsigned()) {
    auto u = n.get<uint64_t>();
    return u <= static_cast<uint64_t>(INT64_MAX) ? std::optional<int64_t>(static_cast<int64_t>(u)) : std::nullopt;
  }
  if (n.is_number_integer())
    return n.get<int64_t>();
  return std::nullopt;
}

std::optional<uint64_t> Value::as_uint64() const
{
  const nlohmann::json& n = J(node_);
  if (n.is_number_unsigned())
    return n.get<uint64_t>();
  if (n.is_number_integer() && n.get<int64_t>() >= 0)
    return static_cast<uint64_t>(n.get<int64_t>());
  return std::nullopt;
}

std::string Value::dump() const
{
  return J(node_).dump();
}

std::string Value::shown() const
{
  if (J(node_).is_string()) {
    auto s = J(node_).get<std::string>();
    if (s.size() > 60)
      s = s.substr(0, 57) + "...";
    return quote(s);
  }
  if (J(node_).is_object())
    return "an object";
  if (J(node_).is_array())
    return "an array";
  if (J(node_).is_null())
    return "null";
  return J(node_).dump();
}

void Value::fail(const std::string& message) const
{
  throw InputError(*file_, place_of(pointer_), message);
}

Object Value::object() const
{
  return Object(node_, pointer_, file_);
}

std::vector<Value> Value::array() const
{
  if (not J(node_).is_array())
    fail("expected an array, got " + shown());
  std::vector<Value> out;
  out.reserve(J(node_).size());
  for (size_t i = 0; i < J(node_).size(); i++)
    out.emplace_back(&J(node_)[i], child_pointer(pointer_, i), file_);
  return out;
}

std::string Value::string() const
{
  if (not J(node_).is_string())
    fail("expected a string, got " + shown());
  return J(node_).get<std::string>();
}

bool Value::boolean() const
{
  if (not J(node_).is_boolean())
    fail("expected true or false, got " + shown());
  return J(node_).get<bool>();
}

double Value::number() const
{
  if (not J(node_).is_number())
    fail("expected a number, got " + shown());
  return J(node_).get<double>();
}

int64_t Value::integer(int64_t min, int64_t max) const
{
  if (not J(node_).is_number())
    fail("expected a whole number, got " + shown());
  double d = J(node_).get<double>();
  if (J(node_).is_number_integer()) {
    auto v = J(node_).is_number_unsigned() ? static_cast<int64_t>(J(node_).get<uint64_t>()) : J(node_).get<int64_t>();
    if (v < min || v > max)
      fail("value " + shown() + " out of range: expected a whole number between " + std::to_string(min) + " and " +
           std::to_string(max));
    return v;
  }
  if (std::floor(d) != d)
    fail("value " + shown() + " is not a whole number");
  if (d < static_cast<double>(min) || d > static_cast<double>(max))
    fail("value " + shown() + " out of range: expected a whole number between " + std::to_string(min) + " and " +
         std::to_string(max));
  return static_cast<int64_t>(d);
}

double Value::positive() const
{
  double d = number();
  if (not(d > 0) || not std::isfinite(d))
    fail("value " + shown() + " must be positive");
  return d;
}

double Value::non_negative() const
{
  double d = number();
  if (not(d >= 0) || not std::isfinite(d))
    fail("value " + shown() + " must not be negative");
  return d;
}

double Value::quantity(units::Quantity q, std::optional<double> bare_unit_factor) const
{
  if (J(node_).is_number()) {
    if (not bare_unit_factor)
      fail("value " + shown() + " has no unit: expected " + units::expected(q));
    return J(node_).get<double>() * *bare_unit_factor;
  }
  if (not J(node_).is_string())
    fail("expected " + units::expected(q) + ", got " + shown());
  auto parsed = units::parse(J(node_).get<std::string>(), q);
  if (not parsed)
    fail("malformed " + std::string(units::name(q)) + " " + shown() + ": expected " + units::expected(q));
  return *parsed;
}

std::string Value::choice(const std::vector<std::string>& allowed) const
{
  std::string s = string();
  for (const auto& a : allowed)
    if (a == s)
      return s;
  fail("unknown value " + shown() + " (expected one of: " + list_names(allowed) + ")");
}

} // namespace sgai::json
