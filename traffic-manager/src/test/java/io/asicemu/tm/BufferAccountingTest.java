package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.PgStat;
import io.asicemu.tm.counter.PoolStat;
import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import org.junit.jupiter.api.Test;

class BufferAccountingTest {
    private final DequeueVerdict verdict = new DequeueVerdict();

    private final RecordingSinks sinks = new RecordingSinks();

    private TrafficManager tm(final String thField, final String thValue, final String reserved) {
        final Db db = Db.ports(2)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "dynamic", "size", "100000")
                .put("BUFFER_PROFILE", "p", "pool", "ing", "size", reserved, thField, thValue)
                .put("BUFFER_PG", Db.port(0) + "|0", "profile", "p");
        return new TrafficManager(db.parse(), TmOptions.defaults().withCellBytes(256), sinks, sinks, 0);
    }

    private static int fill(final TrafficManager tm, final int bytes) {
        int admitted = 0;
        for (int i = 0; i < 10_000; i++) {
            if (tm.admit(0, 0, 0, 1, 0, bytes, 0, i) != TrafficManager.ADMITTED) {
                return admitted;
            }
            admitted++;
        }
        return admitted;
    }

    @Test
    void shouldGiveAlphaOverOnePlusAlphaOfPoolWhenDynamicThreshold() {
        // alpha = 2^0: admit while used + 256 <= 100000 - used → 195 cells (≈ 1/2 of the pool).
        assertThat(fill(tm("dynamic_th", "0", "0"), 200)).isEqualTo(195);
        // alpha = 2^1: used + 256 <= 2 * (100000 - used) → 261 cells (≈ 2/3).
        assertThat(fill(tm("dynamic_th", "1", "0"), 200)).isEqualTo(261);
        // alpha = 2^-1: 2 * (used + 256) <= 100000 - used → 130 cells (≈ 1/3).
        assertThat(fill(tm("dynamic_th", "-1", "0"), 200)).isEqualTo(130);
    }

    @Test
    void shouldUseReservedThenStaticSharedAndChargeWholeCells() {
        // 1000-byte frames take 4 cells = 1024 bytes; reserved 2048 holds 2, static_th 10240 holds 10 more.
        final TrafficManager tm = tm("static_th", "10240", "2048");
        assertThat(fill(tm, 1000)).isEqualTo(12);
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(0, s);
        assertThat(s.pg(0, 0, PgStat.CURR_OCCUPANCY_BYTES)).isEqualTo(12 * 1024);
        assertThat(s.pg(0, 0, PgStat.SHARED_CURR_OCCUPANCY_BYTES)).isEqualTo(10 * 1024);
        assertThat(s.pg(0, 0, PgStat.DROPPED_PACKETS)).isEqualTo(1);
        assertThat(s.pg(0, 0, PgStat.PACKETS)).isEqualTo(13);
        assertThat(s.pool(tm.poolIndex("ing"), PoolStat.WATERMARK_BYTES)).isEqualTo(10 * 1024);
        assertThat(s.queue(1, 0, QueueStat.CURR_OCCUPANCY_BYTES)).isEqualTo(12 * 1024);
        long t = 0;
        for (int i = 0; i < 12; i++) {
            t = tm.nextTransmitNs(t, 1);
            assertThat(tm.dequeue(t, 1, verdict)).isEqualTo(i);
        }
        tm.snapshot(t, s);
        assertThat(s.pg(0, 0, PgStat.CURR_OCCUPANCY_BYTES)).isZero();
        assertThat(s.pg(0, 0, PgStat.WATERMARK_BYTES)).isEqualTo(12 * 1024);
        assertThat(s.pool(tm.poolIndex("ing"), PoolStat.CURR_OCCUPANCY_BYTES)).isZero();
        assertThat(s.queue(1, 0, QueueStat.CURR_OCCUPANCY_BYTES)).isZero();
        assertThat(s.queue(1, 0, QueueStat.PACKETS)).isEqualTo(12);
        assertThat(s.queue(1, 0, QueueStat.BYTES)).isEqualTo(12_000);
        assertThat(QueueStat.SHARED_WATERMARK_BYTES.counterName()).isEqualTo("SAI_QUEUE_STAT_SHARED_WATERMARK_BYTES");
    }

    @Test
    void shouldSendRefreshAtDeadlineNotBeforeWhenPgStaysInXoff() {
        final Db db = Db.ports(2)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "static", "size", "1000000")
                .put("BUFFER_PROFILE", "l", "pool", "ing", "size", "0", "static_th", "2048", "xoff", "8192", "xon", "0")
                .put("BUFFER_PG", Db.port(0) + "|3", "profile", "l")
                .put("PORT_QOS_MAP", Db.port(0), "pfc_enable", "3");
        final TrafficManager tm = new TrafficManager(
                db.parse(), TmOptions.defaults().withCellBytes(256).withPfc(1000, 0), sinks, sinks, 0);
        assertThat(fill3(tm)).isEqualTo(2 + 8);
        // XOFF at the third packet (t = 100); refresh = half of 1000 quanta at 100G = 2560 ns.
        assertThat(sinks.frames).hasSize(1);
        assertThat(sinks.frames.getFirst().nowNs()).isEqualTo(100);
        assertThat(sinks.frames.getFirst().quanta()[3]).isEqualTo(1000);
        assertThat(tm.nextDeadlineNs()).isEqualTo(100 + 2560);
        assertThat(tm.poll(100 + 2559)).isZero();
        assertThat(sinks.frames).hasSize(1);
        assertThat(tm.poll(100 + 2560)).isEqualTo(1);
        assertThat(sinks.frames).hasSize(2);
        assertThat(sinks.frames.get(1).nowNs()).isEqualTo(2660);
        assertThat(tm.isXoff(0, 3)).isTrue();
    }

    @Test
    void shouldDelayDataOnThePortBy64BytePfcFrameWhenXoffIsSent() {
        final Db db = Db.ports(2)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "static", "size", "1000000")
                .put("BUFFER_PROFILE", "l", "pool", "ing", "size", "0", "static_th", "2048", "xoff", "8192", "xon", "0")
                .put("BUFFER_PG", Db.port(0) + "|3", "profile", "l")
                .put("PORT_QOS_MAP", Db.port(0), "pfc_enable", "3");
        final TrafficManager tm =
                new TrafficManager(db.parse(), TmOptions.defaults().withCellBytes(256), sinks, sinks, 0);
        tm.admit(0, 1, 0, 0, 0, 1086, 0, 99); // data waiting on port 0
        assertThat(fill3(tm)).isEqualTo(10);
        // XOFF went out on port 0 at t = 100: (60 + 24) * 8 = 672 bits = 6.72 ns of wire before data resumes.
        assertThat(tm.nextTransmitNs(100, 0)).isEqualTo(106);
        assertThat(tm.dequeue(105, 0, verdict)).isEqualTo(TrafficManager.NO_PACKET);
        assertThat(tm.dequeue(106, 0, verdict)).isEqualTo(99);
        assertThat(verdict.txEndNs()).isEqualTo(195); // 100 + 6.72 + 88.8 = 195.52
    }

    @Test
    void shouldSendXonAtXoffOccupancyMinusXonOffsetWhenXonOffsetSet() {
        // static_th 10240 = ten 1000-byte frames (1024 charged); the 11th spills into headroom → XOFF with the PG at
        // 10240; XON threshold = max(xon 0, 10240 - xon_offset 3072) = 7168. Releases: 11264 - 1024 k <= 7168 at k = 4.
        final Db db = Db.ports(2)
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "static", "size", "1000000")
                .put(
                        "BUFFER_PROFILE",
                        "l",
                        "pool",
                        "ing",
                        "size",
                        "0",
                        "static_th",
                        "10240",
                        "xoff",
                        "8192",
                        "xon",
                        "0",
                        "xon_offset",
                        "3072")
                .put("BUFFER_PG", Db.port(0) + "|3", "profile", "l")
                .put("PORT_QOS_MAP", Db.port(0), "pfc_enable", "3");
        final TrafficManager tm =
                new TrafficManager(db.parse(), TmOptions.defaults().withCellBytes(256), sinks, sinks, 0);
        for (int i = 0; i < 11; i++) {
            assertThat(tm.admit(0, 0, 3, 1, 3, 1000, 0, i)).isEqualTo(TrafficManager.ADMITTED);
        }
        assertThat(sinks.frames).hasSize(1);
        long t = 0;
        for (int k = 1; k <= 4; k++) {
            assertThat(sinks.frames).as("after %d releases", k - 1).hasSize(1);
            t = tm.nextTransmitNs(t, 1);
            tm.dequeue(t, 1, verdict);
        }
        assertThat(sinks.frames).hasSize(2);
        assertThat(sinks.frames.get(1).quanta()[3]).isZero();
        assertThat(sinks.frames.get(1).vector()).isEqualTo(1 << 3);
        assertThat(tm.isXoff(0, 3)).isFalse();
    }

    @Test
    void shouldGeneratePfcOnlyForPfcEnableWhenPfcAsymIsOn() {
        final Db db = Db.ports(2)
                .put("PORT", Db.port(0), "pfc_asym", "on")
                .put("BUFFER_POOL", "ing", "type", "ingress", "mode", "static", "size", "1000000")
                .put("BUFFER_PROFILE", "l", "pool", "ing", "size", "0", "static_th", "2048", "xoff", "8192")
                .put("BUFFER_PG", Db.port(0) + "|0-7", "profile", "l")
                .put("PORT_QOS_MAP", Db.port(0), "pfc_enable", "3");
        final TrafficManager tm =
                new TrafficManager(db.parse(), TmOptions.defaults().withCellBytes(256), sinks, sinks, 0);
        for (int i = 0; i < 4; i++) {
            tm.admit(0, 0, 2, 1, 2, 1000, 0, i);
            tm.admit(0, 0, 3, 1, 3, 1000, 0, 100 + i);
        }
        // PG 2 is lossy (tail drops, no PFC) even though pfc_asym on makes RX honour every priority.
        assertThat(sinks.frames)
                .singleElement()
                .satisfies(f -> assertThat(f.vector()).isEqualTo(1 << 3));
    }

    private static int fill3(final TrafficManager tm) {
        int admitted = 0;
        for (int i = 0; i < 100; i++) {
            if (tm.admit(i < 2 ? 0 : 100, 0, 3, 1, 3, 1000, 0, i) != TrafficManager.ADMITTED) {
                return admitted;
            }
            admitted++;
        }
        return admitted;
    }
}
