package io.asicemu.veth.afpacket;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.InternetChecksum;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.TcpFlyweight;
import io.asicemu.parser.UdpFlyweight;
import java.lang.foreign.MemorySegment;

/**
 * Completion of the TCP/UDP checksum of frames the kernel handed over with TP_STATUS_CSUMNOTREADY (a sender with TX
 * checksum offload left it to "hardware"), with the parser's header layout and RFC 1071 sums. Stateless; allocation
 * free; thread safe.
 */
final class Checksums {
    private Checksums() {}

    /**
     * Computes and stores the full TCP or UDP checksum (pseudo header included) of the packet {@code view} describes.
     *
     * @return true if the frame was TCP or UDP and its checksum was written.
     */
    static boolean completeL4(final MemorySegment frame, final long offset, final FrameLayout view) {
        final int checksumOffset;
        if (view.protocol == EtherType.PROTO_TCP) {
            checksumOffset = TcpFlyweight.CHECKSUM_OFFSET;
            if (view.l4Length < TcpFlyweight.MIN_HEADER_LENGTH) {
                return false;
            }
        } else if (view.protocol == EtherType.PROTO_UDP) {
            checksumOffset = UdpFlyweight.CHECKSUM_OFFSET;
            if (view.l4Length < UdpFlyweight.HEADER_LENGTH) {
                return false;
            }
        } else {
            return false;
        }
        final long at = offset + view.l4Offset;
        NetworkOrder.u16(frame, at + checksumOffset, 0);
        final long sum = (long) InternetChecksum.sum(frame, at, view.l4Length)
                + view.pseudoHeaderSum(frame, offset, view.l4Length);
        int checksum = ~InternetChecksum.fold(sum) & 0xffff;
        if (checksum == 0 && view.protocol == EtherType.PROTO_UDP) {
            checksum = 0xffff; // RFC 768: zero means "no checksum"
        }
        NetworkOrder.u16(frame, at + checksumOffset, checksum);
        return true;
    }
}
