#include "plugins/replay/communicator.hpp"

#include <simgrid/s4u/Actor.hpp>
#include <simgrid/s4u/Comm.hpp>
#include <simgrid/s4u/Exec.hpp>
#include <simgrid/s4u/Host.hpp>

#include <cmath>
#include <stdexcept>

namespace sgai::replay {

namespace s4u = simgrid::s4u;

struct CollectiveRun::Op {
  s4u::CommPtr comm;            ///< set by the sender when it reaches the transfer
  s4u::Actor* waiter = nullptr; ///< the receiver, suspended until the transfer exists
  s4u::Actor* sender = nullptr; ///< the sender, suspended until the receiver has it all
  bool done          = false;
};

struct CollectiveRun::Chunk {
  std::vector<Op> ops;
  uint32_t ranks_done = 0;
};

CollectiveRun::CollectiveRun(std::shared_ptr<const Schedule> schedule, std::vector<s4u::Host*> hosts, double bytes,
                             CollectiveOptions options)
    : schedule_(std::move(schedule))
    , hosts_(std::move(hosts))
    , bytes_(bytes)
    , options_(options)
{
  if (hosts_.size() != schedule_->ranks)
    throw std::invalid_argument("a collective over " + std::to_string(schedule_->ranks) + " ranks given " +
                                std::to_string(hosts_.size()) + " hosts");
  if (options_.chunks == 0 || options_.channels == 0)
    throw std::invalid_argument("a collective needs at least one chunk and one channel");
  size_t offset = 0;
  for (const auto& step : schedule_->steps) {
    step_offset_.push_back(offset);
    offset += step.size();
  }
  chunks_.resize(options_.chunks);
}

CollectiveRun::~CollectiveRun() = default;

double CollectiveRun::reduction_time(double bytes, double reduce_Bps)
{
  return reduce_Bps > 0 ? 3 * bytes / reduce_Bps : 0;
}

CollectiveRun::Chunk& CollectiveRun::chunk(uint32_t c)
{
  if (not chunks_[c]) {
    chunks_[c] = std::make_unique<Chunk>();
    chunks_[c]->ops.resize(schedule_->transfer_count());
  }
  return *chunks_[c];
}

void CollectiveRun::release(uint32_t c)
{
  if (++chunks_[c]->ranks_done == schedule_->ranks)
    chunks_[c].reset();
}

void CollectiveRun::run_chunk(uint32_t r, uint32_t c)
{
  const Schedule& s  = *schedule_;
  const double piece = bytes_ / options_.chunks;
  Chunk& ch          = chunk(c);
  std::vector<size_t> sent; // this rank's transfers of the current step
  auto wait_sent = [&]() {
    for (size_t i : sent)
      if (not ch.ops[i].done) {
        ch.ops[i].sender = s4u::Actor::self();
        s4u::this_actor::suspend();
      }
    sent.clear();
  };
  if (options_.endpoint_delay_s > 0)
    s4u::this_actor::sleep_for(options_.endpoint_delay_s);
  for (size_t k = 0; k < s.steps.size(); k++) {
    const auto& mine = s.by_rank[r][k];
    for (uint32_t i : mine.sends) {
      const Transfer& t = s.steps[k][i];
      size_t index      = step_offset_[k] + i;
      Op& op            = ch.ops[index];
      auto size         = static_cast<uint64_t>(std::llround(piece * t.fraction));
      op.comm           = s4u::Comm::sendto_async(hosts_[r], hosts_[t.dst], size);
      sent.push_back(index);
      if (op.waiter != nullptr) {
        op.waiter->resume();
        op.waiter = nullptr;
      }
    }
    for (uint32_t i : mine.recvs) {
      const Transfer& t = s.steps[k][i];
      Op& op            = ch.ops[step_offset_[k] + i];
      if (not op.comm) {
        op.waiter = s4u::Actor::self();
        s4u::this_actor::suspend();
      }
      op.comm->wait();
      op.comm = nullptr;
      op.done = true;
      if (op.sender != nullptr) {
        op.sender->resume();
        op.sender = nullptr;
      }
      if (options_.endpoint_delay_s > 0)
        s4u::this_actor::sleep_for(options_.endpoint_delay_s);
      if (t.reduce && options_.reduce_Bps > 0) {
        double seconds = reduction_time(piece * t.fraction, options_.reduce_Bps);
        s4u::ExecPtr e = s4u::Exec::init();
        e->set_host(hosts_[r]);
        e->set_flops_amount(seconds * hosts_[r]->get_speed());
        e->start();
        e->wait();
      }
    }
    // the next step starts once this one's sends have arrived too
    wait_sent();
  }
  release(c);
}

void CollectiveRun::run_rank(uint32_t r)
{
  const uint32_t channels = std::min(options_.channels, options_.chunks);
  std::vector<s4u::ActorPtr> helpers;
  for (uint32_t w = 1; w < channels; w++)
    helpers.push_back(
        s4u::Actor::create("channel" + std::to_string(w), s4u::this_actor::get_host(), [this, r, w, channels]() {
          for (uint32_t c = w; c < options_.chunks; c += channels)
            run_chunk(r, c);
        }));
  for (uint32_t c = 0; c < options_.chunks; c += channels)
    run_chunk(r, c);
  for (auto& h : helpers)
    h->join();
}

} // namespace sgai::replay
