package io.asicemu.pipeline.port;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.EthernetFlyweight;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.VlanTagFlyweight;
import java.lang.foreign.MemorySegment;

/**
 * One front-panel port of the switch as the data path sees it: a source of received frames, a sink for transmitted
 * ones, and a few properties (link state, MTU, modeled speed). Implementations: {@link InMemoryPort} (tests),
 * {@link PcapFilePort} (offline replay), and the Linux AF_PACKET/TAP ports of the veth-harness module.
 * <p>
 * <b>Threading.</b> Every method except {@link #name()}, {@link #pollFd()} and {@link #close()} is called on the
 * data-plane thread only, and never blocks. {@link #close()} is called once, after the data-plane agent has stopped
 * using the port (removed it, acknowledged the removal, or stopped).
 * <p>
 * <b>Ownership.</b> RX is zero-copy: {@link #receive} lends frames of the port's own memory into the caller's
 * {@link RxBatch}; the data path may read and rewrite them in place until it calls {@link #release} with the same
 * batch, which hands every lent frame back. TX copies: {@link #transmit} copies the bytes into the port's TX buffer
 * (the one copy a port boundary forces), so the caller's memory is free again on return. {@link #flush()} pushes what
 * was queued by this cycle's transmits to the wire (one syscall per batch, not per frame).
 * <p>
 * Calls per duty cycle: {@code receive} (batch empty on entry) → stages → {@code transmit}* → {@code release} →
 * {@code flush}. Implementations allocate nothing in these calls.
 */
public interface Port extends AutoCloseable {
    /** @return the port's name as the operator knows it (a Linux name such as {@code eth1}, or a file name). */
    String name();

    /**
     * Lends up to {@code batch.remaining()} received frames whose receive time is not after {@code nowNs}.
     *
     * @param batch an empty batch owned by the caller, filled with lent frames.
     * @param nowNs the cycle's emulated time; live ports stamp frames with it, file ports lend only frames due by it.
     * @return how many frames were lent (0 if none are ready).
     */
    int receive(RxBatch batch, long nowNs);

    /**
     * Takes back every frame lent into {@code batch} and clears it. Called once per non-empty receive, after the
     * frames were processed (copied to a packet buffer, transmitted, or dropped).
     *
     * @param batch the batch last filled by this port.
     */
    void release(RxBatch batch);

    /**
     * Copies one frame into the port's TX buffer.
     *
     * @param source memory holding the frame.
     * @param offset where the frame starts in {@code source}.
     * @param length the frame length in bytes, without FCS.
     * @param timestampNs the emulated time the frame leaves the wire (end of serialization at the modeled speed);
     *                    file ports record it, live ports may ignore it.
     * @return false if the TX buffer is full or the frame too long; the frame was not sent (the caller counts a TX
     *         discard).
     */
    boolean transmit(MemorySegment source, long offset, int length, long timestampNs);

    /**
     * Whether {@link #transmit} has room for a frame now. While a live port's TX ring is full (the frames before are
     * still in the kernel, e.g. a veth whose peer is behind), the traffic manager keeps its frames queued, as a chip's
     * MAC takes a frame only when it can send it: the buffer model (WRED, PFC, tail drop) decides what happens to the
     * excess, and nothing is dropped at the ring. A port that cannot tell answers true.
     *
     * @return false while a frame handed to {@link #transmit} now would not fit.
     */
    default boolean transmitReady() {
        return true;
    }

    /**
     * Pushes frames queued by {@link #transmit} since the last flush; called at the end of a cycle that transmitted (or,
     * if {@link #flushIsOneSystemCall()}, of a later cycle). A port may also push them itself when its TX ring is full.
     */
    void flush();

    /**
     * @return whether {@link #flush()} is one system call whatever the number of frames it hands over (an AF_PACKET TX
     *         ring's kick): the data plane then holds a flush while frames keep arriving, for at most
     *         {@code DataPlaneAgent.TX_KICK_DELAY_NS}, so that one call sends more of them. False (the default): flushed
     *         at the end of every cycle that transmitted.
     */
    default boolean flushIsOneSystemCall() {
        return false;
    }

    /** @return whether the link is up (operational state); a down port receives nothing and transmits nothing. */
    boolean linkUp();

    /**
     * @return the interface MTU in bytes, as Linux and SONiC's {@code PORT|mtu} define it: the largest IP packet; a
     *         frame may be up to {@code mtu + 14} bytes, plus 4 per VLAN tag, without FCS.
     */
    int mtu();

    /** @return the modeled line rate in Mb/s, used for serialization time and PFC quanta. */
    long speedMbps();

    /**
     * A file descriptor the live loop may poll/epoll for readability when idle.
     *
     * @return the descriptor, or -1 if the port has none (in-memory and file ports).
     */
    int pollFd();

    /**
     * Frames that arrived at this port and were lost before the pipeline saw them because its receive buffer was full
     * (an AF_PACKET RX ring overflow, counted by the kernel), since the previous call. The agent calls it
     * periodically, off the per-packet path, and counts them as discards of the port.
     *
     * @return frames lost since the previous call (0 for ports that cannot lose frames).
     */
    default long takeRxOverflowDrops() {
        return 0;
    }

    /**
     * Frames the port itself dropped on receive because they were larger than it can take (for example a GSO
     * super-frame that could not be segmented), since the previous call; called as {@link #takeRxOverflowDrops()}.
     *
     * @return frames dropped since the previous call.
     */
    default long takeRxOversizeDrops() {
        return 0;
    }

    /**
     * Whether this port dropped frames on receive that {@link #takeRxOversizeDrops()} has not yet reported, so that
     * the agent schedules a fold although no frame reached the pipeline. Kernel ring overflow needs no such hint: a
     * ring only overflows while frames arrive, and those frames are received.
     *
     * @return whether oversize drops wait to be reported.
     */
    default boolean hasUnreportedRxDrops() {
        return false;
    }

    /**
     * Whether a frame fits a link's MTU as Linux sends it: at most {@code mtu + 14} bytes, or {@code mtu + 18} with a
     * VLAN tag (EtherType 0x8100 or 0x88a8 after the MACs), FCS not included.
     *
     * @param frame memory holding the frame.
     * @param offset where it starts.
     * @param length its length.
     * @param mtu the link's MTU.
     * @return whether the link can send it.
     */
    static boolean fitsMtu(final MemorySegment frame, final long offset, final int length, final int mtu) {
        if (length <= mtu + EthernetFlyweight.HEADER_LENGTH) {
            return true;
        }
        if (length > mtu + EthernetFlyweight.HEADER_LENGTH + VlanTagFlyweight.TAG_LENGTH) {
            return false;
        }
        final int tpid = NetworkOrder.u16(frame, offset + EthernetFlyweight.ETHER_TYPE_OFFSET);
        return tpid == EtherType.VLAN || tpid == EtherType.QINQ;
    }

    /**
     * Whether the oldest frame waiting in the RX ring arrived before a moment given two ways; the data plane forwards
     * such a frame before it applies a command queued at that moment. A port that cannot tell answers false (the
     * command then applies first).
     *
     * @param clockNs the moment in the data plane's clock (emulated ports: their frames' timestamps).
     * @param epochNs the same moment in nanoseconds since the epoch (live ports: the kernel's receive timestamps).
     * @return whether a frame has been waiting since before it.
     */
    default boolean rxWaitingSince(final long clockNs, final long epochNs) {
        return false;
    }

    /** Releases the port's memory and descriptors. Called once, after the data path stopped using the port. */
    @Override
    void close();
}
