/* Benchmark of the Chakra reader and feeder: reads an ET (reader alone), then replays it through
 * the Feeder as a simulator with CONCURRENCY nodes in flight would (issue while fewer are in
 * flight, complete the oldest); prints nodes per second and the peak resident memory.
 * Usage: chakra_feeder_bench TRACE.et [WINDOW] [CONCURRENCY] */
#include "chakra/feeder.hpp"

#include <sys/resource.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <deque>

using namespace sgai::chakra;

namespace {

double peak_mib()
{
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_maxrss) / 1024.0;
}

double seconds_since(std::chrono::steady_clock::time_point t0)
{
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

} // namespace

int main(int argc, char** argv)
{
  if (argc < 2) {
    std::fprintf(stderr, "usage: %s TRACE.et [WINDOW]\n", argv[0]);
    return 2;
  }
  size_t window      = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 65536;
  size_t concurrency = argc > 3 ? std::strtoull(argv[3], nullptr, 10) : 256;
  try {
    auto t0 = std::chrono::steady_clock::now();
    EtReader reader(argv[1]);
    Node n;
    uint64_t read = 0;
    while (reader.next(n))
      read++;
    double read_s   = seconds_since(t0);
    double read_mib = peak_mib();

    t0 = std::chrono::steady_clock::now();
    Feeder::Options o;
    o.window = window;
    Feeder feeder(EtReader(argv[1]), o);
    std::deque<uint64_t> issued;
    uint64_t resolved = 0;
    size_t max_window = 0;
    for (;;) {
      while (issued.size() < concurrency)
        if (const Node* node = feeder.next_issuable())
          issued.push_back(node->id);
        else
          break;
      max_window = std::max(max_window, feeder.nodes_in_window());
      if (issued.empty())
        break;
      feeder.complete(issued.front());
      issued.pop_front();
      resolved++;
    }
    double feed_s = seconds_since(t0);
    std::printf("file: %s\n", argv[1]);
    std::printf("read only:   %llu nodes in %.3f s = %.0f nodes/s, peak %.1f MiB\n",
                static_cast<unsigned long long>(read), read_s, static_cast<double>(read) / read_s, read_mib);
    std::printf("feeder:      %llu nodes read and resolved in %.3f s = %.0f nodes/s (window %zu, %zu in flight, at "
                "most %zu held, %zu completed-id intervals), peak %.1f MiB\n",
                static_cast<unsigned long long>(resolved), feed_s, static_cast<double>(resolved) / feed_s, window,
                concurrency, max_window, feeder.completed_intervals(), peak_mib());
    return feeder.finished() && resolved == read ? 0 : 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "chakra_feeder_bench: error: %s\n", e.what());
    return 1;
  }
}
