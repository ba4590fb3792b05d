/* The ZeroMQ REQ socket to an external scheduler (cppzmq). */
#include "plugins/batch/external.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/numbers.hpp"

#include <zmq.hpp>

#include <chrono>

namespace sgai::batch {

struct SchedulerSocket::Zmq {
  zmq::context_t context{1};
  zmq::socket_t socket{context, zmq::socket_type::req};
};

SchedulerSocket::SchedulerSocket(const std::string& endpoint, double timeout_s)
    : zmq_(std::make_unique<Zmq>())
    , endpoint_(endpoint)
    , timeout_s_(timeout_s)
{
  zmq_->socket.set(zmq::sockopt::linger, 0);
  try {
    zmq_->socket.connect(endpoint);
  } catch (const zmq::error_t& e) {
    throw UsageError("--socket-endpoint: ZeroMQ cannot connect to " + quote(endpoint) + ": " + e.what());
  }
}

SchedulerSocket::~SchedulerSocket() = default;

std::string SchedulerSocket::exchange(const std::string& request)
{
  if (broken_)
    throw RunError("scheduler at " + endpoint_ + ": no request can follow one left unanswered");
  broken_ = true; // until the reply is read
  requests_++;
  try {
    std::string reply = exchange_once(request);
    broken_           = false;
    return reply;
  } catch (const zmq::error_t& e) {
    throw RunError("scheduler at " + endpoint_ + ": request " + std::to_string(requests_) + ": " + e.what());
  }
}

std::string SchedulerSocket::exchange_once(const std::string& request)
{
  // A REQ socket queues the request until the scheduler is there: the send never blocks for long,
  // the reply is what is waited for (in slices, so that the deadline holds whatever the peer does).
  if (not zmq_->socket.send(zmq::buffer(request), zmq::send_flags::dontwait))
    throw RunError("scheduler at " + endpoint_ + ": request " + std::to_string(requests_) + " could not be sent");
  zmq::pollitem_t item{static_cast<void*>(zmq_->socket), 0, ZMQ_POLLIN, 0};
  auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s_);
  while (true) {
    auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - std::chrono::steady_clock::now());
    if (left.count() <= 0)
      throw RunError("scheduler at " + endpoint_ + ": no reply to request " + std::to_string(requests_) + " within " +
                     format_number(timeout_s_) +
                     " s (the scheduler died, hangs, or listens elsewhere; --socket-timeout sets the limit)");
    if (zmq::poll(&item, 1, std::chrono::milliseconds(std::min<int64_t>(left.count(), 200))) > 0)
      break;
  }
  zmq::message_t reply;
  if (not zmq_->socket.recv(reply, zmq::recv_flags::dontwait))
    throw RunError("scheduler at " + endpoint_ + ": reply " + std::to_string(requests_) + " could not be read");
  return reply.to_string();
}

} // namespace sgai::batch
