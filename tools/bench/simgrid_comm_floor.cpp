/* SimGrid's own cost of a ring collective's pattern, without the replay: N hosts on a ring of links
 * (50 GB/s, 500 ns, CM02, split-duplex), one actor per host; at every step each actor sends 4 KiB to
 * the next host (Comm::sendto_async), waits for the piece from the previous one, then sleeps 17.7 ns
 * (an endpoint delay and a reduction, as the replay does with Ring_4chunks.json). It prints the
 * communications per CPU-second: the ceiling of any replay that gives every transfer its own
 * SimGrid communication (tools/bench/replay_vs_astra.sh compares; docs/benchmarks.md).
 * Usage: simgrid_comm_floor HOSTS STEPS   (64 50400: the 3,225,600 transfers of 64 ranks x 100
 * chained 1 MiB ring all-reduces in 4 chunks) */
#include <simgrid/s4u.hpp>

#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <deque>
#include <string>
#include <vector>

namespace sg4 = simgrid::s4u;

namespace {

struct Ring {
  std::vector<sg4::Host*> hosts;
  std::vector<std::deque<sg4::CommPtr>> inbox; ///< pieces sent to each host, in order
  std::vector<sg4::Actor*> waiting;            ///< an actor suspended until its inbox has a piece
  long steps    = 0;
  long received = 0;
};

void rank(Ring& ring, size_t r)
{
  const size_t n = ring.hosts.size();
  for (long k = 0; k < ring.steps; k++) {
    size_t next = (r + 1) % n;
    ring.inbox[next].push_back(sg4::Comm::sendto_async(ring.hosts[r], ring.hosts[next], 4096));
    if (ring.waiting[next] != nullptr) {
      sg4::Actor* w      = ring.waiting[next];
      ring.waiting[next] = nullptr;
      w->resume();
    }
    while (ring.inbox[r].empty()) {
      ring.waiting[r] = sg4::Actor::self();
      sg4::this_actor::suspend();
    }
    sg4::CommPtr in = ring.inbox[r].front();
    ring.inbox[r].pop_front();
    in->wait();
    ring.received++;
    sg4::this_actor::sleep_for(17.7e-9);
  }
}

} // namespace

int main(int argc, char** argv)
{
  sg4::Engine e(&argc, argv);
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s HOSTS STEPS\n", argv[0]);
    return 2;
  }
  long hosts = std::atol(argv[1]);
  Ring ring;
  ring.steps = std::atol(argv[2]);
  if (hosts < 2 || hosts > 100000 || ring.steps < 1) {
    std::fprintf(stderr, "HOSTS must be 2 to 100,000 and STEPS at least 1\n");
    return 2;
  }
  e.set_config("network/model:CM02");
  auto* zone = sg4::create_full_zone("ring");
  for (long i = 0; i < hosts; i++)
    ring.hosts.push_back(zone->create_host("h" + std::to_string(i), 1e12));
  for (long i = 0; i < hosts; i++) {
    auto* link = zone->create_split_duplex_link("l" + std::to_string(i), 50.0 * (1 << 30))->set_latency(500e-9);
    zone->add_route(ring.hosts[i]->get_netpoint(), ring.hosts[(i + 1) % hosts]->get_netpoint(), nullptr, nullptr,
                    {sg4::LinkInRoute(link, sg4::LinkInRoute::Direction::UP)}, false);
  }
  zone->seal();
  ring.inbox.resize(ring.hosts.size());
  ring.waiting.assign(ring.hosts.size(), nullptr);
  for (size_t r = 0; r < ring.hosts.size(); r++)
    sg4::Actor::create("r" + std::to_string(r), ring.hosts[r], [&ring, r]() { rank(ring, r); });
  std::clock_t t0 = std::clock();
  e.run();
  double cpu = static_cast<double>(std::clock() - t0) / CLOCKS_PER_SEC;
  std::printf("%ld hosts x %ld steps: %ld communications in %.2f CPU s, %.0f per CPU-second (simulated %.9f s)\n",
              hosts, ring.steps, ring.received, cpu, static_cast<double>(ring.received) / cpu,
              sg4::Engine::get_clock());
  return 0;
}
