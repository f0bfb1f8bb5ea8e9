package io.asicemu.p4rt.service;

import java.math.BigInteger;
import p4.v1.P4RuntimeOuterClass.Uint128;

/** 128-bit election ids as unsigned values. Stateless. */
final class ElectionId {
    private ElectionId() {}

    static BigInteger of(final Uint128 id) {
        return new BigInteger(1, longBytes(id.getHigh())).shiftLeft(64).or(new BigInteger(1, longBytes(id.getLow())));
    }

    static Uint128 toProto(final BigInteger id) {
        return Uint128.newBuilder()
                .setHigh(id.shiftRight(64).longValue())
                .setLow(id.longValue())
                .build();
    }

    private static byte[] longBytes(final long v) {
        final byte[] b = new byte[8];
        for (int i = 0; i < 8; i++) {
            b[i] = (byte) (v >>> (56 - 8 * i));
        }
        return b;
    }
}
