package io.asicemu.rdma.host;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.parser.InternetChecksum;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.rdma.dcqcn.DcqcnParameters;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.ArrayList;
import java.util.List;
import java.util.PriorityQueue;
import org.junit.jupiter.api.Test;

/** Two hosts on one cable, in virtual time: transfers complete at line rate, and CE marks close the DCQCN loop. */
class RoceHostBackToBackTest {
    private static final long LINE = 100_000_000_000L;
    private static final long CABLE_NS = 1_000;

    /** A frame in flight: delivered to {@code to} at {@code atNs}; {@code seq} keeps equal times in send order. */
    record InFlight(long atNs, long seq, RoceHost to, byte[] bytes) {}

    private final PriorityQueue<InFlight> cable = new PriorityQueue<>(
            (a, b) -> a.atNs() != b.atNs() ? Long.compare(a.atNs(), b.atNs()) : Long.compare(a.seq(), b.seq()));
    private long seq;
    private final List<long[]> completions = new ArrayList<>();

    private RoceHost host(String name, long mac, int ip, long peerMac) {
        return new RoceHost(
                name,
                mac,
                ip,
                peerMac,
                LINE,
                DcqcnParameters.paperSettings(),
                1024,
                64,
                500_000,
                3,
                3,
                (qp, id, bytes, posted, done) -> completions.add(new long[] {id, bytes, posted, done}));
    }

    private long marked;

    /** Runs until nothing is left to do; data towards b leaving a before {@code markUntilNs} gets CE. */
    private void run(RoceHost a, RoceHost b, long markUntilNs, long untilNs) {
        RoceHost.Wire toB = (f, off, len, depart) -> cable.add(new InFlight(
                depart + CABLE_NS,
                seq++,
                b,
                mark(f.asSlice(off, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE), depart < markUntilNs)));
        RoceHost.Wire toA = (f, off, len, depart) -> cable.add(new InFlight(
                depart + CABLE_NS, seq++, a, f.asSlice(off, len).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE)));
        long now = 0;
        try (Arena arena = Arena.ofConfined()) {
            MemorySegment rx = arena.allocate(16_384);
            for (int step = 0; step < 10_000_000; step++) {
                long next = Math.min(
                        Math.min(a.nextEventNs(), b.nextEventNs()),
                        cable.isEmpty() ? Long.MAX_VALUE : cable.peek().atNs());
                if (next == Long.MAX_VALUE || next > untilNs) {
                    return;
                }
                now = Math.max(now, next);
                while (!cable.isEmpty() && cable.peek().atNs() <= now) {
                    InFlight f = cable.poll();
                    MemorySegment.copy(MemorySegment.ofArray(f.bytes()), 0, rx, 0, f.bytes().length);
                    f.to().onFrame(rx, 0, f.bytes().length, now);
                }
                a.advanceTo(now, toB);
                b.advanceTo(now, toA);
            }
            throw new AssertionError("no end after 10M steps at " + now + " ns");
        }
    }

    /** Sets ECN = CE on ECT data, as a congested switch would (the ICRC masks the ECN bits). */
    private byte[] mark(byte[] frame, boolean ce) {
        MemorySegment s = MemorySegment.ofArray(frame);
        if (ce && frame.length > 34 && NetworkOrder.u16(s, 12) == 0x0800 && (NetworkOrder.u8(s, 15) & 3) != 0) {
            NetworkOrder.u8(s, 15, NetworkOrder.u8(s, 15) | 3);
            marked++;
            NetworkOrder.u16(s, 24, 0);
            NetworkOrder.u16(s, 24, InternetChecksum.checksum(s, 14, 20));
        }
        return frame;
    }

    @Test
    void aMegabyteCompletesAtLineRate() {
        RoceHost a = host("a", 0x0211, 0x0A000001, 0x0222);
        RoceHost b = host("b", 0x0222, 0x0A000002, 0x0211);
        RoceHost.QueuePair qa = a.connect(17, b.ip(), 18, 49_152);
        b.connect(18, a.ip(), 17, 49_153);
        qa.post(1 << 20, 0);
        run(a, b, 0, 10_000_000);

        assertThat(completions).hasSize(1);
        long fct = completions.get(0)[3] - completions.get(0)[2];
        // 1024 packets of 1024 B payload: 1082 B frames (1098 the first, with RETH), 24 B of wire overhead each,
        // at 100 Gb/s; then a cable, and the last ACK (an 88 B slot) back over the cable.
        long dataNs = 1023 * ceilNs((1082 + 24) * 8) + ceilNs((1098 + 24) * 8);
        long expected = dataNs + CABLE_NS + ceilNs((60 + 24) * 8) + CABLE_NS;
        assertThat(fct).isBetween(expected, expected + 200);
        assertThat(qa.reaction().rateCuts()).isZero();
        assertThat(qa.sender().packetsRetransmitted()).isZero();
    }

    @Test
    void ceMarksBecomeCnpsAndRateCuts() {
        RoceHost a = host("a", 0x0211, 0x0A000001, 0x0222);
        RoceHost b = host("b", 0x0222, 0x0A000002, 0x0211);
        RoceHost.QueuePair qa = a.connect(17, b.ip(), 18, 49_152);
        RoceHost.QueuePair qb = b.connect(18, a.ip(), 17, 49_153);
        qa.post(4 << 20, 0);
        run(a, b, 120_000, 100_000_000);

        assertThat(completions).hasSize(1);
        long fct = completions.get(0)[3] - completions.get(0)[2];
        // Data leaving a in its first 120 µs is CE; the notification point answers at most one per 50 µs: CNPs at
        // the first mark (~1 µs), +50 µs and +100 µs.
        assertThat(marked).isPositive();
        assertThat(qb.ceMarksReceived()).isEqualTo(marked);
        assertThat(qb.cnpsSent()).isEqualTo(3);
        assertThat(qa.cnpsReceived()).isEqualTo(3);
        assertThat(qa.reaction().rateCuts()).isEqualTo(3);
        // The cuts slowed the transfer: longer than at line rate, shorter than at the lowest rate reached.
        long lineRateNs = 4096L * (1082 + 24) * 8 / 100;
        assertThat(fct).isGreaterThan(lineRateNs + 20_000);
        assertThat(qa.sender().packetsRetransmitted()).isZero();
    }

    private static long ceilNs(long bits) {
        return (bits * 1_000_000_000L + LINE - 1) / LINE;
    }
}
