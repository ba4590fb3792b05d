/* Work run in a forked child process: SimGrid allows one Engine per process and aborts on some bad
 * input, so what must run in an Engine of its own (an option check, a calibration, a what-if
 * graph, an episode) runs in a child, and its result or its error comes back through a pipe. */
#ifndef SGAI_CORE_FOUNDATION_CHILD_HPP
#define SGAI_CORE_FOUNDATION_CHILD_HPP

#include <cstddef>
#include <functional>
#include <string>

namespace sgai {

struct ChildOptions {
  /** What the child does, for the error when it cannot be started ("cannot fork <what>"). */
  std::string what = "a child process";
  /** The child's standard output and error are captured into ChildResult::output (else they are
   *  the parent's). */
  bool capture_output = false;
  /** SIGABRT gets its default action in the child, so that an abort ends it at once (SimGrid
   *  aborts on some bad options; sgai's own handler is the parent's business). */
  bool default_abort = false;
};

/** What a child gave back. */
struct ChildResult {
  int status = 0;     ///< waitpid's status
  std::string data;   ///< what the body returned
  std::string output; ///< its standard output and error, when captured
  /** The body's exception: 0 (none), 'I' (an InputError: error_file, error_place, error_message),
   *  'U' (a UsageError), 'R' (any other; error_message is its what()). */
  char error_kind = 0;
  std::string error_file;
  std::string error_place;
  std::string error_message;

  /** The child ended by returning from its body (exit status 0). */
  bool exited_ok() const;
  bool threw() const { return error_kind != 0; }
  /** what() of the child's exception (empty when it threw none). */
  std::string error_what() const;
  /** Throws the child's exception again, as its kind (InputError with its parts, UsageError, or
   *  RunError). Only when threw(). */
  [[noreturn]] void rethrow() const;
};

/** Runs `body` in a forked child and waits for it. The string `body` returns comes back as
 *  ChildResult::data; an exception it throws comes back described (ChildResult::error_*, exit
 *  status 2); a child that dies (a signal, _exit) gives back what it had written. Output buffers
 *  are flushed before the fork. RunError when no pipe or child can be made. */
ChildResult run_in_child(const std::function<std::string()>& body, const ChildOptions& options = {});

/** Appends `size` bytes at `data` to a child's result. */
void append_bytes(std::string& buf, const void* data, size_t size);

/** Reads a child's result back in the order it was appended. */
class ByteReader {
public:
  explicit ByteReader(const std::string& bytes)
      : bytes_(bytes)
  {
  }
  /** The next `size` bytes into `out`; false (and nothing read) when fewer are left. */
  bool read(void* out, size_t size);

private:
  const std::string& bytes_;
  size_t at_ = 0;
};

} // namespace sgai

#endif
