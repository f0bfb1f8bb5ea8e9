package io.asicemu.pipeline;

import static io.asicemu.pipeline.Frames.HOST_A;
import static io.asicemu.pipeline.Frames.ip;
import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.pipeline.port.InMemoryPort;
import java.io.IOException;
import java.io.InputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The full path (parse → ACL-free ingress → LPM → ECMP via ars-flowlet → TM admit/dequeue → rewrite → TX) allocates
 * nothing per packet: the data thread's allocated bytes across 10^6 warmed-up mixed packets stay at zero (a few
 * hundred bytes of slack for JIT/profiling artefacts, far below one byte per packet).
 */
@Timeout(120)
class AllocationGuardTest {
    private static final long ROUTER = 0x02aa_bbcc_ddeeL;

    @Test
    void shouldAllocateNothingPerPacketWhenRoutingMixedTraffic() throws IOException {
        final String config;
        try (InputStream in = getClass().getResourceAsStream("replay/routed_config_db.json")) {
            config = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (SwitchFixture sw = new SwitchFixture(config)) {
            final List<byte[]> frames = List.of(
                    Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(192, 168, 1, 1), 64, 18),
                    Frames.roce4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(172, 16, 0, 9))
                                    .udpPorts(50000, 4791)
                                    .bth(4, 0x11, 0),
                            0),
                    Frames.roce4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 3), ip(172, 16, 1, 9))
                                    .udpPorts(50001, 4791)
                                    .bth(10, 0x12, 0),
                            16),
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv6(0x2001_0db8_0001_0000L, 2, 0x2001_0db8_0100_0000L, 9),
                            30),
                    Frames.udp4(ROUTER, HOST_A, ip(10, 0, 1, 2), ip(8, 8, 8, 8), 64, 18));
            assertThat(bytesAllocatedForAMillionPackets(sw, frames))
                    .as("bytes allocated for 10^6 packets")
                    .isLessThan(1024);
            assertThat(sw.counter("Ethernet4", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                    .isGreaterThan(200_000);
        }
    }

    @Test
    void shouldAllocateNothingPerPacketWhenMeteredMirroredTrappedAndEgressFiltered() throws IOException {
        final String config;
        try (InputStream in = getClass().getResourceAsStream("replay/routed_config_db.json")) {
            config = new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
        try (SwitchFixture sw = new SwitchFixture(config)) {
            final var control = sw.pipeline.control();
            final io.asicemu.pipeline.table.AclMeterConfig[] copp =
                    new io.asicemu.pipeline.table.AclMeterConfig[io.asicemu.pipeline.table.ForwardingTables.CPU_QUEUES];
            copp[1] = new io.asicemu.pipeline.table.AclMeterConfig(1_000, 10, 2_000, 20);
            control.batch()
                    .replaceMirrorSessions(java.util.Map.of(
                            3,
                            new io.asicemu.pipeline.table.AclMirrorSessions.Session(
                                    new int[] {control.portIndex("Ethernet16")}, 64)))
                    .replaceAcl(List.of(
                            new io.asicemu.pipeline.table.AclRule("t|trap", 30)
                                    .ipProtocol(17)
                                    .l4DstPort(2000, 2000)
                                    .action(io.asicemu.pipeline.table.AclAction.TRAP)
                                    .cpuQueue(1),
                            new io.asicemu.pipeline.table.AclRule("t|mirror", 20)
                                    .dstIpv4(ip(172, 16, 0, 0), 24)
                                    .mirror(3),
                            new io.asicemu.pipeline.table.AclRule("t|meter", 10)
                                    .dstIpv4(ip(172, 16, 0, 0), 12)
                                    .meter(new io.asicemu.pipeline.table.AclMeterConfig(
                                            10_000_000L, 1_000, 20_000_000L, 2_000))))
                    .replaceEgressAcl(List.of(new io.asicemu.pipeline.table.AclEgressRule("e|drop-v6", 10)
                            .etherType(0x86dd, 0xffff)
                            .drop(true)))
                    .coppMeters(copp)
                    .commit();
            final List<byte[]> frames = List.of(
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(192, 168, 1, 1))
                                    .udpPorts(1000, 2000),
                            18),
                    Frames.roce4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 2), ip(172, 16, 0, 9))
                                    .udpPorts(50000, 4791)
                                    .bth(4, 0x11, 0),
                            0),
                    Frames.roce4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv4(ip(10, 0, 1, 3), ip(172, 16, 1, 9))
                                    .udpPorts(50001, 4791)
                                    .bth(10, 0x12, 0),
                            16),
                    Frames.udp4(
                            Frames.builder()
                                    .macs(ROUTER, HOST_A)
                                    .ipv6(0x2001_0db8_0001_0000L, 2, 0x2001_0db8_0100_0000L, 9),
                            30));
            assertThat(bytesAllocatedForAMillionPackets(sw, frames))
                    .as("bytes allocated for 10^6 packets")
                    .isLessThan(1024);
            final var counters = sw.pipeline.agent().counters();
            assertThat(counters.drops(io.asicemu.pipeline.counter.DropReason.EGRESS_ACL_DROP))
                    .isPositive();
            assertThat(counters.drops(io.asicemu.pipeline.counter.DropReason.COPP_METER_RED))
                    .isPositive();
            assertThat(counters.drops(io.asicemu.pipeline.counter.DropReason.ACL_METER_RED))
                    .isPositive();
            assertThat(sw.counter("Ethernet16", "SAI_PORT_STAT_IF_OUT_UCAST_PKTS"))
                    .as("mirror copies")
                    .isGreaterThan(100_000);
        }
    }

    /** Sends the frames round-robin into Ethernet0, 3·10⁵ to warm up, then 10⁶ measured: this thread's allocation. */
    private static long bytesAllocatedForAMillionPackets(final SwitchFixture sw, final List<byte[]> frames) {
        final InMemoryPort in = sw.port("Ethernet0");
        final java.lang.foreign.MemorySegment[] segments = new java.lang.foreign.MemorySegment[frames.size()];
        final java.lang.foreign.Arena arena = java.lang.foreign.Arena.ofAuto();
        for (int i = 0; i < segments.length; i++) {
            segments[i] = arena.allocate(frames.get(i).length);
            java.lang.foreign.MemorySegment.copy(
                    java.lang.foreign.MemorySegment.ofArray(frames.get(i)), 0, segments[i], 0, frames.get(i).length);
        }
        final InMemoryPort[] outs = sw.ports.values().toArray(new InMemoryPort[0]);
        run(sw, in, segments, outs, 300_000);
        final com.sun.management.ThreadMXBean threads =
                (com.sun.management.ThreadMXBean) ManagementFactory.getThreadMXBean();
        final long before = threads.getCurrentThreadAllocatedBytes();
        final long packets = run(sw, in, segments, outs, 1_000_000);
        final long allocated = threads.getCurrentThreadAllocatedBytes() - before;
        assertThat(packets).isEqualTo(1_000_000);
        return allocated;
    }

    private static long run(
            final SwitchFixture sw,
            final InMemoryPort in,
            final java.lang.foreign.MemorySegment[] frames,
            final InMemoryPort[] outs,
            final int count) {
        long sent = 0;
        int next = 0;
        while (sent < count) {
            for (int i = 0; i < 32; i++) {
                final java.lang.foreign.MemorySegment f = frames[next];
                next = next + 1 == frames.length ? 0 : next + 1;
                in.inject(f, 0, (int) f.byteSize(), sw.clock.nowNs());
                sent++;
            }
            sw.pipeline.agent().doWork();
            sw.clock.advanceNs(20_000);
            sw.pipeline.agent().doWork();
            for (final InMemoryPort out : outs) {
                out.clearTransmitted();
            }
        }
        return sent;
    }
}
