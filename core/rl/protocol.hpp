/* What the learning environment (the client, core/rl/environment.hpp) and its simulation
 * server (sgai-rl-env, plugins/rl_server/server.hpp) say to each other over two pipes. The client sends the
 * options once, then commands: reset (a seed) and, during an episode, actions. The server answers
 * hello (sizes) or an error, then per episode observations and the end. Internal to core/rl. */
#ifndef SGAI_CORE_RL_PROTOCOL_HPP
#define SGAI_CORE_RL_PROTOCOL_HPP

#include "core/rl/environment.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace sgai::rl::protocol {

enum class Kind : uint8_t { options = 1, hello = 2, observation = 3, done = 4, truncated = 5, error = 6 };

/** Commands (one 32-bit word; reset is followed by a 64-bit seed); other values are actions. */
constexpr uint32_t kReset = 0xFFFFFFFFU;
constexpr uint32_t kStop  = 0xFFFFFFFEU; ///< ends the episode running

/** A message: its kind, numbers, then texts. */
struct Message {
  Kind kind = Kind::error;
  std::vector<double> numbers;
  std::vector<std::string> texts;

  bool send(int fd) const;
  bool receive(int fd);
};

bool send_bytes(int fd, const void* data, size_t size);
bool receive_bytes(int fd, void* data, size_t size);

Message encode(const EnvironmentOptions& o);
EnvironmentOptions decode(const Message& m);

/** An error for the client: 'I' an InputError (file, place, message), 'R' anything else. */
Message error_message(const std::exception& e);
/** Throws what error_message encoded. */
[[noreturn]] void raise(const Message& m);

} // namespace sgai::rl::protocol

#endif
