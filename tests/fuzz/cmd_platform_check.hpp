/* The `sgai platform generate` + `sgai platform inspect` whole-command check, shared by its fuzz
 * target and the corpus replay test. A fuzzed platform JSON is generated (the XML, deployment
 * and hierarchy written to a fresh folder), then inspected as JSON and, when generation
 * succeeded, the XML sgai wrote is inspected too: SimGrid must load it. Input starting with '<'
 * is SimGrid XML and only inspected (sgai's legacy translation, then SimGrid's loader under
 * sgai's abort guard). The same bytes first go through the in-process platform checks, which
 * guide the fuzzer (the child's coverage does not reach it). */
#ifndef SGAI_TESTS_FUZZ_CMD_PLATFORM_CHECK_HPP
#define SGAI_TESTS_FUZZ_CMD_PLATFORM_CHECK_HPP

#include "command_check.hpp"
#include "platform_json_check.hpp"
#include "platform_xml_check.hpp"

#include <string>

namespace sgai::test {

/** True when the commands accept the platform, false when they reject it; FuzzBug on a bug. */
inline bool check_cmd_platform_bytes(const std::string& bytes)
{
  auto first = bytes.find_first_not_of(" \t\r\n");
  bool xml   = first != std::string::npos && bytes[first] == '<';
  Sandbox box;
  if (xml) {
    (void)check_platform_xml_bytes(bytes);
    auto in = box.put("fuzz.xml", bytes);
    return run_sgai(box, {"platform", "inspect", in}, {}).status == 0;
  }
  (void)check_platform_text(bytes);
  auto in  = box.put("fuzz.json", bytes);
  auto gen = run_sgai(box, {"platform", "generate", in, "--out", "out", "--deployment", "worker"}, {"out"});
  auto ins = run_sgai(box, {"platform", "inspect", in}, {});
  if (gen.status != 0)
    return false;
  if (ins.status != 0)
    throw FuzzBug("sgai platform generate accepts this platform but sgai platform inspect rejects it:\n" + ins.err);
  for (const auto& entry : std::filesystem::directory_iterator(box.work() / "out")) {
    auto name = entry.path().filename().string();
    if (entry.path().extension() != ".xml" || name.find(".deployment.") != std::string::npos)
      continue;
    auto x = run_sgai(box, {"platform", "inspect", "out/" + name}, {});
    if (x.status != 0)
      throw FuzzBug("SimGrid rejects the XML sgai platform generate wrote (out/" + name + "):\n" + x.err);
  }
  return true;
}

} // namespace sgai::test

#endif
