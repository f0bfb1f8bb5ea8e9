package io.asicemu.p4rt.codec;

import com.google.protobuf.ByteString;
import io.asicemu.p4rt.backend.UpdateStatus;
import java.math.BigInteger;

/**
 * P4Runtime canonical byte strings (spec "Bytestrings"): accept any length whose value fits the width and whose
 * padding is zero, reject empty strings, and always send the shortest big-endian form (0 is one zero byte).
 * Stateless.
 */
public final class ByteStrings {
    private ByteStrings() {}

    /** Decodes an unsigned {@code bit<width>} value. */
    public static BigInteger decode(final ByteString bytes, final int width, final String what) throws CodecException {
        return decode(bytes, width, what, null);
    }

    /**
     * Decodes the value of match field {@code field} as {@link #decode(ByteString, int, String)} does, naming it
     * "match field '<i>field</i>'" in an error: the text is built only on error (a Write decodes several per entry).
     */
    static BigInteger decodeField(final ByteString bytes, final int width, final String field) throws CodecException {
        return decode(bytes, width, null, field);
    }

    /** The name of a match field in error texts. */
    static String fieldLabel(final String field) {
        return "match field '" + field + "'";
    }

    private static BigInteger decode(final ByteString bytes, final int width, final String what, final String field)
            throws CodecException {
        if (bytes.isEmpty()) {
            throw new CodecException(
                    UpdateStatus.INVALID_ARGUMENT, (what != null ? what : fieldLabel(field)) + ": empty byte string");
        }
        final int size = bytes.size();
        if (size < Long.BYTES) {
            // most P4Runtime values (ids, IPv4 addresses, MACs, ports) fit a long: no byte[] copy, no magnitude scan
            long v = 0;
            for (int i = 0; i < size; i++) {
                v = (v << 8) | (bytes.byteAt(i) & 0xff);
            }
            if (Long.SIZE - Long.numberOfLeadingZeros(v) > width) {
                throw new CodecException(
                        UpdateStatus.INVALID_ARGUMENT,
                        (what != null ? what : fieldLabel(field)) + ": value 0x" + Long.toHexString(v)
                                + " does not fit in bit<" + width + ">");
            }
            return BigInteger.valueOf(v);
        }
        final BigInteger value = new BigInteger(1, bytes.toByteArray());
        if (value.bitLength() > width) {
            throw new CodecException(
                    UpdateStatus.INVALID_ARGUMENT,
                    (what != null ? what : fieldLabel(field)) + ": value 0x" + value.toString(16)
                            + " does not fit in bit<" + width + ">");
        }
        return value;
    }

    /** @return the canonical (shortest) encoding of a non-negative value. */
    public static ByteString encode(final BigInteger value) {
        final byte[] raw = value.toByteArray();
        if (raw.length > 1 && raw[0] == 0) {
            return ByteString.copyFrom(raw, 1, raw.length - 1);
        }
        return ByteString.copyFrom(raw);
    }

    /** @return the canonical encoding of a non-negative long. */
    public static ByteString encode(final long value) {
        return encode(BigInteger.valueOf(value));
    }
}
