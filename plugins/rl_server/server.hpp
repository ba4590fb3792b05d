/* The simulation server of the learning environment (sgai-rl-env): loads the platform and the
 * workload once, then forks a child per episode that runs the workload manager and talks to the
 * client (core/rl/environment.hpp) at each decision point. A process of its own, so that the
 * fork is cheap: forking a process that has loaded libtorch (an agent, Python) takes about 4 ms,
 * this one about 0.1 ms. */
#ifndef SGAI_PLUGINS_RL_SERVER_SERVER_HPP
#define SGAI_PLUGINS_RL_SERVER_SERVER_HPP

namespace sgai::rl_server {

/** Serves the client on file descriptors `in` and `out` until it closes `in`; returns the exit
 *  status (0, or 1 when the options could not be loaded: the error was sent). */
int serve(int in, int out);

} // namespace sgai::rl_server

#endif
