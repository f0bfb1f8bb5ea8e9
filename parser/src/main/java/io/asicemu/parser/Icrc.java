package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * RoCEv2 invariant CRC: CRC-32 over 8 bytes of 0xFF (standing for the absent LRH), the IP header with its variant
 * fields set to all ones (IPv4: TOS, TTL, header checksum; IPv6: traffic class, flow label, hop limit), the UDP header
 * with its checksum set to ones, the BTH with its FECN/BECN/reserved byte set to ones, and the payload up to the ICRC;
 * stored little-endian in the last 4 bytes of the UDP payload (scapy contrib.roce, Linux rxe_icrc.c). Masked bytes are
 * fed as constants, so nothing is copied. Works on a {@link ParseResult} that {@link ParseResult#roce()}. Stateless.
 */
final class Icrc {
    private Icrc() {}

    /** Computes the ICRC value of a parsed RoCEv2 frame ({@link ParseResult#roce()} must hold). */
    public static int compute(final ParseResult r) {
        final MemorySegment segment = r.segment();
        final long base = r.frameOffset();
        final long ip = base + r.l3Offset();
        int crc = Crc32.updateRepeated(Crc32.INITIAL, 0xFF, 8);
        if (r.ipVersion() == 4) {
            crc = Crc32.update(crc, NetworkOrder.u8(segment, ip));
            crc = Crc32.update(crc, 0xFF);
            crc = Crc32.update(crc, segment, ip + 2, 6);
            crc = Crc32.update(crc, 0xFF);
            crc = Crc32.update(crc, NetworkOrder.u8(segment, ip + Ipv4Flyweight.PROTOCOL_OFFSET));
            crc = Crc32.updateRepeated(crc, 0xFF, 2);
            crc = Crc32.update(crc, segment, ip + Ipv4Flyweight.SRC_ADDRESS_OFFSET, r.ipHeaderLength() - 12);
        } else {
            crc = Crc32.update(crc, NetworkOrder.u8(segment, ip) | 0x0F);
            crc = Crc32.updateRepeated(crc, 0xFF, 3);
            crc = Crc32.update(crc, segment, ip + 4, 3);
            crc = Crc32.update(crc, 0xFF);
            // Extension headers between the fixed header and UDP are covered as they are.
            crc = Crc32.update(crc, segment, ip + 8, r.ipHeaderLength() - 8);
        }
        final long udp = base + r.l4Offset();
        crc = Crc32.update(crc, segment, udp, 6);
        crc = Crc32.updateRepeated(crc, 0xFF, 2);
        final long bth = base + r.bthOffset();
        crc = Crc32.update(crc, segment, bth, 4);
        crc = Crc32.update(crc, 0xFF);
        crc = Crc32.update(crc, segment, bth + 5, r.icrcOffset() - r.bthOffset() - 5);
        return Crc32.finish(crc);
    }

    /** The ICRC stored in the frame. */
    public static int stored(final ParseResult r) {
        return r.segment().get(NetworkOrder.U32_LE, r.frameOffset() + r.icrcOffset());
    }

    /** Whether the frame is RoCEv2 and its stored ICRC matches the computed one (false for anything else). */
    public static boolean verify(final ParseResult r) {
        return r.roce() && r.icrcOffset() >= 0 && compute(r) == stored(r);
    }

    /** Computes and stores the ICRC. */
    public static void write(final ParseResult r) {
        r.segment().set(NetworkOrder.U32_LE, r.frameOffset() + r.icrcOffset(), compute(r));
    }
}
