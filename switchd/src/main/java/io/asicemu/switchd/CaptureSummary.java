package io.asicemu.switchd;

import io.asicemu.parser.PacketParser;
import io.asicemu.parser.ParseResult;
import io.asicemu.parser.pcap.CaptureReader;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Path;
import java.util.BitSet;

/**
 * What one port transmitted, read back from its output capture with the parser: frames, RoCEv2 frames, the distinct
 * destination QPs among them, CE-marked frames, PFC frames. Control path only.
 *
 * @param frames frames in the capture.
 * @param roceFrames RoCEv2 (UDP 4791) frames.
 * @param distinctQps distinct BTH destination QPs.
 * @param ceMarked IP frames with ECN = CE (3).
 * @param pfcFrames 802.1Qbb PFC frames.
 * @param firstNs timestamp of the first frame (0 if none).
 * @param lastNs timestamp of the last frame (0 if none).
 */
record CaptureSummary(
        long frames, long roceFrames, int distinctQps, long ceMarked, long pfcFrames, long firstNs, long lastNs) {
    private static final int ECN_CE = 3;

    static CaptureSummary of(final Path capture) {
        final PacketParser parser = new PacketParser();
        final ParseResult parsed = new ParseResult();
        final BitSet qps = new BitSet();
        long frames = 0;
        long roce = 0;
        long ce = 0;
        long pfc = 0;
        long firstNs = 0;
        long lastNs = 0;
        try (CaptureReader reader = CaptureReader.open(capture)) {
            while (reader.next()) {
                if (frames++ == 0) {
                    firstNs = reader.timestampNs();
                }
                lastNs = reader.timestampNs();
                parser.parse(reader.segment(), reader.frameOffset(), reader.capturedLength(), parsed);
                if (!parsed.ok()) {
                    continue;
                }
                if (parsed.pfc()) {
                    pfc++;
                }
                if (parsed.ipVersion() != 0 && parsed.ecn() == ECN_CE) {
                    ce++;
                }
                if (parsed.roce()) {
                    roce++;
                    qps.set(parsed.bthDestQp());
                }
            }
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
        return new CaptureSummary(frames, roce, qps.cardinality(), ce, pfc, firstNs, lastNs);
    }
}
