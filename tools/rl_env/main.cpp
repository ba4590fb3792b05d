/* sgai-rl-env: the learning environment's simulation server. The environment (core/rl/
 * environment.hpp: sgai-rl, the Python module) starts it with its pipes on file descriptors 3 and 4;
 * it is not meant to be run by hand. */
#include "plugins/rl_server/server.hpp"

#include <cstdio>
#include <fcntl.h>
#include <unistd.h>

int main()
{
  if (::isatty(3) || ::fcntl(3, F_GETFD) < 0 || ::fcntl(4, F_GETFD) < 0) {
    std::fprintf(stderr, "sgai-rl-env: the learning environment's simulation server; sgai-rl and the Python "
                         "module start it (it reads on file descriptor 3 and writes on 4)\n");
    return 2;
  }
  return sgai::rl_server::serve(3, 4);
}
