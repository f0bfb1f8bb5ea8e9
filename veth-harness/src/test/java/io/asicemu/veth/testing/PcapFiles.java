package io.asicemu.veth.testing;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

/** Writes frames to a classic pcap file (LINKTYPE_ETHERNET) so tshark can check them. Test helper. */
public final class PcapFiles {
    private PcapFiles() {}

    /** Writes {@code frames} to {@code file}. */
    public static Path write(final Path file, final List<byte[]> frames) throws IOException {
        int size = 24;
        for (final byte[] frame : frames) {
            size += 16 + frame.length;
        }
        final ByteBuffer out = ByteBuffer.allocate(size).order(ByteOrder.LITTLE_ENDIAN);
        out.putInt(0xa1b2c3d4)
                .putShort((short) 2)
                .putShort((short) 4)
                .putInt(0)
                .putInt(0)
                .putInt(262144)
                .putInt(1);
        int second = 0;
        for (final byte[] frame : frames) {
            out.putInt(second++)
                    .putInt(0)
                    .putInt(frame.length)
                    .putInt(frame.length)
                    .put(frame);
        }
        Files.write(file, out.array());
        return file;
    }
}
