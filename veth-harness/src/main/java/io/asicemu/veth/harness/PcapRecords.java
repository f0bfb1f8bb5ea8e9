package io.asicemu.veth.harness;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;

/** Counts the complete records of a classic pcap file that may still be growing (a partial last record is not counted). */
final class PcapRecords {
    private static final int GLOBAL_HEADER = 24;
    private static final int RECORD_HEADER = 16;

    private PcapRecords() {}

    /** @return complete records in {@code pcap}, 0 if it is missing or shorter than its header. */
    static long count(final Path pcap) {
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(pcap);
        } catch (final IOException e) {
            return 0;
        }
        if (bytes.length < GLOBAL_HEADER) {
            return 0;
        }
        final ByteBuffer b = ByteBuffer.wrap(bytes);
        final int magic = b.order(ByteOrder.LITTLE_ENDIAN).getInt(0);
        final boolean little = magic == 0xa1b2c3d4 || magic == 0xa1b23c4d;
        b.order(little ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN);
        long records = 0;
        int at = GLOBAL_HEADER;
        while (at + RECORD_HEADER <= bytes.length) {
            final long captured = Integer.toUnsignedLong(b.getInt(at + 8));
            if (at + RECORD_HEADER + captured > bytes.length) {
                break;
            }
            at += RECORD_HEADER + (int) captured;
            records++;
        }
        return records;
    }
}
