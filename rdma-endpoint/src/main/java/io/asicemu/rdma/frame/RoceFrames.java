package io.asicemu.rdma.frame;

import io.asicemu.parser.EtherType;
import io.asicemu.parser.FrameBuilder;
import io.asicemu.parser.NetworkOrder;
import io.asicemu.parser.ParseResult;
import io.asicemu.parser.RoceOpcode;
import java.lang.foreign.MemorySegment;

/**
 * The wire format of one endpoint's reliable connections over RoCEv2 (IBTA vol. 1 §9 and Annex A17): RDMA WRITE
 * first/middle/last/only with a RETH on the first packet, ACK and PSN-sequence-error NAK with an AETH, and CNP
 * (opcode 0x81, BECN, 16 reserved bytes), each with a valid IPv4 checksum and ICRC, written by the parser's
 * {@link FrameBuilder} (the one header layout). Reading goes through the parser's {@link ParseResult}.
 * No allocation per frame; not thread safe.
 */
public final class RoceFrames {
    public static final int RDMA_WRITE_FIRST = RoceOpcode.RC_RDMA_WRITE_FIRST;
    public static final int RDMA_WRITE_MIDDLE = 0x07;
    public static final int RDMA_WRITE_LAST = 0x08;
    public static final int RDMA_WRITE_ONLY = RoceOpcode.RC_RDMA_WRITE_ONLY;
    public static final int ACKNOWLEDGE = RoceOpcode.RC_ACK;
    public static final int CNP = RoceOpcode.CNP;

    /** AETH syndrome of an ACK with no end-to-end credit count (credit field 0b11111: "invalid"). */
    public static final int SYNDROME_ACK = 0x1F;
    /** AETH syndrome of a NAK with code 0, PSN sequence error. */
    public static final int SYNDROME_NAK_PSN_SEQUENCE_ERROR = 0x60;

    /** ECT(0), the codepoint RoCEv2 data carries so switches mark it CE instead of dropping. */
    public static final int ECT0 = 0b10;

    private final FrameBuilder builder = new FrameBuilder();

    /**
     * @param srcMac this endpoint's MAC
     * @param dstMac the next hop's MAC (the switch port)
     * @param srcIp this endpoint's IPv4 address
     * @param dstIp the peer's IPv4 address
     */
    public RoceFrames(long srcMac, long dstMac, int srcIp, int dstIp) {
        builder.macs(dstMac, srcMac).ipv4(srcIp, dstIp).untagged().ttl(64);
    }

    /** Tags frames with an 802.1Q header (for PFC priority on tagged ports); {@code vlanId} 0 is priority-tagged. */
    public RoceFrames vlan(int vlanId, int pcp) {
        builder.vlan(vlanId, pcp);
        return this;
    }

    /**
     * One RDMA WRITE packet of a message.
     *
     * @param udpSrcPort the QP's entropy port (RoCEv2 hashes it; NICs derive it from the QP)
     * @param dmaLength the whole message's length (RETH, first or only packet)
     * @return the frame length
     */
    public int writeData(
            MemorySegment segment,
            long offset,
            int destQp,
            int psn,
            boolean first,
            boolean last,
            boolean ackRequest,
            int payloadBytes,
            int udpSrcPort,
            int dscp,
            long remoteAddress,
            int rkey,
            int dmaLength) {
        int opcode = first ? (last ? RDMA_WRITE_ONLY : RDMA_WRITE_FIRST) : (last ? RDMA_WRITE_LAST : RDMA_WRITE_MIDDLE);
        builder.dscp(dscp)
                .ecn(ECT0)
                .udpPorts(udpSrcPort, EtherType.ROCEV2_UDP_PORT)
                .bth(opcode, destQp, psn)
                .ackReq(ackRequest)
                .fecnBecn(0)
                .reth(remoteAddress, rkey, dmaLength)
                .payloadSeed(psn);
        return builder.buildRoce(segment, offset, payloadBytes);
    }

    /** An ACK of every PSN up to {@code psn}. */
    public int writeAck(MemorySegment segment, long offset, int destQp, int psn, int msn, int udpSrcPort, int dscp) {
        return writeAeth(segment, offset, destQp, psn, SYNDROME_ACK, msn, udpSrcPort, dscp);
    }

    /** A PSN-sequence-error NAK: the responder expects {@code expectedPsn}. */
    public int writeNak(
            MemorySegment segment, long offset, int destQp, int expectedPsn, int msn, int udpSrcPort, int dscp) {
        return writeAeth(segment, offset, destQp, expectedPsn, SYNDROME_NAK_PSN_SEQUENCE_ERROR, msn, udpSrcPort, dscp);
    }

    /** A congestion notification packet to {@code destQp}. */
    public int writeCnp(MemorySegment segment, long offset, int destQp, int udpSrcPort, int cnpDscp) {
        // The PSN of a CNP is reserved: zero, not the last data PSN the builder holds.
        builder.dscp(cnpDscp)
                .ecn(0)
                .udpPorts(udpSrcPort, EtherType.ROCEV2_UDP_PORT)
                .bth(CNP, destQp, 0)
                .ackReq(false);
        return builder.buildCnp(segment, offset, destQp);
    }

    private int writeAeth(
            MemorySegment segment, long offset, int destQp, int psn, int syndrome, int msn, int udpSrcPort, int dscp) {
        // ECN-capable like the data: a WRED queue marks an ACK instead of dropping it as it would a Not-ECT frame.
        builder.dscp(dscp)
                .ecn(ECT0)
                .udpPorts(udpSrcPort, EtherType.ROCEV2_UDP_PORT)
                .bth(ACKNOWLEDGE, destQp, psn)
                .ackReq(false)
                .fecnBecn(0)
                .aeth(syndrome, msn);
        return builder.buildRoce(segment, offset, 0);
    }

    /** True for an ACK/NAK (opcode 0x11); read the syndrome with {@link #aethSyndrome}. */
    public static boolean isAcknowledge(ParseResult parsed) {
        return parsed.roce() && parsed.bthOpcode() == ACKNOWLEDGE && parsed.aethOffset() >= 0;
    }

    public static boolean isNak(int syndrome) {
        return (syndrome & 0x60) == 0x60;
    }

    public static boolean isRdmaWrite(ParseResult parsed) {
        int op = parsed.bthOpcode();
        return parsed.roce()
                && (op == RDMA_WRITE_FIRST
                        || op == RDMA_WRITE_MIDDLE
                        || op == RDMA_WRITE_LAST
                        || op == RDMA_WRITE_ONLY);
    }

    public static boolean isLastOfMessage(int opcode) {
        return opcode == RDMA_WRITE_LAST || opcode == RDMA_WRITE_ONLY;
    }

    public static int aethSyndrome(MemorySegment segment, ParseResult parsed) {
        return NetworkOrder.u8(segment, parsed.frameOffset() + parsed.aethOffset());
    }

    public static int aethMsn(MemorySegment segment, ParseResult parsed) {
        return NetworkOrder.u24(segment, parsed.frameOffset() + parsed.aethOffset() + 1);
    }
}
