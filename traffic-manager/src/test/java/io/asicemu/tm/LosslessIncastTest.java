package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.config.HeadroomCalculator;
import io.asicemu.tm.counter.PfcStat;
import io.asicemu.tm.counter.PgStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import io.asicemu.tm.pfc.PfcFrameSink;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * 3:1 incast at 100G into one 100G port. The three link partners are modelled as worst-case IEEE peers: frames
 * start back to back (89 ns), a 40 m cable adds 200 ns each way, a PFC frame takes 7 ns on the wire, and the peer
 * may keep starting frames for its full response time (394 quanta = 2017.28 ns) after receiving XOFF.
 */
class LosslessIncastTest {
    private static final int SENDERS = 3;
    private static final int OUT = 3;
    private static final int FRAME = 1086;
    private static final long CHARGED = 1280;
    private static final long WIRE_NS = 89;
    private static final long CABLE_NS = 200;
    private static final long PFC_WIRE_NS = 7;
    private static final long RESPONSE_NS = 2018;
    private static final long STATIC_TH = 1_000_000;
    private static final long XON = 2288;
    private static final int PER_SENDER = 1400;
    /** Default refresh: half of 0xFFFF quanta at 100G = 335540 / 2. */
    private static final long REFRESH_NS = 167_770;
    /** SONiC's formula for 100G, 40 m (reference §6.3; worked in TmConfigParserTest). */
    private static final long HEADROOM = HeadroomCalculator.compute(100_000, 40, 9100, 1024, 50, 256, 0, 0, 2288, false)
            .xoffBytes();

    private record Sent(long nowNs, int port, int quanta) {}

    private final long[] pausedFrom = new long[SENDERS];
    private final long[] pausedUntil = new long[SENDERS];
    private final List<Sent> pfc = new ArrayList<>();
    private final long[] occ = new long[SENDERS];
    private final long[] expectedXoffNs = {-1, -1, -1};
    private final long[] expectedXonNs = {-1, -1, -1};
    private long ingressDrops;
    private long transmitted;

    private final PfcFrameSink peers = (tx, port, vector, quanta) -> {
        if ((vector & (1 << 3)) == 0 || port >= SENDERS) {
            return;
        }
        pfc.add(new Sent(tx, port, quanta[3]));
        final long receipt = tx + PFC_WIRE_NS + CABLE_NS;
        if (quanta[3] > 0) {
            if (pausedUntil[port] <= receipt) {
                pausedFrom[port] = receipt + RESPONSE_NS;
            }
            pausedUntil[port] = receipt + (quanta[3] * 512_000L + 99_999) / 100_000;
        } else {
            pausedUntil[port] = receipt;
        }
    };

    private TrafficManager build() {
        final Db db = Db.ports(4)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "static", "size", "20000000")
                .put(
                        "BUFFER_PROFILE",
                        "lossless",
                        "pool",
                        "ing",
                        "size",
                        "0",
                        "static_th",
                        Long.toString(STATIC_TH),
                        "xoff",
                        Long.toString(HEADROOM),
                        "xon",
                        Long.toString(XON))
                .put("BUFFER_PROFILE", "lossy", "pool", "ing", "size", "0", "static_th", Long.toString(STATIC_TH));
        for (int p = 0; p < 4; p++) {
            db.put("PORT_QOS_MAP", Db.port(p), "pfc_enable", "3")
                    .put("BUFFER_PG", Db.port(p) + "|3", "profile", "lossless")
                    .put("BUFFER_PG", Db.port(p) + "|0", "profile", "lossy")
                    .put("CABLE_LENGTH", "AZURE", Db.port(p), "40m");
        }
        return new TrafficManager(db.parse(), TmOptions.defaults().withCellBytes(256), peers, (t, h, p, q, r) -> {}, 0);
    }

    private long startCandidate(final long nextStart, final int s) {
        return nextStart >= pausedFrom[s] && nextStart < pausedUntil[s] ? pausedUntil[s] : nextStart;
    }

    private TrafficManager run(final int prio) {
        final TrafficManager tm = build();
        final long[] nextStart = {0, 30, 60};
        final int[] sent = new int[SENDERS];
        @SuppressWarnings("unchecked")
        final ArrayDeque<long[]>[] inflight = new ArrayDeque[SENDERS];
        for (int s = 0; s < SENDERS; s++) {
            inflight[s] = new ArrayDeque<>();
        }
        long t = 0;
        for (int step = 0; step < 10_000_000; step++) {
            long tStart = Long.MAX_VALUE;
            int sStart = -1;
            long tArr = Long.MAX_VALUE;
            int sArr = -1;
            boolean busy = false;
            for (int s = 0; s < SENDERS; s++) {
                if (sent[s] < PER_SENDER && startCandidate(nextStart[s], s) < tStart) {
                    tStart = startCandidate(nextStart[s], s);
                    sStart = s;
                }
                if (!inflight[s].isEmpty() && inflight[s].peek()[0] < tArr) {
                    tArr = inflight[s].peek()[0];
                    sArr = s;
                }
                busy |= sent[s] < PER_SENDER || !inflight[s].isEmpty();
            }
            final long tTx = tm.nextTransmitNs(t, OUT);
            if (!busy && tTx == Long.MAX_VALUE) {
                break;
            }
            final long tPoll = tm.nextDeadlineNs();
            t = Math.min(Math.min(tStart, tArr), Math.min(tTx, tPoll));
            if (tPoll == t) {
                tm.poll(t);
            } else if (tArr == t) {
                final long[] f = inflight[sArr].poll();
                final boolean over = occ[sArr] + CHARGED > STATIC_TH;
                if (over && expectedXoffNs[sArr] < 0) {
                    expectedXoffNs[sArr] = t;
                }
                final int r = tm.admit(t, sArr, prio, OUT, prio, FRAME, 0, (int) f[1]);
                if (r == TrafficManager.ADMITTED) {
                    occ[sArr] += CHARGED;
                } else {
                    assertThat(r).isEqualTo(TrafficManager.DROP_INGRESS);
                    assertThat(over).isTrue();
                    ingressDrops++;
                }
            } else if (tStart == t) {
                inflight[sStart].add(new long[] {t + WIRE_NS + CABLE_NS, sStart << 20 | sent[sStart]});
                sent[sStart]++;
                nextStart[sStart] = t + WIRE_NS;
            } else {
                final int h = tm.dequeue(t, OUT);
                if (h != TrafficManager.NO_PACKET) {
                    transmitted++;
                    final int s = h >> 20;
                    occ[s] -= CHARGED;
                    if (expectedXoffNs[s] >= 0 && expectedXonNs[s] < 0 && occ[s] <= XON) {
                        expectedXonNs[s] = t;
                    }
                }
            }
        }
        return tm;
    }

    @Test
    @Timeout(60)
    void shouldSendXoffAtCrossingRefreshWhileCongestedOneXonAtXonAndDropNothingWhenLossless() {
        assertThat(HEADROOM).isEqualTo(100352);
        final TrafficManager tm = run(3);
        assertThat(ingressDrops).isZero();
        assertThat(transmitted).isEqualTo(SENDERS * PER_SENDER);
        for (int s = 0; s < SENDERS; s++) {
            final List<Sent> frames = new ArrayList<>();
            for (final Sent f : pfc) {
                if (f.port() == s) {
                    frames.add(f);
                }
            }
            assertThat(expectedXoffNs[s]).isPositive();
            assertThat(expectedXonNs[s]).isGreaterThan(expectedXoffNs[s] + REFRESH_NS);
            assertThat(frames.getFirst()).isEqualTo(new Sent(expectedXoffNs[s], s, 0xFFFF));
            assertThat(frames.getLast()).isEqualTo(new Sent(expectedXonNs[s], s, 0));
            final int refreshes = frames.size() - 2;
            assertThat(refreshes).isEqualTo((int) ((expectedXonNs[s] - 1 - expectedXoffNs[s]) / REFRESH_NS));
            assertThat(refreshes).isPositive();
            for (int k = 1; k <= refreshes; k++) {
                assertThat(frames.get(k)).isEqualTo(new Sent(expectedXoffNs[s] + k * REFRESH_NS, s, 0xFFFF));
            }
        }
        final TmCountersSnapshot snap = tm.newSnapshot();
        tm.snapshot(0, snap);
        assertThat(snap.queue(OUT, 3, QueueStat.DROPPED_PACKETS)).isZero();
        assertThat(snap.queue(OUT, 3, QueueStat.PACKETS)).isEqualTo(SENDERS * PER_SENDER);
        for (int s = 0; s < SENDERS; s++) {
            assertThat(snap.pg(s, 3, PgStat.DROPPED_PACKETS)).isZero();
            assertThat(snap.pg(s, 3, PgStat.PACKETS)).isEqualTo(PER_SENDER);
            assertThat(snap.pg(s, 3, PgStat.XOFF_ROOM_WATERMARK_BYTES))
                    .isPositive()
                    .isLessThanOrEqualTo(HEADROOM);
            assertThat(snap.pg(s, 3, PgStat.SHARED_WATERMARK_BYTES)).isLessThanOrEqualTo(STATIC_TH);
            assertThat(snap.pg(s, 3, PgStat.CURR_OCCUPANCY_BYTES)).isZero();
            assertThat(snap.pfc(s, 3, PfcStat.TX_PKTS)).isEqualTo(countOn(s));
            System.out.printf(
                    "port %d: XOFF at %d ns, %d refreshes, XON at %d ns, headroom watermark %d of %d B%n",
                    s,
                    expectedXoffNs[s],
                    countOn(s) - 2,
                    expectedXonNs[s],
                    snap.pg(s, 3, PgStat.XOFF_ROOM_WATERMARK_BYTES),
                    HEADROOM);
        }
    }

    private long countOn(final int port) {
        return pfc.stream().filter(f -> f.port() == port).count();
    }

    @Test
    @Timeout(60)
    void shouldTailDropAndSendNoPfcWhenLossyPriorityTakesSameIncast() {
        final TrafficManager tm = run(0);
        assertThat(pfc).isEmpty();
        assertThat(ingressDrops).isPositive();
        assertThat(transmitted + ingressDrops).isEqualTo(SENDERS * PER_SENDER);
        final TmCountersSnapshot snap = tm.newSnapshot();
        tm.snapshot(0, snap);
        long pgDrops = 0;
        for (int s = 0; s < SENDERS; s++) {
            pgDrops += snap.pg(s, 0, PgStat.DROPPED_PACKETS);
            assertThat(snap.pg(s, 0, PgStat.XOFF_ROOM_WATERMARK_BYTES)).isZero();
            assertThat(snap.pfc(s, 0, PfcStat.TX_PKTS)).isZero();
        }
        assertThat(pgDrops).isEqualTo(ingressDrops);
    }
}
