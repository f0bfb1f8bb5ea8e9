package io.asicemu.switchd;

import io.asicemu.pipeline.replay.Replay;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintWriter;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import java.util.zip.GZIPInputStream;
import picocli.CommandLine;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/**
 * {@code demo}: the main job until the veth lab exists. Replays the bundled captures (built by scapy, see
 * {@code demo/make_demo_pcaps.py}) through leaf0 of the bundled config_db.json in virtual time, then prints the
 * switch's counters and what each port sent, read back from its output capture.
 */
@Command(name = "demo", mixinStandardHelpOptions = true,
    description = "Replay the bundled RoCEv2 captures (64 low-entropy queue pairs over a 4-way ECMP route, a 2:1 "
        + "incast into a 100G port) through the switch and print its counters.")
final class DemoCommand implements Callable<Integer> {
    static final String RESOURCE_DIR = "/io/asicemu/switchd/demo/";
    static final List<String> INPUT_PORTS = List.of("Ethernet0", "Ethernet8", "Ethernet12");

    @Option(names = "--out-dir", paramLabel = "DIR", description = "where inputs and outputs go (default: a new "
        + "folder under the system temp directory)")
    private Path outDir;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final Path dir = outDir != null ? outDir : Files.createTempDirectory("asic-emu-demo-");
        final Path inputDir = Files.createDirectories(dir.resolve("input"));
        final Path config = extract("config_db.json", inputDir.resolve("config_db.json"), false);
        final Map<String, Path> inputs = new LinkedHashMap<>();
        for (final String port : INPUT_PORTS) {
            inputs.put(port, extract(port + ".pcap.gz", inputDir.resolve(port + ".pcap"), true));
        }
        out.println("asic-emu demo: leaf0 (6 x 100G), config " + config);
        out.println("  Ethernet0  <- h0: 64 RoCEv2 QPs sharing one UDP 5-tuple -> 10.200.0.10 (4-way ECMP), ARP, TTL 1, "
            + "a truncated frame");
        out.println("  Ethernet8, Ethernet12 <- two spines at line rate -> h1 behind Ethernet4 (2:1 incast, DSCP 3, "
            + "ECT(0))");
        out.println();
        final Replay.Result result = Replay.run(config, inputs, dir.resolve("output"));
        out.println("Counters (COUNTERS_DB names; non-zero only):");
        out.print(Replay.render(result.counters()));
        out.println();
        out.println("What each port sent (read back from its output capture by the parser):");
        out.printf("  %-11s %8s %8s %6s %8s %6s %12s%n", "port", "frames", "RoCEv2", "QPs", "ECN CE", "PFC",
            "duration us");
        for (final Map.Entry<String, Path> output : result.outputs().entrySet()) {
            final CaptureSummary s = CaptureSummary.of(output.getValue());
            out.printf("  %-11s %8d %8d %6d %8d %6d %12.3f%n", output.getKey(), s.frames(), s.roceFrames(),
                s.distinctQps(), s.ceMarked(), s.pfcFrames(), (s.lastNs() - s.firstNs()) / 1e3);
        }
        out.println();
        out.println("Virtual time " + (result.endNs() - firstInputNs(inputs)) / 1e3 + " us in " + result.cycles()
            + " duty cycles. Captures (open them in Wireshark): " + result.outputs().values().iterator().next()
            .getParent());
        out.flush();
        return 0;
    }

    private static long firstInputNs(final Map<String, Path> inputs) {
        long first = Long.MAX_VALUE;
        for (final Path input : inputs.values()) {
            final CaptureSummary s = CaptureSummary.of(input);
            if (s.frames() > 0) {
                first = Math.min(first, s.firstNs());
            }
        }
        return first;
    }

    private static Path extract(final String resource, final Path target, final boolean gunzip) {
        try (InputStream raw = DemoCommand.class.getResourceAsStream(RESOURCE_DIR + resource)) {
            if (raw == null) {
                throw new IllegalStateException("the jar lacks the demo resource " + resource);
            }
            try (InputStream in = gunzip ? new GZIPInputStream(raw) : raw) {
                Files.copy(in, target, StandardCopyOption.REPLACE_EXISTING);
            }
            return target;
        } catch (final IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
