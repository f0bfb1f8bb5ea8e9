package io.asicemu.testsupport;

import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * tshark as an independent oracle: decodes a capture and returns the requested fields, one row per frame.
 * Values come back as tshark prints them with {@code -T fields}; an absent field is an empty string.
 */
public final class Tshark {
    private Tshark() {}

    /**
     * Decodes {@code pcap} and returns, for each frame matching {@code displayFilter} (null: all frames), the values of
     * {@code fields} in order.
     */
    public static List<List<String>> fields(final Path pcap, final String displayFilter, final String... fields) {
        final List<String> command = new ArrayList<>(List.of(
                "tshark",
                "-n",
                "-r",
                pcap.toString(),
                "-o",
                "ip.check_checksum:TRUE",
                "-o",
                "udp.check_checksum:TRUE",
                "-o",
                "tcp.check_checksum:TRUE",
                "-T",
                "fields",
                "-E",
                "separator=/t",
                "-E",
                "occurrence=a",
                "-E",
                "aggregator=,"));
        if (displayFilter != null) {
            command.add("-Y");
            command.add(displayFilter);
        }
        for (final String field : fields) {
            command.add("-e");
            command.add(field);
        }
        final String out = ProcessRunner.run(null, Duration.ofSeconds(60), command)
                .requireSuccess()
                .stdout();
        final List<List<String>> rows = new ArrayList<>();
        for (final String line : out.split("\n", -1)) {
            if (line.isEmpty()) {
                continue;
            }
            final List<String> row = new ArrayList<>(Arrays.asList(line.split("\t", -1)));
            while (row.size() < fields.length) {
                row.add("");
            }
            rows.add(row);
        }
        return rows;
    }

    /** The one-line summaries tshark prints for each frame (for failure messages). */
    public static String summary(final Path pcap) {
        return ProcessRunner.run(null, Duration.ofSeconds(60), List.of("tshark", "-n", "-r", pcap.toString()))
                .requireSuccess()
                .stdout();
    }
}
