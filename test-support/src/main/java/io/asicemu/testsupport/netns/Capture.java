package io.asicemu.testsupport.netns;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * A bounded packet capture (tcpdump writing a pcap) on one interface of a namespace, read afterwards with tshark.
 * Started by {@link Netns#capture}; {@link #stop()} ends it and returns the pcap. Killed at the latest when its
 * duration bound passes or its lab closes. Not thread safe.
 */
public final class Capture implements AutoCloseable {
    private final Process process;
    private final Path pcap;
    private final StringBuilder stderr = new StringBuilder();
    private final CountDownLatch listening = new CountDownLatch(1);

    Capture(final List<String> command, final Path pcap) {
        this.pcap = pcap;
        try {
            this.process = new ProcessBuilder(command).start();
        } catch (final IOException e) {
            throw new IllegalStateException("cannot start capture: " + command, e);
        }
        final Thread reader = new Thread(this::readStderr, "capture-stderr");
        reader.setDaemon(true);
        reader.start();
        try {
            if (!listening.await(15, TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("capture did not start: " + command + "\n" + stderrText());
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
            throw new IllegalStateException(e);
        }
    }

    private void readStderr() {
        try (BufferedReader in =
                new BufferedReader(new InputStreamReader(process.getErrorStream(), StandardCharsets.UTF_8))) {
            String line;
            while ((line = in.readLine()) != null) {
                synchronized (stderr) {
                    stderr.append(line).append('\n');
                }
                if (line.contains("listening on")) {
                    listening.countDown();
                }
            }
        } catch (final IOException e) {
            // the process ended; what was read is kept
        } finally {
            listening.countDown();
        }
    }

    private String stderrText() {
        synchronized (stderr) {
            return stderr.toString();
        }
    }

    /**
     * Waits until the capture file holds at least {@code packets} frames (tcpdump writes each frame as it reads it, -U)
     * or {@code timeout} passes. On a loaded machine tcpdump may read its ring well after the frames arrived, and
     * stopping it then loses what it had not read yet; waiting for the expected count first tells a slow capture
     * from frames that never came.
     *
     * @return the frames in the file when it returned.
     */
    public long awaitPackets(final long packets, final Duration timeout) {
        final long deadline = System.nanoTime() + timeout.toNanos();
        long seen = framesIn(pcap);
        while (seen < packets && System.nanoTime() < deadline && process.isAlive()) {
            try {
                Thread.sleep(20);
            } catch (final InterruptedException e) {
                Thread.currentThread().interrupt();
                break;
            }
            seen = framesIn(pcap);
        }
        return seen;
    }

    /**
     * Complete frames in the (possibly still growing) classic pcap file tcpdump {@code -w} writes: the 24-byte file
     * header, then per frame a 16-byte record header whose third word is the captured length. A partial last record
     * is not counted. (Only a count: the tests decode the frames with tshark or the parser's CaptureReader.)
     */
    static long framesIn(final Path pcap) {
        final byte[] bytes;
        try {
            bytes = Files.readAllBytes(pcap);
        } catch (final IOException e) {
            return 0; // not written yet
        }
        if (bytes.length < 24) {
            return 0;
        }
        final ByteBuffer file = ByteBuffer.wrap(bytes).order(ByteOrder.LITTLE_ENDIAN);
        final int magic = file.getInt(0);
        if (magic != 0xa1b2c3d4 && magic != 0xa1b23c4d) {
            file.order(ByteOrder.BIG_ENDIAN);
            if (file.getInt(0) != 0xa1b2c3d4 && file.getInt(0) != 0xa1b23c4d) {
                return 0; // not a classic pcap file
            }
        }
        long frames = 0;
        long at = 24;
        while (at + 16 <= bytes.length) {
            final long captured = Integer.toUnsignedLong(file.getInt((int) at + 8));
            if (at + 16 + captured > bytes.length) {
                break;
            }
            at += 16 + captured;
            frames++;
        }
        return frames;
    }

    /**
     * Stops the capture (SIGTERM: tcpdump flushes and closes the file) and waits for it.
     *
     * @return the pcap file.
     */
    public Path stop() {
        return stop(Duration.ofMillis(300));
    }

    /**
     * Waits {@code settle} for in-flight frames, then stops the capture.
     *
     * @return the pcap file.
     */
    public Path stop(final Duration settle) {
        try {
            Thread.sleep(settle.toMillis());
            process.descendants().forEach(ProcessHandle::destroy);
            process.destroy();
            if (!process.waitFor(10, TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (final InterruptedException e) {
            Thread.currentThread().interrupt();
            process.destroyForcibly();
        }
        return pcap;
    }

    /** @return the pcap file (complete only after {@link #stop()}). */
    public Path pcap() {
        return pcap;
    }

    /** @return what tcpdump printed on stderr (its counts, for failure messages). */
    public String log() {
        return stderrText();
    }

    @Override
    public void close() {
        if (process.isAlive()) {
            process.descendants().forEach(ProcessHandle::destroyForcibly);
            process.destroyForcibly();
        }
    }
}
