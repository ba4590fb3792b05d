/* Transfers that start together and share links, timed as SimGrid's CM02/LV08 network model times
 * them when nothing else is on those links: each flow pays its latency first (sharing nothing),
 * then the flows in their bandwidth phase share every link by weighted max-min fairness (SimGrid's
 * lmm: a flow's share of a link is its consumption weight over its sharing penalty, links hold
 * their capacity, each flow at most its own bound), and the shares are worked out again whenever a
 * flow enters its bandwidth phase or ends. A link is full when what is left of it is below
 * maxmin/precision of its capacity, as lmm decides. Plain C++ (no SimGrid): the replay's caller
 * gives routes, capacities and penalties (plugins/communicator/network.hpp). */
#ifndef SGAI_PLUGINS_COMMUNICATOR_SHARED_FLOWS_HPP
#define SGAI_PLUGINS_COMMUNICATOR_SHARED_FLOWS_HPP

#include <cstdint>
#include <functional>
#include <utility>
#include <vector>

namespace sgai::communicator {

struct SharedFlow {
  double latency = 0; ///< seconds before it shares anything (the route's latency x the latency factor)
  double bytes   = 0;
  double penalty = 1;  ///< SimGrid's sharing penalty (> 0): its share of a link is weight / penalty
  double bound   = -1; ///< its rate's own bound in bytes per second (< 0: none)
  std::vector<std::pair<uint32_t, double>> links; ///< (link, consumption weight > 0), each link once
};

/** The links: capacity[l] is link l's (bytes per second, > 0); fatpipe[l] (when given) says that
 *  link l is a fat pipe, which lmm does not divide by a sum: a flow's level on it is the largest
 *  weight / penalty of its flows (so flows of different penalties still get different shares). */
struct SharedLinks {
  std::vector<double> capacity;
  std::vector<char> fatpipe;
};

/** max_min_rates' working arrays, kept between calls by a caller that solves often. */
struct MaxMinScratch {
  std::vector<uint32_t> stamp, local; ///< per link: the call that met it last, its number there
  uint32_t round = 0;
  std::vector<uint32_t> global, count, start, saturated;
  std::vector<std::pair<uint32_t, double>> entries; ///< per link met, its (flow, weight)s
  std::vector<double> remaining, bound, share, usage;
  std::vector<char> fat, full;
};

/** max_min_rates into `rate`, with `scratch`'s arrays. */
void max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links, double precision,
                   MaxMinScratch& scratch, std::vector<double>& rate);

/** Flows that start at any instants on one network, timed as above as they come: a flow is added
 *  when it starts, and the network says when the next thing happens (a flow ends or enters its
 *  bandwidth phase) and which flows ended. As SimGrid's lazy update does, only the flows that share
 *  links, directly or through others, with a flow that entered or ended get their shares worked out
 *  again, and what happens within `time_precision` (SimGrid's surf/precision) of an instant happens
 *  at it. A flow that never met another on a link while both were under way ends at the lone time
 *  its caller gives, as is. */
class FlowNetwork {
public:
  /** `fat_pipes_exact`: whether flows that meet on a fat pipe are timed as SimGrid times them (see
   *  LoneFlows::fat_pipes_exact); when not, such a meeting makes the network unable to go on. */
  /** `links` stays the caller's, and may grow (links added) while the network lives. */
  /** `added_in_simgrids_order`: flows are added in the order SimGrid creates their communications
   *  (otherwise, flows entering their bandwidth phase at the same time in an order that matters
   *  make the network unable to go on: enter_order_matters). */
  explicit FlowNetwork(const SharedLinks& links, double precision = 1e-5, bool fat_pipes_exact = true,
                       double time_precision = 1e-9, bool added_in_simgrids_order = true);
  /** Adds a flow starting at `now` (not before the last instant handled); `lone_end`: when it would
   *  end alone (< 0: as worked out here). Returns its number (reused once it has ended). */
  uint32_t add(double now, const SharedFlow& f, double lone_end = -1);
  /** When the next flow ends or enters its bandwidth phase; infinity when none is under way. NaN
   *  once what comes cannot be worked out here: a flow left without bandwidth (SimGrid would wait
   *  forever), an empty flow meeting another on a link (SimGrid 3.32 never ends it), flows meeting
   *  on a fat pipe that is not exact, flows whose order is not known entering in an order that
   *  matters. */
  double next_event();
  /** Handles what happens up to `t` (t <= next_event()), appending (flow, end) for each flow that
   *  ended, in the order they came out. Flows added at the instant last advanced to, and what ends
   *  there, are one round of SimGrid's engine: their shares are worked out once, when the network
   *  is asked for its next event or advanced further. */
  void advance(double t, std::vector<std::pair<uint32_t, double>>& ended);
  /** The instant last advanced to. */
  double now() const { return now_; }
  /** next_event() before the shares of the current instant are worked out: what still happens at
   *  this instant (within its time precision), or something later (perhaps not the next). */
  double next_event_now() { return peek(); }
  /** Whether a link carries a flow under way (latency phase included). */
  bool busy(uint32_t link) const { return link < on_link_.size() && not on_link_[link].empty(); }
  size_t under_way() const { return live_; }
  /** The flows that ended having shared a link with another under way. */
  uint64_t shared_count() const { return shared_count_; }

private:
  struct Flow {
    SharedFlow f;
    double remains = 0, rate = 0, last = 0, lone_end = -1;
    uint32_t version = 0;
    bool live = false, active = false, shared = false;
    std::vector<uint32_t> slot; ///< per link of f.links, its place in on_link_
  };
  /** Ties in time come out in the order they were pushed (SimGrid's stable action heap: a flow's
   *  latency event when it was added, its end when its shares were last worked out). */
  struct Event {
    double at;
    uint64_t seq;
    uint32_t flow, version;
    bool enter;
    bool operator>(const Event& o) const { return at != o.at ? at > o.at : seq > o.seq; }
  };
  void push_end(uint32_t id, double now);
  double peek(); ///< next_event() without working shares out
  void solve(double now);
  void remove(uint32_t id);
  /** lmm's selective update: link l's shares are to be worked out again, with those of every link
   *  reached from it through flows under way, stopping at links already marked this round. */
  void mark(uint32_t l);
  /** The walk mark() makes, over rounds kept in `link_round` and `flow_round`: from link l, every
   *  link of every flow that `active` says is under way on a reached link; `reached(link)` for each
   *  link reached (l first), none twice in one round. */
  template <class Active, class Reached>
  void closure(uint32_t l, std::vector<uint32_t>& link_round, std::vector<uint32_t>& flow_round, uint32_t round,
               Active active, Reached reached);
  /** Whether the flows entering their bandwidth phase at one instant (entered_), taken in SimGrid's
   *  order, mark other links than they would with each run of equal times reversed: which of them
   *  comes first then decides what lmm works out again, and the order SimGrid's actors started
   *  them in is not known here. `before`: the links marked before them. */
  bool enter_order_matters(size_t before);
  /** Max-min shares of the flows under way on `links` (those marked by `marked`), each bounded
   *  only by its marked links, as lmm's selective update works them out: `part` and `rate`. */
  template <class Marked>
  void shares(const std::vector<uint32_t>& links, Marked marked, std::vector<uint32_t>& part,
              std::vector<double>& rate);
  const SharedLinks& links_;
  double precision_, time_precision_;
  bool fat_pipes_exact_, added_in_simgrids_order_;
  std::vector<Flow> flows_;
  std::vector<uint32_t> free_;
  std::vector<std::vector<uint32_t>> on_link_;   ///< per link: the flows under way on it
  std::vector<std::vector<uint32_t>> on_link_k_; ///< per link: each of those flows' place of it in f.links
  std::vector<Event> heap_;                      ///< a min-heap by time
  std::vector<uint32_t> marked_;                 ///< the links marked this round (mark), in order
  std::vector<uint32_t> bare_;                   ///< flows without links entering their bandwidth phase
  std::vector<uint32_t> mark_;                   ///< per flow: the round that last visited it
  std::vector<uint32_t> link_mark_;              ///< per link: the round that last marked it
  std::vector<uint32_t> stack_;                  ///< mark's links to visit
  std::vector<uint32_t> part_;                   ///< solve's flows
  std::vector<uint32_t> in_part_;                ///< per flow: the round that put it in part_
  std::vector<const SharedFlow*> view_;
  std::vector<SharedFlow> cut_; ///< solve's copies of flows with links not marked (lmm leaves them out)
  std::vector<std::pair<uint32_t, bool>> popped_;    ///< advance's flows that ended (flow, before its own time)
  std::vector<std::pair<uint32_t, double>> entered_; ///< advance's flows entering, with their times
  /** enter_order_matters' stamps: per link marked, per flow entering / entered / visited. */
  std::vector<uint32_t> link_b_, entering_b_, active_b_, visit_b_;
  uint32_t round_b_ = 0, part_round_ = 0;
  /** When the other order marks other links: those links (the round's marks after the enters are
   *  added to them), and where the round's marks after the enters start; solve then checks that
   *  both give every flow the same share. */
  bool check_b_ = false;
  std::vector<uint32_t> links_b_, part_b_;
  std::vector<double> rate_b_;
  size_t after_enters_ = 0;
  std::vector<double> rate_;
  MaxMinScratch scratch_;
  uint32_t round_        = 1;
  uint64_t seq_          = 0;
  double now_            = 0;
  size_t live_           = 0;
  uint64_t shared_count_ = 0;
  bool stalled_          = false;
};

/** When each flow of `flows`, all starting at `start`, ends (NaN for all when one would never
 *  end): a FlowNetwork given them all at once. `precision`: lmm's maxmin/precision (SimGrid's
 *  default 1e-5). */
std::vector<double> shared_finish_times(double start, const std::vector<SharedFlow>& flows, const SharedLinks& links,
                                        double precision = 1e-5);

/** The rates of `flows` (every one in its bandwidth phase) by weighted max-min fairness, as above;
 *  infinity for a flow with neither link nor bound, 0 for one left only on full links. */
std::vector<double> max_min_rates(const std::vector<const SharedFlow*>& flows, const SharedLinks& links,
                                  double precision = 1e-5);

} // namespace sgai::communicator

#endif
