package io.asicemu.veth.testing;

import io.asicemu.pipeline.port.Port;
import io.asicemu.pipeline.port.RxBatch;
import io.asicemu.veth.ffm.PollSet;
import java.lang.foreign.ValueLayout;
import java.util.ArrayList;
import java.util.List;

/** Test helpers that drive ports the way the data-plane loop does: poll, receive, copy out, release. */
public final class PortPump {
    private PortPump() {}

    /** Receives until {@code count} frames arrived or {@code timeoutMs} passed; returns copies of the frames. */
    public static List<byte[]> receive(final Port port, final int count, final long timeoutMs) {
        final List<byte[]> frames = new ArrayList<>();
        final RxBatch batch = new RxBatch();
        final long deadline = System.nanoTime() + timeoutMs * 1_000_000L;
        try (PollSet poll = new PollSet(1)) {
            poll.add(port.pollFd());
            while (frames.size() < count && System.nanoTime() - deadline < 0) {
                final int n = port.receive(batch, System.nanoTime());
                for (int i = 0; i < n; i++) {
                    frames.add(batch.segment(i)
                            .asSlice(batch.offset(i), batch.length(i))
                            .toArray(ValueLayout.JAVA_BYTE));
                }
                if (n > 0) {
                    port.release(batch);
                } else {
                    poll.await(20_000_000L);
                }
            }
        }
        return frames;
    }

    /** Lowercase hex of {@code frame}. */
    public static String hex(final byte[] frame) {
        return java.util.HexFormat.of().formatHex(frame);
    }

    /** Parses lines of hex (scapy's output), skipping "sent N". */
    public static List<String> hexLines(final String text) {
        final List<String> lines = new ArrayList<>();
        for (final String line : text.split("\n")) {
            final String trimmed = line.trim();
            if (!trimmed.isEmpty() && !trimmed.startsWith("sent ")) {
                lines.add(trimmed);
            }
        }
        return lines;
    }
}
