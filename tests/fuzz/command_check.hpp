/* Whole sgai commands run on fuzzed inputs, shared by the whole-command fuzz targets and the unit
 * test that replays their corpora. SimGrid allows one Engine per process, so each command runs in
 * a forked child that executes the sgai binary of the build (SGAI_BIN, else $SGAI_BUILD_DIR/tools/
 * sgai, else the path compiled in as SGAI_FUZZ_SGAI_BINARY) in a sandbox folder of its own. The
 * child must exit 0, 1 or 2 (one "sgai: error:" line when not 0), never die of a signal, never
 * print SimGrid's or a sanitizer's failure reports, end within the time limit, write nothing
 * outside the output path it was given and leave no output after a failure. Anything else is a
 * FuzzBug naming the command and the evidence. */
#ifndef SGAI_TESTS_FUZZ_COMMAND_CHECK_HPP
#define SGAI_TESTS_FUZZ_COMMAND_CHECK_HPP

#include "fuzz_input.hpp"

#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <fcntl.h>
#include <filesystem>
#include <poll.h>
#include <set>
#include <string>
#include <sys/wait.h>
#include <unistd.h>
#include <vector>

extern char** environ;

namespace sgai::test {

/** The repository's root, where the fixed inputs are (compiled in; the working folder otherwise). */
inline std::filesystem::path source_dir()
{
#ifdef SGAI_FUZZ_SOURCE_DIR
  return SGAI_FUZZ_SOURCE_DIR;
#else
  return std::filesystem::current_path();
#endif
}

/** The sgai binary the whole-command checks run. */
inline std::filesystem::path sgai_binary()
{
  if (const char* bin = std::getenv("SGAI_BIN"))
    return bin;
  if (const char* build = std::getenv("SGAI_BUILD_DIR"))
    return std::filesystem::path(build) / "tools" / "sgai";
#ifdef SGAI_FUZZ_SGAI_BINARY
  return SGAI_FUZZ_SGAI_BINARY;
#else
  throw std::runtime_error("set SGAI_BIN to the sgai binary to run");
#endif
}

/** Files every sandbox (and the experiment check's input folder) holds: name -> source, relative
 *  to the repository. Tiny platforms (a flat one of 3 nodes, 2 GPU boxes), a workload, two NPUs
 *  on a ring with a two-rank all-reduce trace. */
inline const std::vector<std::pair<std::string, std::string>>& fixed_inputs()
{
  static const std::vector<std::pair<std::string, std::string>> files = {
      {"tiny_flat.json", "tests/fixtures/platforms/tiny_flat.json"},
      {"tiny_gpu.json", "tests/fixtures/platforms/tiny_gpu.json"},
      {"tiny_types.json", "tests/fixtures/platforms/tiny_types.json"},
      {"tiny.json", "tests/fixtures/workloads/tiny.json"},
      {"tiny.swf", "tests/fixtures/workloads/tiny.swf"},
      {"network.yml", "tests/fuzz/inputs/network.yml"},
      {"system.json", "tests/fuzz/inputs/system.json"},
      {"groups.json", "tests/fuzz/inputs/groups.json"},
      {"trace.0.et", "tests/fuzz/chakra_seeds/all_reduce.0.et"},
      {"trace.1.et", "tests/fuzz/chakra_seeds/all_reduce.1.et"}};
  return files;
}

/** Copies the fixed inputs into `dir` (created). */
inline void put_fixed_inputs(const std::filesystem::path& dir)
{
  std::filesystem::create_directories(dir);
  for (const auto& [name, from] : fixed_inputs())
    std::filesystem::copy_file(source_dir() / from, dir / name, std::filesystem::copy_options::overwrite_existing);
}

/** A fresh folder for one command: root/w is its working folder, with the inputs in w/in (the
 *  fixed ones and the fuzzed one), w/tmp as its TMPDIR, and the outputs it may write. Removed
 *  when destroyed. */
class Sandbox {
public:
  Sandbox()
  {
    std::string tmpl = (std::filesystem::temp_directory_path() / "sgai-cmd-XXXXXX").string();
    if (::mkdtemp(tmpl.data()) == nullptr)
      throw std::runtime_error("cannot create a sandbox under " + tmpl);
    root_ = tmpl;
    std::filesystem::create_directories(work() / "tmp");
    put_fixed_inputs(work() / "in");
  }
  Sandbox(const Sandbox&)            = delete;
  Sandbox& operator=(const Sandbox&) = delete;
  ~Sandbox()
  {
    std::error_code ec;
    std::filesystem::permissions(root_, std::filesystem::perms::owner_all, std::filesystem::perm_options::add, ec);
    std::filesystem::remove_all(root_, ec);
  }

  std::filesystem::path work() const { return root_ / "w"; }
  /** Writes a (fuzzed) input into w/in; returns its path relative to w. */
  std::string put(const std::string& name, const std::string& bytes) const
  {
    std::ofstream out(work() / "in" / name, std::ios::binary | std::ios::trunc);
    out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
    if (not out)
      throw std::runtime_error("cannot write " + name + " in the sandbox");
    return "in/" + name;
  }
  /** Every path under the sandbox, relative to its root. */
  std::set<std::string> listing() const
  {
    std::set<std::string> out;
    std::error_code ec;
    for (auto it = std::filesystem::recursive_directory_iterator(root_, ec);
         not ec && it != std::filesystem::recursive_directory_iterator(); it.increment(ec))
      out.insert(std::filesystem::relative(it->path(), root_).string());
    return out;
  }

private:
  std::filesystem::path root_;
};

struct CommandResult {
  int status = 0; ///< exit status (0, 1 or 2: anything else is a FuzzBug)
  std::string out, err;
};

/** Strings in the child's standard error that mean a failure inside the code, not bad input. */
inline const std::vector<std::string>& failure_markers()
{
  static const std::vector<std::string> markers = {"Backtrace",
                                                   "xbt_assert",
                                                   "The Impossible Did Happen",
                                                   "ERROR: AddressSanitizer",
                                                   "ERROR: LeakSanitizer",
                                                   "runtime error:",
                                                   "terminate called"};
  return markers;
}

/** Runs `sgai args...` in the sandbox and checks the child as the header says. `outputs` are the
 *  paths (relative to the working folder) the command may create: a folder and everything in it,
 *  or a file. Returns the status and the captured output; throws FuzzBug on a bug. */
inline CommandResult run_sgai(const Sandbox& box, const std::vector<std::string>& args,
                              const std::vector<std::string>& outputs, int timeout_s = 20)
{
  std::string bin   = sgai_binary().string();
  std::string shown = "sgai";
  for (const auto& a : args)
    shown += " " + a;
  std::vector<std::string> arg_storage = {bin};
  arg_storage.insert(arg_storage.end(), args.begin(), args.end());
  std::vector<char*> argv;
  for (auto& a : arg_storage)
    argv.push_back(a.data());
  argv.push_back(nullptr);
  // The environment: ours, with TMPDIR in the sandbox and sanitizers aborting on their reports.
  std::vector<std::string> env_storage;
  for (char** e = environ; *e != nullptr; e++) {
    std::string v = *e;
    if (v.rfind("TMPDIR=", 0) != 0 && v.rfind("ASAN_OPTIONS=", 0) != 0 && v.rfind("UBSAN_OPTIONS=", 0) != 0)
      env_storage.push_back(v);
  }
  env_storage.push_back("TMPDIR=" + (box.work() / "tmp").string());
  env_storage.push_back("ASAN_OPTIONS=abort_on_error=1:detect_leaks=0:hard_rss_limit_mb=3072");
  env_storage.push_back("UBSAN_OPTIONS=halt_on_error=1:abort_on_error=1:print_stacktrace=1");
  std::vector<char*> envp;
  for (auto& e : env_storage)
    envp.push_back(e.data());
  envp.push_back(nullptr);
  std::string work = box.work().string();
  auto before      = box.listing();

  int out_pipe[2], err_pipe[2];
  if (::pipe2(out_pipe, O_CLOEXEC) != 0 || ::pipe2(err_pipe, O_CLOEXEC) != 0)
    throw std::runtime_error("pipe failed");
  pid_t pid = ::fork();
  if (pid < 0)
    throw std::runtime_error("fork failed");
  if (pid == 0) { // the child: async-signal-safe calls only
    ::setpgid(0, 0);
    if (::chdir(work.c_str()) != 0)
      ::_exit(126);
    ::dup2(out_pipe[1], 1);
    ::dup2(err_pipe[1], 2);
    ::execve(argv[0], argv.data(), envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);
  ::close(out_pipe[1]);
  ::close(err_pipe[1]);
  CommandResult r;
  const size_t keep = 1 << 20; // bytes of each stream kept
  auto deadline     = std::chrono::steady_clock::now() + std::chrono::seconds(timeout_s);
  bool timed_out    = false;
  pollfd fds[2]     = {{out_pipe[0], POLLIN, 0}, {err_pipe[0], POLLIN, 0}};
  int open          = 2;
  while (open > 0) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0) {
      timed_out = true;
      break;
    }
    int n = ::poll(fds, 2, static_cast<int>(std::min<int64_t>(left.count(), 200)));
    if (n < 0 && errno != EINTR)
      break;
    for (int i = 0; i < 2; i++) {
      if (fds[i].fd < 0 || (fds[i].revents & (POLLIN | POLLHUP | POLLERR)) == 0)
        continue;
      char buffer[8192];
      ssize_t got = ::read(fds[i].fd, buffer, sizeof buffer);
      if (got > 0) {
        std::string& s = i == 0 ? r.out : r.err;
        if (s.size() < keep)
          s.append(buffer, static_cast<size_t>(got));
      } else if (got == 0 || errno != EINTR) {
        ::close(fds[i].fd);
        fds[i].fd = -1;
        open--;
      }
    }
  }
  int status = 0;
  if (timed_out) {
    ::kill(-pid, SIGKILL);
    ::waitpid(pid, &status, 0);
  } else {
    // Both streams closed: the command is ending; wait for it, up to the deadline.
    while (::waitpid(pid, &status, WNOHANG) == 0) {
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        ::kill(-pid, SIGKILL);
        ::waitpid(pid, &status, 0);
        break;
      }
      ::usleep(2000);
    }
    ::kill(-pid, SIGKILL); // stray grandchildren, if any
  }
  for (auto& f : fds)
    if (f.fd >= 0)
      ::close(f.fd);

  auto tail = [](const std::string& s) { return s.size() > 4000 ? "..." + s.substr(s.size() - 4000) : s; };
  auto bug  = [&](const std::string& what) {
    return FuzzBug(shown + ": " + what + "\n--- stderr:\n" + tail(r.err) + "\n--- stdout:\n" + tail(r.out));
  };
  if (timed_out)
    throw bug("still running after " + std::to_string(timeout_s) + " s (a hang)");
  if (WIFSIGNALED(status))
    throw bug(std::string("killed by signal ") + std::to_string(WTERMSIG(status)) + " (" +
              ::strsignal(WTERMSIG(status)) + ")");
  r.status = WEXITSTATUS(status);
  if (r.status == 126 || r.status == 127)
    throw std::runtime_error("cannot run " + bin + " (build it, or set SGAI_BIN)");
  if (r.status > 2)
    throw bug("exit status " + std::to_string(r.status) + " (expected 0, 1 or 2)");
  // sgai's own lines may quote the (fuzzed) input: the markers are looked for in the others
  std::string others;
  for (size_t pos = 0; pos < r.err.size();) {
    size_t end       = std::min(r.err.find('\n', pos), r.err.size());
    std::string line = r.err.substr(pos, end - pos);
    if (line.rfind("sgai: ", 0) != 0)
      others += line + "\n";
    pos = end + 1;
  }
  for (const auto& m : failure_markers())
    if (others.find(m) != std::string::npos)
      throw bug("its standard error holds '" + m + "'");
  if (r.status != 0 && r.err.find("sgai: error: ") == std::string::npos)
    throw bug("exit status " + std::to_string(r.status) + " without an 'sgai: error:' line");

  // Nothing written outside the outputs; after a failure, no output at all.
  auto after     = box.listing();
  auto is_output = [&](const std::string& path) {
    for (const auto& o : outputs) {
      auto full = "w/" + o;
      if (path == full || path.rfind(full + "/", 0) == 0)
        return true;
    }
    return false;
  };
  for (const auto& p : after)
    if (not before.count(p) && not is_output(p))
      throw bug("it wrote " + p + " (relative to the sandbox), outside its outputs");
  for (const auto& p : before)
    if (not after.count(p))
      throw bug("it removed " + p + " (relative to the sandbox)");
  if (r.status != 0)
    for (const auto& p : after)
      if (not before.count(p) && is_output(p) && not std::filesystem::is_directory(box.work() / ".." / p))
        throw bug("it failed but left the output " + p);
  return r;
}

} // namespace sgai::test

#endif
