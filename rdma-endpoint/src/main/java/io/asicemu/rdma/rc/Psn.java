package io.asicemu.rdma.rc;

/** 24-bit packet sequence numbers (IBTA BTH PSN), compared within half the space as the spec's windows allow. */
public final class Psn {
    public static final int MASK = 0xFF_FFFF;
    private static final int HALF = 1 << 23;

    private Psn() {}

    public static int next(int psn) {
        return (psn + 1) & MASK;
    }

    public static int add(int psn, int n) {
        return (psn + n) & MASK;
    }

    /** Signed distance from {@code from} to {@code to}, in (−2^23, 2^23]. */
    public static int distance(int from, int to) {
        int d = (to - from) & MASK;
        return d > HALF ? d - (1 << 24) : d;
    }

    public static boolean before(int a, int b) {
        return distance(a, b) > 0;
    }
}
