/* Paths used by the tests. Tests run from the repository root (see cmake/sgai.cmake). */
#ifndef SGAI_TESTS_UNIT_TEST_PATHS_HPP
#define SGAI_TESTS_UNIT_TEST_PATHS_HPP

#define SGAI_REQUIRE_SHARED_DATA()                                                                                     \
  if (not ::sgai::test::have_shared_data())                                                                            \
  GTEST_SKIP() << "no ../shared/data beside the checkout"

#include "core/foundation/error.hpp"

#include <filesystem>
#include <functional>
#include <string>
#include <system_error>
#include <unistd.h>

namespace sgai::test {

inline std::filesystem::path fixture(const std::string& name)
{
  return std::filesystem::path("tests/fixtures") / name;
}

/** Third-party data beside the checkout (../shared/data); CI has it. */
inline std::filesystem::path shared_data(const std::string& name)
{
  return std::filesystem::path("../shared/data") / name;
}

/** True when ../shared/data is there; tests of third-party data skip without it. */
inline bool have_shared_data()
{
  std::error_code ec;
  return std::filesystem::is_directory("../shared/data", ec);
}

/** A folder for this test process's files, removed when the process exits. */
inline const std::filesystem::path& temp_dir()
{
  struct Dir {
    std::filesystem::path path = std::filesystem::temp_directory_path() / ("sgai-test-" + std::to_string(::getpid()));
    Dir() { std::filesystem::create_directories(path); }
    ~Dir()
    {
      std::error_code ec;
      std::filesystem::remove_all(path, ec);
    }
  };
  static const Dir dir;
  return dir.path;
}

inline std::filesystem::path hdeeprm_platform(const std::string& name)
{
  return shared_data("platforms/hdeeprm/platform_examples/" + name + ".json");
}

inline std::filesystem::path hdeeprm_types()
{
  return shared_data("platforms/hdeeprm/hdeeprm/data");
}

/** The message of the InputError `f` throws, or "no error". */
inline std::string error_of(const std::function<void()>& f)
{
  try {
    f();
  } catch (const InputError& e) {
    return e.what();
  }
  return "no error";
}

} // namespace sgai::test

#endif
