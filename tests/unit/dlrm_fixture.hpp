/* PARAM's 8-rank DLRM pair (PyTorch host execution traces + Kineto traces, tar.gz in
 * ../shared/data/pytorch-et/param), extracted once per test process, and its conversion. */
#ifndef SGAI_TESTS_UNIT_DLRM_FIXTURE_HPP
#define SGAI_TESTS_UNIT_DLRM_FIXTURE_HPP

#include "chakra/convert.hpp"
#include "chakra/et_io.hpp"
#include "test_paths.hpp"

#include <cstdlib>
#include <filesystem>
#include <stdexcept>
#include <string>
#include <vector>

namespace sgai::test {

inline std::filesystem::path dlrm_dir()
{
  static const std::filesystem::path dir = []() {
    auto d = temp_dir() / "dlrm";
    std::filesystem::create_directories(d);
    for (const char* tarball : {"dlrm_pytorch_et.tar.gz", "dlrm_kineto.tar.gz"}) {
      std::string cmd =
          "tar -xzf '" + shared_data(std::string("pytorch-et/param/") + tarball).string() + "' -C '" + d.string() + "'";
      if (std::system(cmd.c_str()) != 0)
        throw std::runtime_error("failed: " + cmd);
    }
    return d;
  }();
  return dir;
}

inline std::filesystem::path dlrm_kineto(int rank)
{
  for (const auto& e : std::filesystem::directory_iterator(dlrm_dir() / "dlrm_kineto"))
    if (e.path().filename().string().rfind("worker" + std::to_string(rank) + "_", 0) == 0)
      return e.path();
  return {};
}

/** The 8 ranks converted (host trace + Kineto) to <dlrm_dir>/<prefix>.N.et; returns the files. */
inline std::vector<std::filesystem::path> dlrm_converted(const std::string& prefix)
{
  std::vector<std::filesystem::path> files;
  for (int r = 0; r < 8; r++) {
    auto file = dlrm_dir() / (prefix + "." + std::to_string(r) + ".et");
    chakra::write_trace(
        file, chakra::convert_pytorch(dlrm_dir() / "dlrm_pytorch_et" / ("dlrm_eg_" + std::to_string(r) + ".json"),
                                      dlrm_kineto(r)));
    files.push_back(file);
  }
  return files;
}

} // namespace sgai::test

#endif
