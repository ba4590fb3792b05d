/* File helpers: whole-file reads with clear errors, and outputs that never look complete when
 * they are not (written under a temporary name, renamed on success). */
#ifndef SGAI_CORE_FOUNDATION_FILES_HPP
#define SGAI_CORE_FOUNDATION_FILES_HPP

#include <filesystem>
#include <fstream>
#include <string>
#include <string_view>
#include <vector>

namespace sgai {

/** The whole content of a file; InputError naming the file when it cannot be read. */
std::string read_text_file(const std::filesystem::path& path);

/** Whether the bytes are valid UTF-8 (no overlong forms, surrogates or code points above U+10FFFF):
 *  text that ends up in JSON, which must be UTF-8. */
bool valid_utf8(std::string_view s);

/** The whole content of a plain or gzip-compressed file (zlib reads both); InputError naming the
 *  file when it cannot be read. `what` names the expected content for the folder error. */
std::string read_maybe_gzip(const std::filesystem::path& path, const std::string& what = "a file");

/** An output file written under a temporary name in the same folder and renamed to its final
 *  name by commit(). Destroyed without commit() (an error was thrown), it removes the temporary. */
class AtomicFile {
public:
  explicit AtomicFile(std::filesystem::path target);
  AtomicFile(const AtomicFile&)            = delete;
  AtomicFile& operator=(const AtomicFile&) = delete;
  ~AtomicFile();

  std::ostream& stream() { return out_; }
  /** Flushes, checks for write errors and renames to the final name. */
  void commit();
  const std::filesystem::path& target() const { return target_; }

private:
  std::filesystem::path target_;
  std::filesystem::path temp_;
  std::ofstream out_;
  bool committed_ = false;
};

/** Writes a whole file atomically. */
void write_file_atomically(const std::filesystem::path& target, const std::string& content);

/** Checks, before any work, that `dir` can become an output folder, and creates nothing: "" is
 *  refused; an existing path must be a folder this process can write into; otherwise its nearest
 *  existing ancestor must be. InputError (`source`, `option`) naming the path and the reason. */
void check_output_dir(const std::filesystem::path& dir, const std::string& option = "--out",
                      const std::string& source = "command line");

/** The same for an output file: its folder as above, the file itself no folder and no device,
 *  pipe or socket, and none of `inputs` (a command never overwrites what it reads). */
void check_output_file(const std::filesystem::path& file, const std::vector<std::filesystem::path>& inputs = {},
                       const std::string& option = "--out");

/** A name read from an input file that becomes (part of) an output file name: InputError at
 *  (file, place) unless it is a plain name, so that it never chooses a folder: not empty, at most
 *  200 bytes, no '/', backslash, control character or NUL, not "." or "..", not starting with '.'. */
void check_plain_name(const std::string& name, const std::string& file, const std::string& place);

/** Writes all of `size` bytes to the file descriptor `fd`, again after an interruption (pipes
 *  between sgai's processes); false when it cannot. */
bool write_fd(int fd, const void* data, size_t size);
/** Reads exactly `size` bytes from `fd`, again after an interruption; false at an early end. */
bool read_fd(int fd, void* data, size_t size);

/** Creates the folder (and parents); RunError when impossible. */
void ensure_directory(const std::filesystem::path& dir);

/** A folder of outputs built under a hidden name beside its target (".<name>.sgai-tmp-<pid>") and
 *  moved into the target by publish(), file by file (files already in the target and not produced
 *  again stay). Destroyed without publish(), it removes everything it holds. */
class StagingDir {
public:
  explicit StagingDir(std::filesystem::path target);
  StagingDir(const StagingDir&)            = delete;
  StagingDir& operator=(const StagingDir&) = delete;
  ~StagingDir();

  const std::filesystem::path& path() const { return staging_; }
  void publish();

private:
  std::filesystem::path target_;
  std::filesystem::path staging_;
};

} // namespace sgai

#endif
