package io.asicemu.pipeline;

import io.asicemu.parser.FrameBuilder;
import java.lang.foreign.MemorySegment;
import java.util.Arrays;

/** Test frames built with the parser's FrameBuilder (control-side helper; allocates). */
public final class Frames {
    public static final long ROUTER = 0x02aa_bbcc_ddeeL;
    public static final long HOST_A = 0x0200_0000_0102L;
    public static final long HOST_B = 0x0200_0000_0202L;

    private Frames() {}

    private static byte[] build(final java.util.function.ToIntFunction<MemorySegment> writer) {
        final byte[] buf = new byte[9300];
        final int n = writer.applyAsInt(MemorySegment.ofArray(buf));
        return Arrays.copyOf(buf, n);
    }

    public static FrameBuilder builder() {
        return new FrameBuilder().reset();
    }

    public static byte[] udp4(
            final long dst, final long src, final int srcIp, final int dstIp, final int ttl, final int payload) {
        return build(s -> builder()
                .macs(dst, src)
                .ipv4(srcIp, dstIp)
                .ttl(ttl)
                .udpPorts(1000, 2000)
                .buildUdp(s, 0, payload));
    }

    public static byte[] udp4(final FrameBuilder b, final int payload) {
        return build(s -> b.buildUdp(s, 0, payload));
    }

    public static byte[] roce4(final FrameBuilder b, final int payload) {
        return build(s -> b.buildRoce(s, 0, payload));
    }

    public static byte[] arp(
            final long dst,
            final long src,
            final int op,
            final long senderMac,
            final int senderIp,
            final long targetMac,
            final int targetIp) {
        return build(s -> builder().macs(dst, src).buildArp(s, 0, op, senderMac, senderIp, targetMac, targetIp));
    }

    public static int ip(final int a, final int b, final int c, final int d) {
        return (a << 24) | (b << 16) | (c << 8) | d;
    }

    public static int u16(final byte[] f, final int at) {
        return ((f[at] & 0xff) << 8) | (f[at + 1] & 0xff);
    }

    public static long mac(final byte[] f, final int at) {
        long m = 0;
        for (int i = 0; i < 6; i++) {
            m = (m << 8) | (f[at + i] & 0xff);
        }
        return m;
    }

    public static int u32(final byte[] f, final int at) {
        return (u16(f, at) << 16) | u16(f, at + 2);
    }
}
