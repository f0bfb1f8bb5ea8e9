package io.asicemu.routing;

import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.Arrays;

/**
 * A destination prefix: its address family, its address bytes (network order, host bits cleared) and its length.
 * Immutable.
 *
 * @param family IPv4 or IPv6.
 * @param address 4 or 16 bytes, host bits zero (a copy is kept and handed out).
 * @param length the prefix length, 0..32 or 0..128.
 */
public record RoutePrefix(AddressFamily family, byte[] address, int length) {
    /** Validates, copies and clears the host bits. */
    public RoutePrefix {
        if (address.length != family.addressBytes()) {
            throw new IllegalArgumentException(
                    family + " needs " + family.addressBytes() + " address bytes, not " + address.length);
        }
        if (length < 0 || length > family.addressBytes() * 8) {
            throw new IllegalArgumentException("prefix length " + length + " out of range for " + family);
        }
        address = address.clone();
        for (int bit = length; bit < address.length * 8; bit++) {
            address[bit >>> 3] &= (byte) ~(0x80 >>> (bit & 7));
        }
    }

    /** @return a prefix parsed from {@code 10.0.0.0/24} or {@code 2001:db8::/32} (no length: a host prefix). */
    public static RoutePrefix parse(final String text) {
        final int slash = text.indexOf('/');
        final String host = slash < 0 ? text : text.substring(0, slash);
        if (!host.contains(":") && !host.matches("[0-9.]+")) {
            throw new IllegalArgumentException("not an IP prefix: " + text);
        }
        try {
            final byte[] bytes = InetAddress.getByName(host).getAddress();
            final AddressFamily family = bytes.length == 4 ? AddressFamily.IPV4 : AddressFamily.IPV6;
            final int length = slash < 0 ? bytes.length * 8 : Integer.parseInt(text.substring(slash + 1));
            return new RoutePrefix(family, bytes, length);
        } catch (final UnknownHostException e) {
            throw new IllegalArgumentException("not an IP prefix: " + text, e);
        }
    }

    @Override
    public byte[] address() {
        return address.clone();
    }

    /**
     * @return the prefix as fpmsyncd names it in APPL_DB ({@code 10.0.0.0/24}, {@code 10.1.1.1} for a host route,
     *     {@code 2001:db8::/32}, {@code 0.0.0.0/0}).
     */
    public String text() {
        final String host = AddressText.format(address);
        return length == address.length * 8 ? host : host + "/" + length;
    }

    @Override
    public boolean equals(final Object other) {
        return other instanceof RoutePrefix that
                && family == that.family
                && length == that.length
                && Arrays.equals(address, that.address);
    }

    @Override
    public int hashCode() {
        return (Arrays.hashCode(address) * 31 + length) * 31 + family.hashCode();
    }

    @Override
    public String toString() {
        return text();
    }
}
