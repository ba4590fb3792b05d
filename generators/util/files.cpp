#include "generators/util/files.hpp"

#include "generators/util/error.hpp"

#include <zlib.h>

#include <cerrno>
#include <cstring>
#include <sstream>
#include <unistd.h>
#include <vector>

namespace sgai {

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
  auto dir = target_.parent_path();
  if (not dir.empty())
    ensure_directory(dir);
  temp_ = target_;
  temp_ += ".tmp-" + std::to_string(::getpid());
  out_.open(temp_, std::ios::binary | std::ios::trunc);
  if (not out_)
    throw RunError("cannot write " + target_.string() + ": " + std::strerror(errno));
}

AtomicFile::~AtomicFile()
{
  if (not committed_) {
    out_.close();
    std::error_code ec;
    std::filesystem::remove(temp_, ec);
  }
}

void AtomicFile::commit()
{
  out_.flush();
  if (not out_)
    throw RunError("write error on " + target_.string());
  out_.close();
  std::error_code ec;
  std::filesystem::rename(temp_, target_, ec);
  if (ec)
    throw RunError("cannot rename " + temp_.string() + " to " + target_.string() + ": " + ec.message());
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

void ensure_directory(const std::filesystem::path& dir)
{
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec || not std::filesystem::is_directory(dir))
    throw RunError("cannot create folder " + dir.string() + (ec ? ": " + ec.message() : ""));
}

StagingDir::StagingDir(std::filesystem::path target)
    : target_(std::move(target))
{
  auto parent = target_.parent_path();
  if (parent.empty())
    parent = ".";
  auto name = target_.filename().string();
  if (name.empty()) // "results/" names the folder "results"
    name = target_.parent_path().filename().string();
  staging_ = parent / ("." + name + ".sgai-tmp-" + std::to_string(::getpid()));
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
  ensure_directory(staging_);
}

StagingDir::~StagingDir()
{
  std::error_code ec;
  std::filesystem::remove_all(staging_, ec);
}

void StagingDir::publish()
{
  ensure_directory(target_);
  std::error_code ec;
  for (const auto& entry : std::filesystem::directory_iterator(staging_)) {
    auto dest = target_ / entry.path().filename();
    if (entry.is_directory() && std::filesystem::is_directory(dest, ec))
      std::filesystem::remove_all(dest, ec);
    std::filesystem::rename(entry.path(), dest, ec);
    if (ec)
      throw RunError("cannot move " + entry.path().string() + " to " + dest.string() + ": " + ec.message());
  }
  std::filesystem::remove_all(staging_, ec);
}

} // namespace sgai
