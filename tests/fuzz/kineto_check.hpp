/* What the Kineto fuzz target checks for one input, shared with the corpus replay test: the bytes
 * are read as a PyTorch profiler trace (sgai whatif's reader); rejected with an InputError, or read.
 * A trace read with GPU activity becomes a dependency graph (or an InputError) whose walk ends
 * (no cycle), whose unchanged walk gives every step a non-negative time, and which still walks after
 * amp-daydream and fused-optimizer (or their InputError). */
#ifndef SGAI_TESTS_FUZZ_KINETO_CHECK_HPP
#define SGAI_TESTS_FUZZ_KINETO_CHECK_HPP

#include "core/foundation/error.hpp"
#include "core/whatif/analysis.hpp"
#include "core/whatif/build.hpp"
#include "core/whatif/kineto.hpp"
#include "core/whatif/optimize.hpp"
#include "core/whatif/walk.hpp"
#include "fuzz_input.hpp"

#include <string>

namespace sgai::test {

/** True when the bytes were read as a trace with GPU activity and predicted. */
inline bool check_kineto_bytes(const std::string& bytes)
{
  using namespace sgai::whatif;
  KinetoTrace t;
  try {
    t = parse_kineto(bytes, "trace.json");
  } catch (const InputError&) {
    return false;
  }
  Graph g;
  try {
    g = build_graph(t);
  } catch (const InputError&) {
    return false;
  }
  WalkResult w;
  try {
    w = walk(g);
  } catch (const RunError& e) {
    throw FuzzBug(std::string("a trace made a graph with a cycle: ") + e.what());
  }
  for (const StepFigures& s : step_figures(g, w))
    if (s.time_ns < 0 || s.gpu_busy_ns < 0 || s.cpu_only_ns < 0 - s.gpu_busy_ns)
      throw FuzzBug("a step with a negative time: " + s.name);
  for (const char* opt : {"amp-daydream", "fused-optimizer", "ddp"}) {
    Graph h = g;
    try {
      apply_optimizations(h, {opt}, WhatIfContext{});
    } catch (const InputError&) {
      continue;
    }
    try {
      walk(h);
    } catch (const RunError& e) {
      throw FuzzBug(std::string(opt) + " made a cycle: " + e.what());
    }
  }
  return true;
}

} // namespace sgai::test

#endif
