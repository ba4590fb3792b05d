#include "core/rl/protocol.hpp"

#include "core/foundation/error.hpp"
#include "core/foundation/files.hpp"

#include <cerrno>
#include <unistd.h>

namespace sgai::rl::protocol {

bool send_bytes(int fd, const void* data, size_t size)
{
  return write_fd(fd, data, size);
}

bool receive_bytes(int fd, void* data, size_t size)
{
  return read_fd(fd, data, size);
}

bool Message::send(int fd) const
{
  // one write per message where it fits: the reader wakes once
  std::string buf;
  uint64_t counts[2] = {numbers.size(), texts.size()};
  buf.append(reinterpret_cast<const char*>(&kind), 1);
  buf.append(reinterpret_cast<const char*>(counts), sizeof counts);
  buf.append(reinterpret_cast<const char*>(numbers.data()), numbers.size() * sizeof(double));
  for (const auto& t : texts) {
    uint64_t len = t.size();
    buf.append(reinterpret_cast<const char*>(&len), sizeof len);
    buf.append(t);
  }
  return send_bytes(fd, buf.data(), buf.size());
}

bool Message::receive(int fd)
{
  uint64_t counts[2] = {0, 0};
  if (not receive_bytes(fd, &kind, 1) || not receive_bytes(fd, counts, sizeof counts) || counts[0] > (1ULL << 32) ||
      counts[1] > (1ULL << 24))
    return false;
  numbers.resize(counts[0]);
  if (not receive_bytes(fd, numbers.data(), numbers.size() * sizeof(double)))
    return false;
  texts.resize(counts[1]);
  for (auto& t : texts) {
    uint64_t len = 0;
    if (not receive_bytes(fd, &len, sizeof len) || len > (1ULL << 30))
      return false;
    t.resize(len);
    if (not receive_bytes(fd, t.data(), len))
      return false;
  }
  return true;
}

Message encode(const EnvironmentOptions& o)
{
  Message m;
  m.kind    = Kind::options;
  m.numbers = {o.queue_sensitivity,
               static_cast<double>(o.max_voids),
               o.interference ? 1.0 : 0.0,
               static_cast<double>(o.max_resources),
               static_cast<double>(o.actions.size()),
               static_cast<double>(o.simgrid_args.size())};
  m.texts   = {o.platform.string(), o.workload.string(), observation_names()[static_cast<size_t>(o.observation)],
               reward_names()[static_cast<size_t>(o.reward)]};
  for (const auto& a : o.actions)
    m.texts.push_back(a.is_void() ? std::string("void") : a.job_policy + ":" + a.resource_policy);
  m.texts.insert(m.texts.end(), o.simgrid_args.begin(), o.simgrid_args.end());
  return m;
}

EnvironmentOptions decode(const Message& m)
{
  if (m.kind != Kind::options || m.numbers.size() != 6 || m.texts.size() < 4)
    throw RunError("the environment's options did not come through");
  EnvironmentOptions o;
  o.queue_sensitivity = m.numbers[0];
  o.max_voids         = static_cast<uint32_t>(m.numbers[1]);
  o.interference      = m.numbers[2] != 0;
  o.max_resources     = static_cast<uint32_t>(m.numbers[3]);
  auto actions        = static_cast<size_t>(m.numbers[4]);
  auto args           = static_cast<size_t>(m.numbers[5]);
  if (m.texts.size() != 4 + actions + args)
    throw RunError("the environment's options did not come through");
  o.platform    = m.texts[0];
  o.workload    = m.texts[1];
  o.observation = observation_from_string(m.texts[2]);
  o.reward      = reward_from_string(m.texts[3]);
  o.actions     = actions_from_names(std::vector<std::string>(m.texts.begin() + 4, m.texts.begin() + 4 + actions));
  o.simgrid_args.assign(m.texts.begin() + 4 + actions, m.texts.end());
  return o;
}

Message error_message(const std::exception& e)
{
  Message m;
  m.kind = Kind::error;
  if (const auto* ie = dynamic_cast<const InputError*>(&e))
    m.texts = {"I", ie->file(), ie->place(), ie->message()};
  else
    m.texts = {"R", "", "", e.what()};
  return m;
}

void raise(const Message& m)
{
  if (m.texts.size() == 4 && m.texts[0] == "I")
    throw InputError(m.texts[1], m.texts[2], m.texts[3]);
  throw RunError(m.texts.size() == 4 ? m.texts[3] : std::string("the environment's simulation failed"));
}

} // namespace sgai::rl::protocol
