package io.asicemu.veth.afpacket;

import java.io.IOException;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;

/**
 * A diagnostic instrument (off unless the JVM runs with {@code -Dasicemu.frameTrace=<file>}): times every frame of the
 * AF_PACKET ports inside the switch — the kernel's RX timestamp of its ring slot, when the data plane read it, when it
 * was put on a TX ring, and when that ring's kick (sendto) began and returned — into preallocated rings of the last
 * {@link #CAPACITY} events, written to the file when the JVM exits. A frame is named by the 8 bytes at
 * {@code -Dasicemu.frameTrace.keyOffset} (default 50: the send timestamp the veth harness's probe puts in its frames),
 * so its RX and TX events can be joined, and joined with the probe's own record.
 * <p>
 * Off, {@link #ON} is a constant {@code false} and the JIT removes every call site: the shipped path pays nothing.
 * On, it costs a clock read and a few stores per event, no allocation. Data-plane thread only (plain arrays).
 */
public final class FrameTrace {
    /** Whether the instrument records (a constant for the JIT). */
    public static final boolean ON = System.getProperty("asicemu.frameTrace") != null;

    /** Events kept per kind (the last ones). */
    static final int CAPACITY = 1 << 16;

    private static final int KEY_OFFSET = Integer.getInteger("asicemu.frameTrace.keyOffset", 50);
    private static final ValueLayout.OfLong KEY =
            ValueLayout.JAVA_LONG_UNALIGNED.withOrder(java.nio.ByteOrder.BIG_ENDIAN);

    /** key, kernel RX timestamp (CLOCK_REALTIME ns), read (CLOCK_MONOTONIC ns), ifindex. */
    private static final long[] RX = ON ? new long[CAPACITY * 4] : null;
    /** key, written to the TX ring (CLOCK_MONOTONIC ns), ifindex, TX frames of the port so far. */
    private static final long[] TX = ON ? new long[CAPACITY * 4] : null;
    /** ifindex, kick began, kick returned (CLOCK_MONOTONIC ns), TX frames of the port so far. */
    private static final long[] KICK = ON ? new long[CAPACITY * 4] : null;

    private static long rxCount;
    private static long txCount;
    private static long kickCount;

    static {
        if (ON) {
            Runtime.getRuntime()
                    .addShutdownHook(
                            new Thread(() -> write(Path.of(System.getProperty("asicemu.frameTrace"))), "frame-trace"));
        }
    }

    private FrameTrace() {}

    static void rx(
            final MemorySegment ring, final long mac, final int length, final long kernelRealNs, final int ifIndex) {
        final int i = (int) (rxCount++ & (CAPACITY - 1)) * 4;
        RX[i] = length >= KEY_OFFSET + 8 ? ring.get(KEY, mac + KEY_OFFSET) : 0;
        RX[i + 1] = kernelRealNs;
        RX[i + 2] = System.nanoTime();
        RX[i + 3] = ifIndex;
    }

    static void tx(
            final MemorySegment source, final long offset, final int length, final int ifIndex, final long txFrames) {
        final int i = (int) (txCount++ & (CAPACITY - 1)) * 4;
        TX[i] = length >= KEY_OFFSET + 8 ? source.get(KEY, offset + KEY_OFFSET) : 0;
        TX[i + 1] = System.nanoTime();
        TX[i + 2] = ifIndex;
        TX[i + 3] = txFrames;
    }

    static void kick(final int ifIndex, final long beganNs, final long txFrames) {
        final int i = (int) (kickCount++ & (CAPACITY - 1)) * 4;
        KICK[i] = ifIndex;
        KICK[i + 1] = beganNs;
        KICK[i + 2] = System.nanoTime();
        KICK[i + 3] = txFrames;
    }

    /** Writes the kept events: "offset" (CLOCK_REALTIME − CLOCK_MONOTONIC ns), then "rx", "tx", "kick" lines. */
    private static void write(final Path file) {
        long offset = Long.MAX_VALUE;
        for (int k = 0; k < 5; k++) { // the tightest of a few samples
            final long before = System.nanoTime();
            final Instant now = Instant.now();
            final long after = System.nanoTime();
            final long o = now.getEpochSecond() * 1_000_000_000L + now.getNano() - (before + after) / 2;
            offset = Math.min(offset, o);
        }
        try (PrintWriter out = new PrintWriter(Files.newBufferedWriter(file))) {
            out.println("offset " + offset);
            dump(out, "rx", RX, rxCount);
            dump(out, "tx", TX, txCount);
            dump(out, "kick", KICK, kickCount);
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private static void dump(final PrintWriter out, final String kind, final long[] events, final long count) {
        for (long n = Math.max(0, count - CAPACITY); n < count; n++) {
            final int i = (int) (n & (CAPACITY - 1)) * 4;
            out.println(kind + " " + events[i] + " " + events[i + 1] + " " + events[i + 2] + " " + events[i + 3]);
        }
    }
}
