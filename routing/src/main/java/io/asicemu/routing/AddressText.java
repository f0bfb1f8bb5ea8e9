package io.asicemu.routing;

/**
 * Addresses as glibc's {@code inet_ntop} writes them, which is what fpmsyncd (through libnl's {@code nl_addr2str})
 * puts in APPL_DB keys and next-hop lists: IPv6 with the longest run of two or more zero groups compressed (the first
 * such run on a tie), lower-case hex, and {@code ::a.b.c.d} / {@code ::ffff:a.b.c.d} for IPv4-compatible and -mapped
 * addresses. ({@link java.net.Inet6Address#getHostAddress()} compresses nothing.) Stateless.
 */
final class AddressText {
    private AddressText() {}

    /** @return 4 bytes as dotted decimal, 16 as inet_ntop's IPv6 text. */
    static String format(final byte[] address) {
        if (address.length == 4) {
            return dotted(address, 0);
        }
        if (address.length != 16) {
            throw new IllegalArgumentException("an address has 4 or 16 bytes, not " + address.length);
        }
        final int[] words = new int[8];
        for (int i = 0; i < 8; i++) {
            words[i] = (address[2 * i] & 0xff) << 8 | address[2 * i + 1] & 0xff;
        }
        int bestBase = -1;
        int bestLength = 0;
        for (int i = 0; i < 8; ) {
            if (words[i] != 0) {
                i++;
                continue;
            }
            int end = i;
            while (end < 8 && words[end] == 0) {
                end++;
            }
            if (end - i > bestLength) {
                bestBase = i;
                bestLength = end - i;
            }
            i = end;
        }
        if (bestLength < 2) {
            bestBase = -1;
        }
        final StringBuilder text = new StringBuilder(39);
        for (int i = 0; i < 8; i++) {
            if (bestBase >= 0 && i >= bestBase && i < bestBase + bestLength) {
                if (i == bestBase) {
                    text.append(':');
                }
                continue;
            }
            if (i != 0) {
                text.append(':');
            }
            if (i == 6 && bestBase == 0 && (bestLength == 6 || bestLength == 5 && words[5] == 0xffff)) {
                text.append(dotted(address, 12));
                break;
            }
            text.append(Integer.toHexString(words[i]));
        }
        if (bestBase >= 0 && bestBase + bestLength == 8) {
            text.append(':');
        }
        return text.toString();
    }

    private static String dotted(final byte[] address, final int from) {
        return (address[from] & 0xff) + "." + (address[from + 1] & 0xff) + "." + (address[from + 2] & 0xff) + "."
                + (address[from + 3] & 0xff);
    }
}
