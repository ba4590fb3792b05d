/* Waits an actor issues on SimGrid's clock, which resolves surf/precision (1 ns by default). */
#ifndef SGAI_PLUGINS_SIM_CLOCK_HPP
#define SGAI_PLUGINS_SIM_CLOCK_HPP

namespace sgai::sim {

/** SimGrid's clock resolution: the surf/precision option, 1e-9 s unless a --cfg sets it. */
double clock_precision();

/** Where a wait for `t` from `now` leaves the clock: a wait shorter than half the precision is
 *  rounding noise and skipped; one a little shorter than the precision (a 1 ns delay after
 *  floating-point sums) lasts the precision, below which SimGrid logs an INFO line for each sleep. */
double after_wait(double now, double t, double precision);

/** The calling actor sleeps `seconds`, as after_wait() says: never a sleep SimGrid warns about. */
void sleep_for(double seconds);
/** The calling actor sleeps until the clock reads `t`, as after_wait() says. */
void sleep_until(double t);

} // namespace sgai::sim

#endif
