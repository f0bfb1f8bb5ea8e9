package io.asicemu.parser;

import java.lang.foreign.MemorySegment;

/**
 * View of a MAC control payload (after EtherType 0x8808): 802.3x PAUSE (opcode 0x0001, one pause time) or 802.1Qbb
 * PFC (opcode 0x0101, class-enable vector and eight quanta, priority 0 first). Layout per
 * reference/sonic-asic-behaviour.md §6.1. One quantum is 512 bit times. Not thread safe.
 */
public final class MacControlFlyweight extends HeaderFlyweight {
    /** Destination MAC of PAUSE and PFC frames, 01:80:C2:00:00:01. */
    public static final long DST_MAC = 0x0180C2000001L;
    /** Opcode of 802.3x PAUSE. */
    public static final int OPCODE_PAUSE = 0x0001;
    /** Opcode of 802.1Qbb priority-based flow control. */
    public static final int OPCODE_PFC = 0x0101;
    /** Offset of the opcode. */
    public static final int OPCODE_OFFSET = 0;
    /** Offset of the PAUSE time. */
    public static final int PAUSE_TIME_OFFSET = 2;
    /** Offset of the PFC class-enable vector. */
    public static final int PFC_CLASS_ENABLE_OFFSET = 2;
    /** Offset of the PFC quanta of priority 0 (priority n at + 2n). */
    public static final int PFC_QUANTA_OFFSET = 4;
    /** Bytes of a PAUSE payload that carry fields. */
    public static final int PAUSE_LENGTH = 4;
    /** Bytes of a PFC payload that carry fields. */
    public static final int PFC_LENGTH = 20;
    /** Number of PFC priorities. */
    public static final int PRIORITY_COUNT = 8;

    /** Points this view at a MAC control payload. */
    public MacControlFlyweight wrap(final MemorySegment segment, final long offset, final int length) {
        wrapSegment(segment, offset, length);
        return this;
    }

    /** Opcode. */
    public int opcode() {
        return u16(OPCODE_OFFSET);
    }

    /** Sets the opcode. */
    public MacControlFlyweight opcode(final int opcode) {
        u16(OPCODE_OFFSET, opcode);
        return this;
    }

    /** PAUSE time in quanta (PAUSE frames). */
    public int pauseTime() {
        return u16(PAUSE_TIME_OFFSET);
    }

    /** Sets the PAUSE time. */
    public MacControlFlyweight pauseTime(final int quanta) {
        u16(PAUSE_TIME_OFFSET, quanta);
        return this;
    }

    /** PFC class-enable vector (bit n: time[n] valid). */
    public int classEnableVector() {
        return u16(PFC_CLASS_ENABLE_OFFSET);
    }

    /** Sets the PFC class-enable vector. */
    public MacControlFlyweight classEnableVector(final int vector) {
        u16(PFC_CLASS_ENABLE_OFFSET, vector);
        return this;
    }

    /** Whether {@code priority} is enabled in the class-enable vector. */
    public boolean classEnabled(final int priority) {
        return (classEnableVector() & (1 << priority)) != 0;
    }

    /** PFC pause quanta of {@code priority} (0..7). */
    public int quanta(final int priority) {
        return u16(PFC_QUANTA_OFFSET + 2 * priority);
    }

    /** Sets the PFC pause quanta of {@code priority}. */
    public MacControlFlyweight quanta(final int priority, final int quanta) {
        u16(PFC_QUANTA_OFFSET + 2 * priority, quanta);
        return this;
    }
}
