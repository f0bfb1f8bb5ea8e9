package io.asicemu.switchd;

import io.asicemu.pipeline.config.ConfigDb;
import io.asicemu.pipeline.replay.Replay;
import io.asicemu.pipeline.table.PipelineSizing;
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
@Command(
        name = "demo",
        mixinStandardHelpOptions = true,
        description = "Replay the bundled RoCEv2 captures (64 low-entropy queue pairs over a 4-way ECMP route, a 2:1 "
                + "incast into a 100G port) through the switch and print its counters.")
final class DemoCommand implements Callable<Integer> {
    static final String RESOURCE_DIR = "/io/asicemu/switchd/demo/";
    static final List<String> INPUT_PORTS = List.of("Ethernet0", "Ethernet8", "Ethernet12");
    static final List<String> UPLINKS = List.of("Ethernet8", "Ethernet12", "Ethernet16", "Ethernet20");

    @Option(
            names = "--out-dir",
            paramLabel = "DIR",
            description = "where inputs and outputs go (default: a new " + "folder under the system temp directory)")
    private Path outDir;

    @CommandLine.Spec
    private CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws IOException {
        final Path dir = outDir != null ? outDir : Files.createTempDirectory("asic-emu-demo-");
        try {
            return demo(dir);
        } finally {
            if (outDir == null) {
                deleteTree(dir); // ~29 MB of captures per run otherwise stay in the temp folder
            }
        }
    }

    private int demo(final Path dir) throws IOException {
        final PrintWriter out = spec.commandLine().getOut();
        final Path inputDir = Files.createDirectories(dir.resolve("input"));
        final Path config = extract("config_db.json", inputDir.resolve("config_db.json"), false);
        final Map<String, Path> inputs = new LinkedHashMap<>();
        for (final String port : INPUT_PORTS) {
            inputs.put(port, extract(port + ".pcap.gz", inputDir.resolve(port + ".pcap"), true));
        }
        out.println("asic-emu demo: leaf0 (6 x 100G), config " + config);
        out.println(
                "  Ethernet0  <- h0: 64 RoCEv2 QPs sharing one UDP 5-tuple -> 10.200.0.10 (4-way ECMP), ARP, TTL 1, "
                        + "a truncated frame");
        out.println("  Ethernet8, Ethernet12 <- two spines at line rate -> h1 behind Ethernet4 (2:1 incast, DSCP 3, "
                + "ECT(0))");
        out.println();
        final ConfigDb staticHash = ConfigDb.load(config);
        final Replay.Result fiveTuple =
                Replay.run(staticHash, inputs, dir.resolve("output-static-hash"), PipelineSizing.defaults());
        final Replay.Result enhanced = Replay.run(
                withLoadBalanceMode(staticHash, "enhanced_ecmp"),
                inputs,
                dir.resolve("output"),
                PipelineSizing.defaults());

        out.println("h0's 64 queue pairs on the four uplinks (RoCEv2 frames / distinct QPs per uplink):");
        out.printf(
                "  %-40s %14s %14s %14s %14s%n",
                "SWITCH_HASH|GLOBAL ecmp_lb_mode", UPLINKS.get(0), UPLINKS.get(1), UPLINKS.get(2), UPLINKS.get(3));
        printUplinks(out, "static_hash (5-tuple, SONiC's default)", fiveTuple);
        printUplinks(out, "enhanced_ecmp (5-tuple + BTH dest QP)", enhanced);
        out.println();
        out.println("Counters with enhanced_ecmp (COUNTERS_DB names; non-zero only):");
        out.print(Replay.render(enhanced));
        out.println();
        out.println("What each port sent (read back from its output capture by the parser):");
        out.printf(
                "  %-11s %8s %8s %6s %8s %6s %12s%n",
                "port", "frames", "RoCEv2", "QPs", "ECN CE", "PFC", "duration us");
        for (final Map.Entry<String, Path> output : enhanced.outputs().entrySet()) {
            final CaptureSummary s = CaptureSummary.of(output.getValue());
            out.printf(
                    "  %-11s %8d %8d %6d %8d %6d %12.3f%n",
                    output.getKey(),
                    s.frames(),
                    s.roceFrames(),
                    s.distinctQps(),
                    s.ceMarked(),
                    s.pfcFrames(),
                    (s.lastNs() - s.firstNs()) / 1e3);
        }
        out.println();
        out.println("Virtual time " + (enhanced.endNs() - firstInputNs(inputs)) / 1e3 + " us in " + enhanced.cycles()
                + " duty cycles. "
                + (outDir != null
                        ? "Captures (open them in Wireshark): " + dir.resolve("output")
                        : "Captures removed on exit; keep them with --out-dir DIR."));
        out.flush();
        return 0;
    }

    private static void printUplinks(final PrintWriter out, final String label, final Replay.Result result) {
        out.printf("  %-40s", label);
        for (final String uplink : UPLINKS) {
            final CaptureSummary s = CaptureSummary.of(result.outputs().get(uplink));
            out.printf(" %14s", s.roceFrames() + " / " + s.distinctQps());
        }
        out.println();
    }

    /** The same configuration with {@code SWITCH_HASH|GLOBAL ecmp_lb_mode} set (our extension, ars-flowlet). */
    static ConfigDb withLoadBalanceMode(final ConfigDb db, final String mode) {
        final Map<String, Map<String, Map<String, String>>> tables = new LinkedHashMap<>(db.tables());
        final Map<String, Map<String, String>> switchHash = new LinkedHashMap<>(db.table("SWITCH_HASH"));
        final Map<String, String> global = new LinkedHashMap<>(switchHash.getOrDefault("GLOBAL", Map.of()));
        global.put("ecmp_lb_mode", mode);
        switchHash.put("GLOBAL", global);
        tables.put("SWITCH_HASH", switchHash);
        return new ConfigDb(tables);
    }

    /** Removes a directory tree this command created (never follows symbolic links out of it). */
    static void deleteTree(final Path dir) throws IOException {
        if (!Files.exists(dir, java.nio.file.LinkOption.NOFOLLOW_LINKS)) {
            return;
        }
        try (java.util.stream.Stream<Path> walk = Files.walk(dir)) {
            for (final Path p : walk.sorted(java.util.Comparator.reverseOrder()).toList()) {
                Files.deleteIfExists(p);
            }
        }
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
