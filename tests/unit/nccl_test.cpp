/* NCCL's tuning model (core/collectives/nccl.cpp) against NCCL's published constants and the choices
 * NCCL's logs report. */
#include "core/collectives/nccl.hpp"
#include "core/collectives/schedule.hpp"

#include <gtest/gtest.h>

using namespace sgai::collectives;
using sgai::chakra::CollectiveType;

namespace {

nccl::System hgx_h200()
{
  nccl::System s;
  s.arch            = nccl::Arch::hopper;
  s.intra_GBps      = 18 * 20.6; // NVLink 4: 18 links at NCCL's SM90 figure
  s.nvls_efficiency = 0.85;
  nccl::default_channels(s);
  return s;
}

} // namespace

TEST(Nccl, LatenciesAndBandwidthsAreTuningCcs)
{
  auto m = nccl::model(hgx_h200(), CollectiveType::all_reduce, 8, 1);
  // ring: base latency plus 2(n-1) NVLink hops; bus bandwidth to algorithm bandwidth: n / 2(n-1)
  EXPECT_DOUBLE_EQ(m.latency_us[0][0], 6.6 + 14 * 0.6);
  EXPECT_DOUBLE_EQ(m.latency_us[0][2], 8.4 + 14 * 3.4);
  EXPECT_DOUBLE_EQ(m.bandwidth_GBps[0][2], 370.8 * 8 / 14);
  EXPECT_DOUBLE_EQ(m.bandwidth_GBps[0][0], 141.0 * 8 / 14);        // LL: Hopper's llMaxBw on one node
  EXPECT_DOUBLE_EQ(m.latency_us[2][2], 25.0);                      // NVLS: its NVLink latency alone
  EXPECT_LT(m.time_us(nccl::Algo::nvls, nccl::Proto::ll, 1e6), 0); // NVLS is Simple only
}

TEST(Nccl, ChoosesRingLlUpTo1MiBAndNvlsFrom2MiBOnAnH200Node)
{
  // NCCL 2.27.7's logs on 8 x H200 (ml-engineering, network/README.md): "Algo RING proto LL up to a
  // 1MiB payload and Algo NVLS proto SIMPLE from 2MiB up"
  auto m  = nccl::model(hgx_h200(), CollectiveType::all_reduce, 8, 1);
  auto c1 = nccl::choose(m, 1 << 20), c2 = nccl::choose(m, 2 << 20);
  ASSERT_TRUE(c1 && c2);
  EXPECT_EQ(c1->algo, nccl::Algo::ring);
  EXPECT_EQ(c1->proto, nccl::Proto::ll);
  EXPECT_EQ(c2->algo, nccl::Algo::nvls);
  EXPECT_EQ(c2->proto, nccl::Proto::simple);
  // at most 4 GPUs: no NVLS (NVIDIA: such partitions gain nothing from multicast), a ring
  auto four = nccl::choose(nccl::model(hgx_h200(), CollectiveType::all_reduce, 4, 1), 8e9);
  ASSERT_TRUE(four);
  EXPECT_EQ(four->algo, nccl::Algo::ring);
  EXPECT_EQ(four->proto, nccl::Proto::simple);
  // all-gather: ring only; all-to-all is not tuned
  auto ag = nccl::choose(nccl::model(hgx_h200(), CollectiveType::all_gather, 8, 1), 8e9);
  ASSERT_TRUE(ag);
  EXPECT_EQ(ag->algo, nccl::Algo::ring);
  EXPECT_FALSE(nccl::choose(nccl::model(hgx_h200(), CollectiveType::all_to_all, 8, 1), 8e9));
  // forced: NVLS across nodes does not exist (CollNet), LL128 over PCIe neither
  EXPECT_FALSE(nccl::choose(nccl::model(hgx_h200(), CollectiveType::all_reduce, 16, 2), 8e9, nccl::Algo::nvls));
  auto pcie   = hgx_h200();
  pcie.nvlink = false;
  EXPECT_FALSE(
      nccl::choose(nccl::model(pcie, CollectiveType::all_reduce, 8, 1), 8e9, std::nullopt, nccl::Proto::ll128));
}

TEST(Nccl, MultiNodeRingsPayTheNetworkStepsAndThePlateau)
{
  auto s           = hgx_h200();
  s.inter_GBps     = 400;
  s.net_latency_us = 1;
  auto m           = nccl::model(s, CollectiveType::all_reduce, 32, 4);
  // Simple: 62 steps, 6 of them between nodes (14 us + twice the network latency), the others at
  // max(3.4, 3 x 1 us network overhead)
  EXPECT_DOUBLE_EQ(m.latency_us[0][2], 8.4 + 56 * 3.4 + 6 * 16.0);
  EXPECT_DOUBLE_EQ(m.bandwidth_GBps[0][2], 370.8 * 32 / 62); // the node's NICs (400) do not bind
  // the ring's plateau: Simple latencies x 1.4 once each rank's share reaches 64 B per channel
  EXPECT_DOUBLE_EQ(m.time_us(nccl::Algo::ring, nccl::Proto::simple, 1 << 30),
                   1.4 * m.latency_us[0][2] + (1 << 30) / (1000 * m.bandwidth_GBps[0][2]));
  // NCCL's trees across nodes need ranks that fill their nodes in order: otherwise not chosen
  // unless asked for
  auto c = nccl::choose(m, 1e5);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->algo, nccl::Algo::tree); // 2 (7 hops in a node + 2 between nodes) against the ring's 62
  m.regular_nodes = false;
  c               = nccl::choose(m, 1e5);
  ASSERT_TRUE(c);
  EXPECT_NE(c->algo, nccl::Algo::tree);
  EXPECT_TRUE(nccl::choose(m, 1e5, nccl::Algo::tree));
}

TEST(Nccl, ProtocolCostsNetThePathLatency)
{
  auto s = hgx_h200();
  auto m = nccl::model(s, CollectiveType::all_reduce, 8, 1);
  auto k = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::ll, 0}, 1.4e-6, 0);
  EXPECT_EQ(k.name, "LL");
  EXPECT_DOUBLE_EQ(k.wire_factor, 2.0);         // a flag with every 8 bytes
  EXPECT_DOUBLE_EQ(k.start_s, 6.6e-6);          // the base latency
  EXPECT_DOUBLE_EQ(k.intra_step_s, 0.0);        // LL's 0.6 us hop is under the 1.4 us path
  EXPECT_DOUBLE_EQ(k.rank_rate_cap_Bps, 141e9); // llMaxBw
  auto simple = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::simple, 0}, 1.4e-6, 0);
  EXPECT_NEAR(simple.intra_step_s, 2.0e-6, 1e-15); // 3.4 us less the path's 1.4
  EXPECT_DOUBLE_EQ(simple.rank_rate_cap_Bps, 0.0);
  auto nvls = nccl::costs(s, m, {nccl::Algo::nvls, nccl::Proto::simple, 0}, 1.4e-6, 0);
  EXPECT_NEAR(nvls.rank_rate_cap_Bps, 0.85 * 370.8e9, 1e3); // the switch's reduction rate
}

TEST(Nccl, NvlsMovesSTimesOnePlusOneOverNEachWay)
{
  Schedule s = make_schedule(CollectiveType::all_reduce, Algorithm::nvls, 8);
  ASSERT_EQ(s.steps.size(), 1U);
  EXPECT_EQ(s.steps[0].size(), 56U);
  for (uint32_t r = 0; r < 8; r++)
    EXPECT_NEAR(s.bytes_sent(r, 1.0), 9.0 / 8, 1e-12);
  for (const auto& t : s.steps[0])
    EXPECT_FALSE(t.reduce); // the switch reduces
  EXPECT_THROW(make_schedule(CollectiveType::all_gather, Algorithm::nvls, 8), std::invalid_argument);
}

TEST(Nccl, NamesReadBack)
{
  nccl::Proto p;
  EXPECT_TRUE(nccl::proto_from_string("ll128", p));
  EXPECT_EQ(p, nccl::Proto::ll128);
  EXPECT_FALSE(nccl::proto_from_string("LL64", p));
  nccl::Algo a;
  EXPECT_TRUE(nccl::algo_from_string("NVLS", a));
  EXPECT_EQ(a, nccl::Algo::nvls);
  nccl::Arch h;
  EXPECT_TRUE(nccl::arch_from_string("blackwell", h));
  EXPECT_FALSE(nccl::arch_from_string("turing", h));
}

TEST(Nccl, NvlsTreeJoinsNvlsNodesByTheirNics)
{
  // two 8 x H100 nodes, 8 x 400 Gb/s NICs each (400 GB/s a node), 1 us between them
  auto s           = hgx_h200();
  s.inter_GBps     = 400;
  s.net_latency_us = 1;
  auto m           = nccl::model(s, CollectiveType::all_reduce, 16, 2);
  // per NVLS channel (16): the switch's reduction 370.8 / 16 x 0.85 x 15/16 x 2 = 36.93, the NICs
  // 400 / 16 x 2 = 50 (two nodes), NCCL's cap 57.7; bus to algorithm bandwidth: 16 / 30
  const double per_ch = 370.8 / 16 * 0.85 * 15 / 16 * 2;
  EXPECT_NEAR(m.bandwidth_GBps[3][2], 16 * per_ch * 16 / 30, 1e-9);
  // latency: its NVLink latency, then up and down a tree of depth log2(2) = 1 (20.9 us + the
  // network's latency and the flush)
  EXPECT_DOUBLE_EQ(m.latency_us[3][2], 25 + 2 * (20.9 + 1 + 1));
  EXPECT_LT(m.time_us(nccl::Algo::nvls_tree, nccl::Proto::ll, 1e6), 0); // Simple only
  // large all-reduces choose it; one node or 4 GPUs a node have none
  auto c = nccl::choose(m, 1 << 30);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->algo, nccl::Algo::nvls_tree);
  EXPECT_FALSE(nccl::choose(nccl::model(s, CollectiveType::all_reduce, 8, 1), 1e9, nccl::Algo::nvls_tree));
  EXPECT_FALSE(nccl::choose(nccl::model(s, CollectiveType::all_reduce, 8, 2), 1e9, nccl::Algo::nvls_tree));
  EXPECT_FALSE(nccl::choose(nccl::model(s, CollectiveType::all_gather, 16, 2), 1e9, nccl::Algo::nvls_tree));
  // its costs: the pipeline's latency up front less the longest simulated path; the switch's rate
  // bounds the sends inside the node only
  auto k = nccl::costs(s, m, {nccl::Algo::nvls_tree, nccl::Proto::simple, 0}, 1e-6, 3e-6);
  EXPECT_NEAR(k.start_s, (25 + 2 * 22.9) * 1e-6 - 3e-6, 1e-15);
  EXPECT_DOUBLE_EQ(k.intra_step_s, 0.0);
  EXPECT_TRUE(k.cap_intra_only);
  nccl::Algo a;
  EXPECT_TRUE(nccl::algo_from_string("NVLSTree", a));
  EXPECT_EQ(a, nccl::Algo::nvls_tree);
}

TEST(Nccl, TreesAcrossNodesMoveWhatTheirPipelinesMove)
{
  // 2 nodes of 8: NVLS-tree sends S (1 + 1/8) inside the node and S/8 to the other node per rank
  Schedule nt = algorithms::nvls_tree(CollectiveType::all_reduce, 16, 8);
  nt.ranks    = 16;
  nt.index();
  ASSERT_EQ(nt.steps.size(), 1U);
  for (uint32_t r = 0; r < 16; r++) {
    double in_node = 0, across = 0;
    for (const auto& t : nt.steps[0])
      if (t.src == r)
        (t.dst / 8 == r / 8 ? in_node : across) += t.fraction;
    EXPECT_NEAR(in_node, 9.0 / 8, 1e-12) << r;
    EXPECT_NEAR(across, 1.0 / 8, 1e-12) << r;
  }
  // NCCL's tree on 4 nodes of 4: every edge of the chains and of the two trees of nodes carries
  // S / 8 each way; a node is inner in one tree of nodes and a leaf in the other
  Schedule tr = algorithms::nccl_tree(CollectiveType::all_reduce, 16, 4);
  ASSERT_EQ(tr.steps.size(), 1U);
  // 4 local ranks x 2 trees x (4 nodes x 3 chain edges + 3 tree edges) x 2 directions
  EXPECT_EQ(tr.steps[0].size(), 4U * 2 * (4 * 3 + 3) * 2);
  double across_max = 0;
  for (uint32_t node = 0; node < 4; node++) {
    double out = 0;
    for (const auto& t : tr.steps[0])
      if (t.src / 4 == node && t.dst / 4 != node)
        out += t.fraction;
    across_max = std::max(across_max, out);
  }
  // per node at most (2 children + 1 parent) in one tree and 1 in the other, per local rank, x S/8
  EXPECT_LE(across_max, 4 * (3 + 1) / 8.0 + 1e-12);
  for (const auto& t : tr.steps[0])
    EXPECT_NEAR(t.fraction, 1.0 / 8, 1e-12);
  // one GPU a node: the double binary tree of nodes alone, S/2 on each of its trees
  Schedule one = algorithms::nccl_tree(CollectiveType::all_reduce, 4, 1);
  ASSERT_EQ(one.steps.size(), 1U);
  EXPECT_EQ(one.steps[0].size(), 2U * 3 * 2);
  for (const auto& t : one.steps[0])
    EXPECT_DOUBLE_EQ(t.fraction, 0.5);
  // one node: NCCL's tree is the chains alone, 7 edges each way for each of 8 x 2 channels
  EXPECT_EQ(algorithms::nccl_tree(CollectiveType::all_reduce, 8, 8).steps[0].size(), 8U * 2 * 7 * 2);
  EXPECT_THROW(algorithms::nvls_tree(CollectiveType::all_reduce, 8, 8), std::invalid_argument);  // one node
  EXPECT_THROW(algorithms::nccl_tree(CollectiveType::all_reduce, 12, 8), std::invalid_argument); // 8 does not divide 12
  EXPECT_THROW(algorithms::nvls_tree(CollectiveType::all_gather, 16, 8), std::invalid_argument);
}

TEST(Nccl, ProxyPipelineIsBandwidthBoundWhenItsSlotsCoverTheCrossingsAndLatencyBoundWhenNot)
{
  // InfiniBand-like: Simple all-reduce slices of 2 x 512 KiB, 4 in flight, 2 us each way, a 50 GB/s
  // NIC: a cycle is 1 MiB / 50 GB/s + 2 x 2 us = 24.97 us, 4 MiB per cycle = 168 GB/s > 50: the NIC
  // bounds it; 64 MiB take one crossing then 64 MiB at 50 GB/s.
  nccl::System s;
  auto ib = nccl::pipeline(s, CollectiveType::all_reduce, nccl::Proto::simple, 2e-6, 50e9);
  EXPECT_EQ(ib.slot_bytes, 1048576);
  EXPECT_EQ(ib.slots, 4u);
  EXPECT_FALSE(ib.latency_bound());
  EXPECT_DOUBLE_EQ(ib.sustained_Bps(), 50e9);
  EXPECT_NEAR(ib.time_s(64 * 1048576.0), 2e-6 + 64 * 1048576.0 / 50e9, 1e-12);
  // LL over a 35 us transport (EFA on P6-B200): 8 slots of 64 KiB per cycle of 65536 / 50 GB/s +
  // 70 us = 71.31 us: 7.35 GB/s, the slots bound it; 8 MiB then take 35 us + 8 MiB / 7.35 GB/s.
  auto efa = nccl::pipeline(s, CollectiveType::all_reduce, nccl::Proto::ll, 35e-6, 50e9);
  EXPECT_EQ(efa.slot_bytes, 65536);
  EXPECT_EQ(efa.slots, 8u);
  EXPECT_TRUE(efa.latency_bound());
  const double cycle = 65536 / 50e9 + 70e-6;
  EXPECT_NEAR(efa.sustained_Bps(), 8 * 65536 / cycle, 1e-3);
  EXPECT_NEAR(efa.time_s(8388608), 35e-6 + 8388608 / (8 * 65536 / cycle), 1e-12);
  // Simple's buffer follows the transport (NCCL_BUFFSIZE 8 MiB: slices of 2 MiB); a broadcast sends
  // single steps, 8 in flight
  s.simple_buffer_bytes = 8388608;
  EXPECT_EQ(nccl::pipeline(s, CollectiveType::all_reduce, nccl::Proto::simple, 0, 1e9).slot_bytes, 2097152);
  auto bc = nccl::pipeline(s, CollectiveType::broadcast, nccl::Proto::simple, 0, 1e9);
  EXPECT_EQ(bc.slot_bytes, 1048576);
  EXPECT_EQ(bc.slots, 8u);
}

TEST(Nccl, ATransportWithSimpleOnlyAndNoNvlsLeavesNcclTheRingAndTreeInSimple)
{
  // GPUDirect-TCPXO (Google's NCCL environment): NCCL_PROTO=Simple, NCCL_NVLS_ENABLE=0
  nccl::System s;
  s.arch            = nccl::Arch::hopper;
  s.intra_GBps      = 370.8;
  s.inter_GBps      = 200;
  s.nvls_efficiency = 0.85;
  nccl::default_channels(s);
  auto before = nccl::choose(nccl::model(s, CollectiveType::all_reduce, 16, 2), 1024);
  ASSERT_TRUE(before);
  EXPECT_NE(before->proto, nccl::Proto::simple); // LL or LL128 for a small message
  s.protocols    = {false, false, true};
  s.nvls_allowed = false;
  auto m         = nccl::model(s, CollectiveType::all_reduce, 16, 2);
  for (double bytes : {1024.0, 16e6, 8e9}) {
    auto c = nccl::choose(m, bytes);
    ASSERT_TRUE(c);
    EXPECT_EQ(c->proto, nccl::Proto::simple);
    EXPECT_TRUE(c->algo == nccl::Algo::ring || c->algo == nccl::Algo::tree);
  }
  EXPECT_FALSE(nccl::choose(m, 8e9, nccl::Algo::nvls_tree));
}

TEST(Nccl, ChannelsDropWithTheSizeAsNcclTunesThem)
{
  // 16 ring channels; a channel per 512 threads x 64 B in Simple (32 KiB), 640 x 8 B in LL128
  // (5 KiB), 512 x 8 B x the ranks in ring LL (16 ranks: 64 KiB)
  auto s = hgx_h200();
  ASSERT_EQ(s.ring_channels, 16u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::simple, 16, 1048576), 16u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::simple, 16, 262144), 8u); // 8 x 32 KiB, not below
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::simple, 16, 262143), 7u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::simple, 16, 1024), 1u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::ll, 16, 262144), 4u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::tree, nccl::Proto::ll, 16, 262144), 16u); // trees: no x ranks
  EXPECT_EQ(nccl::channels(s, nccl::Algo::ring, nccl::Proto::ll128, 16, 40960), 8u);
  EXPECT_EQ(nccl::channels(s, nccl::Algo::nvls, nccl::Proto::simple, 8, 1024), 16u); // the NVLS channels
}

TEST(Nccl, FewerChannelsCapARankAtTheirShareAndSpreadTheirSlotsOverTheRings)
{
  // 2 nodes of 8 GPUs, 400 GB/s of NICs a node, NVLink 370.8 GB/s a GPU: a channel's share of the
  // bus (370.8 GB/s) is 1/16
  auto s       = hgx_h200();
  s.inter_GBps = 400;
  auto m       = nccl::model(s, CollectiveType::all_reduce, 16, 2);
  auto all     = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::simple, 0}, 1e-6, 3e-6);
  EXPECT_EQ(all.channels, 16u);
  EXPECT_DOUBLE_EQ(all.rank_rate_cap_Bps, 0.0); // the links bound it
  auto half = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::simple, 0}, 1e-6, 3e-6, 8);
  EXPECT_EQ(half.channels, 8u);
  EXPECT_NEAR(half.rank_rate_cap_Bps, 370.8e9 / 2, 1e3);
  // LL on 4 channels: half the bus's quarter, under llMaxBw (39 GB/s between 2 nodes of Intel hosts)
  auto ll = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::ll, 0}, 1e-6, 3e-6, 4);
  EXPECT_NEAR(ll.rank_rate_cap_Bps, std::min(39e9, 0.5 * 370.8e9 / 4), 1e3);
  // LL128's cap is per channel: 4 x 36.7 GB/s
  auto ll128 = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::ll128, 0}, 1e-6, 3e-6, 4);
  EXPECT_NEAR(ll128.rank_rate_cap_Bps, 4 * 36.7e9, 1e3);
  // 16 channels on 8 rings (a GPU's NIC each): 2 channels' slots side by side on a ring; 4 channels
  // on 4 rings: one each
  EXPECT_EQ(nccl::ring_pipeline(s, m, nccl::Proto::ll, 16, 0).slots, 16u);
  EXPECT_EQ(nccl::ring_pipeline(s, m, nccl::Proto::ll, 4, 0).slots, 8u);
  EXPECT_DOUBLE_EQ(nccl::ring_pipeline(s, m, nccl::Proto::ll, 4, 0).rate_Bps, 50e9); // a NIC
}

TEST(Nccl, NvlsRunsAcrossNodesOnlyWhereTheSwitchesReduce)
{
  // 4 DGX H100 nodes (400 GB/s of NICs each): NVLS across nodes needs CollNet (SHARP)
  auto s       = hgx_h200();
  s.inter_GBps = 400;
  auto plain   = nccl::model(s, CollectiveType::all_reduce, 32, 4);
  EXPECT_LT(plain.time_us(nccl::Algo::nvls, nccl::Proto::simple, 1e9), 0);
  s.collnet = true;
  auto m    = nccl::model(s, CollectiveType::all_reduce, 32, 4);
  // per channel (16): the switch's 2 x 0.85 x 15/16 of 370.8/16 GB/s, or the NICs' 400/16: the NICs;
  // bus 400 GB/s, algorithm bandwidth 400 x 32 / 62; latency NVLink's 25 us + the network's 18 us
  EXPECT_NEAR(m.bandwidth_GBps[2][2], 400.0 * 32 / 62, 1e-9);
  EXPECT_DOUBLE_EQ(m.latency_us[2][2], 25.0 + 18.0);
  auto c = nccl::choose(m, 1e9);
  ASSERT_TRUE(c);
  EXPECT_EQ(c->algo, nccl::Algo::nvls); // against NVLS-tree's 25 + 2 x 2 x 20.9 us at the same rate
  // all-gather and reduce-scatter: not across nodes (CollNet's need registered buffers)
  auto ag = nccl::model(s, CollectiveType::all_gather, 32, 4);
  EXPECT_LT(ag.time_us(nccl::Algo::nvls, nccl::Proto::simple, 1e9), 0);
  // the costs: NCCL's latency up front less the path, the switch's rate inside nodes only
  auto k = nccl::costs(s, m, *c, 1e-6, 3e-6);
  EXPECT_NEAR(k.start_s, 43e-6 - 3e-6, 1e-12);
  EXPECT_TRUE(k.cap_intra_only);
  EXPECT_NEAR(k.rank_rate_cap_Bps, 0.85 * 370.8e9, 1e3);
}

TEST(Nccl, NvlsWithSharpSendsEachShardOnceAcrossNodes)
{
  // 3 nodes of 4: NVLS's (4 + 1) / (4 x 3) of S to each of 3 node peers, S / 4 to the next node's
  // rank of the same rail
  Schedule s = algorithms::nvls_sharp(CollectiveType::all_reduce, 12, 4);
  ASSERT_EQ(s.steps.size(), 1U);
  for (uint32_t r = 0; r < 12; r++)
    EXPECT_NEAR(s.bytes_sent(r, 1.0), 5.0 / 4 + 1.0 / 4, 1e-12);
  uint32_t across = 0;
  for (const auto& t : s.steps[0]) {
    EXPECT_FALSE(t.reduce); // the switches reduce
    if (t.src / 4 != t.dst / 4) {
      across++;
      EXPECT_EQ(t.dst, (t.src + 4) % 12);
      EXPECT_DOUBLE_EQ(t.fraction, 0.25);
    }
  }
  EXPECT_EQ(across, 12u);
  EXPECT_THROW(algorithms::nvls_sharp(CollectiveType::all_reduce, 8, 8), std::invalid_argument); // one node
}

TEST(Nccl, AHostStagedTransportBoundsAGpuAcrossNodesAtHalfItsCpuPath)
{
  // PCIe Gen5 x16 (63 GB/s each way) between GPU and CPU: through host memory each byte crosses it
  // twice, 31.5 GB/s; under a 400 GB/s node's 50 GB/s share per GPU
  auto s        = hgx_h200();
  s.inter_GBps  = 400;
  s.staged_GBps = 31.5;
  auto m        = nccl::model(s, CollectiveType::all_reduce, 16, 2);
  // NCCL's ring sees the staged rate: bus min(370.8, 8 x 31.5 = 252) GB/s
  EXPECT_NEAR(m.bandwidth_GBps[0][2], 252.0 * 16 / 30, 1e-9);
  auto pl = nccl::ring_pipeline(s, m, nccl::Proto::simple, 16, 0);
  EXPECT_DOUBLE_EQ(pl.rate_Bps, 31.5e9);
  auto k = nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::simple, 0}, 1e-6, 3e-6);
  EXPECT_DOUBLE_EQ(k.net_pipeline_Bps, 31.5e9); // a floor: below the NIC's 50 GB/s
  s.staged_GBps = 0;
  EXPECT_DOUBLE_EQ(nccl::costs(s, m, {nccl::Algo::ring, nccl::Proto::simple, 0}, 1e-6, 3e-6).net_pipeline_Bps, 0.0);
}
