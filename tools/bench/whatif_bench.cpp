/* What-if engine benchmark: reads a Kineto trace (or a folder of ranks), builds the dependency
 * graph, walks it; prints the wall time of each phase, the peak memory of the process and the
 * graph's size. Usage: whatif_bench TRACE [WALKS] (the walk is timed as the mean of WALKS runs). */
#include "core/whatif/build.hpp"
#include "core/whatif/walk.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <exception>

namespace {

double peak_mib()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return double(u.ru_maxrss) / 1024.0;
}

} // namespace

int main(int argc, char** argv)
{
  using namespace sgai::whatif;
  using clock = std::chrono::steady_clock;
  if (argc < 2) {
    std::fprintf(stderr, "usage: whatif_bench TRACE [WALKS]\n");
    return 2;
  }
  int walks = argc > 2 ? std::atoi(argv[2]) : 20;
  if (walks < 1)
    walks = 1;
  try {
    double before = peak_mib();
    auto t0       = clock::now();
    std::vector<KinetoTrace> traces;
    uint64_t events = 0;
    for (const auto& f : trace_files(argv[1])) {
      traces.push_back(read_kineto(f));
      events += traces.back().events.size() + traces.back().other_events;
    }
    auto t1 = clock::now();
    BuildReport report;
    Graph g = build_joined(traces, BuildOptions{}, &report);
    traces.clear();
    traces.shrink_to_fit();
    auto t2        = clock::now();
    int64_t finish = 0;
    for (int i = 0; i < walks; ++i)
      finish = walk(g).finish;
    auto t3 = clock::now();
    auto s  = [](auto a, auto b) { return std::chrono::duration<double>(b - a).count(); };
    std::printf("trace           %s\n", argv[1]);
    std::printf("events          %llu\n", static_cast<unsigned long long>(events));
    std::printf("tasks           %zu (edges %zu, ranges %zu)\n", g.tasks.size(), g.edges.size(), g.ranges.size());
    std::printf("read            %.3f s\n", s(t0, t1));
    std::printf("build           %.3f s\n", s(t1, t2));
    std::printf("graph total     %.3f s (read + build)\n", s(t0, t2));
    std::printf("walk            %.4f s (mean of %d)\n", s(t2, t3) / walks, walks);
    std::printf("peak memory     %.1f MiB (process; %.1f MiB before reading)\n", peak_mib(), before);
    std::printf("walk finish     %lld ns after the origin\n", static_cast<long long>(finish - walk(g).origin));
  } catch (const std::exception& e) {
    std::fprintf(stderr, "whatif_bench: error: %s\n", e.what());
    return 1;
  }
  return 0;
}
