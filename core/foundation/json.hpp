/* Strict reading of JSON input files: duplicate keys, unknown keys, wrong types and bad units are
 * errors that name the file, the JSON pointer, the value and what was expected. The parser's own
 * document type stays inside (json_raw.hpp reaches it, for sgai's sources only): this header
 * includes no JSON library. */
#ifndef SGAI_CORE_FOUNDATION_JSON_HPP
#define SGAI_CORE_FOUNDATION_JSON_HPP

#include "core/foundation/units.hpp"

#include <cstdint>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::json {

class Object;
class Value;

/** A parsed JSON document that remembers where it came from. */
struct Document {
  std::shared_ptr<const std::string> file; ///< path as given by the user, used in every message
  std::shared_ptr<const void> root;        ///< the parser's document (json_raw.hpp); never null once loaded

  Value value() const;
  /** The root, which must be an object. */
  Object object() const;
  /** The value at a JSON pointer (RFC 6901: "/a/0/b~1c"; "" is the root), null included; nothing
   *  when the pointer is malformed or leads nowhere. For places named by pointers (a campaign's
   *  parameters, a figure of a run's summary). */
  std::optional<Value> at(const std::string& pointer) const;
};

/** Reads and parses a JSON file. Syntax errors report the line and column; duplicate keys in an
 *  object are errors (a silently dropped value is a typo the user never sees). */
Document load(const std::filesystem::path& path);
/** Same, for text already in memory; `file` names it in messages. */
Document parse(const std::string& text, const std::string& file);

/** JSON pointer of a child: pointer("/a", "b/c") == "/a/b~1c". */
std::string child_pointer(const std::string& parent, std::string_view key);
std::string child_pointer(const std::string& parent, size_t index);

/** Read access to one JSON object. Every key read is marked; finish() rejects the others.
 *  Keys starting with '_' (such as HDeepRM's "_doc") are comments and always allowed. */
class Object {
public:
  /** `node`: a node of a Document's root (json_raw.hpp). */
  Object(const void* node, std::string pointer, std::shared_ptr<const std::string> file);

  bool has(std::string_view key) const;
  /** Whether the key is there at all: null, empty or comment keys included (has() counts null as
   *  absent; keys() leaves out the empty key and comments). Marks nothing. */
  bool contains(std::string_view key) const;
  /** The value at key; error "missing field" when absent. */
  Value required(std::string_view key);
  /** The value at key, or nothing when absent (null counts as absent). */
  std::optional<Value> optional(std::string_view key);
  /** Keys in document order, comments excluded. */
  std::vector<std::string> keys() const;
  /** Every key, marking all as used: for objects whose keys are names (type catalogues). */
  std::vector<std::string> take_all_keys();
  /** Rejects keys that were never read, listing the accepted ones. */
  void finish(const std::vector<std::string>& accepted = {}) const;

  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return *file_; }
  /** An InputError at this object (or at one of its keys). */
  [[noreturn]] void fail(const std::string& message) const;
  [[noreturn]] void fail_at(std::string_view key, const std::string& message) const;

private:
  const void* node_;
  std::string pointer_;
  std::shared_ptr<const std::string> file_;
  std::vector<std::string> used_; ///< keys read (objects have few: a search beats a tree)
  bool all_used_ = false;         ///< take_all_keys() was called

  void mark(std::string_view key);
};

/** Read access to one JSON value with typed, checked conversions. */
class Value {
public:
  /** `node`: a node of a Document's root (json_raw.hpp). */
  Value(const void* node, std::string pointer, std::shared_ptr<const std::string> file);

  Object object() const;
  std::vector<Value> array() const;
  std::string string() const;
  bool boolean() const;
  double number() const;
  /** A whole number (1 or 1.0, not 1.5) within [min, max]. */
  int64_t integer(int64_t min = INT64_MIN, int64_t max = INT64_MAX) const;
  /** A number > 0. */
  double positive() const;
  /** A number >= 0. */
  double non_negative() const;
  /** A quantity: a string with a unit ("10Gbps"), or a bare number read in `bare_unit_factor`
   *  units (e.g. 1e9/8 for Gbps). The result is in SI base units. */
  double quantity(units::Quantity q, std::optional<double> bare_unit_factor = std::nullopt) const;
  /** One of the allowed strings; the error lists them. */
  std::string choice(const std::vector<std::string>& allowed) const;

  bool is_string() const;
  bool is_number() const;
  bool is_object() const;
  bool is_array() const;
  bool is_null() const;
  /** A number written as a whole number (3, -3; not 3.0 or 3e0). */
  bool is_integer() const;

  /** The whole number, when the value is one (is_integer()) and the type holds it; nothing
   *  otherwise, without error: for readers that word their own message or skip what they do not
   *  take. */
  std::optional<int64_t> as_int64() const;
  std::optional<uint64_t> as_uint64() const;
  /** The value as compact JSON text, keys in sorted order ("[1,2]", "{\"a\":\"b\"}"): what a
   *  reader keeps verbatim, to write back or parse later. */
  std::string dump() const;

  /** Short rendering of the value for messages ("'10Gbsp'", "-3", "an object"). */
  std::string shown() const;
  const std::string& pointer() const { return pointer_; }
  const std::string& file() const { return *file_; }
  [[noreturn]] void fail(const std::string& message) const;
  /** The parser's node (json_raw.hpp). */
  const void* node() const { return node_; }

private:
  const void* node_;
  std::string pointer_;
  std::shared_ptr<const std::string> file_;
};

/** Comma-separated list of names for "known: ..." messages, truncated after `limit` names. */
std::string list_names(const std::vector<std::string>& names, size_t limit = 40);

} // namespace sgai::json

#endif
