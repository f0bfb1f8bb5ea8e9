package io.asicemu.veth.afpacket;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Software TCP segmentation of a GSO super-frame (a TCP packet larger than the port MTU, as a sender with TSO/GSO on
 * a veth hands it over): cuts the payload into MTU-sized segments written to a scratch area, with per-segment IP
 * length, IPv4 id and header checksum, TCP sequence number, flags (FIN/PSH only on the last, CWR only on the first)
 * and a full TCP checksum. This is what the sender's NIC would have done.
 * <p>
 * Not thread safe: one per port, on the data-plane thread. Allocation free.
 */
final class TcpSegmenter {
    private static final int TCP_FLAG_FIN = 0x01;
    private static final int TCP_FLAG_PSH = 0x08;
    private static final int TCP_FLAG_CWR = 0x80;

    private final MemorySegment scratch;
    private final int slotBytes;
    private final int slots;
    private final FrameLayout segmentView = new FrameLayout();
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
        if (view.protocol != FrameLayout.PROTO_TCP || view.l4Length < 20) {
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
        tcpHeaderLength = ((frame.get(ValueLayout.JAVA_BYTE, offset + view.l4Offset + 12) & 0xf0) >>> 4) * 4;
        if (tcpHeaderLength < 20) {
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
        final int flags = frame.get(ValueLayout.JAVA_BYTE, offset + view.l4Offset + 13) & 0xff;
        final int baseSeq = frame.get(FrameLayout.U32, offset + view.l4Offset + 4);
        final int baseId = view.ipVersion == 4 ? frame.get(FrameLayout.U16, offset + view.l3Offset + 4) & 0xffff : 0;
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
                scratch.set(FrameLayout.U16, l3At + 2, (short) (view.l3Length + tcpHeaderLength + chunk));
                scratch.set(FrameLayout.U16, l3At + 4, (short) (baseId + count));
                Checksums.ipv4Header(scratch, l3At, view.l3Length);
            } else {
                scratch.set(FrameLayout.U16, l3At + 4, (short) (tcpHeaderLength + chunk));
            }
            scratch.set(FrameLayout.U32, l4At + 4, baseSeq + done);
            final boolean last = done + chunk >= payload;
            int segmentFlags = flags;
            if (!last) {
                segmentFlags &= ~(TCP_FLAG_FIN | TCP_FLAG_PSH);
            }
            if (count > 0) {
                segmentFlags &= ~TCP_FLAG_CWR;
            }
            scratch.set(ValueLayout.JAVA_BYTE, l4At + 13, (byte) segmentFlags);
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
