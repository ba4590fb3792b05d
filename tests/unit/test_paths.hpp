/* Paths used by the tests. Tests run from the repository root (see cmake/sgai.cmake). */
#ifndef SGAI_TESTS_PATHS_HPP
#define SGAI_TESTS_PATHS_HPP

#include <filesystem>
#include <string>

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

inline std::filesystem::path hdeeprm_platform(const std::string& name)
{
  return shared_data("platforms/hdeeprm/platform_examples/" + name + ".json");
}

inline std::filesystem::path hdeeprm_types()
{
  return shared_data("platforms/hdeeprm/hdeeprm/data");
}

} // namespace sgai::test

#endif
