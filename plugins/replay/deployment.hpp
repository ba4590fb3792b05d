/* sgai's collective benchmark and trace replay as SimGrid deployment files start them:
 *
 *   sgai_replay_register_actors();         // once the Engine exists, before load_platform
 *
 *   <actor host="gpu0" function="sgai_collective">
 *     <argument value="hosts=gpu0,gpu1,gpu2,gpu3"/>   <!-- rank i on the i-th host -->
 *     <argument value="bytes=256MiB"/>
 *     <argument value="algorithm=ring"/>               <!-- schedule.hpp's names -->
 *   </actor>
 *   <actor host="gpu0" function="sgai_trace_replay">
 *     <argument value="trace=traces/gpt"/>             <!-- traces/gpt.0.et, traces/gpt.1.et, ... -->
 *     <argument value="hosts=gpu0,gpu1,gpu2,gpu3"/>   <!-- rank i's GPU -->
 *   </actor>
 *
 * sgai_collective: type (all_reduce; all_gather, reduce_scatter, all_to_all, broadcast, reduce),
 * bytes (required: a number or a size with a unit), algorithm (ring), chunks (1), repeat (1: run
 * one after the other), out (results/<actor>.csv: one row per collective: type, algorithm, ranks,
 * bytes, start_s, end_s, time_s, bus_GBps). sgai_trace_replay: trace (required: an ET file, a
 * folder of them or a prefix), hosts (required, as many as ranks), system (an ASTRA-sim system
 * JSON; default: one chunk, no endpoint delay), out (results/<actor>: ranks.csv and
 * collectives.csv, written when the simulation ends). Errors as the workload manager's
 * (plugins/batch/deployment.hpp): sgai::sim::deployment_error(). */
#ifndef SGAI_PLUGINS_REPLAY_DEPLOYMENT_HPP
#define SGAI_PLUGINS_REPLAY_DEPLOYMENT_HPP

#include <xbt/base.h> // SG_BEGIN_DECL / SG_END_DECL: C linkage, as SimGrid's plugin headers declare it

#include <string>
#include <vector>

SG_BEGIN_DECL
/** Registers "sgai_collective" and "sgai_trace_replay" on the Engine and turns on SimGrid's host
 *  energy plugin and sgai's GPU plugin: call it before loading the platform. */
void sgai_replay_register_actors(void);
SG_END_DECL

namespace sgai::replay {

void collective_actor(std::vector<std::string> args);
void trace_replay_actor(std::vector<std::string> args);

} // namespace sgai::replay

#endif
