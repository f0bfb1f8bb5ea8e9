package io.asicemu.pipeline.replay;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.MacControlFlyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.pcap.CaptureFormatException;
import io.asicemu.parser.pcap.CaptureReader;
import io.asicemu.pipeline.port.PcapFilePort;
import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * A replay port whose input capture behaves as the NIC at the other end of the cable: it honours the 802.1Qbb PFC
 * frames the switch transmits on this port (reference §6.2), as a NIC does, and writes everything the switch
 * transmits to the output pcap (PFC frames included) through a {@link PcapFilePort}.
 * <p>
 * <b>Timing model.</b> A recorded timestamp is when the frame's last bit would reach the switch with nothing paused.
 * The partner starts frame i at {@code recorded - ser - cable} on its own clock, where {@code ser = (max(len, 60) +
 * 24) * 8 / speed} (preamble, IFG, FCS, as the switch's port clock) and {@code cable} is the one-way cable delay, and
 * the frame reaches the switch {@code ser + cable} after it started. A PFC frame the switch transmits with output
 * timestamp T reaches the partner at {@code P = T + cable}: for every enabled priority n it sets that priority's pause
 * to end at {@code P + ceil(quanta[n] * 512 / speed)} (quanta 0: at P), replacing any remaining time. A frame of a
 * paused priority that has not started by P waits until its pause ends (a frame already in flight, started before
 * P, finishes); a pause that ends before a frame's start has no effect on it.
 * <p>
 * <b>Order and classes.</b> Each of the 8 priorities is a FIFO in capture order (delayed frames keep their order and
 * go back to back when the pause ends, so their timestamps shift); frames of other priorities are not held up behind
 * a paused one, as a NIC with per-priority queues behaves; all share one wire (a frame starts only when the previous
 * one finished). A frame's priority is its traffic class by the switch's own map for that port (DOT1P_TO_TC for
 * tagged frames if the port has one, else DSCP_TO_TC for IP, else 0: {@code QosMaps.trafficClass}), i.e. a NIC in
 * "trust DSCP" mode configured with the switch's DSCP→priority map, and PFC bit n pauses priority n. MAC control
 * frames and classes above 7 are never paused.
 * <p>
 * <b>Causality.</b> Whether frame i is paused depends only on PFC frames with {@code T + cable <= start}, all sent
 * before the switch's clock reached the frame's arrival time, so the decision is final when the frame is lent.
 * <p>
 * Not thread safe: used by the data-plane thread (replay steps it on the caller's thread). Allocates only when its
 * per-priority event rings grow (once per doubling).
 */
final class LinkPartnerPort implements Port {
    /** Classifies a frame into the priority the partner queues it on. */
    @FunctionalInterface
    public interface PriorityClassifier {
        /**
         * @param frame memory holding the frame.
         * @param offset the frame's start.
         * @param length the frame's length.
         * @return the priority 0..7, or -1 for a frame that is never paused.
         */
        int priority(MemorySegment frame, long offset, int length);
    }

    private static final int PRIORITIES = MacControlFlyweight.PRIORITY_COUNT;
    /** The FIFO of frames that are never paused. */
    private static final int UNPAUSED = PRIORITIES;

    private static final int WIRE_OVERHEAD = 24;
    private static final int MIN_FRAME = 60;

    private final String name;
    private final EthernetFlyweight ethernet = new EthernetFlyweight();
    private final MacControlFlyweight macControl = new MacControlFlyweight();
    private final long speedMbps;
    private final int mtu;
    private final long cableDelayNs;
    private final PcapFilePort output;
    private final Arena arena;
    private final MemorySegment input;
    private final long[] offsets;
    private final int[] lengths;
    private final long[] desiredStartNs;
    private final long[] serializationNs;
    private final int[][] fifo = new int[PRIORITIES + 1][];
    private final int[] fifoCount = new int[PRIORITIES + 1];
    private final int[] fifoHead = new int[PRIORITIES + 1];
    private final long[][] eventAtNs = new long[PRIORITIES][];
    private final long[][] eventEndNs = new long[PRIORITIES][];
    private final int[] eventHead = new int[PRIORITIES];
    private final int[] eventTail = new int[PRIORITIES];
    private final long[] pausedUntilNs = new long[PRIORITIES];
    private final long[] pauseFramesPerPriority = new long[PRIORITIES];
    private long wireFreeNs = Long.MIN_VALUE;
    private long pfcFramesReceived;
    private long delayedFrames;
    private long totalDelayNs;
    private int pending;
    // the head chosen by the last pick()
    private int pickedFifo;
    private long pickedStartNs;
    private long pickedArrivalNs;

    /**
     * @param name the port's name.
     * @param inputPcap the frames the partner sends (pcap or pcapng, Ethernet).
     * @param outputPcap where the switch's transmitted frames go, or null.
     * @param mtu the interface MTU.
     * @param speedMbps the link speed in Mb/s (serialization and pause quanta).
     * @param cableDelayNs the one-way cable delay in ns, >= 0.
     * @param classifier the partner's priority of each frame.
     * @throws UncheckedIOException if the capture cannot be read.
     */
    public LinkPartnerPort(
            final String name,
            final Path inputPcap,
            final Path outputPcap,
            final int mtu,
            final long speedMbps,
            final long cableDelayNs,
            final PriorityClassifier classifier) {
        if (cableDelayNs < 0 || speedMbps <= 0) {
            throw new IllegalArgumentException("cable delay >= 0 and speed > 0 required");
        }
        this.name = name;
        this.mtu = mtu;
        this.speedMbps = speedMbps;
        this.cableDelayNs = cableDelayNs;
        this.arena = Arena.ofShared();
        final List<long[]> frames = new ArrayList<>();
        try {
            final byte[] bytes = Files.readAllBytes(inputPcap);
            input = arena.allocate(Math.max(1, bytes.length), 64);
            MemorySegment.copy(MemorySegment.ofArray(bytes), 0, input, 0, bytes.length);
            index(input.asSlice(0, bytes.length), inputPcap, frames);
        } catch (final IOException e) {
            arena.close();
            throw new UncheckedIOException("port " + name + ": " + e.getMessage(), e);
        }
        final int n = frames.size();
        offsets = new long[n];
        lengths = new int[n];
        desiredStartNs = new long[n];
        serializationNs = new long[n];
        for (int f = 0; f <= PRIORITIES; f++) {
            fifo[f] = new int[n];
        }
        for (int i = 0; i < n; i++) {
            offsets[i] = frames.get(i)[0];
            lengths[i] = (int) frames.get(i)[1];
            serializationNs[i] = (Math.max(lengths[i], MIN_FRAME) + WIRE_OVERHEAD) * 8_000L / speedMbps;
            desiredStartNs[i] = frames.get(i)[2] - serializationNs[i] - cableDelayNs;
            final int p = isMacControl(i) ? -1 : classifier.priority(input, offsets[i], lengths[i]);
            final int f = p >= 0 && p < PRIORITIES ? p : UNPAUSED;
            fifo[f][fifoCount[f]++] = i;
        }
        for (int p = 0; p < PRIORITIES; p++) {
            eventAtNs[p] = new long[16];
            eventEndNs[p] = new long[16];
            pausedUntilNs[p] = Long.MIN_VALUE;
        }
        pending = n;
        output = new PcapFilePort(name, null, outputPcap, mtu, speedMbps);
    }

    private static void index(final MemorySegment data, final Path file, final List<long[]> frames) throws IOException {
        try (CaptureReader reader = CaptureReader.of(data)) {
            while (reader.next()) {
                if (reader.linkType() != CaptureReader.LINKTYPE_ETHERNET) {
                    throw new IOException(file + ": link type " + reader.linkType() + " is not Ethernet (1)");
                }
                frames.add(new long[] {reader.frameOffset(), reader.capturedLength(), reader.timestampNs()});
            }
            if (reader.truncated()) {
                throw new IOException(file + ": the last record is truncated");
            }
        } catch (final CaptureFormatException e) {
            throw new IOException(file + ": " + e.getMessage(), e);
        }
    }

    private boolean isMacControl(final int i) {
        return lengths[i] >= EthernetFlyweight.HEADER_LENGTH
                && NetworkOrder.u16(input, offsets[i] + EthernetFlyweight.ETHER_TYPE_OFFSET) == EtherType.MAC_CONTROL;
    }

    /** @return how many input frames have not been received yet. */
    public int pendingRx() {
        return pending;
    }

    /**
     * @return when the next frame reaches the switch given the PFC frames seen so far (final once the clock is
     *         there), or {@link Long#MAX_VALUE} if none is left.
     */
    public long nextRxTimestampNs() {
        return pick() ? pickedArrivalNs : Long.MAX_VALUE;
    }

    /** @return PFC frames the partner received from the switch. */
    public long pfcFramesReceived() {
        return pfcFramesReceived;
    }

    /**
     * @param priority 0..7.
     * @return PFC frames received whose class-enable vector had that priority's bit set.
     */
    public long pfcFramesReceived(final int priority) {
        return pauseFramesPerPriority[priority];
    }

    /** @return frames the partner sent later than recorded (paused, or queued behind a paused frame's wire time). */
    public long delayedFrames() {
        return delayedFrames;
    }

    /** @return the sum over sent frames of (arrival - recorded arrival) in ns. */
    public long totalDelayNs() {
        return totalDelayNs;
    }

    /** Chooses the next frame to reach the switch: the earliest arrival over the FIFO heads, ties by capture order. */
    private boolean pick() {
        pickedFifo = -1;
        int pickedFrame = Integer.MAX_VALUE;
        for (int f = 0; f <= PRIORITIES; f++) {
            if (fifoHead[f] == fifoCount[f]) {
                continue;
            }
            final int i = fifo[f][fifoHead[f]];
            final long wanted = Math.max(desiredStartNs[i], wireFreeNs);
            final long start = f == UNPAUSED ? wanted : startAfterPauses(f, wanted, false);
            final long arrival = start + serializationNs[i] + cableDelayNs;
            if (pickedFifo < 0 || arrival < pickedArrivalNs || arrival == pickedArrivalNs && i < pickedFrame) {
                pickedFifo = f;
                pickedFrame = i;
                pickedStartNs = start;
                pickedArrivalNs = arrival;
            }
        }
        return pickedFifo >= 0;
    }

    /**
     * The partner's start time of a frame of a priority that wants to start at {@code wantedNs}: pause events are
     * applied in order of their arrival at the partner, each replacing the pause end, while the frame waits.
     */
    private long startAfterPauses(final int p, final long wantedNs, final boolean commit) {
        long start = wantedNs;
        long until = pausedUntilNs[p];
        int h = eventHead[p];
        final int tail = eventTail[p];
        final long[] at = eventAtNs[p];
        final long[] end = eventEndNs[p];
        while (true) {
            while (h < tail && at[h] <= start) {
                until = end[h];
                h++;
            }
            if (until <= start) {
                break;
            }
            start = h < tail ? Math.min(until, at[h]) : until;
        }
        if (commit) {
            eventHead[p] = h;
            pausedUntilNs[p] = until;
        }
        return start;
    }

    @Override
    public String name() {
        return name;
    }

    @Override
    public int receive(final RxBatch batch, final long nowNs) {
        int lent = 0;
        while (batch.remaining() > 0 && pick() && pickedArrivalNs - nowNs <= 0) {
            final int f = pickedFifo;
            final int i = fifo[f][fifoHead[f]++];
            if (f != UNPAUSED) {
                startAfterPauses(f, Math.max(desiredStartNs[i], wireFreeNs), true);
            }
            wireFreeNs = pickedStartNs + serializationNs[i];
            final long delay = pickedStartNs - desiredStartNs[i];
            if (delay > 0) {
                delayedFrames++;
                totalDelayNs += delay;
            }
            batch.add(input, offsets[i], lengths[i], pickedArrivalNs, i);
            pending--;
            lent++;
        }
        return lent;
    }

    @Override
    public void release(final RxBatch batch) {
        batch.clear();
    }

    @Override
    public boolean transmit(final MemorySegment source, final long offset, final int length, final long timestampNs) {
        if (isPfc(source, offset, length)) {
            onPfc(timestampNs + cableDelayNs);
        }
        return output.transmit(source, offset, length, timestampNs);
    }

    /** Whether the frame is a PFC frame; if so {@link #macControl} is left wrapped around its MAC control body. */
    private boolean isPfc(final MemorySegment s, final long offset, final int length) {
        if (length < EthernetFlyweight.HEADER_LENGTH + MacControlFlyweight.PFC_LENGTH) {
            return false;
        }
        ethernet.wrap(s, offset, length);
        return ethernet.dstMac() == MacControlFlyweight.DST_MAC
                && ethernet.etherType() == EtherType.MAC_CONTROL
                && macControl
                                .wrap(
                                        s,
                                        offset + EthernetFlyweight.HEADER_LENGTH,
                                        length - EthernetFlyweight.HEADER_LENGTH)
                                .opcode()
                        == MacControlFlyweight.OPCODE_PFC;
    }

    /** Pauses the priorities the PFC frame {@link #macControl} views names, from its arrival at the partner. */
    private void onPfc(final long atNs) {
        pfcFramesReceived++;
        final int enable = macControl.classEnableVector() & 0xff;
        for (int p = 0; p < PRIORITIES; p++) {
            if ((enable & (1 << p)) != 0) {
                final long quanta = macControl.quanta(p);
                final long pauseNs = (quanta * 512_000L + speedMbps - 1) / speedMbps;
                if (fifoHead[p] < fifoCount[p]) { // nothing left to send on p: the pause cannot matter
                    addEvent(p, atNs, atNs + pauseNs);
                }
                pauseFramesPerPriority[p]++;
            }
        }
    }

    private void addEvent(final int p, final long atNs, final long endNs) {
        int tail = eventTail[p];
        final long at = tail > eventHead[p] ? Math.max(atNs, eventAtNs[p][tail - 1]) : atNs;
        if (tail == eventAtNs[p].length) {
            final int head = eventHead[p];
            final int live = tail - head;
            if (head > 0 && live < eventAtNs[p].length / 2) {
                System.arraycopy(eventAtNs[p], head, eventAtNs[p], 0, live);
                System.arraycopy(eventEndNs[p], head, eventEndNs[p], 0, live);
            } else {
                final long[] a = Arrays.copyOfRange(eventAtNs[p], head, head + 2 * eventAtNs[p].length);
                final long[] e = Arrays.copyOfRange(eventEndNs[p], head, head + 2 * eventEndNs[p].length);
                eventAtNs[p] = a;
                eventEndNs[p] = e;
            }
            eventHead[p] = 0;
            tail = live;
        }
        eventAtNs[p][tail] = at;
        eventEndNs[p][tail] = Math.max(at, endNs);
        eventTail[p] = tail + 1;
    }

    @Override
    public void flush() {
        output.flush();
    }

    @Override
    public boolean linkUp() {
        return true;
    }

    @Override
    public int mtu() {
        return mtu;
    }

    @Override
    public long speedMbps() {
        return speedMbps;
    }

    @Override
    public int pollFd() {
        return -1;
    }

    @Override
    public void close() {
        try {
            output.close();
        } finally {
            if (arena.scope().isAlive()) {
                arena.close();
            }
        }
    }
}
