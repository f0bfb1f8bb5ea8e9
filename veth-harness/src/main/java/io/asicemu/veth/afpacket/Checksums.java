package io.asicemu.veth.afpacket;

import java.lang.foreign.MemorySegment;
import java.lang.foreign.ValueLayout;

/**
 * Internet checksums (RFC 1071) over frame memory, and completion of the TCP/UDP checksum of frames the kernel handed
 * over with TP_STATUS_CSUMNOTREADY (a sender with TX checksum offload left it to "hardware"). Stateless; allocation
 * free; thread safe.
 */
final class Checksums {
    private Checksums() {}

    /** Adds the 16-bit big-endian words of {@code length} bytes at {@code offset} to {@code sum} (unfolded). */
    static long sum(final MemorySegment segment, final long offset, final int length, final long sum) {
        long acc = sum;
        int i = 0;
        for (; i + 4 <= length; i += 4) {
            acc += segment.get(FrameLayout.U32, offset + i) & 0xffffffffL;
        }
        if (i + 2 <= length) {
            acc += segment.get(FrameLayout.U16, offset + i) & 0xffff;
            i += 2;
        }
        if (i < length) {
            acc += (segment.get(ValueLayout.JAVA_BYTE, offset + i) & 0xff) << 8;
        }
        return acc;
    }

    /** @return {@code sum} folded to 16 bits (not complemented). */
    static int fold(final long sum) {
        long acc = sum;
        while ((acc >>> 16) != 0) {
            acc = (acc & 0xffff) + (acc >>> 16);
        }
        return (int) acc;
    }

    /**
     * Computes and stores the full TCP or UDP checksum (pseudo header included) of the packet {@code view} describes.
     *
     * @return true if the frame was TCP or UDP and its checksum was written.
     */
    static boolean completeL4(final MemorySegment frame, final long offset, final FrameLayout view) {
        final int checksumOffset;
        if (view.protocol == FrameLayout.PROTO_TCP) {
            checksumOffset = 16;
            if (view.l4Length < 20) {
                return false;
            }
        } else if (view.protocol == FrameLayout.PROTO_UDP) {
            checksumOffset = 6;
            if (view.l4Length < 8) {
                return false;
            }
        } else {
            return false;
        }
        final long at = offset + view.l4Offset;
        frame.set(FrameLayout.U16, at + checksumOffset, (short) 0);
        final long sum = sum(frame, at, view.l4Length, view.pseudoHeaderSum(frame, offset, view.l4Length));
        int checksum = ~fold(sum) & 0xffff;
        if (checksum == 0 && view.protocol == FrameLayout.PROTO_UDP) {
            checksum = 0xffff;
        }
        frame.set(FrameLayout.U16, at + checksumOffset, (short) checksum);
        return true;
    }

    /** Recomputes the IPv4 header checksum in place. */
    static void ipv4Header(final MemorySegment frame, final long l3At, final int headerLength) {
        frame.set(FrameLayout.U16, l3At + 10, (short) 0);
        frame.set(FrameLayout.U16, l3At + 10, (short) (~fold(sum(frame, l3At, headerLength, 0)) & 0xffff));
    }
}
