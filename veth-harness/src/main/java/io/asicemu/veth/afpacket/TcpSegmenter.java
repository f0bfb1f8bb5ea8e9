package io.asicemu.veth.afpacket;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.Ipv4Flyweight;
import io.asicemu.parser.Ipv6Flyweight;
import io.asicemu.parser.TcpFlyweight;
import java.lang.foreign.MemorySegment;

/**
 * Software TCP segmentation of a GSO super-frame (a TCP packet larger than the port MTU, as a sender with TSO/GSO on
 * a veth hands it over): cuts the payload into MTU-sized segments written to a scratch area, with per-segment IP
 * length, IPv4 id and header checksum, TCP sequence number, flags (FIN/PSH only on the last, CWR only on the first)
 * and a full TCP checksum. This is what the sender's NIC would have done.
 * <p>
 * Not thread safe: one per port, on the data-plane thread. Allocation free.
 */
final class TcpSegmenter {
    private final MemorySegment scratch;
    private final int slotBytes;
    private final int slots;
    private final FrameLayout segmentView = new FrameLayout();
    private final Ipv4Flyweight ipv4 = new Ipv4Flyweight();
    private final Ipv6Flyweight ipv6 = new Ipv6Flyweight();
    private final TcpFlyweight tcp = new TcpFlyweight();
    private int tcpHeaderLength;
    private int usedSlots;

    /**
     * @param scratch memory for the segments.
     * @param slotBytes bytes per segment slot (at least MTU + L2 header).
     */
    TcpSegmenter(final MemorySegment scratch, final int slotBytes) {
        this.scratch = scratch;
        this.slotBytes = slotBytes;
        this.slots = (int) (scratch.byteSize() / slotBytes);
    }

    MemorySegment scratch() {
        return scratch;
    }

    long slotOffset(final int slot) {
        return (long) slot * slotBytes;
    }

    /**
     * How many segments {@link #segment} will write for this frame, given the MTU.
     *
     * @return the count, or -1 if the frame cannot be segmented (not TCP, headers too long, too many segments).
     */
    int segmentCount(final FrameLayout view, final int mtu, final int maxSegments) {
        if (view.protocol != EtherType.PROTO_TCP || view.l4Length < TcpFlyweight.MIN_HEADER_LENGTH) {
            return -1;
        }
        final int mss = mss(view, mtu);
        if (mss <= 0) {
            return -1;
        }
        final int payload = view.l4Length - tcpHeaderLength;
        final int count = Math.max(1, (payload + mss - 1) / mss);
        return count <= Math.min(slots - usedSlots, maxSegments) ? count : -1;
    }

    private int mss(final FrameLayout view, final int mtu) {
        return mtu - view.l3Length - tcpHeaderLength;
    }

    /** Reads the TCP header length of the frame; call before {@link #segmentCount}. */
    void readTcpHeader(final MemorySegment frame, final long offset, final FrameLayout view) {
        tcpHeaderLength = tcp.wrap(frame, offset + view.l4Offset, view.l4Length).headerLength();
        if (tcpHeaderLength < TcpFlyweight.MIN_HEADER_LENGTH) {
            tcpHeaderLength = Integer.MAX_VALUE / 2;
        }
    }

    /** Frees every scratch slot (the batch that borrowed them was released). */
    void reset() {
        usedSlots = 0;
    }

    /**
     * Writes the segments to the next free slots of the scratch area.
     *
     * @param lengths receives each segment's frame length.
     * @return the first slot written; segments occupy slots first..first+count-1.
     */
    int segment(
            final MemorySegment frame, final long offset, final FrameLayout view, final int mtu, final int[] lengths) {
        final int headerBytes = view.l4Offset + tcpHeaderLength;
        final int mss = mss(view, mtu);
        final int payload = view.l4Length - tcpHeaderLength;
        final long payloadAt = offset + headerBytes;
        tcp.wrap(frame, offset + view.l4Offset, view.l4Length);
        final int flags = tcp.flags();
        final int baseSeq = tcp.sequence();
        final int baseId = view.ipVersion == 4
                ? ipv4.wrap(frame, offset + view.l3Offset, view.l3Length).identification()
                : 0;
        final int firstSlot = usedSlots;
        int count = 0;
        for (int done = 0; done < payload || count == 0; done += mss) {
            final int chunk = Math.min(mss, payload - done);
            final long at = slotOffset(firstSlot + count);
            MemorySegment.copy(frame, offset, scratch, at, headerBytes);
            MemorySegment.copy(frame, payloadAt + done, scratch, at + headerBytes, chunk);
            final long l3At = at + view.l3Offset;
            final long l4At = at + view.l4Offset;
            if (view.ipVersion == 4) {
                ipv4.wrap(scratch, l3At, view.l3Length)
                        .totalLength(view.l3Length + tcpHeaderLength + chunk)
                        .identification((baseId + count) & 0xffff)
                        .updateChecksum();
            } else {
                ipv6.wrap(scratch, l3At, view.l3Length).payloadLength(tcpHeaderLength + chunk);
            }
            final boolean last = done + chunk >= payload;
            int segmentFlags = flags;
            if (!last) {
                segmentFlags &= ~(TcpFlyweight.FLAG_FIN | TcpFlyweight.FLAG_PSH);
            }
            if (count > 0) {
                segmentFlags &= ~TcpFlyweight.FLAG_CWR;
            }
            tcp.wrap(scratch, l4At, tcpHeaderLength + chunk)
                    .sequence(baseSeq + done)
                    .flags(segmentFlags);
            final int frameLength = headerBytes + chunk;
            segmentView.wrap(scratch, at, frameLength);
            Checksums.completeL4(scratch, at, segmentView);
            lengths[count] = frameLength;
            count++;
            if (last) {
                break;
            }
        }
        usedSlots += count;
        return firstSlot;
    }
}
