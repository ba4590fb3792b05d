/* Helpers shared by the fuzz targets and the unit tests that replay their corpora: a private
 * folder for the inputs of parsers that read files, and the error raised for a real bug. */
#ifndef SGAI_TESTS_FUZZ_FUZZ_INPUT_HPP
#define SGAI_TESTS_FUZZ_FUZZ_INPUT_HPP

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <string>
#include <unistd.h>

namespace sgai::test {

/** A real bug found by a check (a crash-free failure of a property): the fuzz target aborts on it
 *  so that libFuzzer records the input; the unit tests fail on it. InputError never means a bug. */
class FuzzBug : public std::logic_error {
public:
  using std::logic_error::logic_error;
};

/** This process's folder for fuzz inputs (under $TMPDIR or /tmp), removed at exit. */
inline const std::filesystem::path& input_dir()
{
  struct Dir {
    std::filesystem::path path;
    Dir()
    {
      std::string tmpl = (std::filesystem::temp_directory_path() / "sgai-fuzz-XXXXXX").string();
      if (::mkdtemp(tmpl.data()) == nullptr)
        throw std::runtime_error("cannot create a folder for fuzz inputs under " + tmpl);
      path = tmpl;
    }
    Dir(const Dir&)            = delete;
    Dir& operator=(const Dir&) = delete;
    ~Dir()
    {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

/** Writes `bytes` to `name` in input_dir() and returns its path. */
inline std::filesystem::path write_input(const std::string& name, const std::string& bytes)
{
  auto path = input_dir() / name;
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (not out)
    throw std::runtime_error("cannot write the fuzz input " + path.string());
  return path;
}

/** The bytes of a file read back (outputs of the code under test). */
inline std::string read_back(const std::filesystem::path& path)
{
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

} // namespace sgai::test

#endif
