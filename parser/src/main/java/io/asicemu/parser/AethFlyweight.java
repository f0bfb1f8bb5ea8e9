package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/** View of the 4-byte ACK extended transport header (syndrome, 24-bit MSN). Not thread safe. */
final class AethFlyweight extends HeaderFlyweight {
    /** Offset of the syndrome. */
    public static final int SYNDROME_OFFSET = 0;
    /** Offset of the message sequence number. */
    public static final int MSN_OFFSET = 1;
    /** Length of the AETH. */
    public static final int HEADER_LENGTH = 4;

    /** Points this view at an AETH. */
    public AethFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Syndrome (ACK, RNR NAK, NAK and credit/timer). */
    public int syndrome() {
        return u8(SYNDROME_OFFSET);
    }

    /** Sets the syndrome. */
    public AethFlyweight syndrome(final int syndrome) {
        u8(SYNDROME_OFFSET, syndrome);
        return this;
    }

    /** Message sequence number (24 bits). */
    public int msn() {
        return u24(MSN_OFFSET);
    }

    /** Sets the MSN. */
    public AethFlyweight msn(final int msn) {
        u24(MSN_OFFSET, msn);
        return this;
    }
}
