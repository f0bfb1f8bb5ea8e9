package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.PgStat;
import io.asicemu.tm.counter.PoolStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import net.jqwik.api.ForAll;
import net.jqwik.api.Property;
import net.jqwik.api.constraints.IntRange;
import net.jqwik.api.constraints.Size;

/**
 * Random sequences of admits, dequeues, received PFC frames, timer polls and time steps keep the byte accounting
 * exact: every PG and queue holds exactly the cell-rounded bytes of the packets it still has (checked against a
 * shadow model), headroom never exceeds its limit, and after draining every handle came back exactly once.
 */
class AccountingPropertyTest {
    private static final int PORTS = 3;
    private static final long HEADROOM = 20_000;

    private record Pkt(int inPort, int pg, int outPort, int queue, long charged) {}

    private static TrafficManager build(final Map<Integer, Pkt> shadow, final long[] dropped) {
        final Db db = Db.ports(PORTS)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "dynamic", "size", "200000", "xoff", "30000")
                .put("BUFFER_POOL", "eg", "type", "egress", "mode", "dynamic", "size", "300000")
                .put(
                        "BUFFER_PROFILE",
                        "lossless",
                        "pool",
                        "ing",
                        "size",
                        "1248",
                        "dynamic_th",
                        "0",
                        "xoff",
                        Long.toString(HEADROOM),
                        "xon",
                        "2288",
                        "xon_offset",
                        "2288")
                .put("BUFFER_PROFILE", "lossy", "pool", "ing", "size", "0", "dynamic_th", "-1")
                .put("BUFFER_PROFILE", "q", "pool", "eg", "size", "1518", "dynamic_th", "1")
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "green_min_threshold",
                        "5000",
                        "green_max_threshold",
                        "40000",
                        "green_drop_probability",
                        "50",
                        "ecn",
                        "ecn_all")
                .put("SCHEDULER", "a", "type", "DWRR", "weight", "14")
                .put("SCHEDULER", "b", "type", "DWRR", "weight", "15")
                .put("SCHEDULER", "sp", "type", "STRICT")
                .put("PFC_WD", "GLOBAL", "POLL_INTERVAL", "100");
        for (int p = 0; p < PORTS; p++) {
            final String n = Db.port(p);
            db.put("PORT_QOS_MAP", n, "pfc_enable", "3,4")
                    .put("BUFFER_PG", n + "|3-4", "profile", "lossless")
                    .put("BUFFER_PG", n + "|0", "profile", "lossy")
                    .put("BUFFER_QUEUE", n + "|0-7", "profile", "q")
                    .put("QUEUE", n + "|3-4", "scheduler", "b", "wred_profile", "W")
                    .put("QUEUE", n + "|0-2", "scheduler", "a")
                    .put("QUEUE", n + "|7", "scheduler", "sp")
                    .put(
                            "PFC_WD",
                            n,
                            "action",
                            p == 0 ? "drop" : p == 1 ? "forward" : "alert",
                            "detection_time",
                            "200",
                            "restoration_time",
                            "200");
        }
        return new TrafficManager(
                db.parse(),
                TmOptions.defaults().withCellBytes(256),
                (now, port, vector, quanta) -> {},
                (now, handle, port, queue, reason) -> {
                    assertThat(shadow.remove(handle)).isNotNull();
                    dropped[0]++;
                },
                0);
    }

    private static void check(final TrafficManager tm, final Map<Integer, Pkt> shadow, final long nowNs) {
        final long[] pg = new long[PORTS * 8];
        final long[] q = new long[PORTS * 8];
        for (final Pkt p : shadow.values()) {
            pg[p.inPort * 8 + p.pg] += p.charged;
            q[p.outPort * 8 + p.queue] += p.charged;
        }
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(nowNs, s);
        for (int port = 0; port < PORTS; port++) {
            for (int i = 0; i < 8; i++) {
                assertThat(s.pg(port, i, PgStat.CURR_OCCUPANCY_BYTES)).isEqualTo(pg[port * 8 + i]);
                assertThat(s.pg(port, i, PgStat.XOFF_ROOM_CURR_OCCUPANCY_BYTES)).isBetween(0L, HEADROOM);
                assertThat(s.pg(port, i, PgStat.SHARED_CURR_OCCUPANCY_BYTES)).isNotNegative();
                assertThat(s.queue(port, i, QueueStat.CURR_OCCUPANCY_BYTES)).isEqualTo(q[port * 8 + i]);
            }
        }
        for (final String pool : new String[] {"ing", "eg"}) {
            assertThat(s.pool(tm.poolIndex(pool), PoolStat.CURR_OCCUPANCY_BYTES))
                    .isNotNegative();
        }
        assertThat(s.pool(tm.poolIndex("ing"), PoolStat.XOFF_ROOM_OCCUPANCY_BYTES))
                .isBetween(0L, 30_000L);
    }

    @Property(tries = 200)
    void shouldKeepExactAccountingWhenOperationsAreRandom(
            @ForAll @Size(max = 600) final List<@IntRange(min = 0, max = Integer.MAX_VALUE) Integer> ops) {
        final Map<Integer, Pkt> shadow = new HashMap<>();
        final long[] dropped = new long[1];
        final TrafficManager tm = build(shadow, dropped);
        final int[] quanta = new int[8];
        long t = 0;
        int handle = 0;
        long admitted = 0;
        long transmitted = 0;
        for (final int op : ops) {
            final int kind = op & 7;
            final int a = (op >>> 3) & 0xFF;
            final int b = (op >>> 11) & 0xFFFF;
            if (kind <= 3) {
                final int inPort = a % PORTS;
                final int outPort = (a / PORTS) % PORTS;
                final int prio = (a >>> 2) & 7;
                final int bytes = 60 + b % 9000;
                final int r = tm.admit(t, inPort, prio, outPort, prio, bytes, b & 3, handle);
                if (r == TrafficManager.ADMITTED) {
                    shadow.put(handle, new Pkt(inPort, prio, outPort, prio, (bytes + 255) / 256 * 256));
                    admitted++;
                }
                handle++;
            } else if (kind <= 5) {
                final int port = a % PORTS;
                final long next = tm.nextTransmitNs(t, port);
                if (next != Long.MAX_VALUE && next - t < 1_000_000) {
                    t = next;
                    tm.poll(t);
                    final int h = tm.dequeue(t, port);
                    if (h != TrafficManager.NO_PACKET) {
                        assertThat(shadow.remove(h)).isNotNull();
                        transmitted++;
                    }
                }
            } else if (kind == 6) {
                quanta[3] = b & 1;
                quanta[4] = b;
                tm.onPfcReceived(t, a % PORTS, (a >>> 2) & 0x18, quanta);
            } else {
                t += (b & 1) == 0 ? b : b * 5_000L;
                tm.poll(t);
            }
            check(tm, shadow, t);
        }
        for (int round = 0; round < 100_000 && !shadow.isEmpty(); round++) {
            for (int port = 0; port < PORTS; port++) {
                final long next = tm.nextTransmitNs(t, port);
                if (next != Long.MAX_VALUE) {
                    t = Math.max(t, next);
                    tm.poll(t);
                    final int h = tm.dequeue(t, port);
                    if (h != TrafficManager.NO_PACKET) {
                        assertThat(shadow.remove(h)).isNotNull();
                        transmitted++;
                    }
                }
            }
        }
        assertThat(shadow).isEmpty();
        check(tm, shadow, t);
        assertThat(transmitted + dropped[0]).isEqualTo(admitted);
    }
}
