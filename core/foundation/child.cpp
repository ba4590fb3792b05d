#include "core/foundation/child.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"

#include <poll.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <cstring>

namespace sgai {

namespace {

void append_string(std::string& buf, const std::string& s)
{
  uint64_t n = s.size();
  append_bytes(buf, &n, sizeof n);
  buf += s;
}

bool read_string(ByteReader& in, std::string& s)
{
  uint64_t n = 0;
  if (not in.read(&n, sizeof n) || n > (uint64_t{1} << 30))
    return false;
  s.resize(n);
  return in.read(s.data(), n);
}

/** The child's side: runs the body, writes its result or its exception, never returns. */
[[noreturn]] void child_main(const std::function<std::string()>& body, const ChildOptions& options, int data_fd,
                             int output_fd)
{
  if (output_fd >= 0) {
    ::dup2(output_fd, 1);
    ::dup2(output_fd, 2);
    ::close(output_fd);
  }
  if (options.default_abort) {
    struct sigaction sa {};
    sa.sa_handler = SIG_DFL;
    sigaction(SIGABRT, &sa, nullptr);
  }
  std::string buf(1, '\0');
  try {
    buf += body();
  } catch (const InputError& e) {
    buf = "I";
    append_string(buf, e.file());
    append_string(buf, e.place());
    append_string(buf, e.message());
  } catch (const UsageError& e) {
    buf = "U";
    append_string(buf, e.what());
  } catch (const std::exception& e) {
    buf = "R";
    append_string(buf, e.what());
  }
  std::fflush(nullptr); // whatever the body printed comes before the end
  bool written = write_fd(data_fd, buf.data(), buf.size());
  ::close(data_fd);
  ::_exit(buf[0] != '\0' ? 2 : written ? 0 : 3);
}

/** Reads both pipes to their end (either may fill while the other is read). */
void drain(int data_fd, int output_fd, std::string& data, std::string& output)
{
  struct pollfd fds[2] = {{data_fd, POLLIN, 0}, {output_fd, POLLIN, 0}};
  std::string* into[2] = {&data, &output};
  int open             = output_fd >= 0 ? 2 : 1;
  char chunk[65536];
  while (open > 0) {
    if (::poll(fds, 2, -1) < 0) {
      if (errno == EINTR)
        continue;
      break;
    }
    for (int k = 0; k < 2; k++) {
      if (fds[k].fd < 0 || fds[k].revents == 0)
        continue;
      ssize_t n = ::read(fds[k].fd, chunk, sizeof chunk);
      if (n > 0)
        into[k]->append(chunk, static_cast<size_t>(n));
      else if (n == 0 || errno != EINTR) {
        ::close(fds[k].fd);
        fds[k].fd = -1;
        open--;
      }
    }
  }
}

/** The body's result or exception, from what the child wrote. */
void decode(const std::string& bytes, ChildResult& r)
{
  if (bytes.empty())
    return; // the child died before writing
  if (bytes[0] == '\0') {
    r.data = bytes.substr(1);
    return;
  }
  std::string rest = bytes.substr(1);
  ByteReader in(rest);
  char kind    = bytes[0];
  bool ok      = kind == 'I'
                     ? read_string(in, r.error_file) && read_string(in, r.error_place) && read_string(in, r.error_message)
                     : read_string(in, r.error_message);
  r.error_kind = ok ? kind : 'R';
}

} // namespace

bool ChildResult::exited_ok() const
{
  return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

std::string ChildResult::error_what() const
{
  if (error_kind == 'I')
    return InputError(error_file, error_place, error_message).what();
  return error_message;
}

void ChildResult::rethrow() const
{
  if (error_kind == 'I')
    throw InputError(error_file, error_place, error_message);
  if (error_kind == 'U')
    throw UsageError(error_message);
  throw RunError(error_message);
}

ChildResult run_in_child(const std::function<std::string()>& body, const ChildOptions& options)
{
  int data[2];
  int output[2] = {-1, -1};
  if (::pipe(data) != 0)
    throw RunError("cannot create a pipe for " + options.what);
  if (options.capture_output && ::pipe(output) != 0) {
    ::close(data[0]);
    ::close(data[1]);
    throw RunError("cannot create a pipe for " + options.what);
  }
  std::fflush(nullptr);
  pid_t pid = ::fork();
  if (pid < 0) {
    for (int fd : {data[0], data[1], output[0], output[1]})
      if (fd >= 0)
        ::close(fd);
    throw RunError("cannot fork " + options.what);
  }
  if (pid == 0) {
    ::close(data[0]);
    if (output[0] >= 0)
      ::close(output[0]);
    child_main(body, options, data[1], output[1]);
  }
  ::close(data[1]);
  if (output[1] >= 0)
    ::close(output[1]);
  ChildResult r;
  std::string bytes;
  drain(data[0], output[0], bytes, r.output);
  while (::waitpid(pid, &r.status, 0) < 0 && errno == EINTR) {
  }
  decode(bytes, r);
  return r;
}

void append_bytes(std::string& buf, const void* data, size_t size)
{
  buf.append(static_cast<const char*>(data), size);
}

bool ByteReader::read(void* out, size_t size)
{
  if (bytes_.size() - at_ < size)
    return false;
  std::memcpy(out, bytes_.data() + at_, size);
  at_ += size;
  return true;
}

} // namespace sgai
