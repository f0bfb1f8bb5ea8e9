package io.asicemu.routing;

/** A route's address family, with its rtnetlink number ({@code rtm_family}). */
public enum AddressFamily {
    /** AF_INET. */
    IPV4(2, 4),
    /** AF_INET6. */
    IPV6(10, 16);

    private final int number;
    private final int addressBytes;

    AddressFamily(final int number, final int addressBytes) {
        this.number = number;
        this.addressBytes = addressBytes;
    }

    /** @return the Linux AF_* number. */
    public int number() {
        return number;
    }

    /** @return 4 or 16. */
    public int addressBytes() {
        return addressBytes;
    }

    /** @return the family with Linux number {@code number}, or null. */
    static AddressFamily ofNumber(final int number) {
        return number == IPV4.number ? IPV4 : number == IPV6.number ? IPV6 : null;
    }
}
