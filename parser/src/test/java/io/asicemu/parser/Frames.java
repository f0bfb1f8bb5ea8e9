package io.asicemu.parser;

import java.lang.foreign.Arena;
import java.lang.foreign.MemorySegment;
import java.util.HexFormat;

/** Test helpers: hex ↔ native segments. */
final class Frames {
    private Frames() {}

    static MemorySegment fromHex(final String hex) {
        final byte[] bytes = HexFormat.of().parseHex(hex.replaceAll("\\s+", "").toLowerCase());
        final MemorySegment segment = Arena.ofAuto().allocate(Math.max(bytes.length, 1));
        MemorySegment.copy(MemorySegment.ofArray(bytes), 0, segment, 0, bytes.length);
        return segment.asSlice(0, bytes.length);
    }

    static byte[] bytes(final MemorySegment segment, final long offset, final int length) {
        return segment.asSlice(offset, length).toArray(java.lang.foreign.ValueLayout.JAVA_BYTE);
    }

    static String hex(final MemorySegment segment, final long offset, final int length) {
        return HexFormat.of().formatHex(bytes(segment, offset, length));
    }
}
