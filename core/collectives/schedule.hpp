/* Collective schedules: which rank sends what fraction of the buffer to which rank at each step,
 * and whether the receiver reduces it. Pure domain code (no SimGrid): the algorithms (one per
 * file in algorithms/) build schedules, the communicator executes them with S4U communications,
 * and formulas.cpp gives each one's alpha-beta time for validation.
 *
 * Sizes follow Chakra's comm_size as ASTRA-sim reads it: `bytes` S is one rank's buffer. All-reduce:
 * S reduced everywhere. All-gather: S contributed by each rank (n S gathered). Reduce-scatter: S
 * in, S/n out per rank. All-to-all: S sent per rank, S/n to each peer. Broadcast and reduce: S. */
#ifndef SGAI_CORE_COLLECTIVES_SCHEDULE_HPP
#define SGAI_CORE_COLLECTIVES_SCHEDULE_HPP

#include "chakra/trace.hpp"

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace sgai::collectives {

using chakra::CollectiveType;

/** The type a collective runs as, and is keyed by in algorithm tables and NCCL's model:
 *  reduce-scatter-block as reduce-scatter, a barrier as a zero-byte all-reduce. */
inline CollectiveType canonical(CollectiveType t)
{
  if (t == CollectiveType::reduce_scatter_block)
    return CollectiveType::reduce_scatter;
  if (t == CollectiveType::barrier)
    return CollectiveType::all_reduce;
  return t;
}

/** double_binary_tree is NCCL's (the buffer split between two trees at once); astra_tree is what
 *  ASTRA-sim's doubleBinaryTree does (an all-reduce of each chunk on one tree, chunks alternating
 *  between two trees; algorithms/astra_tree.cpp). */
enum class Algorithm { ring, direct, halving_doubling, double_binary_tree, astra_tree, nvls };
const char* to_string(Algorithm a);
/** "ring", "direct", "halving_doubling" (also "halvingDoubling", ASTRA-sim's), "double_binary_tree"
 *  (also "dbt"), "doubleBinaryTree" (ASTRA-sim's name: astra_tree), "nvls" (NCCL's in-switch
 *  all-reduce, algorithms/nvls.cpp). */
bool algorithm_from_string(std::string_view s, Algorithm& out);

struct Transfer {
  uint32_t src = 0, dst = 0; ///< ranks of the group (0..n-1)
  double fraction = 0;       ///< of the collective's bytes (per chunk: of the chunk's)
  bool reduce     = false;   ///< the receiver reduces what it receives with its own data
  /** Only in chunks c with c % Schedule::lanes == lane (ASTRA-sim's tree alternates two trees
   *  between chunks; NCCL's channels each carry their own chunks); kEveryLane: in every chunk. */
  uint16_t lane                        = kEveryLane;
  static constexpr uint16_t kEveryLane = 0xFFFF;
};

/** Steps in order. A rank starts its sends of step k once its transfers of the steps before k
 *  (what it sent and what it received) are complete; ranks do not wait for each other otherwise,
 *  so independent ranks run ahead as on real hardware. */
struct Schedule {
  CollectiveType type = CollectiveType::all_reduce;
  Algorithm algorithm = Algorithm::ring;
  uint32_t ranks      = 0;
  std::vector<std::vector<Transfer>> steps;
  /** Dimension of each step (multi-dimensional schedules; empty: one dimension). */
  std::vector<uint32_t> step_dim;
  /** false: a rank's part ends once it has sent its last pieces, without waiting for them to
   *  arrive (ASTRA-sim's tree); true: once they have arrived. */
  bool wait_final_sends = true;
  uint16_t lanes        = 1; ///< Transfer::lane's modulus

  /** A rank's part of a step: indexes into steps[k] of its sends and of its receives. */
  struct RankStep {
    std::span<const uint32_t> sends, recvs;
  };
  /** Rank r's part of step k (index() first). */
  RankStep rank_step(uint32_t r, size_t k) const
  {
    const uint32_t* o = by_rank_[r].offsets.data() + 2 * k;
    const uint32_t* i = by_rank_[r].items.data();
    return {{i + o[0], i + o[1]}, {i + o[1], i + o[2]}};
  }
  /** Fills what rank_step reads. */
  void index();

  size_t transfer_count() const;
  /** Bytes rank r sends in total for a collective of `bytes`. */
  double bytes_sent(uint32_t rank, double bytes) const;

private:
  /** Per rank, its sends and receives step after step in `items`: step k's sends from
   *  offsets[2k], its receives from offsets[2k + 1], up to offsets[2k + 2] (8 bytes a rank and
   *  step and 4 a transfer end: a 1,024-rank ring all-reduce's 2 million are 34 MB). */
  struct RankIndex {
    std::vector<uint32_t> offsets, items;
  };
  std::vector<RankIndex> by_rank_;
};

/** The schedule of `type` by `algorithm` over n ranks (root: broadcast and reduce). Throws
 *  std::invalid_argument for combinations that do not exist (the message says which do), such as
 *  halving-doubling over a rank count that is not a power of two. */
Schedule make_schedule(CollectiveType type, Algorithm algorithm, uint32_t ranks, uint32_t root = 0);

/** How a multi-dimensional all-reduce is composed (ASTRA-sim's collective-optimization). */
enum class AllReduceComposition {
  baseline,       ///< an all-reduce along each dimension in turn, on the whole buffer
  local_bw_aware, ///< reduce-scatter along all but the last dimension, all-reduce along the last, all-gather back
};

/** A collective over ranks laid out on dimensions (sizes `dims`, dimension 0 varying fastest), run
 *  one dimension at a time with that dimension's algorithm, as ASTRA-sim composes it: reduce-scatter
 *  along dimensions 0, 1, ... on a buffer shrinking by each dimension's size; all-gather along
 *  ..., 1, 0 (the last dimension first) on growing contributions; all-to-all along 0, 1, ... on the
 *  whole buffer; all-reduce as `composition` says; broadcast and reduce over all ranks with the
 *  first algorithm. Schedule::step_dim gives each step's dimension. One dimension gives
 *  make_schedule's schedule. `involved` (ASTRA-sim's involved_dim; empty: every dimension, missing
 *  entries: involved): the dimensions the collective runs along; the others are left out, as if of
 *  one rank, so the collective runs in every group of ranks that differ only along the involved
 *  ones (none involved: no step). */
Schedule make_multidim_schedule(CollectiveType type, const std::vector<uint32_t>& dims,
                                const std::vector<Algorithm>& algorithms, uint32_t root = 0,
                                AllReduceComposition composition  = AllReduceComposition::local_bw_aware,
                                const std::vector<bool>& involved = {});

/** Alpha-beta time of one collective of `bytes` run as `algorithm` over n ranks on a network
 *  where every transfer between two ranks takes alpha + size / bandwidth and each rank's
 *  outgoing and incoming traffic is limited to `bandwidth` (a non-blocking switch; for ring
 *  schedules, a unidirectional ring too), cut in `chunks` pieces run one after the other. */
double alpha_beta_time(CollectiveType type, Algorithm algorithm, uint32_t ranks, double bytes, double alpha_s,
                       double bandwidth_Bps, uint32_t chunks = 1);

namespace algorithms {
Schedule ring(CollectiveType type, uint32_t ranks, uint32_t root);
/** NCCL's channels over rails: `channels` rings side by side, each with 1/channels of the buffer
 *  (with `lanes`: ring c is lane c, carrying whole chunks, so the rings run independently when the
 *  collective is cut in a multiple of `channels` chunks, all in flight);
 *  ranks come in nodes of `block` consecutive ranks and ring c visits every node from its c-th rank,
 *  so ring c crosses between nodes from rank c-1 of a node to rank c of the next: the nodes'
 *  GPU-to-NIC paths all carry traffic. All-reduce, reduce-scatter and all-gather; other
 *  collectives, one node or channels <= 1: ring(). */
Schedule ring_channels(CollectiveType type, uint32_t ranks, uint32_t channels, uint32_t block, bool lanes = false);
Schedule direct(CollectiveType type, uint32_t ranks, uint32_t root);
Schedule halving_doubling(CollectiveType type, uint32_t ranks, uint32_t root);
Schedule double_binary_tree(CollectiveType type, uint32_t ranks, uint32_t root);
Schedule astra_double_binary_tree(CollectiveType type, uint32_t ranks, uint32_t root);
/** NCCL's NVLS all-reduce in one NVSwitch domain: the switch reduces (multimem loads) and
 *  multicasts (multimem stores), so each GPU sends S (1 + 1/n) to the switch and receives as much.
 *  Run as one step where every rank sends (n + 1) / (n (n - 1)) of S to each other rank: the same
 *  bytes on every GPU's links in both directions, nothing reduced on a GPU. All-reduce only. */
Schedule nvls(CollectiveType type, uint32_t ranks);
/** NCCL's tree (across nodes, or chains alone in one node) and NVLS-tree all-reduce over nodes of
 *  `ppn` consecutive ranks, each as one step of the pipeline's concurrent transfers
 *  (algorithms/nccl_trees.cpp). std::invalid_argument for another collective, ranks that do not
 *  fill their nodes, or NVLS-tree on one node. */
Schedule nccl_tree(CollectiveType type, uint32_t ranks, uint32_t ppn);
Schedule nvls_tree(CollectiveType type, uint32_t ranks, uint32_t ppn);
/** NCCL's NVLS across nodes with in-network reduction (CollNet: SHARP in the switches), as one step:
 *  each node's NVLS traffic, and each local rank k's shard S / ppn sent once to the switches and
 *  received once reduced; SimGrid's switches do not compute, so the shard goes to rank k of the next
 *  node (its NIC's and its leaf's load as the switches' tree: S / ppn each way), unreduced. */
Schedule nvls_sharp(CollectiveType type, uint32_t ranks, uint32_t ppn);
} // namespace algorithms

} // namespace sgai::collectives

#endif
