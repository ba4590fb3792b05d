#include "core/foundation/files.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/signals.hpp"

#include <zlib.h>

#include <cerrno>
#include <csignal>
#include <cstdlib>
#include <cstring>
#include <map>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace sgai {

namespace {

/** The nearest existing ancestor of `p` (p itself when it exists); "." for a relative path whose
 *  first component does not exist. */
std::filesystem::path nearest_existing(const std::filesystem::path& p)
{
  std::error_code ec;
  auto cur = p;
  while (not cur.empty() && not std::filesystem::exists(cur, ec)) {
    auto parent = cur.parent_path();
    if (parent == cur)
      break;
    cur = parent;
  }
  return cur.empty() ? std::filesystem::path(".") : cur;
}

void check_writable_dir(const std::filesystem::path& dir, const std::filesystem::path& shown, const std::string& source,
                        const std::string& option)
{
  std::error_code ec;
  auto existing = nearest_existing(dir);
  auto fail     = [&](const std::string& why) { throw InputError(source, option, quote(shown.string()) + " " + why); };
  if (not std::filesystem::exists(existing, ec))
    fail("cannot be created: no part of its path exists");
  if (not std::filesystem::is_directory(existing, ec)) {
    if (existing == dir)
      fail("is a file, not a folder");
    fail("cannot be created: " + existing.string() + " is a file");
  }
  // access() says yes to root everywhere, even in /proc: make and remove a probe folder instead.
  auto probe = (existing / ".sgai-probe-XXXXXX").string();
  if (::mkdtemp(probe.data()) == nullptr)
    fail(existing == dir ? std::string("is not writable: ") + std::strerror(errno)
                         : "cannot be created in " + existing.string() + ": " + std::strerror(errno));
  ::rmdir(probe.c_str());
}

/** Whether the process whose id ends `name` after `prefix` is gone (not merely someone else's). */
bool owner_is_gone(const std::string& name, const std::string& prefix)
{
  if (name.size() <= prefix.size() || name.compare(0, prefix.size(), prefix) != 0)
    return false;
  auto digits = name.substr(prefix.size());
  if (digits.size() > 9 || digits.find_first_not_of("0123456789") != std::string::npos)
    return false;
  auto pid = static_cast<pid_t>(std::stol(digits));
  return pid > 0 && pid != ::getpid() && ::kill(pid, 0) != 0 && errno == ESRCH;
}

/** Removes entries of `dir` named prefix + PID whose process is gone: what an interrupted or
 *  killed run left behind. */
void remove_stale(const std::filesystem::path& dir, const std::string& prefix)
{
  std::error_code ec;
  std::filesystem::directory_iterator it(dir, ec), end;
  std::vector<std::filesystem::path> stale;
  for (; not ec && it != end; it.increment(ec))
    if (owner_is_gone(it->path().filename().string(), prefix))
      stale.push_back(it->path());
  for (const auto& p : stale)
    std::filesystem::remove_all(p, ec);
}

/** Removes what an interrupted run left of `target` (target.tmp-PID, PID gone). The caller holds
 *  the output lock. A folder is listed once per process, its leftovers remembered: listing it for
 *  every file made writing 65,536 rank files into one folder quadratic (minutes). */
void remove_stale_temporaries(const std::filesystem::path& target)
{
  static std::map<std::filesystem::path, std::vector<std::string>> leftovers; // per folder: "*.tmp-PID" names
  auto dir          = target.parent_path().empty() ? std::filesystem::path(".") : target.parent_path();
  auto [it, listed] = leftovers.try_emplace(dir);
  std::error_code ec;
  if (listed) {
    std::filesystem::directory_iterator entry(dir, ec), end;
    for (; not ec && entry != end; entry.increment(ec)) {
      auto name = entry->path().filename().string();
      if (auto at = name.rfind(".tmp-"); at != std::string::npos && owner_is_gone(name, name.substr(0, at + 5)))
        it->second.push_back(name);
    }
  }
  std::string prefix = target.filename().string() + ".tmp-";
  for (const auto& name : it->second)
    if (owner_is_gone(name, prefix))
      std::filesystem::remove_all(dir / name, ec);
}

} // namespace

std::string read_text_file(const std::filesystem::path& path)
{
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec))
    throw InputError(path.string(), "", "is a folder, expected a file");
  std::ifstream in(path, std::ios::binary);
  if (not in)
    throw InputError(path.string(), "", std::string("cannot open file: ") + std::strerror(errno));
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad())
    throw InputError(path.string(), "", "read error");
  return ss.str();
}

AtomicFile::AtomicFile(std::filesystem::path target)
    : target_(std::move(target))
{
  auto lock = output_lock();
  auto dir  = target_.parent_path();
  if (not dir.empty())
    ensure_directory(dir);
  remove_stale_temporaries(target_);
  temp_ = target_;
  temp_ += ".tmp-" + std::to_string(::getpid());
  register_cleanup(temp_);
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (not out_) {
    unregister_cleanup(temp_);
    throw RunError("cannot write " + target_.string() + ": " + std::strerror(errno));
  }
}

AtomicFile::~AtomicFile()
{
  if (not committed_) {
    auto lock = output_lock();
    out_.close();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
    unregister_cleanup(temp_);
  }
}

void AtomicFile::commit()
{
  out_.flush();
  if (not out_)
    throw RunError("write error on " + target_.string());
  out_.close();
  auto lock = output_lock();
  std::error_code ec;
  // Renaming over a device would replace it (as root, /dev/null became a plain file): never.
  if (std::filesystem::exists(target_, ec) && not std::filesystem::is_regular_file(target_, ec))
    throw RunError("cannot write " + target_.string() + ": it is not a regular file (a device, pipe or socket)");
  std::filesystem::rename(temp_, target_, ec);
  if (ec)
    throw RunError("cannot write " + target_.string() + ": " + ec.message());
  unregister_cleanup(temp_);
  committed_ = true;
}

void write_file_atomically(const std::filesystem::path& target, const std::string& content)
{
  AtomicFile f(target);
  f.stream() << content;
  f.commit();
}

std::string read_maybe_gzip(const std::filesystem::path& file, const std::string& what)
{
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError(file.string(), "", "is a folder, expected " + what);
  gzFile f = gzopen(file.string().c_str(), "rb");
  if (f == nullptr)
    throw InputError(file.string(), "", "cannot open file");
  std::string out;
  std::vector<char> buffer(1 << 16);
  int n = 0;
  while ((n = gzread(f, buffer.data(), static_cast<unsigned>(buffer.size()))) > 0)
    out.append(buffer.data(), static_cast<size_t>(n));
  int err             = 0;
  const char* em      = gzerror(f, &err);
  bool failed         = n < 0 || (err != Z_OK && err != Z_STREAM_END);
  std::string message = failed ? std::string(em) : "";
  gzclose(f);
  if (failed)
    throw InputError(file.string(), "", "cannot read (corrupt gzip stream?): " + message);
  return out;
}

void check_output_dir(const std::filesystem::path& dir, const std::string& option, const std::string& source)
{
  if (dir.empty())
    throw InputError(source, option, "an empty path names no folder");
  check_writable_dir(dir, dir, source, option);
}

void check_output_file(const std::filesystem::path& file, const std::vector<std::filesystem::path>& inputs,
                       const std::string& option)
{
  if (file.empty())
    throw InputError("command line", option, "an empty path names no file");
  std::error_code ec;
  if (std::filesystem::is_directory(file, ec))
    throw InputError("command line", option, quote(file.string()) + " is a folder, expected a file name");
  if (std::filesystem::exists(file, ec) && not std::filesystem::is_regular_file(file, ec))
    throw InputError("command line", option,
                     quote(file.string()) + " is not a regular file (a device, pipe or socket): choose a file name");
  auto name = file.filename().string();
  if (name.empty() || name == "." || name == "..")
    throw InputError("command line", option, quote(file.string()) + " names a folder, expected a file name");
  for (const auto& in : inputs)
    if (std::filesystem::exists(file, ec) && std::filesystem::equivalent(file, in, ec))
      throw InputError("command line", option,
                       quote(file.string()) + " is the input file " + in.string() + ": choose another output");
  auto dir = file.parent_path();
  check_writable_dir(dir.empty() ? std::filesystem::path(".") : dir, dir.empty() ? "." : dir, "command line", option);
}

void check_plain_name(const std::string& name, const std::string& file, const std::string& place)
{
  auto fail = [&](const std::string& why) {
    throw InputError(file, place, quote(name.size() > 60 ? name.substr(0, 60) + "..." : name) + " " + why);
  };
  if (name.empty())
    fail("is empty: expected a name (it becomes a file name)");
  if (name.size() > 200)
    fail("is longer than 200 bytes (it becomes a file name)");
  for (unsigned char c : name)
    if (c == '/' || c == '\\' || c < 0x20 || c == 0x7f)
      fail("contains a path separator or a control character: a name may not choose a folder");
  if (name == "." || name == "..")
    fail("is not a name: a name may not choose a folder");
  if (name[0] == '.')
    fail("starts with '.': names of outputs may not be hidden");
}

void ensure_directory(const std::filesystem::path& dir)
{
  auto lock = output_lock();
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || not std::filesystem::is_directory(dir))
    throw RunError("cannot create folder " + dir.string() + (ec ? ": " + ec.message() : ""));
}

StagingDir::StagingDir(std::filesystem::path target)
    : target_(std::move(target))
{
  check_output_dir(target_);
  auto parent = target_.parent_path();
  auto name   = target_.filename().string();
  if (name.empty()) { // "results/" names the folder "results"
    parent = parent.parent_path();
    name   = target_.parent_path().filename().string();
  }
  if (parent.empty())
    parent = ".";
  auto lock = output_lock();
  ensure_directory(parent);
  auto prefix = "." + name + ".sgai-tmp-";
  remove_stale(parent, prefix);
  staging_ = parent / (prefix + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
  register_cleanup(staging_);
  ensure_directory(staging_);
}

StagingDir::~StagingDir()
{
  auto lock = output_lock();
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
  unregister_cleanup(staging_);
}

void StagingDir::publish()
{
  auto lock = output_lock();
  std::error_code ec;
  std::filesystem::create_directories(target_, ec);
  if (not std::filesystem::is_directory(target_, ec))
    throw RunError("cannot create folder " + target_.string());
  for (const auto& entry : std::filesystem::directory_iterator(staging_)) {
    auto dest = target_ / entry.path().filename();
    if (entry.is_directory() && std::filesystem::is_directory(dest, ec))
      std::filesystem::remove_all(dest, ec);
    std::filesystem::rename(entry.path(), dest, ec);
    if (ec)
      throw RunError("cannot move the results into " + target_.string() + ": " + ec.message());
  }
  std::filesystem::remove_all(staging_, ec);
  unregister_cleanup(staging_);
}

bool valid_utf8(std::string_view s)
{
  for (size_t i = 0; i < s.size();) {
    auto c      = static_cast<unsigned char>(s[i]);
    size_t more = c < 0x80 ? 0 : (c >> 5) == 0x6 ? 1 : (c >> 4) == 0xe ? 2 : (c >> 3) == 0x1e ? 3 : 4;
    if (more == 4 || i + more >= s.size()) // a byte that starts nothing, or a sequence cut short
      return false;
    uint32_t cp = more == 0 ? c : c & (0x3f >> more);
    for (size_t k = 1; k <= more; k++) {
      auto d = static_cast<unsigned char>(s[i + k]);
      if ((d >> 6) != 0x2)
        return false;
      cp = (cp << 6) | (d & 0x3f);
    }
    // no overlong forms, no surrogates, nothing above U+10FFFF
    if ((more == 1 && cp < 0x80) || (more == 2 && cp < 0x800) || (more == 3 && cp < 0x10000) ||
        (cp >= 0xd800 && cp <= 0xdfff) || cp > 0x10ffff)
      return false;
    i += more + 1;
  }
  return true;
}

namespace {

template <typename Io>
bool transfer_fd(Io io, int fd, char* data, size_t size)
{
  while (size > 0) {
    ssize_t k = io(fd, data, size);
    if (k < 0 && errno == EINTR)
      continue;
    if (k <= 0)
      return false;
    data += k;
    size -= static_cast<size_t>(k);
  }
  return true;
}

} // namespace

bool write_fd(int fd, const void* data, size_t size)
{
  return transfer_fd([](int f, char* p, size_t n) { return ::write(f, p, n); }, fd,
                     const_cast<char*>(static_cast<const char*>(data)), size);
}

bool read_fd(int fd, void* data, size_t size)
{
  return transfer_fd([](int f, char* p, size_t n) { return ::read(f, p, n); }, fd, static_cast<char*>(data), size);
}

} // namespace sgai
