package io.asicemu.pipeline.table;

import java.net.Inet4Address;
import java.net.Inet6Address;
import java.net.InetAddress;
import java.nio.ByteBuffer;

/**
 * An IPv4 or IPv6 prefix (or, with full length, an address) as two longs, the way the data path holds addresses: an
 * IPv4 address is the low 32 bits of {@code low} with {@code high} 0. Bits beyond the length are cleared. Immutable.
 *
 * @param v6 whether IPv6.
 * @param high high 64 bits (0 for IPv4).
 * @param low low 64 bits.
 * @param length prefix length.
 */
public record IpPrefix(boolean v6, long high, long low, int length) {
    /** IPv4 before IPv6, then by address (unsigned), then shorter first: the order {@code show} commands list. */
    public static final java.util.Comparator<IpPrefix> ORDER = java.util.Comparator.comparing(IpPrefix::v6)
            .thenComparing(IpPrefix::high, Long::compareUnsigned)
            .thenComparing(IpPrefix::low, Long::compareUnsigned)
            .thenComparingInt(IpPrefix::length);

    /** Normalizes: clears host bits and checks the length. */
    public IpPrefix {
        final int max = v6 ? 128 : 32;
        if (length < 0 || length > max) {
            throw new IllegalArgumentException("prefix length " + length + " out of 0.." + max);
        }
        if (v6) {
            high &= mask(length);
            low &= mask(length - 64);
        } else {
            low &= length == 0 ? 0 : (0xffff_ffffL << (32 - length)) & 0xffff_ffffL;
            high = 0;
        }
    }

    private static long mask(final int bits) {
        if (bits <= 0) {
            return 0;
        }
        return bits >= 64 ? -1L : -1L << (64 - bits);
    }

    /**
     * Parses {@code a.b.c.d/n}, {@code x:y::z/n}, or an address without length (a host prefix).
     *
     * @param text the text.
     * @return the prefix.
     * @throws IllegalArgumentException if it is not a literal prefix.
     */
    public static IpPrefix parse(final String text) {
        final int slash = text.indexOf('/');
        final String address = slash < 0 ? text : text.substring(0, slash);
        final InetAddress inet;
        try {
            inet = InetAddress.ofLiteral(address.trim());
        } catch (final IllegalArgumentException e) {
            throw new IllegalArgumentException("not an IP address: " + text);
        }
        final boolean v6 = inet instanceof Inet6Address;
        final int length;
        try {
            length = slash < 0
                    ? (v6 ? 128 : 32)
                    : Integer.parseInt(text.substring(slash + 1).trim());
        } catch (final NumberFormatException e) {
            throw new IllegalArgumentException("bad prefix length: " + text);
        }
        final byte[] bytes = inet.getAddress();
        if (inet instanceof Inet4Address) {
            return new IpPrefix(false, 0, ByteBuffer.wrap(bytes).getInt() & 0xffff_ffffL, length);
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        return new IpPrefix(true, b.getLong(), b.getLong(), length);
    }

    /**
     * @param text an address without length.
     * @return it as a host prefix.
     */
    public static IpPrefix address(final String text) {
        if (text.indexOf('/') >= 0) {
            throw new IllegalArgumentException("an address, not a prefix, is expected: " + text);
        }
        return parse(text);
    }

    /** @return the host prefix of the same address with full length (for an interface address "ip/len"). */
    public IpPrefix hostOf(final String text) {
        return address(text.substring(0, text.indexOf('/') < 0 ? text.length() : text.indexOf('/')));
    }

    /**
     * @param shorter a length below this one's.
     * @return the covering prefix of that length.
     */
    public IpPrefix truncate(final int shorter) {
        return new IpPrefix(v6, high, low, shorter);
    }

    /** @return the IPv4 address as an int (IPv4 only). */
    public int ipv4() {
        return (int) low;
    }

    /**
     * The record's equality, written out: the open-addressing maps of the control model (Agrona) call equals on
     * every probe, and the generated one (a method-handle chain per component) was a tenth of a large route batch.
     */
    @Override
    public boolean equals(final Object o) {
        return this == o
                || o instanceof IpPrefix p && p.low == low && p.high == high && p.length == length && p.v6 == v6;
    }

    /** The record's own hash (unchanged, so every hash map of prefixes iterates as before). */
    @Override
    public int hashCode() {
        return 31 * (31 * (31 * Boolean.hashCode(v6) + Long.hashCode(high)) + Long.hashCode(low))
                + Integer.hashCode(length);
    }

    @Override
    public String toString() {
        final byte[] bytes;
        if (v6) {
            bytes = ByteBuffer.allocate(16).putLong(high).putLong(low).array();
        } else {
            bytes = ByteBuffer.allocate(4).putInt((int) low).array();
        }
        try {
            return InetAddress.getByAddress(bytes).getHostAddress() + "/" + length;
        } catch (final java.net.UnknownHostException e) {
            throw new IllegalStateException(e);
        }
    }
}
