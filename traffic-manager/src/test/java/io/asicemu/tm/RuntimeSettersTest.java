package io.asicemu.tm;

import static org.assertj.core.api.Assertions.assertThat;

import io.asicemu.tm.counter.QueueStat;
import io.asicemu.tm.counter.TmCountersSnapshot;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * The runtime setters (P4Runtime registers) against a traffic manager built fresh from the equivalent CONFIG_DB:
 * the same packet sequence must give the same verdicts, marks, PFC frames and watchdog decisions.
 */
class RuntimeSettersTest {
    private static final long MS = 1_000_000L;

    private static Db wredDb(final long kmin, final long kmax, final int prob) {
        return Db.ports(2)
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "wred_yellow_enable",
                        "true",
                        "wred_red_enable",
                        "true",
                        "ecn",
                        "ecn_all",
                        "green_min_threshold",
                        Long.toString(kmin),
                        "green_max_threshold",
                        Long.toString(kmax),
                        "green_drop_probability",
                        Integer.toString(prob),
                        "yellow_min_threshold",
                        Long.toString(kmin),
                        "yellow_max_threshold",
                        Long.toString(kmax),
                        "yellow_drop_probability",
                        Integer.toString(prob),
                        "red_min_threshold",
                        Long.toString(kmin),
                        "red_max_threshold",
                        Long.toString(kmax),
                        "red_drop_probability",
                        Integer.toString(prob))
                .put("QUEUE", Db.port(1) + "|3", "wred_profile", "W");
    }

    /** 60 packets into port 1 queue 3 (ECT(0), every 7th not-ECT), then drained; one line per packet. */
    private static List<String> wredRun(final TrafficManager tm, final RecordingSinks sinks) {
        final DequeueVerdict verdict = new DequeueVerdict();
        final List<String> out = new ArrayList<>();
        for (int k = 0; k < 60; k++) {
            out.add("admit " + k + " " + tm.admit(0, 0, 3, 1, 3, 1000, k % 7 == 0 ? 0 : 2, k));
        }
        long t = 0;
        for (int h = tm.dequeue(t, 1, verdict); h != TrafficManager.NO_PACKET; h = tm.dequeue(t, 1, verdict)) {
            out.add("tx " + h + " ecn " + verdict.ecn() + " marked " + verdict.marked());
            t = verdict.txEndNs();
        }
        sinks.drops.forEach(d -> out.add("drop " + d.handle() + " " + d.reason()));
        final TmCountersSnapshot s = tm.newSnapshot();
        tm.snapshot(t, s);
        out.add("marked " + s.queue(1, 3, QueueStat.WRED_ECN_MARKED_PACKETS) + " dropped "
                + s.queue(1, 3, QueueStat.WRED_DROPPED_PACKETS));
        return out;
    }

    @Test
    void shouldMarkAsAFreshlyConfiguredQueueWhenWredThresholdsAreSetAtRuntime() {
        final RecordingSinks fresh = new RecordingSinks();
        final List<String> expected = wredRun(
                new TrafficManager(wredDb(10_240, 40_960, 40).parse(), TmOptions.defaults(), fresh, fresh, 0), fresh);

        final RecordingSinks changed = new RecordingSinks();
        final TrafficManager tm =
                new TrafficManager(wredDb(1_000_000, 2_000_000, 5).parse(), TmOptions.defaults(), changed, changed, 0);
        tm.setWred(1, 3, 10_240, 40_960, 40);

        assertThat(wredRun(tm, changed)).isEqualTo(expected);
        assertThat(expected.getLast()).isNotEqualTo("marked 0 dropped 0");
    }

    @Test
    void shouldBehaveAsEcnAllProfileWhenQueueHadNoWredProfile() {
        final RecordingSinks fresh = new RecordingSinks();
        final List<String> expected = wredRun(
                new TrafficManager(wredDb(8_192, 8_192, 100).parse(), TmOptions.defaults(), fresh, fresh, 0), fresh);

        final RecordingSinks changed = new RecordingSinks();
        final TrafficManager tm = new TrafficManager(Db.ports(2).parse(), TmOptions.defaults(), changed, changed, 0);
        tm.setWred(1, 3, 8_192, 8_192, 100);

        assertThat(wredRun(tm, changed)).isEqualTo(expected);
    }

    /** A profile whose three colours differ: thresholds and Pmax per colour (green, yellow, red). */
    private static Db colourDb(final long[] kmin, final long[] kmax, final int[] prob) {
        return Db.ports(2)
                .put(
                        "WRED_PROFILE",
                        "W",
                        "wred_green_enable",
                        "true",
                        "wred_yellow_enable",
                        "true",
                        "wred_red_enable",
                        "true",
                        "ecn",
                        "ecn_all",
                        "green_min_threshold",
                        Long.toString(kmin[0]),
                        "green_max_threshold",
                        Long.toString(kmax[0]),
                        "green_drop_probability",
                        Integer.toString(prob[0]),
                        "yellow_min_threshold",
                        Long.toString(kmin[1]),
                        "yellow_max_threshold",
                        Long.toString(kmax[1]),
                        "yellow_drop_probability",
                        Integer.toString(prob[1]),
                        "red_min_threshold",
                        Long.toString(kmin[2]),
                        "red_max_threshold",
                        Long.toString(kmax[2]),
                        "red_drop_probability",
                        Integer.toString(prob[2]))
                .put("QUEUE", Db.port(1) + "|3", "wred_profile", "W");
    }

    /** As {@link #wredRun} with every packet of one colour. */
    private static List<String> colouredWredRun(final TrafficManager tm, final RecordingSinks sinks, final int colour) {
        final DequeueVerdict verdict = new DequeueVerdict();
        final List<String> out = new ArrayList<>();
        for (int k = 0; k < 60; k++) {
            out.add("admit " + k + " " + tm.admit(0, 0, 3, 1, 3, 1000, k % 7 == 0 ? 0 : 2, colour, k));
        }
        long t = 0;
        for (int h = tm.dequeue(t, 1, verdict); h != TrafficManager.NO_PACKET; h = tm.dequeue(t, 1, verdict)) {
            out.add("tx " + h + " ecn " + verdict.ecn() + " marked " + verdict.marked());
            t = verdict.txEndNs();
        }
        sinks.drops.forEach(d -> out.add("drop " + d.handle() + " " + d.reason()));
        return out;
    }

    @Test
    void shouldChangeOnlyThatColourWhenOneColoursWredIsSetAtRuntime() {
        final long[] kmin = {10_240, 4_096, 2_048};
        final long[] kmax = {40_960, 8_192, 4_096};
        final int[] prob = {40, 100, 100};
        final long[] greenChangedMin = {20_480, 4_096, 2_048};
        final long[] greenChangedMax = {30_720, 8_192, 4_096};
        final int[] greenChangedProb = {60, 100, 100};
        for (int colour = 0; colour < 3; colour++) {
            final RecordingSinks fresh = new RecordingSinks();
            final List<String> expected = colouredWredRun(
                    new TrafficManager(
                            colourDb(greenChangedMin, greenChangedMax, greenChangedProb)
                                    .parse(),
                            TmOptions.defaults(),
                            fresh,
                            fresh,
                            0),
                    fresh,
                    colour);

            final RecordingSinks changed = new RecordingSinks();
            final TrafficManager tm =
                    new TrafficManager(colourDb(kmin, kmax, prob).parse(), TmOptions.defaults(), changed, changed, 0);
            tm.setWredColour(1, 3, 0, 20_480, 30_720, 60);

            assertThat(colouredWredRun(tm, changed, colour))
                    .as("colour " + colour + " as the config with green changed gives")
                    .isEqualTo(expected);

            final RecordingSinks before = new RecordingSinks();
            final List<String> unchanged = colouredWredRun(
                    new TrafficManager(colourDb(kmin, kmax, prob).parse(), TmOptions.defaults(), before, before, 0),
                    before,
                    colour);
            assertThat(unchanged.equals(expected))
                    .as("only green's run differs from the original config's, colour " + colour)
                    .isEqualTo(colour != 0);
        }
    }

    private static Db pfcDb(final long xoff, final long xon) {
        return Db.ports(2)
                .put("BUFFER_POOL", "ingress_lossless_pool", "type", "ingress", "mode", "static", "size", "10000000")
                .put(
                        "BUFFER_PROFILE",
                        "lossless",
                        "pool",
                        "ingress_lossless_pool",
                        "size",
                        "0",
                        "static_th",
                        "20480",
                        "xon",
                        Long.toString(xon),
                        "xoff",
                        Long.toString(xoff))
                .put("BUFFER_PG", Db.port(0) + "|3", "profile", "lossless")
                .put("PORT_QOS_MAP", Db.port(0), "pfc_enable", "3");
    }

    /** 40 packets from port 0 PG 3 to port 1, then drained; verdicts, PFC frames (time, quanta) and drains. */
    private static List<String> pfcRun(final TrafficManager tm, final RecordingSinks sinks) {
        final DequeueVerdict verdict = new DequeueVerdict();
        final List<String> out = new ArrayList<>();
        for (int k = 0; k < 40; k++) {
            out.add("admit " + k + " " + tm.admit(k * 10L, 0, 3, 1, 3, 1000, 0, k) + " xoff " + tm.isXoff(0, 3));
        }
        long t = 1000;
        for (int h = tm.dequeue(t, 1, verdict); h != TrafficManager.NO_PACKET; h = tm.dequeue(t, 1, verdict)) {
            out.add("tx " + h + " xoff " + tm.isXoff(0, 3));
            t = verdict.txEndNs();
        }
        sinks.framesOn(0).forEach(f -> out.add("pfc " + f.nowNs() + " " + f.vector() + " " + f.quanta()[3]));
        return out;
    }

    @Test
    void shouldSendXoffAndXonAndDropAsAFreshlyConfiguredPgWhenPfcThresholdsAreSetAtRuntime() {
        final RecordingSinks fresh = new RecordingSinks();
        final List<String> expected =
                pfcRun(new TrafficManager(pfcDb(5_120, 10_240).parse(), TmOptions.defaults(), fresh, fresh, 0), fresh);

        final RecordingSinks changed = new RecordingSinks();
        final TrafficManager tm =
                new TrafficManager(pfcDb(102_400, 2_048).parse(), TmOptions.defaults(), changed, changed, 0);
        tm.setPfcThresholds(0, 3, 5_120, 10_240);

        assertThat(pfcRun(tm, changed)).isEqualTo(expected);
        // The run exercises all three: XOFF, ingress drops once headroom (5 cells of 1024) is full, XON.
        assertThat(expected).anyMatch(l -> l.endsWith(" " + TrafficManager.DROP_INGRESS + " xoff true"));
        assertThat(expected).anyMatch(l -> l.startsWith("pfc ") && l.endsWith(" 0"));
    }

    private static Db wdDb(final String detection, final String restoration) {
        final Db db = Db.ports(2).put("PFC_WD", "GLOBAL", "POLL_INTERVAL", "100");
        db.put("PFC_WD", Db.port(0), "action", "drop", "detection_time", detection, "restoration_time", restoration);
        for (int p = 0; p < 2; p++) {
            db.put("PORT_QOS_MAP", Db.port(p), "pfc_enable", "3,4", "pfcwd_sw_enable", "3");
        }
        return db;
    }

    /** A storm on port 0 priority 3 from 50 µs to 700 ms; stormed state sampled every 10 ms up to 2 s. */
    private static List<String> wdRun(final TrafficManager tm) {
        final int[] xoff = {0, 0, 0, 0xFFFF, 0, 0, 0, 0};
        for (int i = 0; i < 20; i++) {
            tm.admit(0, 1, 3, 0, 3, 1000, 0, i);
        }
        final List<String> out = new ArrayList<>();
        long next = 0;
        for (long t = 50_000; t < 2_000 * MS; t += 100_000) {
            tm.poll(t);
            if (t < 700 * MS) {
                tm.onPfcReceived(t, 0, 1 << 3, xoff);
            }
            if (t >= next) {
                out.add(t / MS + " " + tm.isStormed(0, 3));
                next += 10 * MS;
            }
        }
        return out;
    }

    @Test
    void shouldDetectAndRestoreAsAFreshlyConfiguredPortWhenWatchdogTimesAreSetAtRuntime() {
        final RecordingSinks sinks = new RecordingSinks();
        final List<String> expected =
                wdRun(new TrafficManager(wdDb("300", "500").parse(), TmOptions.defaults(), sinks, sinks, 0));
        final TrafficManager tm =
                new TrafficManager(wdDb("1000", "2000").parse(), TmOptions.defaults(), sinks, sinks, 0);
        tm.setWatchdogTimes(0, 300, 500);

        assertThat(wdRun(tm)).isEqualTo(expected);
        assertThat(expected).contains("400 true", "1300 false");
    }
}
