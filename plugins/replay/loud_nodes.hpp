/* What of a trace can send beside a collective of its whole job (replay.cpp: a collective worked
 * out at once may end its ranks apart when none of it is left). */
#ifndef SGAI_PLUGINS_REPLAY_LOUD_NODES_HPP
#define SGAI_PLUGINS_REPLAY_LOUD_NODES_HPP

#include <cstddef>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace sgai::chakra {
struct Node;
}

namespace sgai::replay {

/** Whether node n can put a transfer on the network other than in a collective of the whole job
 *  (which starts once every rank has come to it): a send, a receive, a collective of a smaller
 *  group (`groups`, the job's communicator groups; `world`, those of every rank), or what the
 *  replay does not know. Computations and memory operations cannot. */
bool loud_node(const chakra::Node& n, const std::map<std::string, std::vector<uint32_t>>& groups,
               const std::set<std::string>& world);

/** The ids of the loud nodes of the trace `file`, read once from its start; none when the trace
 *  has more than `max`, has metadata (which may define groups as it runs) or cannot be read (the
 *  replay's own reading reports what is wrong). */
std::optional<std::vector<uint64_t>> loud_nodes(const std::string& file,
                                                const std::map<std::string, std::vector<uint32_t>>& groups,
                                                const std::set<std::string>& world, size_t max);

} // namespace sgai::replay

#endif
