/* Errors raised on bad user input: one message naming the file, the place and the value. */
#ifndef SGAI_CORE_FOUNDATION_ERROR_HPP
#define SGAI_CORE_FOUNDATION_ERROR_HPP

#include <stdexcept>
#include <string>

namespace sgai {

/** Bad input from a user file or option.
 *
 * The message reads "<file>: <place>: <message>", where place is a JSON pointer ("at /clusters/0/id"),
 * a line ("line 12") or a byte offset; it is meant to be printed as is, on one line. */
class InputError : public std::runtime_error {
public:
  InputError(std::string file, std::string place, std::string message);

  const std::string& file() const { return file_; }
  const std::string& place() const { return place_; }
  const std::string& message() const { return message_; }

private:
  std::string file_;
  std::string place_;
  std::string message_;
};

/** Wrong on the command line alone (a malformed or out-of-bounds option value): exit status 2.
 *  The message names the option and the value. */
class UsageError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/** A run that could not complete (simulation failure, unwritable output): exit status 1 as well. */
class RunError : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/** Quotes a value for an error message: 'value'. */
std::string quote(const std::string& value);

} // namespace sgai

#endif
