/* A streaming JSON writer for large outputs (resource hierarchies, results): no document tree in
 * memory, deterministic number formatting, one record per line inside arrays of records. */
#ifndef SGAI_CORE_FOUNDATION_JSON_WRITER_HPP
#define SGAI_CORE_FOUNDATION_JSON_WRITER_HPP

#include <cstdint>
#include <ostream>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::json {

class Writer {
public:
  explicit Writer(std::ostream& out)
      : out_(out)
  {
  }

  /** Containers. `inline_` keeps the container on one line (records of an array). */
  Writer& begin_object(bool inline_ = false);
  Writer& end_object();
  Writer& begin_array(bool inline_ = false);
  Writer& end_array();
  /** The key of the next value (inside an object). */
  Writer& key(std::string_view k);

  Writer& value(std::string_view s);
  Writer& value(const char* s) { return value(std::string_view(s)); }
  Writer& value(double d);
  Writer& value(int64_t i);
  Writer& value(uint64_t u);
  Writer& value(int i) { return value(static_cast<int64_t>(i)); }
  Writer& value(unsigned u) { return value(static_cast<uint64_t>(u)); }
  Writer& value(bool b);
  Writer& null();
  /** Already serialized JSON, inserted as is. */
  Writer& raw(std::string_view json);

  /** key + value in one call. */
  template <typename T>
  Writer& field(std::string_view k, const T& v)
  {
    key(k);
    return value(v);
  }

  static std::string escape(std::string_view s);

private:
  struct Level {
    bool is_object;
    bool inline_;
    bool empty;
  };
  void before_value();
  void newline();

  std::ostream& out_;
  std::vector<Level> stack_;
  bool after_key_ = false;
};

} // namespace sgai::json

#endif
